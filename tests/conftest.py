"""Test configuration shared by the whole suite.

* Qt runs offscreen (no display needed); set before any Qt import.
* ``SHARED_CORPORA`` points at ``../shared/corpora`` beside the project; tests that need it use the
  ``shared_corpora`` fixture, which skips with a reason when it is absent.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_corpora"
SHARED_CORPORA = ROOT.parent / "shared" / "corpora"


@pytest.fixture
def shared_corpora() -> Path:
    if not SHARED_CORPORA.is_dir():
        pytest.skip(f"needs the shared corpora at {SHARED_CORPORA} (absent on this machine)")
    return SHARED_CORPORA


@pytest.fixture
def sample_dir() -> Path:
    return SAMPLE


@pytest.fixture(autouse=True)
def collect_garbage_between_tests():
    """Once a Qt test has switched automatic collection off (segviz.app.gui_gc, as the app does), collect after
    every test, outside any Qt call: garbage must not pile up in tests that never run an event loop."""
    import gc

    yield
    if not gc.isenabled():
        gc.collect()


@pytest.fixture
def fork_allowed(monkeypatch):
    """Lets the tests of the two-process paths fork in this test process, which may still hold other tests' idle
    threads (Dask keeps its IO loop and offload threads for the life of a process).  The rule itself -- no fork
    beside a busy thread -- is tested in test_forking.py."""
    from segviz.features import parallel
    from segviz.service import forked_worker

    monkeypatch.setattr(parallel, "fork_is_safe", lambda: True)
    monkeypatch.setattr(forked_worker, "fork_is_safe", lambda: True)
