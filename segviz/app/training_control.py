"""The main window's background work: worker lifecycle, the status-bar progress, and feature-induction control.

:class:`TrainingControl` is composed by :class:`~segviz.app.main_window.MainWindow` (``window.training``).  It
runs every long task of the window in a :class:`~segviz.app.worker.GeneratorWorker` (peer segmenters, applying a
model, training), tracks them until they finish, and drives the shared progress bar, stage label and Cancel
button.  Training -- the language models, then greedy feature induction for the exponential model (paper
Section 4), one feature per round -- is wired to the feature panel's Train/Step/Run/Pause/Stop buttons; every
round's feature goes to the table and its curve to the block view as it arrives.
"""
from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton

from ..errors import SegvizError
from ..events import Progress
from . import engine
from .worker import GeneratorWorker


class TrainingControl:
    """Workers, progress and training for ``window`` (a :class:`~segviz.app.main_window.MainWindow`).

    The window adds :attr:`stage_label`, :attr:`progress` and :attr:`cancel_button` to its status bar.
    """

    def __init__(self, window):
        self.window = window
        self.workers: set[GeneratorWorker] = set()
        self.training_worker: GeneratorWorker | None = None
        self.closing = False   # the window was asked to close while workers ran: close once the last one ends
        self.stage_label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setObjectName("progressBar")
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelButton")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_all)

    # -- workers ----------------------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return bool(self.workers)

    def start_worker(self, worker: GeneratorWorker, *, on_event: Callable | None = None,
                     on_result: Callable | None = None, on_error: Callable | None = None,
                     show_progress: bool = True) -> GeneratorWorker:
        """Start ``worker`` with its signals wired; the window tracks it until it finishes."""
        win = self.window
        guard = self.alive_only
        if on_event is not None:
            worker.yielded.connect(guard(on_event))
        worker.yielded.connect(guard(self._progress_event))
        if on_result is not None:
            worker.returned.connect(guard(on_result))
        worker.errored.connect(guard(on_error or (lambda msg: win.show_error("segviz", msg))))
        worker.finished.connect(guard(lambda w=worker: self._worker_finished(w)))
        self.workers.add(worker)
        if show_progress:
            self.progress.setVisible(True)
            self.progress.setRange(0, 0)
            self.cancel_button.setVisible(True)
        win.busyChanged.emit(True)
        worker.start()
        return worker

    def alive_only(self, fn: Callable) -> Callable:
        """Wrap a slot so a late queued signal after the window was destroyed is dropped, not an error."""
        def call(*args):
            if shiboken6.isValid(self.window):
                fn(*args)
        return call

    def _progress_event(self, event) -> None:
        if isinstance(event, Progress):
            self.stage_label.setText(event.stage)
            if event.total > 0:
                self.progress.setRange(0, event.total)
                self.progress.setValue(event.done)
            else:
                self.progress.setRange(0, 0)

    def _worker_finished(self, worker: GeneratorWorker) -> None:
        win = self.window
        self.workers.discard(worker)
        worker.deleteLater()
        if worker is self.training_worker:
            self.training_worker = None
            win.update_actions()
        if not self.workers:
            self.progress.setVisible(False)
            self.cancel_button.setVisible(False)
            self.stage_label.setText("")
            win.busyChanged.emit(False)
            if self.closing:
                win.close()

    def cancel_all(self) -> None:
        for worker in list(self.workers):
            worker.abort()

    def when_idle(self, callback: Callable[[], None], *, timeout_s: float = 600.0) -> None:
        """Call ``callback`` once no worker is running (used by ``--screenshot``)."""
        deadline = [timeout_s * 1000.0]

        def check():
            if not self.workers or deadline[0] <= 0:
                QTimer.singleShot(150, callback)  # let the last updates paint
            else:
                deadline[0] -= 100
                QTimer.singleShot(100, check)
        QTimer.singleShot(0, check)

    # -- training ---------------------------------------------------------------------------------------------
    def start_training(self, n_features: int = 30, *, step: bool = False) -> GeneratorWorker | None:
        """Train LMs + induce features on this corpus in a worker; the curve and table update every round."""
        win = self.window
        state = win.state
        if self.training_worker is not None:
            return None
        if state.corpus is None:
            win.show_error("Cannot train", "open a corpus first")
            return None
        try:
            make = engine.training_process if win.train_in_process else engine.training_session
            factory = make(state.corpus, n_features=int(n_features), **win.training_params)
        except SegvizError as exc:
            win.show_error("Cannot train", str(exc))
            return None
        corpus = state.corpus
        state.reset_rounds()
        train_part = engine.split_for_training(corpus)[0]
        n_train = len(train_part)
        win.heldout_start = int(train_part.n_sentences)
        state.model_note = (f"model trained on documents 1-{n_train} of this corpus (the rest held out): "
                            "its scores here are partly in-sample")
        worker = GeneratorWorker(factory, is_step=engine.is_feature_event, name="training")
        if hasattr(factory, "should_stop"):
            factory.should_stop = lambda: worker.is_aborted   # lets a cancel interrupt the child mid-round
        if step:
            worker.step()
        self.training_worker = worker
        worker.paused.connect(self.alive_only(lambda _p: win.update_actions()))

        def on_event(event):
            if state.corpus is not corpus:
                return
            if isinstance(event, engine.RelevanceReady):
                state.relevance = event.relevance
                state.relevance_profile = event.profile
                if state.probabilities is not None:
                    state.set_probabilities(state.probabilities, event.relevance, event.profile)
                else:
                    win.block_view.refresh_probabilities()
                    win.profile.refresh()
            elif isinstance(event, engine.CurveUpdate):
                # the round's feature first (table), then its curve: one FeatureAdded -> one row + one redraw
                state.add_round(event.added)
                if event.alpha is not None:
                    state.alpha = float(event.alpha)
                    state.epsilon = int(event.epsilon)
                state.set_probabilities(event.probabilities)
                win.features.status.setText(f"round {event.added.round}: gain {event.added.gain:.3g}")
                win.roundShown.emit(int(event.added.round))

        def on_result(segmenter):
            if state.corpus is corpus and segmenter is not None:
                state.set_segmenter(segmenter, None)
                win.update_actions()
            win.trainingFinished.emit("done")

        def on_error(msg):
            win.show_error("Training failed", msg)
            win.trainingFinished.emit(msg)

        def on_aborted():
            # Stop keeps what was learned: the model of the last finished round, tuned on the held-out part
            partial = getattr(factory, "partial", None)
            session = getattr(factory, "session", None)
            if state.corpus is corpus and state.rounds:
                try:
                    if partial is None and session is not None and session.is_fitted:
                        partial = session
                except Exception as exc:  # e.g. stopped before the first round: nothing to keep
                    win.info_label.setText(f"stopped; no model kept ({exc})")
                if partial is not None:
                    state.set_segmenter(partial, None)
                win.update_actions()
            win.trainingFinished.emit("cancelled")

        worker.aborted.connect(self.alive_only(on_aborted))
        self.start_worker(worker, on_event=on_event, on_result=on_result, on_error=on_error)
        win.update_actions()
        return worker

    def step_training(self) -> None:
        if self.training_worker is None:
            self.start_training(self.window.features.n_features.value(), step=True)
        else:
            self.training_worker.step()
        self.window.update_actions()

    def run_training(self) -> None:
        if self.training_worker is not None:
            self.training_worker.resume()
        self.window.update_actions()

    def pause_training(self) -> None:
        if self.training_worker is not None:
            self.training_worker.pause()

    def stop_training(self) -> None:
        if self.training_worker is not None:
            self.training_worker.abort()

    def cancel_training(self) -> None:
        self.stop_training()
