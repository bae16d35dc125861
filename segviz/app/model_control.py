"""The main window's model control: apply a model to the shown corpus, tune the shown decision rule.

:class:`ModelControl` is composed by :class:`~segviz.app.main_window.MainWindow` (``window.model_control``).
Applying a model (one segmenter, or a router of several: :class:`segviz.model_protocol.SegmentationModel`)
computes, in the background and document by document as ``segviz segment`` does, the boundary probabilities of
the segmenter answering for each document, the language-model relevance of every sentence (paper Section 3.3)
and the relevance profile.  Each document is then decided by its segmenter's own rule.  Tuning sets the shown
rule's settings to the values best on held-out data (Section 7), or, as an oracle upper bound, on the shown
reference.  The model's feature columns on the shown corpus (which features
fire where: the context panel and the feature highlight) are evaluated in the background once per model.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer

from ..events import Progress
from ..segmenter import SEGMENTER_NAME
from ..service.apply_job import ApplyJob, ModelCurve
from ..service.tasks import files_changed
from .state import prepare_decisions
from .window_tasks import tune_task

#: the task applying a model that was opened while its corpus was still being read
EARLY_APPLY = "apply-early"
#: an applied model being shown over a few event-loop passes, and until what follows its curve is on screen (the
#: window counts as busy meanwhile); each apply holds it under a name of its own
SHOWING = "showing the model"
_holds = itertools.count(1)


@dataclass(frozen=True)
class CurveReady:
    """A model's curve on the shown corpus (``n`` sentences, :class:`~segviz.service.tasks.AppliedModel` without
    relevance) with its decision rules prepared (:func:`~segviz.app.state.prepare_decisions`): all the window needs
    to draw the curve, the ticks and the metrics."""

    n: int
    applied: object = field(repr=False)
    decisions: object = field(repr=False)


def applied_and_prepared(job: ApplyJob, model):
    """``job``'s events, its :class:`~segviz.service.apply_job.ModelCurve` as a :class:`CurveReady` with the model's
    decision rules prepared on the worker thread (a sort of 10^6 probabilities is not for the window's); returns
    the job's value (None when closed first)."""
    events = job.events()
    try:
        while True:
            try:
                event = next(events)
            except StopIteration as stop:
                return stop.value
            if isinstance(event, ModelCurve):
                applied = event.applied
                yield Progress("preparing the decision rules", 0, 1)
                yield CurveReady(event.n, applied, prepare_decisions(model, applied.probabilities, applied.units,
                                                                     applied.sentence_sizes))
            else:
                yield event
    finally:
        events.close()   # a cancel: the job's channel ends now, not when the generator is collected


class ModelControl:
    """Model application and decision-rule tuning for ``window`` (a :class:`~segviz.app.main_window.MainWindow`)."""

    def __init__(self, window):
        self.window = window
        self.columns = None            # the shown model's feature matrix on the shown corpus (csr), or None
        self._columns_key = None       # (segmenter, corpus) the columns belong to
        self._columns_waiters: dict = {}   # who waits for the columns: the latest callback per asker
        self._early: dict | None = None    # an apply started while the corpus was being read (see apply_model)

    def _applied_note(self, model, path: str | None, shown: str) -> str:
        """What the status bar says once ``model`` segments the corpus: which model, and which expert of a router."""
        default = self.window.default_model
        if path and default is not None and Path(path).resolve() == Path(default).resolve():
            name = "the bundled default model"
        elif path:
            name = Path(path).name
        else:
            name = "the model trained here"
        experts = model.segmenters()
        return f"segmented by {name}" + (f" (its {shown!r} expert)" if len(experts) > 1 else "")

    def apply_model(self, model, path: str | None = None) -> bool:
        """Apply ``model`` to the corpus in the background; nothing changes until it has succeeded.

        Each document is answered by the segmenter the model chooses for it (a router's expert, with the reason
        under the reference line) and decided by that segmenter's own rule; the panels show the segmenter that
        answers for most sentences.  A model whose decision rules are unusable is refused at once (a dialog; the
        shown model stays)."""
        win = self.window
        state = win.state
        if state.corpus is None and win.opening is not None and win.background.is_running("open"):
            # a corpus is being read: the model waits for it (applied meanwhile in the engine, on the same reading),
            # and the panels show none of its experts until the one that answers for that corpus is known (they
            # showed a router's last expert, the chapters expert's rule, then switched)
            self.pending = (model, path)
            self._apply_early(model, path)
            return True
        if state.corpus is None:
            # no text to choose for yet: a router shows its last expert (the one for the longest segments) until
            # one is open
            try:
                state.set_model(model, path)
            except ValueError as exc:
                win.show_error("Cannot open model", f"{path or 'model'}: {exc}")
                return False
            state.load_history(state.segmenter)
            win.modelApplied.emit()
            self._apply_early(model, path)
            return True
        try:
            for rule in model.rules().values():
                rule.check()
        except Exception as exc:   # SegvizError or AttributeError: no usable rule
            win.show_error("Cannot open model", f"{path or 'model'}: {exc}")
            return False
        corpus = state.corpus
        hold = f"{SHOWING} {next(_holds)}"
        shown: dict = {}   # the curve on screen ("curve"), and what the job returned after it ("outcome")

        def curve(event):
            if not isinstance(event, CurveReady) or state.corpus is not corpus or "curve" in shown:
                return
            if event.n != corpus.n_sentences:
                failed(files_changed(event.n, corpus.n_sentences))
                return
            applied = event.applied
            segmenters = model.segmenters()
            if applied.shown not in segmenters or any(u.expert not in segmenters for u in applied.units):
                failed("the model's process chose a segmenter the model does not have")
                return
            try:
                state.set_model(model, path, shown=applied.shown)
            except ValueError as exc:
                failed(str(exc))
                return
            segmenter = state.segmenter
            # the shown segmenter's columns where it answered (the context panel's); the rest follow later
            self._set_columns(segmenter, corpus, applied.columns, applied.missing_columns)
            state.model_note = ""
            state.coverage = applied.coverage
            win.heldout_start = None
            # three event-loop passes, each painted before the next, none long enough to be noticed on 10^6
            # sentences: the curve and hypothesis; the metrics; the feature table.  The relevance and the rest come
            # after, in the background
            state.set_probabilities(applied.probabilities, units=applied.units, metrics=False,
                                    decisions=event.decisions)
            shown["curve"] = (segmenter, state.probabilities, applied)
            win.background.hold(hold)
            QTimer.singleShot(0, metrics_pass)

        def current() -> bool:
            segmenter, probabilities, _ = shown["curve"]
            if state.segmenter is segmenter and state.probabilities is probabilities and not win.background.closing:
                return True
            win.background.release(hold)   # superseded meanwhile: nothing of this apply is shown any more
            return False

        def metrics_pass():
            if current():
                state.refresh_metrics()
                QTimer.singleShot(0, table_pass)

        def table_pass():
            if not current():
                return
            segmenter, _, applied = shown["curve"]
            if not win.training.running:
                state.load_history(segmenter)
            if applied.coverage is not None and applied.coverage.out_of_domain:
                win.info_label.setText(f"⚠ {applied.coverage.message()}")
            else:
                win.show_model_status(self._applied_note(model, path, applied.shown))
            win.update_actions()
            shown["table"] = True
            win.curveShown.emit()
            after_curve()

        def outcome(kind, value):
            if "curve" not in shown:   # the job ended before its curve: an error, or a cancel
                if kind == "error":
                    failed(value)
                return
            shown["outcome"] = (kind, value)
            after_curve()

        def after_curve():
            if "table" not in shown or "outcome" not in shown or "relevance" in shown:
                return
            shown["relevance"] = True
            if not current():
                return
            kind, value = shown["outcome"]
            if kind == "error":
                win.info_label.setText(f"⚠ no relevance trace: {value}")
            elif value is not None and value[1].relevance is not None:
                state.set_relevance(value[1].relevance, value[1].profile)
            # a model without language models: the trace and profile from the bundled general-English ones, computed
            # in the background now that the curve is on screen; the model counts as applied after
            win.show_general_relevance(then=lambda: QTimer.singleShot(0, finish))

        def finish():
            if not current():
                return
            win.background.release(hold)
            win.modelApplied.emit()
            win.update_actions()
            # what is not on screen comes last, one job at a time: the shown segmenter's columns where another
            # answered, then the peers (they compete with everything else for the CPU and the engine's memory)
            self.complete_columns(then=win.compute_peers)

        def aborted():
            win.background.release(hold)

        def failed(message):
            win.background.release(hold)
            win.show_error("Cannot apply model", message)
            win.compute_peers()

        # a newer apply (another model, another corpus) supersedes this one: no two can race for the curve
        key = self._child_key(model, path, state.corpus_paths, win.files.read_options)
        early, self._early = self._early, None
        if early is not None and key is not None and early["key"] == key:
            # started while this corpus was being read: its outcome is this apply's
            early["deliver"] = (curve, outcome, aborted)
            self._deliver(early)
            return True
        win.background.cancel(EARLY_APPLY)
        if not state.corpus_paths:
            failed("the shown corpus has no files the engine could read")
            return False
        # in the engine process, whatever the model: its numpy calls would hold the GIL against the window for up
        # to a third of a second each.  A model with a file of its own is loaded there from the file; one trained
        # here crosses as its JSON with its language models' file (segviz.service.engine_models)
        job = ApplyJob(path if key is not None else None, state.corpus_paths, model=None if key is not None else model,
                       lm_files=win.lm_files, read_options=win.files.read_options,
                       engine=win.engine)
        win.background.start("apply", lambda: applied_and_prepared(job, model), on_event=curve,
                             on_result=lambda r: outcome("result", r), on_error=lambda m: outcome("error", m),
                             on_aborted=aborted, on_abort=job.close)
        return True

    @staticmethod
    def _child_key(segmenter, path, paths, read_options):
        """What identifies an apply the child can do (the model's file, the corpus files and reader options), or
        None when the model has no file to load it from."""
        if path is None or not os.path.isfile(path) or not paths:
            return None
        return (segmenter, os.path.abspath(path), tuple(os.path.abspath(p) for p in paths),
                tuple(sorted((read_options or {}).items())))

    def _apply_early(self, segmenter, path) -> None:
        """A model opened while a corpus is being read is applied at once, in the engine, on the corpus the engine
        is reading for the window (:mod:`segviz.service.engine_cache`: one reading for both); the result waits for the
        corpus to be installed, which then takes it (:meth:`apply_model`)."""
        win = self.window
        opening = win.opening
        win.background.cancel(EARLY_APPLY)
        self._early = None
        if opening is None or not win.background.is_running("open"):
            return
        paths, read_options = opening
        key = self._child_key(segmenter, path, paths, read_options)
        if key is None:
            return
        early = {"key": key, "outcomes": [], "deliver": None}
        job = ApplyJob(path, paths, read_options=read_options,
                       engine=win.engine)

        def outcome(kind, value=None):
            early["outcomes"].append((kind, value))
            self._deliver(early)

        win.background.start(EARLY_APPLY, lambda: applied_and_prepared(job, segmenter),
                             on_event=lambda e: outcome("curve", e) if isinstance(e, CurveReady) else None,
                             on_result=lambda r: outcome("result", r),
                             on_error=lambda msg: outcome("error", msg), on_abort=job.close,
                             on_aborted=lambda: outcome("aborted"))
        self._early = early

    def _deliver(self, early: dict) -> None:
        """Hand what the early apply produced so far (its curve, then its outcome) to the apply that takes it."""
        if early["deliver"] is None:
            return
        curve, outcome, aborted = early["deliver"]
        while early["outcomes"]:
            kind, value = early["outcomes"].pop(0)
            if kind == "curve":
                curve(value)
            elif kind == "aborted":
                aborted()
            else:
                outcome(kind, value)

    #: a model opened while a corpus was being read: ``(model, path)``, applied when the corpus is shown
    pending: tuple | None = None

    def take_pending(self) -> tuple | None:
        """The model waiting for the corpus being read (:attr:`pending`), once."""
        pending, self.pending = self.pending, None
        return pending

    def forget_early(self) -> None:
        """The corpus the early apply was reading for will not be installed (its reading failed): a model that
        waited for it is shown without a corpus, as one opened without any."""
        self._early = None
        self.window.background.cancel(EARLY_APPLY)
        self.window.opening = None
        pending = self.take_pending()
        if pending is not None:
            self.apply_model(*pending)

    # -- feature columns ----------------------------------------------------------------------------------------
    def _set_columns(self, segmenter, corpus, columns, missing=()) -> None:
        """The shown segmenter's columns on the shown corpus; ``missing``: the documents (indices of the corpus's
        source units) whose rows are still empty because another segmenter answered there."""
        self._columns_key = (segmenter, corpus)
        self.columns = columns
        self._missing = tuple(missing)

    _missing: tuple = ()

    def complete_columns(self, then=None) -> None:
        """Answer the shown segmenter's questions on the documents another segmenter answered, in the background,
        then ``then()`` (also when that fails; never after a cancel: a close or a newer corpus or model)."""
        state = self.window.state
        if not self._missing or self._columns_key != (state.segmenter, state.corpus) or self.columns is None:
            if then is not None:
                then()
            return
        self._after_columns = then
        self.feature_columns()

    _after_columns = None

    def _columns_done(self, success: bool) -> None:
        """The columns job ended (not cancelled): what waited for it runs."""
        after, self._after_columns = self._after_columns, None
        waiters, self._columns_waiters = (self._columns_waiters, {}) if success else ({}, self._columns_waiters)
        for waiter in waiters.values():
            waiter()
        if after is not None:
            after()

    def feature_columns(self, callback=None, asker: str = ""):
        """The shown model's feature matrix on the shown corpus, or None while it is being evaluated.

        When it is not ready, it is evaluated in the background and ``callback()`` runs once it is: the whole
        matrix, or the documents an apply left out (their rows filled in on the worker thread)."""
        state = self.window.state
        seg, corpus = state.segmenter, state.corpus
        if seg is None or corpus is None:
            return None
        have = self._columns_key == (seg, corpus) and self.columns is not None
        if have and not self._missing:
            return self.columns
        if callback is not None:
            self._columns_waiters[asker] = callback
        if self.window.background.is_running("columns") and self._pending_key == (seg, corpus):
            return None
        self._pending_key = (seg, corpus)
        partial, missing = (self.columns, self._missing) if have else (None, None)

        def done(result):
            self._pending_key = None
            if result is None:
                return   # cancelled
            n, columns = result
            if n != corpus.n_sentences:
                failed(files_changed(n, corpus.n_sentences))
            elif state.segmenter is seg and state.corpus is corpus:
                self._set_columns(seg, corpus, columns)
                self._columns_done(True)

        def failed(message):
            self._pending_key = None
            self.window.info_label.setText(f"cannot evaluate the model's features here: {message}")
            self._columns_done(False)

        if not state.corpus_paths:
            failed("the shown corpus has no files the engine could read")
            return None
        # in the engine, on the corpus it read: the shown segmenter of the shown model (its file's, or its JSON and
        # language models' file when it was trained here)
        model, path, win = state.opened_model, state.model_path, self.window
        has_file = self._child_key(model, path, state.corpus_paths, win.files.read_options) is not None
        job = ApplyJob(path if has_file else None, state.corpus_paths, model=None if has_file else seg,
                       columns_of=state.shown_expert if has_file else SEGMENTER_NAME, lm_files=win.lm_files,
                       documents=missing if has_file else None, read_options=win.files.read_options,
                       engine=win.engine)

        def columns_task():
            result = yield from job.events()
            if result is None or partial is None or not has_file:
                return result
            n, filled = result
            # the rows are disjoint: the sum is the whole matrix (O(entries), here rather than on the window's thread)
            return n, (partial + filled).tocsr() if filled.shape == partial.shape else filled

        win.background.start("columns", columns_task, on_result=done, on_error=failed, on_abort=job.close,
                             show_progress=False)
        return None

    _pending_key = None

    def active_features(self, position: int, callback=None) -> list | None:
        """``(feature, e^λ)`` for the induced features firing at gap ``position``; None while being evaluated."""
        columns = self.feature_columns(callback, "context")
        if columns is None:
            return None
        induced = self.window.state.shown_features()
        if not 1 <= position <= columns.shape[0]:
            return []
        row = columns.indices[columns.indptr[position - 1]:columns.indptr[position]]
        weights = np.asarray(induced.weights, dtype=np.float64)
        return [(induced.specs[j], float(weights[j])) for j in sorted(row.tolist())]

    def feature_positions(self, index: int, callback=None) -> np.ndarray | None:
        """Positions b where the model's feature ``index`` fires (the feature table's highlight)."""
        columns = self.feature_columns(callback, "highlight")
        if columns is None:
            return None
        # the rows holding the column, from one scan of the index array (scipy's column slice of a CSR matrix
        # copies every row's entries: 40 ms on the window's thread at 10^6 sentences, this 8)
        at = np.flatnonzero(columns.indices == index)
        return np.searchsorted(columns.indptr, at, side="right").astype(np.int64)

    # -- tuning -------------------------------------------------------------------------------------------------
    def tune(self) -> None:
        """Set the shown rule's settings to the values best on *held-out* data (Section 7), never on what is
        scored.

        A model trained in the app is tuned on the held-out documents of the shown corpus (the last 20%); a
        loaded model gets back the rules it was tuned to on its own held-out data.  Without either, the shown
        reference is used (an oracle; :meth:`tune_oracle`).
        """
        win = self.window
        state = win.state
        if state.probabilities is None:
            return
        if win.heldout_start is not None:
            start = win.heldout_start
            ref = state.reference_boundaries
            masses = tuple(np.diff(np.concatenate([[0], ref[ref > start] - start, [state.n_sentences - start]])))
            where = f"held-out documents (sentences {start}-{state.n_sentences - 1})"
            self._tune_on(state.probabilities[start:], masses, where, state.corpus.sentence_sizes[start:])
        elif state.opened_model is not None:
            state.restore_rules()
            score = state.shown_provenance().get("tuned_score")
            shown = f", held-out score {score:.3f}" if isinstance(score, (int, float)) else ""
            win.info_label.setText(f"tuned on the model's own held-out data: {state.shown_rule.describe()}{shown}")
        else:
            self.tune_oracle()

    def tune_oracle(self) -> None:
        """The shown rule's best settings for P_mu on the shown reference itself (an upper bound, not a fair
        score)."""
        state = self.window.state
        if state.probabilities is None or not state.has_reference:
            return
        self._tune_on(state.probabilities, state.reference_masses, "the shown reference (oracle)",
                      state.corpus.sentence_sizes, oracle=True)

    def _tune_on(self, probabilities, masses, where: str, sizes, *, oracle: bool = False) -> None:
        win = self.window
        state = win.state
        shown_probs = state.probabilities
        rule = state.shown_rule

        def done(result):
            if state.probabilities is not shown_probs:
                return   # the curve changed meanwhile: this tuning is for another model
            tuned, score = result
            state.set_rule(tuned)
            suffix = " (optimistic)" if oracle else ""
            win.info_label.setText(f"tuned on {where}: {tuned.describe()}, P_mu = {score:.3f}{suffix}")
            win.tuned.emit()

        win.background.start("tune", lambda: tune_task(rule, probabilities, masses, sizes), on_result=done,
                             on_error=lambda msg: win.show_error("Cannot tune", msg))

    def forget(self) -> None:
        """Drop cached columns (a new corpus or model)."""
        self.columns = None
        self._columns_key = None
        self._missing = ()
        self._columns_waiters = {}
        self._pending_key = None
        self._after_columns = None

