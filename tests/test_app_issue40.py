"""The window as a user lives it on a large corpus (issue 40), offscreen: peers only when checked, a close that starts
nothing, and the rough edges -- Ctrl+E from a number box, the counts the status bar and the toolbar give, the
rule panel while a model waits for its corpus, the segment count's column, the zoomed-out relevance trace, where
the relevance label stands, the selection line of the last corpus, a folder's notes and subfolders, a book asked
for that has no headings.  Timings are the benchmark's (benchmarks/bench_app.py), never a test's."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from segviz.app.block_view import bin_spread  # noqa: E402
from segviz.app.panels import SEGMENTS_COLUMN, segment_count_text  # noqa: E402
from segviz.corpus import read_corpus  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
CHOI2 = ROOT / "sample_corpora" / "choi" / "3-11_1.ref"
SAMPLE = ROOT / "sample_corpora" / "reuters_sample.sgm"
DEFAULT_MODEL = ROOT / "resources" / "default_model.segviz"


def opened(win, qtbot, paths, *, model: bool = False, **options):
    """``paths`` shown (with the bundled default model applied when ``model``), every background job done."""
    if not model:
        win.default_model = None
    with qtbot.waitSignal(win.corpusLoaded, timeout=300000):
        assert win.open_corpus(paths, **options)
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


def with_curve(win, qtbot, paths=str(CHOI), seed=0):
    opened(win, qtbot, paths)
    rng = np.random.default_rng(seed)
    win.state.set_probabilities(rng.random(win.state.n_sentences - 1) ** 3)
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


# -- the peers run only when checked ----------------------------------------------------------------------------

def test_a_peer_runs_only_when_its_box_is_checked_and_stops_when_unchecked(window, qtbot, monkeypatch):
    from segviz.app import main_window

    started = []
    real = main_window.PeersJob

    def spy(names, *args, **kwargs):
        started.append(tuple(names))
        return real(names, *args, **kwargs)

    monkeypatch.setattr(main_window, "PeersJob", spy)
    with_curve(window, qtbot)
    checks = window.decision.peer_checks
    assert not any(check.isChecked() for check in checks.values()) and started == []   # none checked, none ran
    window.compute_peers()          # what the window does once a model is shown: nothing to run
    assert started == [] and not window.background.is_running("peers:c99")
    checks["c99"].setChecked(True)
    assert started == [("c99",)] and window.background.is_running("peers:c99")
    checks["c99"].setChecked(False)   # hidden while it runs: cancelled
    assert not window.background.is_running("peers:c99")
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert "c99" not in window.state.peer_masses and "c99" not in window.block_view.peer_rows


def test_the_peer_boxes_say_what_runs(qtbot, app_settings, no_leaked_workers):  # noqa: F811
    """Peers wanted in the settings are checked before anything is computed (they were unchecked while they ran)."""
    from segviz.app.main_window import MainWindow

    app_settings.setValue("peers/shown", ["texttiling"])
    win = MainWindow(settings=app_settings)
    qtbot.addWidget(win)
    assert win.decision.peer_checks["texttiling"].isChecked() and not win.decision.peer_checks["c99"].isChecked()


# -- a close starts nothing -------------------------------------------------------------------------------------

def test_a_close_during_the_relevance_job_starts_no_other_job(window, qtbot, monkeypatch):
    """Closing while the general-English relevance is computed cancels it, and what would have followed it (the
    feature columns, the peers) never starts: the window ends by its normal path."""
    started = []   # (task, whether the window was closing) of every job that did start
    real = window.background.start

    def spy(name, *args, **kwargs):
        closing = window.background.closing
        worker = real(name, *args, **kwargs)
        if worker is not None:
            started.append((name, closing))
        return worker

    monkeypatch.setattr(window.background, "start", spy)
    window.toggle_peer("texttiling", True)
    with qtbot.waitSignal(window.curveShown, timeout=300000):
        assert window.open_corpus(str(SAMPLE))
    qtbot.waitUntil(lambda: window.background.is_running("relevance (general LMs)"), timeout=300000)
    with qtbot.waitSignal(window.closed, timeout=300000):
        window.close()
    assert started and not [name for name, closing in started if closing], started
    assert real("late", lambda: iter(())) is None   # refused once closing
    assert "texttiling" not in window.state.peer_masses


# -- the rough edges --------------------------------------------------------------------------------------------

def test_ctrl_e_exports_the_plot_from_a_number_box(window, qtbot, monkeypatch):
    """Under X11's key bindings a number box's line edit takes Ctrl+E ("end of line") before the window's
    shortcut sees it (offscreen it does not: a box here does what X11's does); the window's key filter on its
    number boxes lets the window's own Ctrl shortcuts through, and PgUp/PgDn still page the box."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QSpinBox

    class X11Box(QSpinBox):
        def event(self, event):
            if event.type() == QEvent.ShortcutOverride and \
                    QKeySequence(event.keyCombination()) == QKeySequence("Ctrl+E"):
                event.accept()   # QWidgetLineControl under the X11 scheme: MoveToEndOfLine
                return True
            return super().event(event)

    with_curve(window, qtbot)
    called = []
    window.export_plot_action.triggered.disconnect()
    window.export_plot_action.triggered.connect(lambda: called.append(True))
    window.activateWindow()
    bare, filtered = X11Box(), X11Box()
    filtered.installEventFilter(window._page_keys)
    for box in (bare, filtered):
        window.addToolBar("test").addWidget(box)
        box.setFocus()
        qtbot.waitUntil(box.hasFocus, timeout=5000)
        QTest.keyClick(box, Qt.Key_E, Qt.ControlModifier)
    assert called == [True]   # the bare box ate it; the filtered one let the window have it
    # the page keys still page the box, not the blocks
    block = window.block_view.block
    QTest.keyClick(filtered, Qt.Key_PageUp)
    assert window.block_view.block == block and filtered.value() == 10


def test_the_status_bar_and_the_toolbar_count_alike(window, qtbot):
    """A document is a source unit (a Choi file): the status bar, the rule panel and the plan count files; the
    toolbar's box numbers the reference's segments and says so."""
    with_curve(window, qtbot, [str(CHOI), str(CHOI2)])
    corpus = read_corpus([str(CHOI), str(CHOI2)])
    assert "2 documents" in window.info_label.text() and len(window.state.units) == 2
    assert window.doc_spin.maximum() == len(corpus) == 20
    label = window.doc_spin.parentWidget().findChildren(type(window.block_count))
    assert any(w.text().strip() == "segment" for w in label) and not any(w.text().strip() == "document" for w in label)


def test_the_rule_panel_shows_no_other_experts_rule_while_the_model_waits_for_its_corpus(window, qtbot):
    """``segviz gui CORPUS`` opens the bundled model with the corpus: the panels wait for the expert that answers
    for that corpus instead of showing the router's last expert (the chapters expert) and then switching."""
    if not DEFAULT_MODEL.is_file():
        pytest.skip("the default model is absent")
    from segviz.models import load_model

    shown = []
    window.session.modelChanged.connect(lambda: shown.append(window.state.shown_expert))
    with qtbot.waitSignal(window.curveShown, timeout=300000):
        assert window.open_corpus(str(SAMPLE))
        # the model arrives while the corpus is still being read (as `segviz gui CORPUS` opens both)
        assert window.background.is_running("open") and window.state.corpus is None
        assert window.apply_model(load_model(DEFAULT_MODEL), str(DEFAULT_MODEL))
        assert window.state.opened_model is None and window.model_control.pending is not None
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert window.state.shown_expert == "mixed"
    assert set(shown) <= {None, "mixed"}, shown


def test_the_segment_count_column_is_never_cut(window, qtbot):
    from PySide6.QtWidgets import QHeaderView

    assert segment_count_text(236) == "236" and segment_count_text(36_395) == "36,395"
    assert segment_count_text(236_412) == "236.4k" and segment_count_text(999_949) == "999.9k"
    assert segment_count_text(999_999) == "1.00M" and segment_count_text(1_000_000) == "1.00M"
    header = window.decision.table.horizontalHeader()
    assert header.sectionResizeMode(SEGMENTS_COLUMN) == QHeaderView.ResizeToContents
    with_curve(window, qtbot)
    text = window.decision.metric_text("all", "hypothesis_segments")
    metrics = window.decision.table.fontMetrics()
    assert header.sectionSize(SEGMENTS_COLUMN) >= metrics.horizontalAdvance(text)


def test_the_zoomed_out_relevance_is_its_mean_spread_and_range_per_pixel_column():
    rng = np.random.default_rng(1)
    values = rng.normal(0, 1, 10_007)
    x, low, high, mean, spread = bin_spread(values, 7, 10_007, 100)
    assert x.size == 100 and np.all(np.diff(x) > 0)
    edges = np.unique(np.linspace(0, 10_000, 101).astype(np.int64))
    for k in (0, 37, 99):
        part = values[7 + edges[k]:7 + edges[k + 1]]
        assert low[k] == part.min() and high[k] == part.max()
        assert mean[k] == pytest.approx(part.mean()) and spread[k] == pytest.approx(part.std())


def test_the_zoomed_out_trace_and_its_label(window, qtbot):
    """Zoomed out, the trace is drawn per pixel column (range, spread, mean), never one bar per sentence; the
    label saying where R comes from stands in the title row above the trace, not over it."""
    with_curve(window, qtbot, str(SAMPLE))   # more sentences than the plot has pixels
    state, view = window.state, window.block_view
    state.set_relevance(np.random.default_rng(0).normal(0, 0.05, state.n_sentences), None, source="general LMs")
    view.zoom_all()
    x, _ = view.rel_mean.getData()
    assert x is not None and 0 < x.size and view.rel_curve.getData()[1].size == 0
    assert view.relevance_note() == "R from general LMs"
    title = view.rel_plot.titleLabel.sceneBoundingRect()
    data = view.rel_plot.vb.sceneBoundingRect()
    assert view.rel_plot.titleLabel.isVisible() and title.bottom() <= data.top() + 1
    view.set_block(0)   # zoomed in again: one step per sentence
    assert view.rel_mean.getData()[0].size == 0 and view.rel_curve.getData()[1].size > 0


def test_the_selection_line_goes_with_its_corpus(window, qtbot):
    with_curve(window, qtbot)
    window.jump_to_sentence(30)
    assert window.block_view.selected.isVisible()
    opened(window, qtbot, str(CHOI2))
    assert not window.block_view.selected.isVisible()


def test_a_folder_says_what_it_did_not_read(window, qtbot, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.ref").write_text(CHOI.read_text())
    (folder / "README.md").write_text("# notes\n\nThese are notes about the data, not data.\n")
    (folder / "more").mkdir()
    (folder / "more" / "b.ref").write_text(CHOI2.read_text())
    opened(window, qtbot, [str(folder)])
    assert window.state.n_sentences == read_corpus(CHOI).n_sentences
    text, tip = window.info_label.text(), window.info_label.toolTip()
    assert "not read: README.md, more/" in text
    assert "README" in tip and "folder" in tip


def test_a_book_asked_for_that_has_no_headings_says_so(window, qtbot, tmp_path):
    from segviz.app.file_actions import reading_options

    text = tmp_path / "plain.txt"
    text.write_text("The harbour froze in December. Boats stayed in.\n\nNobody remembered such a winter.\n")
    opened(window, qtbot, str(text), **reading_options("book"))
    said = window.info_label.text()
    assert "as a book (as asked, no chapter headings found)" in said and "as text" not in said


@pytest.mark.parametrize("state", ["reading", "applying", "relevance", "peers", "training"])
def test_a_close_in_any_state_ends_everything_by_the_normal_path(window, qtbot, state):
    """Closed while it reads, applies, scores relevance, runs a peer or trains, the window closes by its normal
    path (the ``closed`` signal, no forced exit), and once its engine's end has been waited for, no process the
    engine forked and no temporary directory of it is left."""
    import os

    running = window.background.is_running
    in_state = {
        "reading": lambda: running("open"),
        "applying": lambda: window.state.corpus is not None and window.state.probabilities is None
        and (running("apply") or running("apply-early")),
        "relevance": lambda: running("relevance (general LMs)"),
        "peers": lambda: running("peers:texttiling"),
        "training": lambda: window.training.running,
    }[state]
    window.training.params = dict(lm_params=dict(vocab_size=2000, n_triggers=500, trigger_vocab=500, max_iter=2))
    window.toggle_peer("texttiling", True)
    if state == "training":
        with qtbot.waitSignal(window.curveShown, timeout=300000):
            assert window.open_corpus(str(SAMPLE))
        assert window.start_training(5) is not None
    else:
        assert window.open_corpus(str(SAMPLE))
    qtbot.waitUntil(lambda: in_state() and window._engine is not None and window._engine.pid is not None
                    and window._engine.workdir is not None, timeout=300000)
    from segviz.app.tree_memory import descendants

    engine = window._engine
    pid, workdir = engine.pid, engine.workdir
    tree = descendants(pid)   # the engine and whatever it has forked now
    with qtbot.waitSignal(window.closed, timeout=300000):
        window.close()
    from PySide6.QtWidgets import QApplication

    for _ in range(5):   # what was queued before the close runs now: it may start nothing, replace nothing
        QApplication.processEvents()
    assert window._engine is engine and not window.background.running
    assert engine.wait_closed(60)
    assert not Path(workdir).exists()
    assert not [p for p in tree if Path(f"/proc/{p}").exists() and _not_a_zombie(p)]
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)   # the engine led a process group of its own, and nothing of it is left


def _not_a_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_a_deferred_metrics_row_is_scored_off_the_gui_thread(window, qtbot, monkeypatch):
    """On the longest streams a moved rule's metrics row follows the hypothesis (state.DEFER_METRICS_FROM, lowered
    here): it is scored on a thread of its own and taken on the GUI thread only if the hypothesis is still the
    one scored."""
    import threading

    from segviz.app import qt_session
    from segviz.app import state as st
    from segviz.metrics import score_row

    monkeypatch.setattr(st, "DEFER_METRICS_FROM", 10)
    with_curve(window, qtbot)
    state = window.state
    threads = []
    real = qt_session.score_row

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(qt_session, "score_row", spy)
    state.set_alpha(0.3)
    assert state.due_metrics() is not None   # the hypothesis is shown, its row follows
    qtbot.waitUntil(lambda: state.due_metrics() is None, timeout=30000)
    assert threads and threading.main_thread() not in threads
    assert state.metrics["model"] == score_row(state.reference_masses, state.hypothesis_masses)
    stale = state.hypothesis_masses
    state.set_alpha(0.6)
    assert state.hypothesis_masses is not stale and not state.set_due_metrics(stale, {"p_mu": 0.0})
    qtbot.waitUntil(lambda: state.due_metrics() is None, timeout=30000)
    assert state.metrics["model"] == score_row(state.reference_masses, state.hypothesis_masses)


def test_a_peers_metrics_row_is_scored_on_the_worker_thread(window, qtbot, monkeypatch):
    import threading

    from segviz.app import main_window
    from segviz.metrics import score_row

    threads = []
    real = main_window.score_row

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(main_window, "score_row", spy)
    with_curve(window, qtbot)
    with qtbot.waitSignal(window.peersComputed, timeout=300000):
        window.decision.peer_checks["texttiling"].setChecked(True)
    state = window.state
    assert threads and threading.main_thread() not in threads
    assert state.metrics["texttiling"] == score_row(state.reference_masses, state.peer_masses["texttiling"])
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
