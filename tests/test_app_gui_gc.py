"""The cyclic garbage collector runs on the GUI thread between events only (segviz.app.gui_gc): automatic
collection is off, and the timer's check runs a young pass once its generation is over the threshold."""
from __future__ import annotations

import gc

import pytest

pytest.importorskip("pytestqt")

from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401


def test_collection_is_off_until_the_gui_threads_check_runs_it(window):
    from segviz.app import gui_gc

    collector = gui_gc.collect_on_gui_thread()
    assert gui_gc.collect_on_gui_thread() is collector   # one collector per process
    assert not gc.isenabled()
    gc.collect()
    junk = [[i] for i in range(50_000)]   # tracked objects: the young generation's count goes far over its threshold
    assert gc.get_count()[0] > collector.threshold[0]    # nothing collected them on the way
    collector.check()
    assert gc.get_count()[0] <= collector.threshold[0]   # the check ran the young pass
    del junk
