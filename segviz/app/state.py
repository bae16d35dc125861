"""The app's session state, in plain Python (no Qt).

A :class:`SessionState` holds the open corpus and its reference segmentation, the model's boundary probabilities,
the decision parameters alpha and epsilon of Section 7, the resulting hypothesis and every metrics row, the peer
segmenters' hypotheses and the feature-induction history.  Views listen through :meth:`SessionState.subscribe`;
:class:`segviz.app.qt_session.QtSession` is the thin QObject wrapper that turns those notifications into Qt
signals.  Every number comes from the engine (:mod:`segviz.decode`, :mod:`segviz.metrics`,
:mod:`segviz.baselines`, :mod:`segviz.segmentation`); the state only caches what a slider would otherwise
recompute: per-position arrays are kept, and the decision rule's greedy pass is kept per epsilon, so moving alpha
costs one comparison per position (the boundaries kept at threshold alpha are the threshold-0 boundaries above
alpha, see :mod:`segviz.decode`).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..baselines import BASELINES, baseline_masses
from ..decode import greedy_order_keep
from ..metrics import score_row
from ..segmentation import boundaries_to_masses, default_mu, masses_to_boundaries, segment_starts
from .child_process import encode_sentences

# Notification topics (one per kind of change, so views redraw only what changed).
CORPUS = "corpus"            # corpus, reference, baselines replaced
PROBABILITIES = "probabilities"  # model probabilities (and relevance) replaced
HYPOTHESIS = "hypothesis"    # alpha / epsilon / hypothesis / model metrics changed
PEERS = "peers"              # a peer's masses arrived or its visibility toggled
FEATURES = "features"        # induction history grew or was reset
MODEL = "model"              # segmenter replaced
METRICS = "metrics"          # the model's metrics row was recomputed on its own (after a deferred update)
RELEVANCE = "relevance"      # per-sentence relevance and its profile replaced on their own

MODEL_ROW = "model"

#: epsilon values whose greedy pass is kept; the slider's range is small, and each pass is O(n log n)
MAX_CACHED_EPSILONS = 16


@dataclass
class InductionRound:
    """One induced feature as the feature panel shows it (from an engine ``FeatureAdded`` event)."""

    round: int
    feature: Any
    gain: float
    weight: float                    # e^lambda of this feature right after it was added
    train_loglik: float
    heldout_p_mu: float | None
    weights: tuple[float, ...] = field(repr=False, default=())   # every e^lambda after this round


def check_decision(alpha: float, epsilon: int) -> tuple[float, int]:
    """``(alpha, epsilon)`` as the decision rule takes them, or ValueError (0 <= alpha <= 1, epsilon >= 1)."""
    alpha = float(alpha)
    if not (math.isfinite(alpha) and 0.0 <= alpha <= 1.0):
        raise ValueError(f"the threshold α must lie in [0, 1], got {alpha}")
    if isinstance(epsilon, float) and not (math.isfinite(epsilon) and epsilon == int(epsilon)):
        raise ValueError(f"the minimum separation ε must be a whole number of sentences, got {epsilon}")
    epsilon = int(epsilon)
    if epsilon < 1:
        raise ValueError(f"the minimum separation ε must be at least 1 sentence, got {epsilon}")
    return alpha, epsilon


class SessionState:
    """Plain-Python state of one segviz session.

    Everything derived (hypothesis, metrics) is recomputed by the setters, so ``state.hypothesis_boundaries`` and
    ``state.metrics`` are always consistent with ``alpha``/``epsilon``.
    """

    def __init__(self, *, alpha: float = 0.5, epsilon: int = 2, seed: int = 0):
        try:
            self.alpha, self.epsilon = check_decision(alpha, epsilon)
        except ValueError:
            self.alpha, self.epsilon = 0.5, 2
        self.seed = seed
        self.corpus = None
        self.prepared: PreparedCorpus | None = None
        self.corpus_path: str | None = None
        self.corpus_paths: tuple[str, ...] = ()
        self.has_reference = True
        self.reference_masses: tuple[int, ...] = ()
        self.reference_boundaries = np.zeros(0, dtype=np.int64)
        self.mu: float | None = None
        self.texts: list[str] = []
        self.probabilities: np.ndarray | None = None
        self.relevance: np.ndarray | None = None
        self.relevance_profile: dict | None = None
        self.hypothesis_boundaries = np.zeros(0, dtype=np.int64)
        self.hypothesis_masses: tuple[int, ...] = ()
        self.baseline_masses: dict[str, tuple[int, ...]] = {}
        self.peer_masses: dict[str, tuple[int, ...]] = {}
        self.shown_peers: set[str] = set()
        self.metrics: dict[str, dict[str, float]] = {}
        self.segmenter = None
        self.model_path: str | None = None
        self.model_note = ""        # e.g. "trained on documents 1-240 of this corpus" (in-sample warning)
        self.coverage = None        # segviz.domain.Coverage of the shown text by the shown model's vocabulary
        self.opened_model = None    # what was opened: the segmenter, or the router (segviz.routing) it came from
        self.route = None           # segviz.routing.Route: why the router chose the shown segmenter for this text
        self.rounds: list[InductionRound] = []
        self._listeners: list[Callable[[str], None]] = []
        self._n = 0
        self._starts = np.zeros(0, dtype=np.int64)
        self._keep: dict[int, np.ndarray] = {}

    # -- notification ---------------------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[str], None]) -> None:
        self._listeners.append(callback)

    def _notify(self, topic: str) -> None:
        for callback in list(self._listeners):
            callback(topic)

    # -- derived sizes --------------------------------------------------------------------------------------
    @property
    def n_sentences(self) -> int:
        return self._n

    @property
    def has_model(self) -> bool:
        return self.probabilities is not None

    # -- corpus ---------------------------------------------------------------------------------------------
    def set_corpus(self, corpus, path: str | None = None, *, paths=(), has_reference: bool = True,
                   prepared: "PreparedCorpus | None" = None) -> None:
        """Replace the corpus; the model's probabilities, peers and relevance of the old corpus are dropped.

        ``has_reference`` False: the documents are not a segmentation to score against (unlabelled text), so
        no metric that needs a reference is computed; a corpus that says it has none (``corpus.has_reference``)
        is taken as unlabelled whatever the argument.  ``prepared`` (:func:`prepare_corpus`, computed in the
        background for a long corpus) holds everything derived from it."""
        if prepared is None or prepared.corpus is not corpus or prepared.seed != self.seed:
            prepared = prepare_corpus(corpus, seed=self.seed, has_reference=has_reference)
        elif not has_reference and prepared.has_reference:
            prepared = prepare_corpus(corpus, seed=self.seed, has_reference=False)
        masses = prepared.masses
        self.prepared = prepared
        self.corpus = corpus
        self._n = int(sum(masses))
        self.corpus_path = path
        self.corpus_paths = tuple(str(p) for p in paths) or ((path,) if path else ())
        self.has_reference = prepared.has_reference
        self.reference_masses = masses
        self.reference_boundaries = prepared.reference_boundaries
        self._starts = prepared.starts
        self.texts = prepared.texts
        # Section 6: mu is the reciprocal of the mean reference segment length
        self.mu = default_mu(masses) if self.has_reference else None
        self.baseline_masses = dict(prepared.baseline_masses)
        self.peer_masses = {}
        self.probabilities = None
        self._keep = {}
        self.relevance = None
        self.relevance_profile = None
        self.model_note = ""
        self.coverage = None
        self.route = None
        self.metrics = {name: dict(row) for name, row in prepared.baseline_metrics.items()}
        self._notify(CORPUS)
        self._recompute_hypothesis()

    def _score(self, masses) -> dict[str, float]:
        return dict(score_row(self.reference_masses, masses))

    # -- model output ---------------------------------------------------------------------------------------
    def set_probabilities(self, probabilities, relevance=None, profile=None, *, keep_masks=None,
                          metrics: bool = True) -> None:
        """Boundary probabilities for positions 1..n-1 (index b-1 holds position b).

        ``keep_masks`` ({epsilon: mask}): the decision rule's greedy passes over these probabilities, computed in
        the background, so that showing a new curve costs no pass here.  ``metrics=False`` leaves the model's
        metrics row to :meth:`refresh_metrics` (a live training round: the curve first, the table in the next
        event-loop pass)."""
        if self.corpus is None:
            raise ValueError("load a corpus before setting probabilities")
        probs = np.asarray(probabilities, dtype=np.float64)
        if probs.shape != (self.n_sentences - 1,):
            raise ValueError(f"expected {self.n_sentences - 1} probabilities, got shape {probs.shape}")
        if probs.size and not (np.all(np.isfinite(probs)) and probs.min() >= 0.0 and probs.max() <= 1.0):
            raise ValueError("boundary probabilities must be finite numbers in [0, 1]")
        rel = None
        if relevance is not None:
            rel = np.asarray(relevance, dtype=np.float64)
            if rel.shape != (self.n_sentences,):
                raise ValueError(f"expected {self.n_sentences} relevance values, got shape {rel.shape}")
        self.probabilities = probs
        self._keep = {}
        for epsilon, keep in (keep_masks or {}).items():
            keep = np.asarray(keep, dtype=bool)
            if keep.shape == probs.shape:
                self._keep[int(epsilon)] = keep
        if rel is not None:
            self.relevance = rel
        if profile is not None:
            self.relevance_profile = profile
        self._notify(PROBABILITIES)
        self._recompute_hypothesis(metrics=metrics)

    def refresh_metrics(self) -> None:
        """Score the current hypothesis (after ``set_probabilities(..., metrics=False)``)."""
        if self.probabilities is not None and self.has_reference and self.hypothesis_masses:
            self.metrics[MODEL_ROW] = self._score(self.hypothesis_masses)
            self._notify(METRICS)

    def set_relevance(self, relevance, profile) -> None:
        """Per-sentence relevance (Section 3.3) and its profile, or None for a model without language models."""
        rel = None
        if relevance is not None:
            rel = np.asarray(relevance, dtype=np.float64)
            if rel.shape != (self.n_sentences,):
                raise ValueError(f"expected {self.n_sentences} relevance values, got shape {rel.shape}")
        self.relevance = rel
        self.relevance_profile = profile
        self._notify(RELEVANCE)

    def clear_model(self) -> None:
        """Forget the model's curve, hypothesis, metrics row and relevance (e.g. when training starts anew)."""
        self.probabilities = None
        self._keep = {}
        self.relevance = None
        self.relevance_profile = None
        self.segmenter = None
        self.model_path = None
        self.model_note = ""
        self.coverage = None
        self.opened_model = None
        self.route = None
        self._notify(MODEL)
        self._notify(PROBABILITIES)
        self._recompute_hypothesis()

    def set_segmenter(self, segmenter, path: str | None = None, *, opened=None, route=None) -> None:
        """Take the model and the decision parameters it was tuned to (ValueError if they are unusable).

        ``opened`` is what the file held when it is not ``segmenter`` itself (a router, :mod:`segviz.routing`),
        ``route`` why the router chose ``segmenter`` for the shown text."""
        alpha, epsilon = check_decision(segmenter.alpha_, segmenter.epsilon_)
        self.segmenter = segmenter
        self.opened_model = segmenter if opened is None else opened
        self.route = route
        self.model_path = path
        self.alpha, self.epsilon = alpha, epsilon
        self._notify(MODEL)

    # -- decision parameters --------------------------------------------------------------------------------
    def set_alpha(self, alpha: float) -> None:
        alpha = float(alpha)
        if not math.isfinite(alpha):
            return
        alpha = min(max(alpha, 0.0), 1.0)
        if alpha != self.alpha:
            self.alpha = alpha
            self._recompute_hypothesis()

    def set_epsilon(self, epsilon: int) -> None:
        epsilon = max(int(epsilon), 1)
        if epsilon != self.epsilon:
            self.epsilon = epsilon
            self._recompute_hypothesis()

    def set_decision(self, alpha: float, epsilon: int) -> None:
        self.alpha, self.epsilon = check_decision(min(max(float(alpha), 0.0), 1.0), max(int(epsilon), 1))
        self._recompute_hypothesis()

    def keep_mask(self, epsilon: int, probabilities: np.ndarray | None = None) -> np.ndarray:
        """The decision rule's greedy pass at threshold 0 for ``epsilon`` (:func:`segviz.decode.greedy_order_keep`)."""
        probs = self.probabilities if probabilities is None else probabilities
        if probs is self.probabilities and epsilon in self._keep:
            return self._keep[epsilon]
        keep = greedy_order_keep(probs, int(epsilon))
        if probs is self.probabilities:
            self.store_keep_mask(epsilon, probs, keep)
        return keep

    def store_keep_mask(self, epsilon: int, probabilities: np.ndarray, keep: np.ndarray) -> bool:
        """Keep a greedy pass computed elsewhere (a worker) if it belongs to the current probabilities."""
        if probabilities is not self.probabilities:
            return False
        if len(self._keep) >= MAX_CACHED_EPSILONS and epsilon not in self._keep:
            self._keep.pop(next(iter(self._keep)))
        self._keep[int(epsilon)] = keep
        return True

    def cached_epsilons(self) -> set[int]:
        return set(self._keep)

    def _recompute_hypothesis(self, *, metrics: bool = True) -> None:
        if self.corpus is None:
            return
        if self.probabilities is None:
            self.hypothesis_boundaries = np.zeros(0, dtype=np.int64)
            self.hypothesis_masses = ()
            self.metrics.pop(MODEL_ROW, None)
        else:
            keep = self.keep_mask(self.epsilon)
            self.hypothesis_boundaries = np.flatnonzero(keep & (self.probabilities > self.alpha)) + 1
            self.hypothesis_masses = boundaries_to_masses(self.hypothesis_boundaries, self.n_sentences)
            if self.has_reference and metrics:
                self.metrics[MODEL_ROW] = self._score(self.hypothesis_masses)
        self._notify(HYPOTHESIS)

    # -- peers ----------------------------------------------------------------------------------------------
    def set_peer(self, name: str, masses) -> None:
        masses = tuple(int(m) for m in masses)
        if sum(masses) != self.n_sentences:
            raise ValueError(f"peer {name}: masses cover {sum(masses)} sentences, corpus has {self.n_sentences}")
        self.peer_masses[name] = masses
        if self.has_reference:
            self.metrics[name] = self._score(masses)
        self.shown_peers.add(name)
        self._notify(PEERS)

    def show_peer(self, name: str, shown: bool) -> None:
        if shown:
            self.shown_peers.add(name)
        else:
            self.shown_peers.discard(name)
        self._notify(PEERS)

    def visible_rows(self) -> list[str]:
        """Metrics rows in display order: the model, shown peers, then the baselines."""
        rows = [MODEL_ROW] if MODEL_ROW in self.metrics else []
        rows += [p for p in self.peer_masses if p in self.shown_peers and p in self.metrics]
        rows += [b for b in self.baseline_masses if b in self.metrics]
        return rows

    # -- feature induction ----------------------------------------------------------------------------------
    def add_round(self, event) -> InductionRound:
        """Record an engine ``FeatureAdded`` event (round, feature, gain, weights, train_loglik, heldout_p_mu)."""
        weights = tuple(float(w) for w in event.weights)   # the factors e^lambda of all features so far
        row = InductionRound(round=int(event.round), feature=event.feature, gain=float(event.gain),
                             weight=weights[-1] if weights else float("nan"),
                             train_loglik=float(event.train_loglik),
                             heldout_p_mu=None if event.heldout_p_mu is None else float(event.heldout_p_mu),
                             weights=weights)
        self.rounds.append(row)
        self._notify(FEATURES)
        return row

    def load_history(self, segmenter) -> None:
        """Show a loaded model's induction history (its features, final e^λ, gains, held-out P_mu per round)."""
        features = list(segmenter.features_)
        weights = [float(w) for w in np.asarray(segmenter.weights_, dtype=np.float64)]
        history = list(segmenter.history_ or [])
        rounds = []
        for i, feature in enumerate(features):
            h = history[i] if i < len(history) and isinstance(history[i], dict) else {}
            rounds.append(InductionRound(
                round=_int(h.get("round"), i + 1), feature=feature, gain=_float(h.get("gain")),
                weight=weights[i], train_loglik=_float(h.get("train_loglik")),
                heldout_p_mu=None if h.get("heldout_p_mu") is None else _float(h.get("heldout_p_mu")),
                weights=tuple(weights)))
        self.rounds = rounds
        self._notify(FEATURES)

    def reset_rounds(self) -> None:
        self.rounds = []
        self._notify(FEATURES)

    def current_weights(self) -> tuple[float, ...]:
        """The e^λ of every feature in the table as the latest round (or the loaded model) has them."""
        return self.rounds[-1].weights if self.rounds else ()

    # -- lookups for hover / export -------------------------------------------------------------------------
    def document_of(self, sentence: int) -> int:
        """Index of the reference document holding sentence ``sentence`` (0-based)."""
        return int(np.searchsorted(self._starts, sentence, side="right")) - 1

    def document_starts(self) -> np.ndarray:
        return self._starts

    def is_document_start(self, sentence: int) -> bool:
        i = int(np.searchsorted(self._starts, sentence))
        return i < self._starts.size and int(self._starts[i]) == sentence

    def is_hypothesis_boundary(self, position: int) -> bool:
        b = self.hypothesis_boundaries
        i = int(np.searchsorted(b, position))
        return i < b.size and int(b[i]) == position

    def probability_at(self, position: int) -> float | None:
        if self.probabilities is None or not 1 <= position <= self.n_sentences - 1:
            return None
        return float(self.probabilities[position - 1])


@dataclass(frozen=True)
class PreparedCorpus:
    """Everything the state derives from a corpus, computed once (in the background for a long corpus)."""

    corpus: Any = field(repr=False)
    seed: int
    has_reference: bool
    masses: tuple[int, ...] = field(repr=False)
    reference_boundaries: np.ndarray = field(repr=False)
    starts: np.ndarray = field(repr=False)
    texts: list[str] = field(repr=False)
    baseline_masses: dict = field(repr=False)
    baseline_metrics: dict = field(repr=False)
    peer_input: list = field(repr=False)         # the tokenised stream as the peers' child reads it
    source_groups: list[int] | None = field(repr=False)
    #: what the readers decided (``Corpus.summary()``; O(documents), so not on the window's thread), and each
    #: reading's own summary with its notes
    summary: str | None = field(repr=False, default=None)
    readings_summary: str = field(repr=False, default="")


def prepare_corpus(corpus, *, seed: int = 0, has_reference: bool = True) -> PreparedCorpus:
    """Document lengths, reference boundaries, sentence texts, the four baselines and their metrics rows."""
    has_reference = bool(has_reference) and corpus.has_reference
    masses = tuple(corpus.document_masses())
    n = sum(masses)
    boundaries = masses_to_boundaries(masses) if has_reference else np.zeros(0, np.int64)
    baselines = ({name: tuple(baseline_masses(name, masses, seed=seed)) for name in BASELINES}
                 if has_reference and n >= 2 else {})
    metrics = {name: dict(score_row(masses, m)) for name, m in baselines.items()}
    groups = corpus.source_groups() if len(set(corpus.files)) > 1 else None
    summary = corpus.summary() if corpus.readings else None
    readings = "\n".join(r.summary() + "".join(f"\n  {n}" for n in r.notes) for r in corpus.readings)
    return PreparedCorpus(corpus, seed, has_reference, masses, boundaries, segment_starts(masses),
                          corpus.sentence_texts(), baselines, metrics, encode_sentences(corpus.sentences()), groups,
                          summary, readings)


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
