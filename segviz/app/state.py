"""The session model: everything the window shows, as plain Python (napari style).

:class:`SessionState` knows nothing of Qt.  It holds the corpus and its reference segmentation, the model's
boundary probabilities, the decision parameters alpha and epsilon of Section 7, the resulting hypothesis and every
metrics row, the peer segmenters' hypotheses (issue 6) and the feature-induction history.  Views listen through
:meth:`SessionState.subscribe`; :class:`QtSession` is the thin QObject wrapper that turns those notifications into
Qt signals.  All numbers come from the engine through :mod:`segviz.app.engine` -- the state never recomputes
what the engine owns.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import engine

# Notification topics (one per kind of change, so views redraw only what changed).
CORPUS = "corpus"            # corpus, reference, baselines replaced
PROBABILITIES = "probabilities"  # model probabilities (and relevance) replaced
HYPOTHESIS = "hypothesis"    # alpha / epsilon / hypothesis / model metrics changed
PEERS = "peers"              # a peer's masses arrived or its visibility toggled
FEATURES = "features"        # induction history grew or was reset
MODEL = "model"              # segmenter replaced

MODEL_ROW = "model"


@dataclass
class InductionRound:
    """One induced feature as the feature panel shows it (from an engine ``FeatureAdded`` event)."""

    round: int
    feature: Any
    gain: float
    weight: float                    # e^lambda of this feature right after it was added
    train_loglik: float
    heldout_p_mu: float | None
    event: Any = field(repr=False, default=None)


class SessionState:
    """Plain-Python state of one segviz session.

    Parameters are keyword-only; everything derived (hypothesis, metrics) is recomputed by the setters, so
    ``state.hypothesis_masses`` and ``state.metrics`` are always consistent with ``alpha``/``epsilon``.
    """

    def __init__(self, *, alpha: float = 0.5, epsilon: int = 2, seed: int = 0):
        self.alpha = float(alpha)
        self.epsilon = int(epsilon)
        self.seed = seed
        self.corpus = None
        self.corpus_path: str | None = None
        self.reference_masses: tuple[int, ...] = ()
        self.reference_boundaries = np.zeros(0, dtype=np.int64)
        self.mu: float | None = None
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
        self.rounds: list[InductionRound] = []
        self._listeners: list[Callable[[str], None]] = []
        self._n = 0   # cached: Corpus.n_sentences walks every document

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
    def set_corpus(self, corpus, path: str | None = None) -> None:
        """Replace the corpus; model probabilities, peers and relevance of the old corpus are dropped."""
        masses = tuple(int(m) for m in corpus.masses())
        self.corpus = corpus
        self._n = int(corpus.n_sentences)
        self.corpus_path = path
        self.reference_masses = masses
        self.reference_boundaries = engine.masses_to_boundaries(masses)
        # Section 5: mu is the reciprocal of the mean reference segment length
        self.mu = len(masses) / sum(masses) if masses else None
        self.baseline_masses = engine.baselines(masses, mu=None, seed=self.seed)
        self.peer_masses = {}
        self.probabilities = None
        self.relevance = None
        self.relevance_profile = None
        self.model_note = ""
        self._recompute_baselines()
        self._notify(CORPUS)
        self._recompute_hypothesis()

    # -- model output ---------------------------------------------------------------------------------------
    def set_probabilities(self, probabilities, relevance=None, profile=None) -> None:
        """Boundary probabilities for positions 1..n-1 (index b-1 holds position b)."""
        if self.corpus is None:
            raise ValueError("load a corpus before setting probabilities")
        probs = np.asarray(probabilities, dtype=np.float64)
        if probs.shape != (self.n_sentences - 1,):
            raise ValueError(f"expected {self.n_sentences - 1} probabilities, got shape {probs.shape}")
        self.probabilities = probs
        if relevance is not None:
            rel = np.asarray(relevance, dtype=np.float64)
            if rel.shape != (self.n_sentences,):
                raise ValueError(f"expected {self.n_sentences} relevance values, got shape {rel.shape}")
            self.relevance = rel
        if profile is not None:
            self.relevance_profile = profile
        self._notify(PROBABILITIES)
        self._recompute_hypothesis()

    def set_segmenter(self, segmenter, path: str | None = None) -> None:
        self.segmenter = segmenter
        self.model_path = path
        for name in ("alpha_", "epsilon_"):
            value = getattr(segmenter, name, None)
            if value is not None:
                setattr(self, name.rstrip("_"), float(value) if name == "alpha_" else int(value))
        self._notify(MODEL)

    # -- decision parameters --------------------------------------------------------------------------------
    def set_alpha(self, alpha: float) -> None:
        alpha = float(min(max(alpha, 0.0), 1.0))
        if alpha != self.alpha:
            self.alpha = alpha
            self._recompute_hypothesis()

    def set_epsilon(self, epsilon: int) -> None:
        epsilon = max(int(epsilon), 1)
        if epsilon != self.epsilon:
            self.epsilon = epsilon
            self._recompute_hypothesis()

    def set_decision(self, alpha: float, epsilon: int) -> None:
        self.alpha = float(min(max(alpha, 0.0), 1.0))
        self.epsilon = max(int(epsilon), 1)
        self._recompute_hypothesis()

    def tune(self) -> float:
        """Set alpha and epsilon to the engine's best values for P_mu on this corpus's reference."""
        if self.probabilities is None:
            raise ValueError("no model probabilities to tune on")
        alpha, epsilon, pmu = engine.tune(self.probabilities, self.reference_masses)
        self.set_decision(alpha, epsilon)
        return pmu

    def _recompute_hypothesis(self) -> None:
        if self.corpus is None:
            return
        if self.probabilities is None:
            self.hypothesis_boundaries = np.zeros(0, dtype=np.int64)
            self.hypothesis_masses = ()
            self.metrics.pop(MODEL_ROW, None)
        else:
            b = engine.decode_boundaries(self.probabilities, self.alpha, self.epsilon)
            self.hypothesis_boundaries = b
            self.hypothesis_masses = engine.boundaries_to_masses(b, self.n_sentences)
            self.metrics[MODEL_ROW] = engine.score(self.reference_masses, self.hypothesis_masses)
        self._notify(HYPOTHESIS)

    def _recompute_baselines(self) -> None:
        self.metrics = {name: engine.score(self.reference_masses, masses)
                        for name, masses in self.baseline_masses.items()}

    # -- peers ----------------------------------------------------------------------------------------------
    def set_peer(self, name: str, masses) -> None:
        masses = tuple(int(m) for m in masses)
        if sum(masses) != self.n_sentences:
            raise ValueError(f"peer {name}: masses cover {sum(masses)} sentences, corpus has {self.n_sentences}")
        self.peer_masses[name] = masses
        self.metrics[name] = engine.score(self.reference_masses, masses)
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
        rows += [p for p in self.peer_masses if p in self.shown_peers]
        rows += [b for b in self.baseline_masses]
        return rows

    # -- feature induction ----------------------------------------------------------------------------------
    def add_round(self, event) -> InductionRound:
        """Record an engine ``FeatureAdded`` event (round, feature, gain, weights, train_loglik, heldout_p_mu)."""
        # FeatureAdded.weights are the factors e^lambda of all features so far (Figure 5's numbers)
        weights = tuple(getattr(event, "weights", ()) or ())
        row = InductionRound(round=int(event.round), feature=event.feature, gain=float(event.gain),
                             weight=float(weights[-1]) if weights else float("nan"), train_loglik=float(event.train_loglik),
                             heldout_p_mu=None if event.heldout_p_mu is None else float(event.heldout_p_mu),
                             event=event)
        self.rounds.append(row)
        self._notify(FEATURES)
        return row

    def load_history(self, segmenter) -> None:
        """Show a loaded model's induction history (its features, final e^λ, gains, held-out P_mu per round)."""
        features = list(getattr(segmenter, "features_", []))
        weights = list(np.asarray(getattr(segmenter, "weights_", []), dtype=np.float64))
        history = list(getattr(segmenter, "history_", []) or [])
        rounds = []
        for i, feature in enumerate(features):
            h = history[i] if i < len(history) and isinstance(history[i], dict) else {}
            rounds.append(InductionRound(
                round=int(h.get("round", i + 1)), feature=feature, gain=float(h.get("gain", float("nan"))),
                weight=float(weights[i]) if i < len(weights) else float("nan"),
                train_loglik=float(h.get("train_loglik", float("nan"))),
                heldout_p_mu=None if h.get("heldout_p_mu") is None else float(h["heldout_p_mu"])))
        self.rounds = rounds
        self._notify(FEATURES)

    def reset_rounds(self) -> None:
        self.rounds = []
        self._notify(FEATURES)

    # -- lookups for hover / export -------------------------------------------------------------------------
    def document_of(self, sentence: int) -> int:
        """Index of the reference document holding sentence ``sentence`` (0-based)."""
        ends = np.cumsum(self.reference_masses)
        return int(np.searchsorted(ends, sentence, side="right"))

    def document_starts(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.reference_masses)[:-1]]).astype(np.int64)

    def probability_at(self, position: int) -> float | None:
        if self.probabilities is None or not 1 <= position <= self.n_sentences - 1:
            return None
        return float(self.probabilities[position - 1])


def make_qt_session(state: SessionState | None = None):
    """Build the Qt wrapper lazily so importing this module never needs Qt."""
    from .qt_session import QtSession

    return QtSession(state or SessionState())
