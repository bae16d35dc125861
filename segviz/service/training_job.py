"""Training in the app: language models, then feature induction (paper Sections 3-4), on the shown corpus.

Qt-free.  Two halves of one path:

* :func:`training_events` is the work itself, a plain generator of small typed events: it fits
  :class:`~segviz.lm.models.LanguageModels` on the training documents (``LanguageModels.fit_iter``), computes the
  shown corpus's relevance and relevance profile (Section 3.3), then drives ``Segmenter.fit_iter`` and turns every
  ``FeatureAdded`` into a :class:`CurveUpdate` holding the shown corpus's boundary probabilities under the model
  of that round (``Segmenter.boundary_probabilities`` caches the induced columns per corpus, so a round costs one
  new column and one mat-vec).
* :class:`TrainingJob` runs that generator in a child interpreter and re-yields its events in the parent.  A
  thread would share the GIL with the GUI, and numpy/scipy calls that hold it for hundreds of milliseconds froze
  the window (docs/benchmarks.md, *App*).  The job owns the partial model (the model of the last finished round,
  rebuilt from each event) and the cancel flag; cancelling stops the child at once, even in the middle of a
  round, and keeps that partial model.

The child (:mod:`segviz.service.child_process`: ``python -I``, the package loaded by location, JSON lines over its own
pipes, no pickle, no key) takes the corpus it read for the window (the same files with the same reader options;
:mod:`segviz.service.engine_cache`).  The
exchange is lock-step: the parent asks for the next event and the child computes until it has one, then idles;
so a consumer that stops pulling (the app's Pause, at a round boundary) stops the training exactly there.
"""
from __future__ import annotations

import math
import os
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import SegvizError
from ..events import Progress
from ..features import FeatureSpec
from ..induction import FeatureAdded, InductionFinished
from ..limits import MAX_ABS_LAMBDA
from ..lm.models import LanguageModels
from ..model_schema import validate_model_document
from ..relevance import relevance_profile, sentence_relevance
from ..segmenter import Segmenter
from .child_process import (
    MALFORMED,
    check_probabilities,
    check_profile,
    check_relevance,
    decode_array,
    encode_array,
    progress_from_message,
    progress_message,
    serve_guarded,
)
from .engine_cache import remember_lms, shared_corpus
from .engine_memory import returning_freed_memory
from .engine_models import LanguageModelFiles
from .engine_process import EngineProcess
from .tasks import files_changed

if TYPE_CHECKING:
    from ..corpus import Corpus

#: the share of documents (the last ones) held out for per-round P_mu and for tuning the decision rule
HELDOUT_FRACTION = 0.2


# -- events ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LanguageModelsReady:
    """The language models are trained (Section 3)."""

    lms: LanguageModels = field(repr=False)


@dataclass(frozen=True)
class RelevanceReady:
    """Per-sentence relevance of the shown corpus and its profile around boundaries (Section 3.3)."""

    relevance: np.ndarray = field(repr=False)
    profile: dict = field(repr=False)


@dataclass(frozen=True)
class CurveUpdate:
    """One induction round: the engine's ``FeatureAdded``, the model of that round, and its curve.

    ``probabilities`` are q(yes) at the gaps 1..n-1 of the shown corpus; ``model.rule_`` is the round's decision
    rule (the threshold rule at the round's best held-out alpha and epsilon, Section 7).
    """

    added: FeatureAdded
    probabilities: np.ndarray = field(repr=False)
    model: Segmenter = field(repr=False)


@dataclass(frozen=True)
class TrainingFinished:
    """Induction stopped (``reason`` as in ``InductionFinished``) and the decision rule is tuned on held-out data.

    ``probabilities``: the final model's curve on the shown corpus (the stopping rule may keep fewer rounds than
    were induced)."""

    model: Segmenter = field(repr=False)
    reason: str
    probabilities: np.ndarray | None = field(repr=False, default=None)


def is_round_event(event) -> bool:
    """The unit of Step and Pause: one induced feature, with its curve."""
    return isinstance(event, CurveUpdate)


#: the language models' settings of a training in the window, where not given: the trigger model's IIS stops when
#: an iteration improves the held-out likelihood by less than 1e-4 (relative) instead of 1e-5.  On reut2-000..013
#: it then stops after 12 iterations instead of 32, 18 s instead of 55 s, at a held-out perplexity of 103.9
#: instead of 103.4 (docs/benchmarks.md): the first feature of a live training comes that much sooner.  ``segviz
#: train`` and the protocols keep the default.
LIVE_LM_PARAMS = {"tol": 1e-4}


def heldout_documents(n_documents: int, heldout_fraction: float = HELDOUT_FRACTION) -> int:
    """How many of the last documents are held out (P_mu per round, tuning); at least 1 of at least 4."""
    if not 0.0 < heldout_fraction < 1.0:
        raise SegvizError(f"the held-out fraction must lie in (0, 1), got {heldout_fraction}")
    if n_documents < 4:
        raise SegvizError(f"training needs at least 4 reference documents (3 to train on, 1 held out); "
                          f"this corpus has {n_documents}")
    return max(1, int(round(heldout_fraction * n_documents)))


def split_for_training(corpus: Corpus, heldout_fraction: float = HELDOUT_FRACTION) -> tuple[Corpus, Corpus]:
    """The first documents for training, the last ``heldout_fraction`` held out (P_mu per round, tuning)."""
    k = heldout_documents(len(corpus), heldout_fraction)
    return corpus[:-k], corpus[-k:]


def training_events(corpus: Corpus, *, n_features: int = 30, heldout_fraction: float = HELDOUT_FRACTION,
                    lm_params: dict | None = None, segmenter_params: dict | None = None,
                    lms: LanguageModels | None = None) -> Generator[Any, None, None]:
    """Train on the first documents of ``corpus`` and yield what the app shows, round by round.

    Yields ``Progress``, one :class:`LanguageModelsReady`, one :class:`RelevanceReady`, one :class:`CurveUpdate`
    per induced feature and a final :class:`TrainingFinished`.  With ``lms`` (fitted language models, e.g. those of
    the model on screen) no language models are trained: induction starts at once on their relevance.
    """
    train, heldout = split_for_training(corpus, heldout_fraction)
    segmenter = Segmenter(n_features=int(n_features), **(segmenter_params or {}))
    if lms is None:
        lms = LanguageModels(**(lm_params or {}))
        yield Progress("training language models", 0, 0)
        for event in lms.fit_iter(train.sentences()):
            if isinstance(event, Progress):
                yield event
    yield LanguageModelsReady(lms)
    yield Progress("relevance of the shown corpus", 0, 0)
    relevance = sentence_relevance(lms, corpus.sentences())
    yield RelevanceReady(relevance, relevance_profile(lms, corpus, relevance=relevance))
    reason = "n_features"
    # The relevance just computed serves induction too (train and held-out are the corpus's first and last
    # documents) and every round's curve: computing it again took seconds before the first feature.  The held-out
    # documents' first sentences keep the trigger history of the documents before them, as on screen.
    n_train = train.n_sentences
    for event in segmenter.fit_iter(train, heldout, lms, relevance=relevance[:n_train],
                                    heldout_relevance=relevance[n_train:]):
        if isinstance(event, FeatureAdded):
            yield CurveUpdate(event, segmenter.boundary_probabilities(corpus, relevance=relevance), segmenter)
        elif isinstance(event, InductionFinished):
            reason = event.reason
        elif isinstance(event, Progress):
            yield event
    yield TrainingFinished(segmenter, reason, segmenter.boundary_probabilities(corpus, relevance=relevance))


# -- the JSON messages between the child and the parent -------------------------------------------------------

def model_to_json(model: Segmenter) -> dict:
    """What the parent needs to rebuild the model of a round: the segmenter's own JSON document."""
    return model.to_dict()


def _rule(d: dict):
    from ..rules import rule_from_dict

    return rule_from_dict(d["rule"], source="training process")


def model_from_json(d: dict, lms: LanguageModels | None) -> Segmenter:
    """Rebuild a segmenter from :func:`model_to_json` with the language models already in this process."""
    try:
        # every field's type and range, as a saved model's are: the window draws and applies what it is sent
        values = validate_model_document(d, source="training process")
        model = Segmenter.from_weights(values["features"], values["lambdas"], prior=values["prior"],
                                       rule=values["rule"], mu=values["mu"], lms=lms)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SegvizError):
            raise
        raise SegvizError(f"training process: malformed model ({exc.__class__.__name__}: {exc})") from None
    model.history_ = values["history"]
    model.info_ = values["info"]
    return model


def added_to_json(added: FeatureAdded) -> dict:
    return {"round": added.round, "feature": added.feature.to_dict(), "gain": added.gain,
            "weights": list(added.weights), "train_loglik": added.train_loglik, "heldout_p_mu": added.heldout_p_mu,
            "heldout_rule": None if added.heldout_rule is None else added.heldout_rule.to_dict(),
            "column": added.column,
            "iis_iterations": added.iis_iterations, "seconds": added.seconds}


def _number(value, low: float = -math.inf, high: float = math.inf) -> float:
    """A JSON number (not a bool or a string) that is finite and within ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high:
        raise ValueError(f"{value!r:.40} is not a number in [{low}, {high}]")
    return float(value)


def _integer(value, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value < 2 ** 31:
        raise ValueError(f"{value!r:.40} is not an integer from {low}")
    return value


def _weight(value) -> float:
    """A feature's factor e^lambda, |lambda| within the limit every model keeps (:data:`segviz.limits.MAX_ABS_LAMBDA`)."""
    return _number(value, math.exp(-MAX_ABS_LAMBDA), math.exp(MAX_ABS_LAMBDA))


def added_from_json(d: dict) -> FeatureAdded:
    """A round of induction from :func:`added_to_json`, every field's type and range checked (a P_mu is a
    probability, a weight e^lambda a positive finite number, counts are counts)."""
    try:
        weights = d["weights"]
        if not isinstance(weights, list):
            raise ValueError("the weights are not a list")
        return FeatureAdded(round=_integer(d["round"], 1), feature=FeatureSpec.from_dict(d["feature"]),
                            gain=_number(d["gain"]), weights=tuple(_weight(w) for w in weights),
                            train_loglik=_number(d["train_loglik"]),
                            heldout_p_mu=None if d["heldout_p_mu"] is None else _number(d["heldout_p_mu"], 0, 1),
                            heldout_rule=None if d["heldout_rule"] is None else _rule({"rule": d["heldout_rule"]}),
                            column=_integer(d["column"]),
                            iis_iterations=_integer(d["iis_iterations"]), seconds=_number(d["seconds"], 0))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SegvizError):
            raise
        raise SegvizError(f"training process: malformed round ({exc.__class__.__name__}: {exc})") from None


# -- the child process ----------------------------------------------------------------------------------------

def _child_events(config: dict):
    """Read the corpus again, here, by the same readers with the same options (so the child trains on exactly
    the documents the window shows, paragraphs and source files included, and only paths cross over), then
    train."""
    corpus = yield from shared_corpus(config["paths"], read_options=config.get("read_options"))
    if corpus.n_sentences != int(config["sentences"]):
        raise SegvizError(files_changed(corpus.n_sentences, int(config["sentences"])))
    lms = None
    if config.get("lms_in"):
        yield Progress("loading the language models", 0, 1)
        lms = LanguageModels.load(config["lms_in"])
    yield from training_events(corpus, n_features=int(config["n_features"]),
                               heldout_fraction=float(config["heldout_fraction"]),
                               lm_params=config.get("lm_params") or {},
                               segmenter_params=config.get("segmenter_params") or {}, lms=lms)


def serve(config: dict, commands, send) -> int:
    """Engine side (``config``: the job line): answer each ``next`` line of ``commands`` (the job's input) with
    one event, sent as one JSON message by ``send``.  Returns the exit status.
    """
    def job() -> int:
        with returning_freed_memory():
            return answer()

    def answer() -> int:
        events = _child_events(config)
        lm_path = Path(config["lm_path"])
        for line in commands:
            if line.strip() != b"next":
                return 0
            event = next(events, None)
            if event is None:
                return 0
            if isinstance(event, Progress):
                send(progress_message(event))
            elif isinstance(event, LanguageModelsReady):
                if config.get("lms_in"):
                    send({"type": "lms", "path": config["lms_in"]})   # the parent's own, unchanged
                else:
                    event.lms.save(lm_path)
                    remember_lms(str(lm_path), event.lms)   # a later apply of the trained model takes them here
                    send({"type": "lms", "path": str(lm_path)})
            elif isinstance(event, RelevanceReady):
                send({"type": "relevance", "relevance": encode_array(event.relevance), "profile": event.profile})
            elif isinstance(event, CurveUpdate):
                send({"type": "round", "added": added_to_json(event.added),
                      "probabilities": encode_array(event.probabilities), "model": model_to_json(event.model)})
            elif isinstance(event, TrainingFinished):
                send({"type": "finished", "reason": event.reason, "model": model_to_json(event.model),
                      "probabilities": encode_array(event.probabilities)})
        return 0

    return serve_guarded(send, job)


class TrainingJob:
    """Train language models and induce features on ``corpus`` in a child interpreter (see the module docstring).

    Iterate :meth:`events` (on any thread but the GUI's) to run it; :meth:`cancel` from any thread stops it at
    once.  :attr:`model` is always the model of the last finished round (None before the first), and the tuned
    final model once :class:`TrainingFinished` has arrived.
    """

    def __init__(self, corpus: Corpus, paths, *, read_options: dict | None = None, n_features: int = 30,
                 heldout_fraction: float = HELDOUT_FRACTION, lm_params: dict | None = None,
                 segmenter_params: dict | None = None, lms: LanguageModels | None = None,
                 engine: EngineProcess | None = None,
                 lm_files: LanguageModelFiles | None = None):
        """``corpus`` is the shown corpus, read from ``paths`` with ``read_options`` (the child reads it again).

        ``lms``: fitted language models to use instead of training new ones (e.g. the shown model's).
        ``lm_files``: the window's record of which file holds which language models
        (:mod:`segviz.service.engine_models`): the trained ones stay in the engine's working directory, so that the
        model trained here can be applied in the engine later."""
        if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or n_features < 1:
            raise SegvizError(f"the number of features must be an integer >= 1, got {n_features!r}")
        # only the sizes here (on the window's thread): the child splits the documents themselves
        held = heldout_documents(len(corpus), heldout_fraction)
        self.train_documents = len(corpus) - held
        self._heldout_start = int(sum(corpus.document_masses()[:self.train_documents]))
        self.corpus = corpus
        self.paths = [os.path.abspath(os.fspath(p)) for p in ([paths] if isinstance(paths, (str, os.PathLike))
                                                               else paths)]
        if not self.paths:
            raise SegvizError("training needs the corpus files the window shows")
        self.read_options = dict(read_options or {})
        self.n_features = int(n_features)
        self.heldout_fraction = float(heldout_fraction)
        self.lm_params = {**LIVE_LM_PARAMS, **(lm_params or {})}
        self.segmenter_params = dict(segmenter_params or {})
        self.model: Segmenter | None = None
        self.given_lms = lms
        self.lms: LanguageModels | None = None
        self.finished = False
        self.engine = engine
        self.lm_files = lm_files if lm_files is not None else LanguageModelFiles()
        self._cancel = threading.Event()
        self._child = None
        self._lm_path: str | None = None

    @property
    def heldout_start(self) -> int:
        """The first sentence of the held-out documents in the shown stream."""
        return self._heldout_start

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Stop now (any thread): the child is ended and :meth:`events` returns; :attr:`model` is kept."""
        self._cancel.set()

    @property
    def process_id(self) -> int | None:
        return None if self._child is None else self._child.pid

    def events(self) -> Iterator[Any]:
        """Start the child, send it the job, and yield its events (decoded) until it finishes or is cancelled."""
        if self.cancelled:
            return
        engine = self.engine if self.engine is not None else EngineProcess("the training process")
        child = engine.channel("the training process", self._cancel.is_set)
        self._child = child
        try:
            if not child.start():
                return
            # the engine's working directory (private, 0700, removed with the engine): the LMs trained there stay
            # there for later jobs of the window on the model trained with them
            self._lm_path = os.path.join(engine.workdir, f"lm-train-{child.number}.segviz")
            lms_in = None
            if self.given_lms is not None:   # on the caller's thread (saved once), for the engine to read
                lms_in = self.lm_files.path_for(self.given_lms, engine.workdir)
            config = {"job": "train", "paths": self.paths, "read_options": self.read_options, "lms_in": lms_in,
                      "sentences": self.corpus.n_sentences, "n_features": self.n_features,
                      "heldout_fraction": self.heldout_fraction, "lm_params": self.lm_params,
                      "segmenter_params": self.segmenter_params, "lm_path": self._lm_path}
            if not child.send(config):
                return
            while True:
                if not child.write("next\n"):
                    return
                message = child.receive()
                if message is None:
                    return
                event = self._decode(message)
                yield event
                if isinstance(event, TrainingFinished):
                    self.finished = True
                    return
        finally:
            child.end()
            if engine is not self.engine:
                engine.close()

    def close(self) -> None:
        """Cancel, and end the child at once if it is computing (any thread; never blocks)."""
        self.cancel()
        child = self._child
        if child is not None:
            child.terminate()

    def _decode(self, message: dict):
        """The event of one message from the child; a malformed one is one :class:`SegvizError`."""
        try:
            return self._decode_fields(message)
        except SegvizError:
            raise
        except MALFORMED as exc:
            raise SegvizError(f"training process: malformed {message.get('type')!r:.40} message "
                              f"({exc.__class__.__name__})") from None

    def _decode_fields(self, message: dict):
        kind = message["type"]
        n = self.corpus.n_sentences
        if kind == "progress":
            return progress_from_message(message, "training process")
        if kind == "lms":
            if self.given_lms is None:
                # only the file this job named: a path from the pipe is not opened just because it was sent
                if message["path"] != self._lm_path:
                    raise SegvizError("training process: language models at a path it was not given")
                self.lms = LanguageModels.load(self._lm_path)
                self.lm_files.register(self.lms, self._lm_path)
            else:
                self.lms = self.given_lms
            return LanguageModelsReady(self.lms)
        if kind == "relevance":
            profile = check_profile(message.get("profile"), "training process")
            if profile is None:
                raise SegvizError("training process: no relevance profile")
            return RelevanceReady(check_relevance(decode_array(message["relevance"], shape=(n,)), "training process"),
                                  profile)
        if kind == "round":
            model = model_from_json(message["model"], self.lms)
            probabilities = check_probabilities(decode_array(message["probabilities"], shape=(n - 1,)),
                                                "training process")
            self.model = model
            return CurveUpdate(added_from_json(message["added"]), probabilities, model)
        if kind == "finished":
            model = model_from_json(message["model"], self.lms)
            probabilities = check_probabilities(decode_array(message["probabilities"], shape=(n - 1,)),
                                                "training process")
            self.model = model
            reason = message.get("reason", "")
            return TrainingFinished(model, reason[:200] if isinstance(reason, str) else "", probabilities)
        raise SegvizError(f"training process: unknown message {kind!r:.60}")
