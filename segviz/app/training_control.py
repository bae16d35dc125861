"""Train / Step / Run / Pause / Stop: live feature induction (paper Section 4) on the shown corpus.

:class:`TrainingControl` is composed by :class:`~segviz.app.main_window.MainWindow` (``window.training``).  It
starts a :class:`~segviz.service.training_job.TrainingJob` (language models, then one feature per round, in a child
process) as the background task ``"training"`` and shows each round as it arrives: the feature in the table, its
curve in the block view, the hypothesis and the metrics.  The worker runs in lock-step with the window, so Step
adds exactly one feature and Pause stops at the next round boundary; Stop keeps the model of the last finished
round.
"""
from __future__ import annotations

import shiboken6
from PySide6.QtCore import QTimer

from ..errors import SegvizError
from ..service.general_relevance import TASK as GENERAL_RELEVANCE
from ..service.training_job import CurveUpdate, RelevanceReady, TrainingFinished, TrainingJob, is_round_event
from .panels import plural
from .worker import GeneratorWorker

TASK = "training"


class TrainingControl:
    """Training for ``window``; the window's :class:`~segviz.app.background.BackgroundWork` runs the job."""

    def __init__(self, window):
        self.window = window
        self.job: TrainingJob | None = None
        self.worker: GeneratorWorker | None = None
        #: extra keyword arguments of the job (e.g. ``lm_params=dict(vocab_size=2000)`` for a quick run)
        self.params: dict = {}
        #: rounds received whose table row is not drawn yet (the second pass of :meth:`_show_round`)
        self._rounds_pending = 0
        #: the worker's last ``paused`` signal: it arrives after every event delivered before the pause, whereas
        #: the worker's own flag is set in its thread before its last event has reached the window
        self._pause_reached = False

    @property
    def running(self) -> bool:
        return self.worker is not None

    @property
    def paused(self) -> bool:
        # paused as the user sees it: the worker has stopped and the last round it delivered is drawn, so that
        # Run is offered only once nothing more is about to appear
        return (self.worker is not None and self.worker.is_paused and self._pause_reached
                and self._rounds_pending == 0)

    def start(self, n_features: int = 30, *, step: bool = False) -> GeneratorWorker | None:
        """Train LMs + induce ``n_features`` features on the shown corpus; the views update every round."""
        win = self.window
        state = win.state
        if self.worker is not None:
            return None
        if state.corpus is None:
            win.show_error("Cannot train", "open a corpus first")
            return None
        if not state.has_reference:
            win.show_error("Cannot train", "this text has no reference segmentation to learn from; open a "
                           "corpus whose documents or sections mark the boundaries")
            return None
        params = dict(self.params)
        if win.features.reuse_lms.isChecked() and state.shown_language_models() is not None:
            params["lms"] = state.shown_language_models()
        try:
            job = TrainingJob(state.corpus, state.corpus_paths, read_options=win.files.read_options,
                              n_features=int(n_features), engine=win.engine,
                              lm_files=win.lm_files, **params)
        except SegvizError as exc:
            win.show_error("Cannot train", str(exc))
            return None
        corpus = state.corpus
        # the old model's curve, ticks and metrics go at once: what is shown from now on is this training.  The
        # general-English relevance of that model goes too: the training brings the trace of its own language
        # models, and scoring the corpus beside the language models' fitting only raised the engine's peak
        win.background.cancel(GENERAL_RELEVANCE)
        state.clear_model()
        state.reset_rounds()
        win.heldout_start = job.heldout_start
        n_train = job.train_documents
        win.show_model_status(f"training a model on documents 1-{n_train} of this corpus (the rest held out)")
        note = (f"model trained on documents 1-{n_train} of this corpus (the rest held out): its scores here "
                "are partly in-sample")
        self.job = job

        def on_event(event):
            if state.corpus is not corpus:
                return
            if isinstance(event, RelevanceReady):
                state.set_relevance(event.relevance, event.profile)
            elif isinstance(event, CurveUpdate):
                self._show_round(event, note)
            elif isinstance(event, TrainingFinished):
                state.set_segmenter(event.model)
                state.model_note = note
                if event.probabilities is not None:
                    state.set_probabilities(event.probabilities)
                else:
                    state.set_rule(*event.model.rules().values())
                (induced,) = event.model.features().values()
                win.features.status.setText(f"done: {len(induced)} features "
                                            f"({event.reason.replace('_', ' ')})")
                n_features = plural(len(induced), "feature")
                win.show_model_status(f"segmented by the model trained here ({n_features})")

        def on_result(_):
            self._ended()
            win.update_actions()
            win.trainingFinished.emit("done")

        def on_error(message):
            self._ended()
            win.show_error("Training failed", message)
            win.update_actions()
            win.trainingFinished.emit(message)

        def on_aborted():
            # Stop keeps what was learned: the model of the last finished round, tuned on held-out data
            partial = job.model
            if self.job is job:
                self._ended()
            if state.corpus is corpus and partial is not None and state.segmenter is not partial:
                try:
                    state.set_segmenter(partial)
                    state.model_note = note
                except ValueError:
                    pass
            if partial is None and state.corpus is corpus:
                win.show_model_status("training stopped before its first feature: no model kept")
            elif state.corpus is corpus and partial is not None:
                win.show_model_status(f"training stopped: segmented by the model of its last round "
                                      f"({plural(len(*partial.features().values()), 'feature')})")
            win.update_actions()
            win.trainingFinished.emit("cancelled")

        worker = win.background.start(TASK, job.events, on_event=on_event, on_result=on_result, on_error=on_error,
                                      on_aborted=on_aborted, on_abort=job.close, is_step=is_round_event,
                                      lockstep=True)
        if worker is None:   # the window is closing
            return None
        if step:
            worker.step()
        self._pause_reached = False
        worker.paused.connect(self._pause_signal)
        worker.finished.connect(lambda w=worker: self._finished(w))
        self.worker = worker
        win.update_actions()
        return worker

    def _pause_signal(self, paused: bool) -> None:
        self._pause_reached = bool(paused)
        if shiboken6.isValid(self.window):
            self.window.update_actions()

    def _show_round(self, event: CurveUpdate, note: str) -> None:
        """One induced feature, in two event-loop passes so neither takes more than a frame: the round's model,
        decision parameters, curve and hypothesis now; its table row, plots and metrics row in the next pass."""
        win = self.window
        state = win.state
        try:
            # the round's model and its rule (notified as one model change: the table follows in table())
            state.set_segmenter(event.model)
        except ValueError:
            pass
        state.model_note = note
        state.set_probabilities(event.probabilities, metrics=False)
        corpus, probabilities = state.corpus, state.probabilities

        def table():
            self._rounds_pending -= 1
            if state.corpus is not corpus:
                return
            state.add_round(event.added)
            if state.probabilities is probabilities:
                state.refresh_metrics()
            win.features.status.setText(f"round {event.added.round}: gain {event.added.gain:.3g}")
            win.roundShown.emit(int(event.added.round))
            if self._rounds_pending == 0 and self._pause_reached:
                win.update_actions()

        self._rounds_pending += 1
        QTimer.singleShot(0, table)

    def _ended(self) -> None:
        self.worker = None
        self.job = None

    def _finished(self, worker) -> None:
        if self.worker is worker:   # ended without any of the handlers above (e.g. a dropped late error)
            self._ended()
            if shiboken6.isValid(self.window):
                self.window.update_actions()

    def step(self) -> None:
        if self.worker is None:
            self.start(self.window.features.n_features.value(), step=True)
        else:
            self._pause_reached = False
            self.worker.step()
        self.window.update_actions()

    def run(self) -> None:
        if self.worker is not None:
            self._pause_reached = False
            self.worker.resume()
        self.window.update_actions()

    def pause(self) -> None:
        if self.worker is not None:
            self.worker.pause()

    def stop(self) -> None:
        if self.worker is not None:
            self.window.background.cancel(TASK)
