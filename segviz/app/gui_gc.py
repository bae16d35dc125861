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

__all__ = ["collect_on_gui_thread", "held_while_reading"]

#: seconds between checks of the generation counts
CHECK_INTERVAL_S = 1.0


class _GuiCollector(GarbageCollector):
    """pyqtgraph's collector, held while a corpus is being read.

    A reading thread allocates millions of long-lived objects (a 10^6-sentence corpus: tens of millions) that
    the young passes would walk and promote, each second, until a generation-1 pass walked all of them at once
    on the GUI thread: a 1.3-2.2 s freeze at the end of the reading.  They hold no reference cycles and are
    taken out of the collector's reach when each file is read (``gc.freeze`` in :func:`segviz.app.tasks.
    read_corpus_task`), so while a reading runs there is nothing for a pass to do but walk them."""

    def __init__(self, interval: float):
        self.holds = 0
        super().__init__(interval=interval)

    def check(self):
        if self.holds == 0:
            super().check()


_collector: _GuiCollector | None = None


def collect_on_gui_thread() -> GarbageCollector:
    """Switch automatic collection off and collect from a GUI-thread timer (idempotent; needs a QApplication)."""
    global _collector
    if _collector is None:
        _collector = _GuiCollector(CHECK_INTERVAL_S)
    gc.disable()   # again, should anything have switched it back on
    return _collector


class held_while_reading:
    """A hold on the GUI thread's collections while a corpus is read (``hold()``, then ``release()`` once, from
    the GUI thread; without :func:`collect_on_gui_thread` there is nothing to hold)."""

    def __init__(self):
        self._held = False

    def hold(self) -> "held_while_reading":
        if _collector is not None and not self._held:
            self._held = True
            _collector.holds += 1
        return self

    def release(self) -> None:
        if self._held and _collector is not None:
            self._held = False
            _collector.holds -= 1
