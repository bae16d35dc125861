"""The GUI thread's garbage collections are held while a corpus is read (segviz.app.gui_gc): a reading thread's
millions of long-lived objects would otherwise be walked by young passes every second and all at once by a
generation-1 pass, a freeze of seconds on 10^6 sentences (docs/benchmarks.md)."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI_DIR = ROOT / "sample_corpora" / "choi"


def test_a_held_collector_collects_nothing_and_a_release_restores_it(window):
    from segviz.app import gui_gc

    collector = gui_gc.collect_on_gui_thread()
    gc.collect()
    hold = gui_gc.held_while_reading().hold()
    junk = [[i] for i in range(50_000)]   # tracked objects: the young generation's count goes far over its threshold
    collector.check()
    assert gc.get_count()[0] > collector.threshold[0]   # held: no pass ran
    hold.release()
    hold.release()   # once only
    assert collector.holds == 0
    collector.check()
    assert gc.get_count()[0] <= collector.threshold[0]   # released: the young pass ran
    del junk


def test_opening_a_corpus_holds_collections_until_it_is_read(window, qtbot):
    from segviz.app import gui_gc

    collector = gui_gc.collect_on_gui_thread()
    seen = []
    window.corpusLoaded.connect(lambda *_: seen.append(collector.holds))
    assert window.open_corpus(str(CHOI_DIR))
    assert collector.holds == 1            # while the reading runs
    qtbot.waitUntil(lambda: bool(seen), timeout=120000)
    assert seen == [0]                     # released before the corpus is shown
    qtbot.waitUntil(lambda: not window.busy, timeout=120000)
    assert collector.holds == 0


def test_a_failed_open_releases_the_hold(window, qtbot, tmp_path):
    from segviz.app import gui_gc

    collector = gui_gc.collect_on_gui_thread()
    bad = tmp_path / "bad.ref"
    bad.write_bytes(b"\xff\xfe\x00garbage" * 10)
    with qtbot.waitSignal(window.corpusFailed, timeout=120000):
        window.open_corpus(str(bad))
    qtbot.waitUntil(lambda: not window.busy, timeout=120000)
    assert collector.holds == 0
