"""Run the engine's event generators on a QThread (the superqt pattern, with a Step mode).

The engine does long work as plain generators that yield small frozen events (:class:`segviz.events.Progress`,
``FeatureAdded``...).  :class:`GeneratorWorker` drives one such generator on its own thread, turns every yield into
the ``yielded`` signal, and checks between yields whether to stop (``abort``) or wait (``pause``/``step``).  Work
that never yields cannot be cancelled, which is why the engine yields at least once per induction round.

Step mode (the feature panel's **Step** button): the worker runs until the next event for which ``is_step(event)``
is true -- one induced feature -- delivers it, then pauses until ``step()``, ``resume()`` or ``abort()``.
**Pause** stops at the next such event, or at once when the last event delivered was one.  With ``lockstep``
the worker asks the generator for the next event only after the GUI has handled the previous one, so at most
one round is ever computed beyond what the window shows and Pause never overshoots.
"""
from __future__ import annotations

import sys
import threading
import traceback
import weakref
from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import QThread, QTimer, Signal

from ..errors import SegvizError


class GeneratorWorker(QThread):
    """Drive ``factory()`` (a generator) on a worker thread.

    Signals
    -------
    yielded(object)   every event the generator yields, in order
    returned(object)  the generator's return value, after it finished normally
    errored(str)      a one-line message when it raised (SegvizError's message as is)
    aborted()         it stopped because :meth:`abort` was called
    paused(bool)      entered (True) / left (False) the paused state
    QThread.finished  always last
    """

    #: every worker ever created and still alive (tests fail when one is left running)
    instances: weakref.WeakSet[GeneratorWorker] = weakref.WeakSet()

    yielded = Signal(object)
    returned = Signal(object)
    errored = Signal(str)
    aborted = Signal()
    paused = Signal(bool)

    def __init__(self, factory: Callable[[], Generator[Any, None, Any]], *,
                 is_step: Callable[[Any], bool] | None = None, name: str = "work", max_pending: int = 4,
                 lockstep: bool = False, on_abort: Callable[[], None] | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName(f"segviz-{name}")
        self._factory = factory
        self._is_step = is_step or (lambda event: False)
        self._cond = threading.Condition()
        self._abort = False
        self._paused = False
        self._stepping = False
        self._at_step = False          # the last event delivered was a step event (a round boundary)
        self._lockstep = bool(lockstep)
        self._on_abort = on_abort      # e.g. a training job's cancel, which ends its child process at once
        self.result: Any = None
        self.error: str | None = None
        # set just before the last signal (returned, errored or aborted): from then on the thread only exits, so a
        # worker that is still running but ended has left nothing undone
        self.ended = False
        # Back-pressure: at most ``max_pending`` yielded events may wait in the GUI's queue.  A generator that
        # yields faster than the GUI redraws would otherwise flood the event loop (and a cancel would sit
        # behind thousands of queued events).
        self._slots = threading.Semaphore(1 if lockstep else max_pending)
        GeneratorWorker.instances.add(self)

    def start(self, *args) -> None:
        # connected last, so the acknowledgement runs after every handler connected before start()
        self.yielded.connect(self._acknowledge)
        super().start(*args)

    def _acknowledge(self, _event) -> None:
        # Released from a zero-timer, not here: Qt keeps delivering posted events while new ones arrive, so a
        # producer refilled from inside that delivery could starve timers and input.  The timer runs after the
        # queue drained, giving paint, input and timers their turn between events.
        QTimer.singleShot(0, self._slots.release)
    # -- control (any thread) -------------------------------------------------------------------------------
    def abort(self) -> None:
        with self._cond:
            self._abort = True
            self._cond.notify_all()
        if self._on_abort is not None:
            self._on_abort()

    def pause(self) -> None:
        with self._cond:
            self._stepping = True   # pause at the next round boundary, not mid-round

    def resume(self) -> None:
        with self._cond:
            self._stepping = False
            self._paused = False
            self._cond.notify_all()

    def step(self) -> None:
        """Continue until one more step event (one more feature) has been delivered, then pause."""
        with self._cond:
            self._stepping = True
            self._paused = False
            self._at_step = False     # one more round, even when standing at a boundary
            self._cond.notify_all()

    @property
    def is_aborted(self) -> bool:
        return self._abort

    @property
    def is_paused(self) -> bool:
        return self._paused

    # -- thread body ----------------------------------------------------------------------------------------
    def run(self) -> None:  # noqa: D401 - QThread API
        gen = None
        try:
            gen = self._factory()
            while True:
                if self._lockstep:
                    # the GUI has handled everything delivered so far before the next event is computed
                    while not self._slots.acquire(timeout=0.05):
                        if self._abort:
                            break
                    self._slots.release()
                with self._cond:
                    if self._stepping and self._at_step:
                        self._paused = True     # Pause pressed at a round boundary: stop right here
                if self._wait_if_paused():
                    gen.close()
                    self._end(self.aborted)
                    return
                try:
                    event = next(gen)
                except StopIteration as stop:
                    if self._abort:   # the generator noticed the cancel itself and returned early
                        self._end(self.aborted)
                        return
                    self.result = stop.value
                    self._end(self.returned, stop.value)
                    return
                while not self._slots.acquire(timeout=0.05):
                    if self._abort:
                        break
                if self._abort:
                    continue   # the loop's pause check ends the run; nothing more reaches the GUI
                step = bool(self._is_step(event))
                with self._cond:
                    self._at_step = step
                    if step and self._stepping:
                        self._paused = True
                self.yielded.emit(event)
        except SegvizError as exc:
            self.error = str(exc)
            self._end(self.errored, self.error)
        except Exception as exc:  # the app must survive any engine failure; the traceback goes to stderr
            traceback.print_exc(file=sys.stderr)
            self.error = f"{exc.__class__.__name__}: {exc}"
            self._end(self.errored, self.error)

    def _end(self, signal, *args) -> None:
        """Emit the last signal of the run, marked ended first (the GUI may act on it before this thread exits)."""
        self.ended = True
        signal.emit(*args)

    def _wait_if_paused(self) -> bool:
        """Block while paused; True when the work should stop."""
        with self._cond:
            if self._paused and not self._abort:
                self.paused.emit(True)
                while self._paused and not self._abort:
                    self._cond.wait()
                if not self._abort:
                    self.paused.emit(False)
            return self._abort
