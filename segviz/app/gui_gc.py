"""Python's cyclic garbage collector, run on the GUI thread between events only.

Left automatic, the collector runs whenever an allocation crosses its threshold: on a worker thread, or on the
GUI thread in the middle of a Qt call. PySide6 allocates inside ``QObject::disconnect`` (looking up a Python
override of ``disconnectNotify`` while Qt holds its signal-slot lock); a collection there that frees a cycle
holding a QObject runs ``~QObject``, which waits for the same lock, and the process hangs for good. The window's
plot items (pyqtgraph) form such cycles. So automatic collection is switched off and pyqtgraph's
:class:`~pyqtgraph.util.garbage_collector.GarbageCollector` collects from a timer on the GUI thread, with the
interpreter's own generation thresholds: young generations every second when due, a full pass only when the old
generation has grown (28 ms with a 70,000-sentence corpus in memory; docs/benchmarks.md).
"""
from __future__ import annotations

import gc

from pyqtgraph.util.garbage_collector import GarbageCollector

__all__ = ["collect_on_gui_thread"]

#: seconds between checks of the generation counts
CHECK_INTERVAL_S = 1.0


_collector: GarbageCollector | None = None


def collect_on_gui_thread() -> GarbageCollector:
    """Switch automatic collection off and collect from a GUI-thread timer (idempotent; needs a QApplication)."""
    global _collector
    if _collector is None:
        _collector = GarbageCollector(interval=CHECK_INTERVAL_S)
    gc.disable()   # again, should anything have switched it back on
    return _collector
