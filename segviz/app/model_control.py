"""The main window's model control: apply a segmenter to the shown corpus, and tune its decision parameters.

:class:`ModelControl` is composed by :class:`~segviz.app.main_window.MainWindow` (``window.model_control``).
Applying a model computes, in a worker, the language-model relevance of every sentence (paper Section 3.3), the
boundary probabilities of the exponential model and the relevance profile.  Tuning sets the decision rule's
threshold α and minimum separation ε to the values maximising P_mu on held-out data (Section 7), or, as an
oracle upper bound, on the shown reference.
"""
from __future__ import annotations

import numpy as np

from ..errors import SegvizError
from ..events import Progress
from . import engine
from .worker import GeneratorWorker


class ModelControl:
    """Model application and α, ε tuning for ``window`` (a :class:`~segviz.app.main_window.MainWindow`)."""

    def __init__(self, window):
        self.window = window

    def apply_model(self, segmenter, path: str | None = None) -> None:
        """Compute probabilities, relevance and the relevance profile for the corpus in a worker."""
        win = self.window
        win.state.model_note = ""
        win.heldout_start = None
        if win.state.corpus is None:
            win.state.set_segmenter(segmenter, path)
            return
        corpus = win.state.corpus

        def work():
            lms = engine.segmenter_lms(segmenter)
            yield Progress("relevance", 0, 3)
            rel = engine.sentence_relevance(lms, corpus.sentences())
            yield Progress("applying model", 1, 3)
            # the same relevance feeds the model (and warms its feature cache for the context panel)
            kwargs = {"relevance": rel} if rel is not None else {}
            probs = np.asarray(segmenter.boundary_probabilities(corpus, **kwargs), dtype=np.float64)
            yield Progress("relevance profile", 2, 3)
            profile = engine.relevance_profile(lms, corpus)
            return probs, rel, profile

        def done(result):
            if win.state.corpus is not corpus:
                return
            probs, rel, profile = result
            win.state.set_segmenter(segmenter, path)
            if win.training.training_worker is None:
                win.state.load_history(segmenter)
            win.state.set_probabilities(probs, rel, profile)
            win.modelApplied.emit()
            win.update_actions()

        win.training.start_worker(GeneratorWorker(work, name="apply-model"), on_result=done,
                                 on_error=lambda msg: win.show_error("Cannot apply model", msg))

    def tune(self) -> None:
        """Set α, ε to the values maximising P_mu on *held-out* data (Section 7), never on what is scored.

        A model trained in the app is tuned on the held-out documents of the shown corpus (the last 20%); a
        loaded model gets back the α, ε it was tuned to on its own held-out data.  Without either, the shown
        reference is used (an oracle; :meth:`tune_oracle`).
        """
        win = self.window
        state = win.state
        if state.probabilities is None:
            return
        try:
            if win.heldout_start is not None:
                start = win.heldout_start
                masses = engine.boundaries_to_masses(
                    state.reference_boundaries[state.reference_boundaries > start] - start,
                    state.n_sentences - start)
                alpha, epsilon, pmu = engine.tune(state.probabilities[start:], masses)
                state.set_decision(alpha, epsilon)
                where = f"held-out documents (sentences {start}-{state.n_sentences - 1})"
            elif state.segmenter is not None and getattr(state.segmenter, "alpha_", None) is not None:
                state.set_decision(state.segmenter.alpha_, state.segmenter.epsilon_)
                pmu = getattr(state.segmenter, "info_", {}).get("tuned_p_mu")
                where = "the model's own held-out data"
            else:
                self.tune_oracle()
                return
        except (SegvizError, ValueError) as exc:
            win.show_error("Cannot tune", str(exc))
            return
        shown = "" if pmu is None else f", held-out P_mu = {pmu:.3f}"
        win.info_label.setText(f"tuned on {where}: α = {state.alpha:.2f}, ε = {state.epsilon}{shown}")

    def tune_oracle(self) -> None:
        """Best α, ε for P_mu on the shown reference itself (an upper bound, not a fair score)."""
        win = self.window
        if win.state.probabilities is None:
            return
        try:
            pmu = win.state.tune()
        except (SegvizError, ValueError) as exc:
            win.show_error("Cannot tune", str(exc))
            return
        win.info_label.setText(f"oracle-tuned on the shown reference: α = {win.state.alpha:.2f}, "
                               f"ε = {win.state.epsilon}, P_mu = {pmu:.3f} (optimistic)")
