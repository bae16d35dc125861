"""The window's background work: one :class:`~segviz.app.worker.GeneratorWorker` per long step, progress, Cancel.

Every long step of the window (reading, applying a model, peers, tuning, exports, training) is a named task.  A
newer task of the same name supersedes the older one: the older is cancelled and whatever it still delivers is
dropped, so two "apply the model" runs can never race to set the curve.  The status bar shows the latest stage
with a progress bar and a Cancel button; closing the window cancels everything and the window closes for real
once the last worker has ended.
"""
from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton

from ..events import Progress
from .worker import GeneratorWorker


class BackgroundWork(QObject):
    """Named background tasks of ``window`` (a :class:`~segviz.app.main_window.MainWindow`)."""

    busyChanged = Signal(bool)
    allFinished = Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.current: dict[str, GeneratorWorker] = {}   # the live task of each name
        self.running: set[GeneratorWorker] = set()     # every started worker that has not finished (superseded too)
        self.closing = False
        #: steps that finish on the window's thread in later event-loop passes (a model's curve, then its tables):
        #: busy until they are done, so that "idle" means everything is shown
        self.holds: set[str] = set()
        self.stage_label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setObjectName("progressBar")
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelButton")
        self.cancel_button.setToolTip("Stop every step running in the background")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_all)

    @property
    def busy(self) -> bool:
        return bool(self.running) or bool(self.holds)

    def hold(self, name: str) -> None:
        """Count as busy until :meth:`release` (a step that goes on in later event-loop passes)."""
        self.holds.add(name)

    def release(self, name: str) -> None:
        self.holds.discard(name)

    def is_running(self, name: str) -> bool:
        return name in self.current

    def start(self, name: str, factory: Callable, *, on_result: Callable | None = None,
              on_error: Callable | None = None, on_event: Callable | None = None,
              on_aborted: Callable | None = None, on_abort: Callable | None = None,
              is_step: Callable | None = None, lockstep: bool = False, show_progress: bool = True
              ) -> GeneratorWorker | None:
        """Run ``factory()`` (a generator) as task ``name``, superseding a running task of that name; None, and
        nothing started, once the window is closing (a task that ends during the close may not start another)."""
        if self.closing:
            return None
        self.cancel(name)
        worker = GeneratorWorker(factory, name=name, is_step=is_step, lockstep=lockstep, on_abort=on_abort)
        live = self._live_only(worker)
        if on_event is not None:
            worker.yielded.connect(live(on_event))
        if show_progress:
            worker.yielded.connect(live(self._progress_event))
        if on_result is not None:
            worker.returned.connect(live(on_result))
        worker.errored.connect(live(on_error or (lambda msg: self.window.show_error("segviz", msg))))
        if on_aborted is not None:   # runs for a cancelled task too (it is no longer the live one)
            worker.aborted.connect(lambda: on_aborted() if shiboken6.isValid(self.window) else None)
        worker.finished.connect(lambda w=worker: self._finished(w))
        self.current[name] = worker
        self.running.add(worker)
        if show_progress:
            self.progress.setVisible(True)
            self.progress.setRange(0, 0)
            self.cancel_button.setVisible(True)
        if len(self.running) == 1:
            self.busyChanged.emit(True)
        worker.start()
        return worker

    def cancel(self, name: str) -> None:
        worker = self.current.pop(name, None)
        if worker is not None:
            worker.abort()
            worker.resume()

    def cancel_all(self) -> None:
        for name in list(self.current):
            self.cancel(name)

    def _live_only(self, worker: GeneratorWorker) -> Callable[[Callable], Callable]:
        """Wrap a slot so it runs only while ``worker`` is the live task of its name and the window exists."""
        def wrap(fn: Callable) -> Callable:
            def call(*args):
                if shiboken6.isValid(self.window) and worker in self.current.values():
                    fn(*args)
            return call
        return wrap

    def _progress_event(self, event) -> None:
        if isinstance(event, Progress):
            if event.total > 0:
                self.stage_label.setText(event.stage)
                self.progress.setRange(0, event.total)
                self.progress.setValue(event.done)
            else:
                # an end nobody knows (IIS stops on held-out data): a busy bar, and the count done beside the stage
                self.stage_label.setText(f"{event.stage} · {event.done:,}" if event.done > 0 else event.stage)
                self.progress.setRange(0, 0)

    def _finished(self, worker: GeneratorWorker) -> None:
        self.running.discard(worker)
        for name, live in list(self.current.items()):
            if live is worker:
                del self.current[name]
        worker.deleteLater()
        if not shiboken6.isValid(self.window):
            return
        if not self.current:
            self.progress.setVisible(False)
            self.cancel_button.setVisible(False)
            self.stage_label.setText("")
        if not self.running:
            self.busyChanged.emit(False)
            self.allFinished.emit()

    def when_idle(self, callback: Callable[[], None], *, timeout_s: float = 600.0) -> None:
        """Call ``callback`` once no worker is running (used by ``--screenshot``)."""
        deadline = [timeout_s * 1000.0]

        def check():
            if not self.busy or deadline[0] <= 0:
                QTimer.singleShot(150, callback)  # let the last updates paint
            else:
                deadline[0] -= 100
                QTimer.singleShot(100, check)
        QTimer.singleShot(0, check)
