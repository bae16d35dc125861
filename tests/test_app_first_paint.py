"""The window's first paint comes in passes: the chrome first, then one plot per event-loop pass, and only then
does the work that would compete with it (reading a corpus) start."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.app_fixtures import app_settings, no_leaked_workers  # noqa: E402,F401


def _plots(win):
    bv = win.block_view
    return [bv.plot, bv.overview, bv.rel_plot, win.features.plots.ci, win.profile.getPlotItem()]


@pytest.fixture
def unshown(qtbot, app_settings, no_leaked_workers):
    from segviz.app.main_window import MainWindow

    win = MainWindow(settings=app_settings)
    qtbot.addWidget(win)
    return win


def test_plots_are_held_back_at_the_first_show_and_revealed_one_per_pass(unshown, qtbot):
    win = unshown
    started = []
    win.after_first_paint(lambda: started.append(True))
    assert all(p.opacity() == 1.0 for p in _plots(win))   # never shown: nothing held
    win.show()
    # the first show holds every plot back (fully transparent: Qt skips it, the layout is unchanged)
    assert all(p.opacity() == 0.0 for p in _plots(win))
    assert not started
    seen = []

    def watch():
        seen.append(sum(p.opacity() == 1.0 for p in _plots(win)))
        if not started:
            from PySide6.QtCore import QTimer
            QTimer.singleShot(0, watch)

    watch()
    qtbot.waitUntil(lambda: bool(started), timeout=300000)
    assert all(p.opacity() == 1.0 for p in _plots(win))
    # revealed one at a time, over several passes
    assert len(set(seen)) >= 4
    # once painted, a callback runs at once
    win.after_first_paint(lambda: started.append("again"))
    assert started[-1] == "again"


def test_an_export_does_not_wait_for_the_passes(unshown, qtbot, tmp_path):
    win = unshown
    win.show()
    started = []
    win.after_first_paint(lambda: started.append(True))
    win.export_plot(str(tmp_path / "early.png"))   # no corpus: refused, but the plots are drawn from now on
    assert all(p.opacity() == 1.0 for p in _plots(win))
    assert started == [True]
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)
