"""The segmenter: candidate features + induced exponential model + alpha/epsilon rule (paper Sections 3-4, 7).

Training (:func:`train_segmenter`, or an :class:`InductionSession` to drive it one
feature at a time) computes per-sentence relevance with the language models,
builds the candidate matrix of the training stream, grows a
:class:`segviz.induction.BoundaryModel` while reporting held-out P_mu each round,
and finally tunes alpha/epsilon on the held-out stream to maximise P_mu
(Section 7).  A trained :class:`Segmenter` is saved as JSON (features, weights,
alpha, epsilon, mu, the language-model directory as a path relative to the JSON
file, and a ``format``/``version`` field that :meth:`Segmenter.load` checks).
"""
from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any, Generator, Sequence

import numpy as np
import scipy.sparse as sp

from segviz import __version__
from segviz.decode import DEFAULT_ALPHAS, DEFAULT_EPSILONS, decode, positions_to_masses, tune
from segviz.errors import SegvizError
from segviz.events import Progress
from segviz.features import (
    EXTENDED_TEMPLATES,
    RELEVANCE_EDGES,
    VOCABULARY_TEMPLATES,
    FeatureSpec,
    boundary_labels,
    build_candidates,
    evaluate_features,
)
from segviz.induction import BoundaryModel, FeatureAdded, InductionFinished
from segviz.persist import atomic_write_json, load_json

__all__ = ["Segmenter", "InductionSession", "train_segmenter", "corpus_groups", "FORMAT", "VERSION"]

FORMAT = "segviz-segmenter"
VERSION = 1


def _sentences_of(corpus) -> list:
    if hasattr(corpus, "sentences") and callable(corpus.sentences):
        return list(corpus.sentences())
    if isinstance(corpus, (list, tuple)):
        return list(corpus)
    raise SegvizError(f"expected a Corpus or a list of tokenised sentences, got {type(corpus).__name__}")


def corpus_groups(corpus) -> list[int] | None:
    """Sentence counts of the runs of consecutive documents from the same source file (the peers behind the
    peer-evidence features run per file, e.g. per Choi document); None for a bare list of sentences."""
    files = getattr(corpus, "files", None)
    docs = getattr(corpus, "documents", None)
    if files is None or docs is None:
        return None
    groups: list[int] = []
    prev = object()
    for f, d in zip(files, docs):
        if f == prev:
            groups[-1] += len(d)
        else:
            groups.append(len(d))
            prev = f
    return groups


def _relevance(lms, sentences, needed: bool) -> np.ndarray | None:
    if not needed:
        return None
    if lms is None:
        raise SegvizError("this model asks relevance questions but has no language models "
                          "(train with --lm, or keep the LM directory next to the model)")
    from segviz.relevance import sentence_relevance

    return np.asarray(sentence_relevance(lms, sentences), dtype=np.float64)


class Segmenter:
    """A trained segmenter.  Build one with :func:`train_segmenter` or :meth:`load`.

    Attributes
    ----------
    features_ : list[FeatureSpec], in order of induction.
    lambdas_ : their weights; ``weights_`` = e^lambda (the paper's factors).
    prior_ : q0(yes), the training base rate.
    alpha_, epsilon_ : the decision rule (tuned on held-out data).
    mu_ : 1 / mean training segment length (the P_mu parameter used for tuning).
    lms_ : the LanguageModels for relevance features (None if the model asks none).
    history_ : per-round dicts (feature index, gain, e^lambda, train log-lik, held-out P_mu).
    info_ : provenance (corpora, sizes, timings).
    """

    def __init__(self, *, features: Sequence[FeatureSpec], lambdas: Sequence[float], prior: float,
                 alpha: float, epsilon: int, mu: float, lms=None, lm_dir: str | None = None,
                 history: Sequence[dict] = (), info: dict | None = None):
        if len(features) != len(lambdas):
            raise SegvizError(f"{len(features)} features but {len(lambdas)} weights")
        if not 0.0 < prior < 1.0:
            raise SegvizError(f"prior must lie in (0, 1), got {prior}")
        self.features_ = list(features)
        self.lambdas_ = np.asarray(lambdas, dtype=np.float64)
        self.prior_ = float(prior)
        self.alpha_ = float(alpha)
        self.epsilon_ = int(epsilon)
        self.mu_ = float(mu)
        self.lms_ = lms
        self.lm_dir_ = lm_dir
        self.history_ = list(history)
        self.info_ = dict(info or {})
        self._cache: tuple[Any, np.ndarray | None, sp.csr_matrix] | None = None

    # -- model quantities
    @property
    def weights_(self) -> np.ndarray:
        return np.exp(self.lambdas_)

    @property
    def offset_(self) -> float:
        return math.log(self.prior_ / (1.0 - self.prior_))

    @property
    def uses_relevance(self) -> bool:
        return any(f.kind == "relevance" for f in self.features_)

    def __repr__(self) -> str:
        return (f"Segmenter(features={len(self.features_)}, alpha={self.alpha_:g}, epsilon={self.epsilon_}, "
                f"mu={self.mu_:.4g})")

    # -- application
    def feature_matrix(self, corpus, *, relevance: np.ndarray | None = None) -> sp.csr_matrix:
        """The (n-1, n_features) 0/1 matrix of the induced features on ``corpus`` (cached for the last corpus)."""
        if self._cache is not None and self._cache[0] is corpus:
            return self._cache[2]
        sentences = _sentences_of(corpus)
        if len(sentences) < 2:
            raise SegvizError("need at least 2 sentences to place boundaries")
        rel = relevance if relevance is not None else _relevance(self.lms_, sentences, self.uses_relevance)
        X = evaluate_features(self.features_, sentences, rel, groups=corpus_groups(corpus)) if self.features_ else \
            sp.csr_matrix((len(sentences) - 1, 0))
        self._cache = (corpus, rel, X)
        return X

    def boundary_probabilities(self, corpus, *, relevance: np.ndarray | None = None) -> np.ndarray:
        """q(yes) for the n-1 positions b=1..n-1 of the stream (boundary before sentence b), Section 4."""
        X = self.feature_matrix(corpus, relevance=relevance)
        s = self.offset_ + np.asarray(X @ self.lambdas_).ravel()
        return 0.5 * (1.0 + np.tanh(0.5 * s))  # the logistic, overflow-free

    def active_features(self, corpus, position: int, *, relevance: np.ndarray | None = None
                        ) -> list[tuple[FeatureSpec, float]]:
        """The induced features that fire at boundary position ``position`` (1..n-1), with their e^lambda."""
        X = self.feature_matrix(corpus, relevance=relevance)
        if not 1 <= int(position) <= X.shape[0]:
            raise SegvizError(f"position must be in 1..{X.shape[0]}, got {position}")
        row = X.getrow(int(position) - 1)
        w = self.weights_
        return [(self.features_[j], float(w[j])) for j in sorted(row.indices.tolist())]

    def segment(self, corpus, alpha: float | None = None, epsilon: int | None = None, *,
                relevance: np.ndarray | None = None) -> tuple[int, ...]:
        """Segment lengths (masses) of ``corpus`` under the alpha/epsilon rule (Section 7)."""
        p = self.boundary_probabilities(corpus, relevance=relevance)
        a = self.alpha_ if alpha is None else float(alpha)
        e = self.epsilon_ if epsilon is None else int(epsilon)
        return positions_to_masses(decode(p, a, e), len(p) + 1)

    def truncated(self, rounds: int, *, heldout_corpus=None, heldout_relevance=None) -> "Segmenter":
        """The model as it stood after ``rounds`` induction rounds (weights of that round, from history_);
        alpha/epsilon re-tuned on ``heldout_corpus`` when given, else kept."""
        if not 1 <= rounds <= len(self.features_):
            raise SegvizError(f"rounds must be in 1..{len(self.features_)}")
        try:
            weights = self.history_[rounds - 1]["weights"]
        except (IndexError, KeyError, TypeError):
            raise SegvizError("this model has no per-round weights in its history; cannot truncate") from None
        seg = Segmenter(features=self.features_[:rounds], lambdas=np.log(np.asarray(weights, dtype=np.float64)),
                        prior=self.prior_, alpha=self.alpha_, epsilon=self.epsilon_, mu=self.mu_, lms=self.lms_,
                        lm_dir=self.lm_dir_, history=self.history_[:rounds], info=dict(self.info_, rounds_kept=rounds))
        if heldout_corpus is not None:
            probs = seg.boundary_probabilities(heldout_corpus, relevance=heldout_relevance)
            seg.alpha_, seg.epsilon_, pmu = tune(probs, heldout_corpus.masses(), mu=self.mu_)
            seg.info_["tuned_p_mu"] = pmu
        return seg

    # -- persistence
    def to_dict(self, *, lm_dir: str | None = None) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "segviz_version": __version__,
            "prior": self.prior_,
            "alpha": self.alpha_,
            "epsilon": self.epsilon_,
            "mu": self.mu_,
            "lm_dir": lm_dir,
            "features": [f.to_dict() for f in self.features_],
            "lambdas": [float(x) for x in self.lambdas_],
            "weights": [float(x) for x in self.weights_],
            "descriptions": [f.description for f in self.features_],
            "history": self.history_,
            "info": self.info_,
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write the model JSON atomically.  The LM directory is stored relative to the JSON's folder;
        models with LMs but no directory get theirs saved beside the JSON as ``<name>.lm/``."""
        path = Path(path)
        lm_ref = None
        if self.lms_ is not None:
            if self.lm_dir_ is None or not Path(self.lm_dir_).is_dir():
                target = path.with_suffix(".lm")
                self.lms_.save(target)
                self.lm_dir_ = str(target.resolve())
            lm_ref = os.path.relpath(Path(self.lm_dir_).resolve(), path.resolve().parent)
        return atomic_write_json(path, self.to_dict(lm_dir=lm_ref))

    @classmethod
    def load(cls, path: str | os.PathLike, *, lms=None) -> "Segmenter":
        """Read a model saved by :meth:`save`; its language models are loaded from the stored directory."""
        path = Path(path)
        d = load_json(path, expected_format=FORMAT)
        if d.get("version") != VERSION:
            raise SegvizError(f"{path}: model version {d.get('version')!r} is not supported (expected {VERSION})")
        try:
            features = [FeatureSpec.from_dict(f) for f in d["features"]]
            lambdas = [float(x) for x in d["lambdas"]]
            kwargs = dict(prior=float(d["prior"]), alpha=float(d["alpha"]), epsilon=int(d["epsilon"]),
                          mu=float(d["mu"]))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, SegvizError):
                raise SegvizError(f"{path}: {exc}") from None
            raise SegvizError(f"{path}: malformed segmenter model ({exc.__class__.__name__}: {exc})") from None
        lm_dir = None
        if d.get("lm_dir"):
            lm_dir = str((path.resolve().parent / d["lm_dir"]).resolve())
        needs_lm = any(f.kind == "relevance" for f in features)
        if lms is None and lm_dir is not None and (needs_lm or Path(lm_dir).is_dir()):
            from segviz.lm.models import LanguageModels

            if not Path(lm_dir).is_dir():
                raise SegvizError(f"{path}: its language models are missing (looked in {lm_dir})")
            lms = LanguageModels.load(lm_dir)
        if needs_lm and lms is None:
            raise SegvizError(f"{path}: the model asks relevance questions but names no language models")
        return cls(features=features, lambdas=lambdas, lms=lms, lm_dir=lm_dir,
                   history=d.get("history") or [], info=d.get("info") or {}, **kwargs)


class InductionSession:
    """Training state that grows the model one feature at a time (the app's Step button).

    ``prepare()`` is a generator (relevance, candidate matrices); afterwards
    ``step()`` induces exactly one more feature and returns its FeatureAdded
    (or an InductionFinished when nothing has gain left); ``segmenter()``
    snapshots a tuned :class:`Segmenter` of the current round at any time.

    Candidates: the vocabulary questions for the ``vocabulary`` most frequent training
    words -- by default EXTENDED_TEMPLATES, the paper's 15 questions of Section 3.4 plus
    next/previous 10 sentences and 2/3 words (>= 300,000 candidates on the Reuters
    training portion; ``templates=VOCABULARY_TEMPLATES`` for the paper's set) -- the
    relevance interval questions (Section 3.3) when ``lms`` are given, and, unless
    ``cohesion=False``, our lexical-cohesion interval questions (not in the paper; on
    Reuters they lift test P_mu from 0.91 to 0.94, see docs/reproduction.md).
    """

    def __init__(self, train_corpus, heldout_corpus, lms, *, n_features: int = 100,
                 vocabulary: int | Sequence[str] = 30000, use_relevance: bool = True,
                 templates=EXTENDED_TEMPLATES, relevance_edges=RELEVANCE_EDGES, mu: float | None = None,
                 stopping: str = "last", alphas: Sequence[float] = DEFAULT_ALPHAS,
                 epsilons: Sequence[int] = DEFAULT_EPSILONS, lambda_max: float = 10.0,
                 iis_tol: float = 1e-6, cohesion: bool = True, min_support: int = 1,
                 peer_evidence: bool = False):
        if stopping not in ("last", "heldout"):
            raise SegvizError(f"stopping must be 'last' or 'heldout', not {stopping!r}")
        if int(n_features) < 1:
            raise SegvizError(f"n_features must be >= 1, got {n_features}")
        self.train_corpus = train_corpus
        self.heldout_corpus = heldout_corpus
        self.lms = lms
        self.n_features = int(n_features)
        self.vocabulary = vocabulary
        self.use_relevance = bool(use_relevance) and lms is not None
        self.templates = templates
        self.cohesion = bool(cohesion)
        self.peer_evidence = bool(peer_evidence)
        self.min_support = int(min_support)
        self.relevance_edges = relevance_edges
        self.mu = mu
        self.stopping = stopping
        self.alphas = alphas
        self.epsilons = epsilons
        self.model = BoundaryModel(n_features=self.n_features, lambda_max=lambda_max, iis_tol=iis_tol,
                                   alphas=alphas, epsilons=epsilons)
        self._prepared = False
        self._gen = None
        self.info: dict = {}

    def prepare(self) -> Generator[Progress, None, None]:
        t0 = time.perf_counter()
        train_s = _sentences_of(self.train_corpus)
        if len(train_s) < 2:
            raise SegvizError("the training corpus needs at least 2 sentences")
        masses = tuple(self.train_corpus.masses())
        self.y = boundary_labels(masses)
        if self.y.all() or not self.y.any():
            raise SegvizError("the training corpus needs at least 2 documents and one of more than 1 sentence")
        self.mu_ = self.mu if self.mu is not None else len(masses) / sum(masses)
        yield Progress("relevance", 0, 2)
        rel = _relevance(self.lms, train_s, self.use_relevance)
        held_s = rel_h = None
        if self.heldout_corpus is not None:
            held_s = _sentences_of(self.heldout_corpus)
            rel_h = _relevance(self.lms, held_s, self.use_relevance)
        yield Progress("relevance", 2, 2)
        yield Progress("candidate features", 0, 2)
        self.X, self.specs = build_candidates(train_s, rel, vocabulary=self.vocabulary, templates=self.templates,
                                              relevance_edges=self.relevance_edges, cohesion=self.cohesion,
                                              peer_evidence=self.peer_evidence,
                                              groups=corpus_groups(self.train_corpus), min_support=self.min_support)
        yield Progress("candidate features", 1, 2)
        self.Xh = None
        if held_s is not None:
            self.Xh = evaluate_features(self.specs, held_s, rel_h, groups=corpus_groups(self.heldout_corpus)).tocsc()
            self.heldout_masses = tuple(self.heldout_corpus.masses())
        yield Progress("candidate features", 2, 2)
        self._train_sentences, self._train_relevance = train_s, rel
        self._held_sentences, self._held_relevance = held_s, rel_h
        self.info.update({
            "train_corpus": getattr(self.train_corpus, "name", None),
            "heldout_corpus": getattr(self.heldout_corpus, "name", None),
            "train_sentences": len(train_s), "train_events": int(self.X.shape[0]),
            "train_boundaries": int(self.y.sum()),
            "candidates": int(self.X.shape[1]), "candidate_nonzeros": int(self.X.nnz),
            "vocabulary": self.vocabulary if isinstance(self.vocabulary, int) else len(self.vocabulary),
            "use_relevance": self.use_relevance, "cohesion": self.cohesion,
            "peer_evidence": self.peer_evidence, "min_support": self.min_support,
            "stopping": self.stopping,
            "prepare_seconds": round(time.perf_counter() - t0, 3),
        })
        self._prepared = True

    def _ensure_prepared(self):
        if not self._prepared:
            for _ in self.prepare():
                pass

    def rounds(self, n_features: int | None = None) -> Generator[Any, None, None]:
        """Forward the induction generator's events up to ``n_features`` features in total."""
        self._ensure_prepared()
        yield from self.model.induce(self.X, self.y, self.specs, heldout_X=self.Xh,
                                     heldout_masses=getattr(self, "heldout_masses", None), mu=self.mu_,
                                     n_features=self.n_features if n_features is None else n_features)

    def step(self) -> FeatureAdded | InductionFinished:
        """Induce exactly one more feature."""
        target = len(getattr(self.model, "features_", [])) + 1
        last: Any = None
        for ev in self.rounds(target):
            if isinstance(ev, (FeatureAdded, InductionFinished)):
                last = ev
                if isinstance(ev, FeatureAdded):
                    return ev
        return last

    def segmenter(self) -> Segmenter:
        """A tuned Segmenter of the model as it stands (stopping rule applied)."""
        self._ensure_prepared()
        model = self.model
        if not hasattr(model, "prior_"):
            raise SegvizError("no feature has been induced yet")
        rounds = len(model.features_)
        if self.stopping == "heldout" and self.Xh is not None and model.history_:
            scores = [e.heldout_p_mu if e.heldout_p_mu is not None else -1 for e in model.history_]
            rounds = int(np.argmax(scores)) + 1
        m = model.truncated(rounds)
        # alpha/epsilon maximising P_mu on held-out data (Section 7); the training stream without held-out data
        if self.Xh is not None:
            probs = m.predict_proba(self.Xh[:, m.columns_])
            ref = self.heldout_masses
        else:
            probs = m.predict_proba(self.X[:, m.columns_])
            ref = tuple(self.train_corpus.masses())
        alpha, eps, pmu = tune(probs, ref, mu=self.mu_, alphas=self.alphas, epsilons=self.epsilons)
        history = [{
            "round": e.round, "feature": e.feature.description, "gain": e.gain,
            "weight": e.weights[-1], "train_loglik": e.train_loglik, "heldout_p_mu": e.heldout_p_mu,
            "seconds": round(e.seconds, 4), "iis_iterations": e.iis_iterations,
            "weights": [float(w) for w in e.weights],
        } for e in model.history_]
        info = dict(self.info, rounds_induced=len(model.features_), rounds_kept=rounds,
                    tuned_on="heldout" if self.Xh is not None else "train", tuned_p_mu=pmu)
        return Segmenter(features=m.features_, lambdas=m.lambdas_, prior=m.prior_, alpha=alpha, epsilon=eps,
                         mu=self.mu_, lms=self.lms if self.use_relevance or self.lms is not None else None,
                         history=history, info=info)


def train_segmenter(train_corpus, heldout_corpus, lms, *, n_features: int = 100, **params
                    ) -> Generator[Any, None, Segmenter]:
    """Train a segmenter; a generator of Progress / FeatureAdded / InductionFinished events returning it.

    ``lms`` may be None (vocabulary questions only).  ``params``: see :class:`InductionSession`
    (vocabulary, use_relevance, cohesion, peer_evidence, stopping, mu, alphas, epsilons, lambda_max, iis_tol, templates,
    relevance_edges).  One FeatureAdded is yielded per induction round, so a caller can pull one
    round at a time and stop whenever it likes.
    """
    t0 = time.perf_counter()
    session = InductionSession(train_corpus, heldout_corpus, lms, n_features=n_features, **params)
    yield from session.prepare()
    t1 = time.perf_counter()
    yield from session.rounds()
    t2 = time.perf_counter()
    yield Progress("tuning alpha/epsilon", 0, 1)
    seg = session.segmenter()
    seg.info_.update(induction_seconds=round(t2 - t1, 3), total_seconds=round(time.perf_counter() - t0, 3))
    yield Progress("tuning alpha/epsilon", 1, 1)
    return seg
