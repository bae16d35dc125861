"""The segmenter: an estimator that induces an exponential boundary model and decodes it (paper Sections 3-7).

:class:`Segmenter` follows scikit-learn's estimator style.  Hyperparameters are keyword-only and stored verbatim
in ``__init__``.  :meth:`Segmenter.fit` (or :meth:`Segmenter.fit_iter`, a generator of the engine's small typed
events) does five things in order:

1. It computes per-sentence relevance with the language models (Section 3.3).
2. It builds the candidate matrix of the training stream (Section 3.4).
3. It grows the model one feature per round by greedy induction (Section 4, :mod:`segviz.induction`).
4. It reports held-out P_mu each round.
5. It tunes the decision rule's alpha and epsilon on the held-out stream to maximise P_mu (Section 7).

Learned state carries a trailing underscore.  The estimator can be queried after every
:class:`~segviz.induction.FeatureAdded` event (:meth:`predict`, :meth:`predict_proba`, :meth:`score`), so a
caller can stop pulling at any round and keep the model of that round.

A fitted model is saved as JSON by :meth:`save` and read back by :meth:`load`.  The JSON holds the features,
weights, alpha, epsilon and mu, the language-model directory as a path relative to the JSON file, and a
``format``/``version`` field that :meth:`load` checks.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Generator, Sequence

import numpy as np
import scipy.sparse as sp

from segviz import __version__
from segviz.corpus import Corpus
from segviz.decode import DEFAULT_ALPHAS, DEFAULT_EPSILONS, decode
from segviz.errors import SegvizError
from segviz.events import Progress
from segviz.features import (
    EXTENDED_TEMPLATES,
    RELEVANCE_EDGES,
    VOCABULARY_TEMPLATES,
    FeatureContext,
    FeatureSpec,
    build_candidates,
    evaluate_features,
    resolve_families,
)
from segviz.induction import BoundaryModel, FeatureAdded, InductionFinished
from segviz.length_prior import DEFAULT_BIASES, DEFAULT_SHAPES, decode_length_prior
from segviz.metrics import score_row
from segviz.bundle import is_bundle, member_digests, members_digest, read_bundle, write_bundle
from segviz.lm.models import LanguageModels
from segviz.model_schema import validate_model_document
from segviz.persist import load_json
from segviz.segmentation import boundaries_to_masses, default_mu, logistic, masses_to_indicator
from segviz.tuning import check_tuning, tune_length_prior_rule, tune_threshold_rule

__all__ = ["Segmenter", "FeatureAdded", "InductionFinished", "TEMPLATE_SETS", "FORMAT", "VERSION"]

FORMAT = "segviz-segmenter"
VERSION = 1

#: named candidate template sets: the paper's 15 vocabulary questions, or those plus wider windows
TEMPLATE_SETS = {"paper": VOCABULARY_TEMPLATES, "extended": EXTENDED_TEMPLATES}

#: the decision rules used between induction rounds (before the final tuning, or without held-out data)
_UNTUNED_ALPHA, _UNTUNED_EPSILON = 0.5, 1
_UNTUNED_SHAPE, _UNTUNED_BIAS = 2.0, 0.0
#: the decision rules: the paper's threshold and separation (Section 7), or the length prior (beyond the paper)
DECISION_RULES = ("threshold", "length_prior")

_SCORE_KEYS = ("p_mu", "p_k", "window_diff", "precision", "recall", "f1")


def as_corpus(data, *, what: str = "corpus") -> Corpus:
    """A :class:`Corpus`, or a list of tokenised sentences wrapped as one (reference-free) document."""
    if isinstance(data, Corpus):
        return data
    if isinstance(data, (list, tuple)) and all(isinstance(s, (list, tuple)) for s in data):
        return Corpus.from_sentences(data)
    raise SegvizError(f"{what}: expected a Corpus or a list of tokenised sentences, got {type(data).__name__}")


def _relevance(lms, sentences, needed: bool) -> np.ndarray | None:
    if not needed:
        return None
    if lms is None:
        raise SegvizError("this model asks relevance questions but has no language models "
                          "(train with --lm, or keep the LM directory next to the model)")
    from segviz.relevance import sentence_relevance

    return np.asarray(sentence_relevance(lms, sentences), dtype=np.float64)


@dataclass
class _Applied:
    """The induced features evaluated on one corpus (kept so a new round costs one column, not all of them)."""

    corpus: Corpus
    context: FeatureContext
    features: tuple[FeatureSpec, ...]
    matrix: sp.csr_matrix


class Segmenter:
    """Text segmentation with an exponential boundary model (Beeferman, Berger & Lafferty 1997).

    Parameters (keyword-only, stored verbatim)
    ------------------------------------------
    n_features : features to induce (the paper used 70 and 100).
    vocabulary : candidate words: an int (that many most frequent training words) or a list of words.
    templates : ``"extended"`` (the paper's 15 vocabulary questions of Section 3.4 plus next/previous 10
        sentences and 2/3 words), ``"paper"`` (the 15), or a sequence of :class:`segviz.features.Template`.
    use_relevance : ask the relevance questions of Section 3.3 (needs language models at fit time).
    cohesion : add the lexical-cohesion interval questions (not in the paper).
    peer_evidence : add the C99/TextTiling-evidence interval questions (not in the paper).
    families : names of the candidate families to ask (:data:`segviz.features.FAMILIES`, e.g.
        ``("vocabulary", "relevance", "tfidf", "shape")``); None = vocabulary and relevance, plus cohesion and
        peer evidence as ``cohesion`` / ``peer_evidence`` say.  An explicit list overrides those two switches.
    min_support : drop candidates firing on fewer training events than this.
    l2 : precision of a Gaussian prior on the weights (gains and IIS maximise the penalised likelihood); 0 =
        the paper's maximum likelihood.  Keeps questions seen on a handful of training events off the cap.
    relevance_edges : the relevance interval grid.
    mu : the P_mu parameter for tuning; None = 1 / mean training segment length (Section 6).
    stopping : ``"last"`` keeps every induced feature; ``"heldout"`` keeps the round with the best held-out P_mu.
    alphas, epsilons : the tuning grid of the decision rule (Section 7).
    tuning_metric : what the decision rules are tuned for on held-out data: ``"p_mu"`` (maximised, the paper's
        Section 7) or ``"p_k"`` (minimised).
    tuning_units : ``"stream"`` (the held-out corpus as one stream, the paper's way) or ``"per-document"`` (each
        held-out source file decoded on its own and the rates averaged over files, as documents are evaluated;
        :mod:`segviz.tuning`).
    lambda_max : cap on |lambda| (a feature that separates the training events gets a finite weight).
    iis_tol : IIS stops when no weight moves by more than this.

    Learned state
    -------------
    features_ : list of :class:`~segviz.features.FeatureSpec`, in order of induction.
    lambdas_ : their weights (the paper's factors are ``weights_ = exp(lambdas_)``).
    prior_ : q0(yes), the training base rate; ``offset_`` its log-odds.
    alpha_, epsilon_ : the decision rule (tuned on held-out data).
    mu_ : the P_mu parameter used for tuning.
    lms_ : the :class:`~segviz.lm.LanguageModels` behind the relevance questions (None without them).
    history_ : one JSON-ready dict per induction round (feature, gain, e^lambda, log-likelihood, held-out P_mu,
        and every weight after that round).
    info_ : provenance (corpora, sizes, timings, the stopping rule applied).
    """

    def __init__(self, *, n_features: int = 100, vocabulary: int | Sequence[str] = 30000,
                 templates: str | Sequence = "extended", use_relevance: bool = True, cohesion: bool = True,
                 peer_evidence: bool = False, families: Sequence[str] | None = None, min_support: int = 1,
                 l2: float = 0.0, relevance_edges: Sequence[float] = RELEVANCE_EDGES, mu: float | None = None,
                 stopping: str = "last", alphas: Sequence[float] = DEFAULT_ALPHAS,
                 epsilons: Sequence[int] = DEFAULT_EPSILONS, lambda_max: float = 10.0, iis_tol: float = 1e-6,
                 decision_rule: str = "threshold", length_shapes: Sequence[float] = DEFAULT_SHAPES,
                 length_biases: Sequence[float] = DEFAULT_BIASES, tuning_metric: str = "p_mu",
                 tuning_units: str = "stream"):
        self.n_features = n_features
        self.vocabulary = vocabulary
        self.templates = templates
        self.use_relevance = use_relevance
        self.cohesion = cohesion
        self.peer_evidence = peer_evidence
        self.families = families
        self.min_support = min_support
        self.l2 = l2
        self.relevance_edges = relevance_edges
        self.mu = mu
        self.stopping = stopping
        self.alphas = alphas
        self.epsilons = epsilons
        self.lambda_max = lambda_max
        self.iis_tol = iis_tol
        self.decision_rule = decision_rule
        self.length_shapes = length_shapes
        self.length_biases = length_biases
        self.tuning_metric = tuning_metric
        self.tuning_units = tuning_units

    _PARAMS = ("n_features", "vocabulary", "templates", "use_relevance", "cohesion", "peer_evidence", "families",
               "min_support", "l2", "relevance_edges", "mu", "stopping", "alphas", "epsilons", "lambda_max",
               "iis_tol", "decision_rule", "length_shapes", "length_biases", "tuning_metric", "tuning_units")

    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in self._PARAMS}

    def set_params(self, **params) -> "Segmenter":
        for name, value in params.items():
            if name not in self._PARAMS:
                raise SegvizError(f"Segmenter has no parameter {name!r}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        if not self.is_fitted:
            return f"Segmenter(n_features={self.n_features!r})"
        return (f"Segmenter(features={len(self.features_)}, alpha={self.alpha_:g}, epsilon={self.epsilon_}, "
                f"mu={self.mu_:.4g})")

    # ------------------------------------------------------------------ validation
    def _template_set(self):
        if isinstance(self.templates, str):
            if self.templates not in TEMPLATE_SETS:
                raise SegvizError(f"templates must be one of {', '.join(TEMPLATE_SETS)} or a sequence of "
                                  f"Template, not {self.templates!r}")
            return TEMPLATE_SETS[self.templates]
        return tuple(self.templates)

    def check_params(self) -> "Segmenter":
        """Validate the hyperparameters (as :meth:`fit` does first), so a caller can refuse bad values before
        reading any data; returns ``self``.  Every problem is one :class:`SegvizError`."""
        try:
            self._validate_params()
        except (TypeError, ValueError, OverflowError) as exc:
            raise SegvizError(f"invalid Segmenter parameters ({exc})") from None
        return self

    def _validate_params(self) -> None:
        def positive_int(name: str, value) -> None:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise SegvizError(f"{name} must be an integer >= 1, got {value!r}")

        positive_int("n_features", self.n_features)
        positive_int("min_support", self.min_support)
        if isinstance(self.vocabulary, (int, np.integer)):
            positive_int("vocabulary", self.vocabulary)
        elif isinstance(self.vocabulary, str) or not all(isinstance(w, str) for w in self.vocabulary):
            raise SegvizError("vocabulary must be a positive integer or a list of words")
        self._template_set()
        if self.stopping not in ("last", "heldout"):
            raise SegvizError(f"stopping must be 'last' or 'heldout', not {self.stopping!r}")
        if self.mu is not None and not (math.isfinite(self.mu) and self.mu > 0):
            raise SegvizError(f"mu must be a positive number, got {self.mu!r}")
        if not len(self.alphas) or any(not 0.0 <= float(a) <= 1.0 for a in self.alphas):
            raise SegvizError("alphas must be a non-empty grid of numbers in [0, 1]")
        if not len(self.epsilons) or any(int(e) != e or e < 1 for e in self.epsilons):
            raise SegvizError("epsilons must be a non-empty grid of integers >= 1")
        if not (math.isfinite(self.lambda_max) and self.lambda_max > 0):
            raise SegvizError(f"lambda_max must be a positive number, got {self.lambda_max!r}")
        if not (math.isfinite(self.iis_tol) and self.iis_tol > 0):
            raise SegvizError(f"iis_tol must be a positive number, got {self.iis_tol!r}")
        if isinstance(self.l2, bool) or not isinstance(self.l2, (int, float, np.number)) or not (
                math.isfinite(self.l2) and self.l2 >= 0):
            raise SegvizError(f"l2 must be a number >= 0, got {self.l2!r}")
        if self.decision_rule not in DECISION_RULES:
            raise SegvizError(f"decision_rule must be one of {', '.join(DECISION_RULES)}, not {self.decision_rule!r}")
        if not len(self.length_shapes) or any(not (math.isfinite(float(k)) and k > 0) for k in self.length_shapes):
            raise SegvizError("length_shapes must be a non-empty grid of positive numbers")
        if not len(self.length_biases) or any(not math.isfinite(float(b)) for b in self.length_biases):
            raise SegvizError("length_biases must be a non-empty grid of finite numbers")
        check_tuning(self.tuning_metric, self.tuning_units)
        self.candidate_families()

    def candidate_families(self) -> tuple[str, ...]:
        """The candidate families this estimator asks about (``families``, or the switches' choice)."""
        if self.families is None:
            return resolve_families(("vocabulary", "relevance") + (("cohesion",) if self.cohesion else ())
                                    + (("peer",) if self.peer_evidence else ()))
        if isinstance(self.families, str):
            raise SegvizError(f"families must be a list of family names, not the string {self.families!r}")
        return resolve_families(self.families)

    @property
    def is_fitted(self) -> bool:
        return hasattr(self, "features_")

    def _check_fitted(self) -> None:
        if not self.is_fitted:
            raise SegvizError("this Segmenter is not fitted yet; call fit() (or load a saved model) first")

    # ------------------------------------------------------------------ learned quantities
    @property
    def weights_(self) -> np.ndarray:
        """The paper's factors e^lambda of the induced features."""
        self._check_fitted()
        return np.exp(self.lambdas_)

    @property
    def offset_(self) -> float:
        self._check_fitted()
        return math.log(self.prior_ / (1.0 - self.prior_))

    @property
    def uses_relevance(self) -> bool:
        """True when some induced feature asks a relevance question (prediction then needs ``lms_``)."""
        self._check_fitted()
        return any(f.kind == "relevance" for f in self.features_)

    # ------------------------------------------------------------------ training
    def fit(self, train, heldout=None, lms=None) -> "Segmenter":
        """Induce the model on ``train`` and tune the decision rule on ``heldout`` (see :meth:`fit_iter`)."""
        for _ in self.fit_iter(train, heldout, lms):
            pass
        return self

    def fit_iter(self, train, heldout=None, lms=None
                 ) -> Generator[Progress | FeatureAdded | InductionFinished, None, None]:
        """:meth:`fit` as a generator of the engine's typed events.

        Yields :class:`~segviz.events.Progress` (relevance, candidates, rounds, tuning), one
        :class:`~segviz.induction.FeatureAdded` per induced feature, and an
        :class:`~segviz.induction.InductionFinished`.  After every ``FeatureAdded`` the estimator holds the model
        of that round: its weights, and the round's best held-out alpha/epsilon (0.5 and 1 without held-out
        data).  When the generator is exhausted the stopping rule has been applied and alpha/epsilon tuned on
        the held-out stream (on the training stream without one).

        ``lms`` (a fitted :class:`~segviz.lm.LanguageModels`) enables the relevance questions; without it only
        vocabulary (and the optional cohesion/peer) questions are asked.
        """
        self.check_params()
        t0 = time.perf_counter()
        train = as_corpus(train, what="training corpus")
        heldout = None if heldout is None else as_corpus(heldout, what="held-out corpus")
        train_sentences = train.sentences()
        if len(train_sentences) < 2:
            raise SegvizError("the training corpus needs at least 2 sentences")
        masses = train.masses()
        y = masses_to_indicator(masses)
        if y.all() or not y.any():
            raise SegvizError("the training corpus needs at least 2 documents and one of more than 1 sentence")
        if heldout is not None and heldout.n_sentences < 2:
            raise SegvizError("the held-out corpus needs at least 2 sentences")
        use_relevance = bool(self.use_relevance) and lms is not None
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)   # a refit starts from nothing
        self._applied = None
        mu = default_mu(masses) if self.mu is None else float(self.mu)

        yield Progress("relevance", 0, 2)
        rel = _relevance(lms, train_sentences, use_relevance)
        held_sentences = heldout.sentences() if heldout is not None else None
        rel_h = _relevance(lms, held_sentences, use_relevance) if heldout is not None else None
        yield Progress("relevance", 2, 2)
        yield Progress("candidate features", 0, 2)
        families = self.candidate_families()
        X, specs = build_candidates(FeatureContext.from_corpus(train, relevance=rel), families=families,
                                    vocabulary=self.vocabulary, templates=self._template_set(),
                                    relevance_edges=self.relevance_edges, min_support=int(self.min_support))
        if X.shape[1] == 0:
            raise SegvizError(f"no candidate question fires on at least min_support = {self.min_support} of the "
                              f"{X.shape[0]} training events; lower min-support or train on more text")
        yield Progress("candidate features", 1, 2)
        Xh = heldout_masses = None
        if heldout is not None:
            Xh = evaluate_features(specs, FeatureContext.from_corpus(heldout, relevance=rel_h)).tocsc()
            heldout_masses = heldout.masses()
        yield Progress("candidate features", 2, 2)
        t1 = time.perf_counter()

        model = BoundaryModel(n_features=int(self.n_features), lambda_max=float(self.lambda_max), l2=float(self.l2),
                              iis_tol=float(self.iis_tol), alphas=self.alphas, epsilons=self.epsilons)
        self.mu_ = mu
        self.mean_length_ = 1.0 / mu
        self.length_shape_, self.length_bias_ = _UNTUNED_SHAPE, _UNTUNED_BIAS
        self.lms_ = lms
        self.lm_dir_ = None
        self.info_ = {
            "train_corpus": train.name, "heldout_corpus": heldout.name if heldout is not None else None,
            "train_sentences": len(train_sentences), "train_events": int(X.shape[0]),
            "train_boundaries": int(y.sum()), "candidates": int(X.shape[1]), "candidate_nonzeros": int(X.nnz),
            "vocabulary": self.vocabulary if isinstance(self.vocabulary, (int, np.integer)) else len(self.vocabulary),
            "use_relevance": use_relevance, "cohesion": bool(self.cohesion),
            "peer_evidence": bool(self.peer_evidence), "families": list(families),
            "min_support": int(self.min_support), "l2": float(self.l2),
            "stopping": self.stopping, "prepare_seconds": round(t1 - t0, 3),
        }
        self.history_ = []
        for event in model.induce(X, y, specs, heldout_X=Xh, heldout_masses=heldout_masses, mu=mu):
            if isinstance(event, FeatureAdded):
                self.history_.append(_history_entry(event))
                alpha = event.heldout_alpha if event.heldout_alpha is not None else _UNTUNED_ALPHA
                epsilon = event.heldout_epsilon if event.heldout_epsilon is not None else _UNTUNED_EPSILON
                self._set_model(model.features_, model.lambdas_, model.prior_, alpha, epsilon)
            yield event
        if not hasattr(model, "prior_") or not model.features_:
            raise SegvizError("no candidate feature has any gain on this training corpus")
        t2 = time.perf_counter()

        yield Progress("tuning alpha/epsilon", 0, 1)
        rounds = len(model.features_)
        if self.stopping == "heldout" and Xh is not None:
            scores = [e.heldout_p_mu if e.heldout_p_mu is not None else -1.0 for e in model.history_]
            rounds = int(np.argmax(scores)) + 1
        kept = model.truncated(rounds)
        if Xh is not None:
            probs, reference, groups = kept.predict_proba(Xh[:, kept.columns_]), heldout_masses, \
                heldout.source_groups()
        else:
            probs, reference, groups = kept.predict_proba(X[:, kept.columns_]), masses, train.source_groups()
        self._set_model(kept.features_, kept.lambdas_, kept.prior_, _UNTUNED_ALPHA, _UNTUNED_EPSILON)
        self.info_.update(self._tuning_info(*self._tune_rules(probs, reference, groups)))
        self.info_.update(rounds_induced=len(model.features_), rounds_kept=rounds,
                          tuned_on="heldout" if Xh is not None else "train",
                          induction_seconds=round(t2 - t1, 3), total_seconds=round(time.perf_counter() - t0, 3))
        yield Progress("tuning alpha/epsilon", 1, 1)

    def _tune_rules(self, probs, reference, groups) -> tuple[float, float]:
        """Tune both decision rules on held-out gap probabilities ``probs`` (the stream's) against ``reference``
        masses, as ``tuning_metric``/``tuning_units`` say (:mod:`segviz.tuning`); returns each rule's score."""
        metric, units = self.tuning_metric, self.tuning_units
        self.alpha_, self.epsilon_, score = tune_threshold_rule(
            probs, reference, groups=groups, metric=metric, units=units, mu=self.mu_, alphas=self.alphas,
            epsilons=self.epsilons)
        self.epsilon_ = int(self.epsilon_)
        self.length_shape_, self.length_bias_, score_length = tune_length_prior_rule(
            probs, reference, groups=groups, metric=metric, units=units, mean_length=self.mean_length_,
            shapes=self.length_shapes, biases=self.length_biases, mu=self.mu_)
        return score, score_length

    def _tuning_info(self, score: float, score_length: float) -> dict:
        """What the tuning reached, for ``info_``: P_mu under the paper's tuning (``tuned_p_mu``), else the
        criterion's score (``tuned_score``: P_mu, or 1 - P_k), and how it was tuned."""
        metric, units = self.tuning_metric, self.tuning_units
        if metric == "p_mu" and units == "stream":
            return {"tuned_p_mu": score, "tuned_p_mu_length_prior": score_length}
        return {"tuning": f"{metric}, {units}", "tuned_score": score, "tuned_score_length_prior": score_length}

    def _set_model(self, features, lambdas, prior, alpha, epsilon) -> None:
        self.features_ = list(features)
        self.lambdas_ = np.array(lambdas, dtype=np.float64)
        self.prior_ = float(prior)
        self.alpha_ = float(alpha)
        self.epsilon_ = int(epsilon)

    # ------------------------------------------------------------------ application
    def _applied_to(self, corpus: Corpus, relevance: np.ndarray | None, n_jobs: int = 1) -> _Applied:
        """The induced features on ``corpus``; reuses the last evaluation when only new features were added."""
        features = tuple(self.features_)
        cached = getattr(self, "_applied", None)
        if (cached is not None and cached.corpus is corpus and relevance is None
                and cached.features == features[:len(cached.features)]):
            if len(cached.features) == len(features):
                return cached
            new = evaluate_features(list(features[len(cached.features):]), cached.context)
            cached.matrix = sp.hstack([cached.matrix, new], format="csr")
            cached.features = features
            return cached
        sentences = corpus.sentences()
        if len(sentences) < 2:
            raise SegvizError("need at least 2 sentences to place boundaries")
        needs = any(f.kind == "relevance" for f in features)
        rel = relevance if relevance is not None else _relevance(getattr(self, "lms_", None), sentences, needs)
        context = FeatureContext.from_corpus(corpus, relevance=rel)
        matrix = (evaluate_features(list(features), context, n_jobs=n_jobs) if features
                  else sp.csr_matrix((len(sentences) - 1, 0)))
        applied = _Applied(corpus, context, features, matrix)
        if relevance is None:
            self._applied = applied
        return applied

    def feature_matrix(self, corpus, *, relevance: np.ndarray | None = None, n_jobs: int = 1) -> sp.csr_matrix:
        """The (n-1, n_features) 0/1 matrix of the induced features at the gaps of ``corpus``.

        ``n_jobs=2`` answers the costliest questions in a forked process (:mod:`segviz.features.parallel`;
        the same matrix, in about half the time on a large corpus); only from a process without other threads."""
        self._check_fitted()
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
            raise SegvizError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
        return self._applied_to(as_corpus(corpus), relevance, int(n_jobs)).matrix

    def boundary_probabilities(self, corpus, *, relevance: np.ndarray | None = None) -> np.ndarray:
        """q(yes | w) at the n-1 gaps b = 1..n-1 of the stream (boundary before sentence b), Section 4."""
        X = self.feature_matrix(corpus, relevance=relevance)
        return logistic(self.offset_ + np.asarray(X @ self.lambdas_).ravel())

    def predict_proba(self, corpus, *, relevance: np.ndarray | None = None) -> np.ndarray:
        """P(a segment starts at sentence i) for every sentence i of the stream: ``n`` values.

        Entry 0 is 1.0 (the stream's first sentence always opens a segment); entry ``i >= 1`` is the model's
        q(yes) for the gap before sentence ``i`` (:meth:`boundary_probabilities`)."""
        return np.concatenate([[1.0], self.boundary_probabilities(corpus, relevance=relevance)])

    def predict(self, corpus, *, alpha: float | None = None, epsilon: int | None = None, rule: str | None = None,
                relevance: np.ndarray | None = None) -> tuple[int, ...]:
        """Segment lengths (masses) of the stream under the decision rule.

        ``rule`` (default: the ``decision_rule`` parameter) is ``"threshold"`` -- the paper's alpha/epsilon rule
        (Section 7), ``alpha``/``epsilon`` overriding the tuned values -- or ``"length_prior"``, the dynamic
        programme of :mod:`segviz.length_prior` with the tuned shape and bias."""
        p = self.boundary_probabilities(corpus, relevance=relevance)
        return boundaries_to_masses(self.decide(p, alpha=alpha, epsilon=epsilon, rule=rule), p.size + 1)

    def decide(self, probabilities, *, alpha: float | None = None, epsilon: int | None = None,
               rule: str | None = None) -> np.ndarray:
        """Boundary positions (1..n-1) the decision rule places for gap probabilities ``probabilities``."""
        self._check_fitted()
        rule = self.decision_rule if rule is None else rule
        if rule == "threshold":
            a = self.alpha_ if alpha is None else float(alpha)
            e = self.epsilon_ if epsilon is None else int(epsilon)
            return decode(probabilities, a, e)
        if rule == "length_prior":
            return decode_length_prior(probabilities, mean_length=self.mean_length_, shape=self.length_shape_,
                                       bias=self.length_bias_)
        raise SegvizError(f"decision rule must be one of {', '.join(DECISION_RULES)}, not {rule!r}")

    def score(self, corpus, *, alpha: float | None = None, epsilon: int | None = None, rule: str | None = None,
              relevance: np.ndarray | None = None) -> dict[str, float]:
        """P_mu, P_k, WindowDiff, precision, recall and F1 of :meth:`predict` against the corpus's documents.

        P_mu uses the paper's mu (1 / mean reference segment length), P_k and WindowDiff half of it as k."""
        corpus = as_corpus(corpus)
        row = score_row(corpus.masses(), self.predict(corpus, alpha=alpha, epsilon=epsilon, rule=rule,
                                                      relevance=relevance))
        return {key: float(row[key]) for key in _SCORE_KEYS}

    def active_features(self, corpus, position: int, *, relevance: np.ndarray | None = None
                        ) -> list[tuple[FeatureSpec, float]]:
        """The induced features that fire at gap ``position`` (1..n-1), with their e^lambda."""
        X = self.feature_matrix(corpus, relevance=relevance)
        if not 1 <= int(position) <= X.shape[0]:
            raise SegvizError(f"position must be in 1..{X.shape[0]}, got {position}")
        row = X.getrow(int(position) - 1)
        w = self.weights_
        return [(self.features_[j], float(w[j])) for j in sorted(row.indices.tolist())]

    def truncated(self, rounds: int, *, heldout=None, heldout_relevance: np.ndarray | None = None) -> "Segmenter":
        """The model as it stood after ``rounds`` induction rounds (that round's weights, from ``history_``);
        alpha/epsilon re-tuned on ``heldout`` when given, else kept."""
        self._check_fitted()
        if not 1 <= rounds <= len(self.features_):
            raise SegvizError(f"rounds must be in 1..{len(self.features_)}")
        try:
            weights = np.asarray(self.history_[rounds - 1]["weights"], dtype=np.float64)
        except (IndexError, KeyError, TypeError, ValueError):
            raise SegvizError("this model has no per-round weights in its history; cannot truncate") from None
        if weights.shape != (rounds,) or not np.all(np.isfinite(weights)) or np.any(weights <= 0):
            raise SegvizError(f"the model's history holds no valid weights for round {rounds}; cannot truncate")
        seg = Segmenter(**self.get_params())
        seg._set_model(self.features_[:rounds], np.log(weights), self.prior_, self.alpha_, self.epsilon_)
        seg.mu_, seg.lms_, seg.lm_dir_ = self.mu_, self.lms_, getattr(self, "lm_dir_", None)
        seg.mean_length_, seg.length_shape_, seg.length_bias_ = self.mean_length_, self.length_shape_, \
            self.length_bias_
        seg.history_ = list(self.history_[:rounds])
        seg.info_ = dict(self.info_, rounds_kept=rounds)
        if heldout is not None:
            heldout = as_corpus(heldout, what="held-out corpus")
            probs = seg.boundary_probabilities(heldout, relevance=heldout_relevance)
            for key in ("tuned_p_mu", "tuned_p_mu_length_prior", "tuned_score", "tuned_score_length_prior"):
                seg.info_.pop(key, None)
            seg.info_.update(seg._tuning_info(*seg._tune_rules(probs, heldout.masses(), heldout.source_groups())))
        return seg

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """The segmenter's JSON document (its language models are stored beside it by :meth:`save`)."""
        self._check_fitted()
        params = self.get_params()
        if not isinstance(params["templates"], str):
            params["templates"] = "custom"
        params["alphas"] = [float(a) for a in params["alphas"]]
        params["length_shapes"] = [float(x) for x in params["length_shapes"]]
        params["length_biases"] = [float(x) for x in params["length_biases"]]
        params["epsilons"] = [int(e) for e in params["epsilons"]]
        # JSON has no infinities: the open ends of the grid are written as the strings "-inf"/"inf"
        params["relevance_edges"] = [float(x) if math.isfinite(x) else str(float(x))
                                     for x in params["relevance_edges"]]
        if not isinstance(params["vocabulary"], (int, np.integer)):
            params["vocabulary"] = len(params["vocabulary"])
        if params["families"] is not None:
            params["families"] = list(params["families"])
        return {
            "format": FORMAT,
            "version": VERSION,
            "segviz_version": __version__,
            "params": params,
            "prior": self.prior_,
            "alpha": self.alpha_,
            "epsilon": self.epsilon_,
            "length_shape": self.length_shape_,
            "length_bias": self.length_bias_,
            "mu": self.mu_,
            "features": [f.to_dict() for f in self.features_],
            "lambdas": [float(x) for x in self.lambdas_],
            "weights": [float(x) for x in self.weights_],
            "descriptions": [f.description for f in self.features_],
            "history": self.history_,
            "info": self.info_,
        }

    def bundle_parts(self, prefix: str = "") -> tuple[dict[str, dict], dict[str, np.ndarray]]:
        """This segmenter's JSON document and its language models' documents and arrays, named under
        ``prefix/`` in a bundle (``segmenter``, ``lm/...``; a model of several segmenters gives each a prefix).

        The segmenter's document records the SHA-256 of the language models it is saved with, and
        :meth:`from_bundle` refuses a pair that does not match."""
        self._check_fitted()
        base = f"{prefix}/" if prefix else ""
        documents: dict[str, dict] = {}
        arrays: dict[str, np.ndarray] = {}
        lm_digest = None
        if self.lms_ is not None:
            documents, arrays = self.lms_.bundle_parts(f"{base}lm")
            lm_digest = members_digest(member_digests(documents, arrays), f"{base}lm")
        documents[f"{base}segmenter"] = dict(self.to_dict(), lm_sha256=lm_digest)
        return documents, arrays

    def save(self, path: str | os.PathLike, *, parents: bool = False) -> Path:
        """Write the model and its language models as ONE file, atomically (a bundle, :mod:`segviz.bundle`).

        A reader sees the previous file or this one, never a mix (:meth:`bundle_parts`)."""
        documents, arrays = self.bundle_parts()
        return write_bundle(path, "segmenter", documents, arrays, parents=parents)

    @classmethod
    def load(cls, path: str | os.PathLike, *, lms=None) -> "Segmenter":
        """Read a model saved by :meth:`save` (one file), validating every field before use.

        Also reads the earlier layout, a JSON file naming a language-model directory (``lm_dir``).  Errors name
        the file and the field."""
        path = Path(path)
        if is_bundle(path):
            return cls.from_bundle(read_bundle(path, kind="segmenter"), lms=lms)
        d = load_json(path, expected_format=FORMAT)
        lm_dir = d.get("lm_dir")
        if lm_dir is not None and not isinstance(lm_dir, str):
            raise SegvizError(f"{path}: field 'lm_dir' must be a path (a string), not {type(lm_dir).__name__}")
        if lm_dir:
            lm_dir = str((path.resolve().parent / lm_dir).resolve())
            if lms is None:
                if not Path(lm_dir).exists():
                    raise SegvizError(f"{path}: its language models are missing (looked in {lm_dir})")
                lms = LanguageModels.load(lm_dir)
        return cls._from_document(d, source=str(path), lms=lms, lm_dir=lm_dir or None)

    @classmethod
    def from_bundle(cls, bundle, prefix: str = "", *, lms=None) -> "Segmenter":
        """The segmenter stored under ``prefix/`` of a read :class:`~segviz.bundle.Bundle` (:meth:`bundle_parts`),
        with its language models, checked against the digest it recorded."""
        base = f"{prefix}/" if prefix else ""
        source = bundle.source + (f" ({prefix})" if prefix else "")
        d = bundle.document(f"{base}segmenter")
        if any(name.startswith(f"{base}lm/") for name in bundle.digests):
            if d.get("lm_sha256") != bundle.digest_of(f"{base}lm"):
                raise SegvizError(f"{source}: its language models do not match the segmenter (checksum differs); "
                                  "the file was assembled from parts of different models")
            if lms is None:
                lms = LanguageModels.from_bundle(bundle, f"{base}lm")
        return cls._from_document(d, source=source, lms=lms, lm_dir=None)

    @classmethod
    def _from_document(cls, d: dict, *, source: str, lms, lm_dir: str | None) -> "Segmenter":
        values = validate_model_document(d, source=source, template_sets=tuple(TEMPLATE_SETS),
                                         known_params=cls._PARAMS)
        features = values["features"]
        if any(f.kind == "relevance" for f in features) and lms is None:
            raise SegvizError(f"{source}: the model asks relevance questions but holds no language models")
        seg = cls()
        for name, value in values["params"].items():
            setattr(seg, name, value)
        seg._set_model(features, values["lambdas"], values["prior"], values["alpha"], values["epsilon"])
        seg.mu_, seg.lms_, seg.lm_dir_ = values["mu"], lms, lm_dir
        seg.mean_length_ = 1.0 / values["mu"]
        seg.length_shape_, seg.length_bias_ = values["length_shape"], values["length_bias"]
        seg.history_ = values["history"]
        seg.info_ = values["info"]
        return seg

    @classmethod
    def from_weights(cls, features: Sequence[FeatureSpec], lambdas: Sequence[float], *, prior: float,
                     alpha: float, epsilon: int, mu: float, lms=None) -> "Segmenter":
        """A fitted segmenter from explicit features and weights (for tests and hand-built models)."""
        if len(features) != len(lambdas):
            raise SegvizError(f"{len(features)} features but {len(lambdas)} weights")
        if not 0.0 < prior < 1.0:
            raise SegvizError(f"prior must lie in (0, 1), got {prior}")
        seg = cls(n_features=max(1, len(features)))
        seg._set_model(features, lambdas, prior, alpha, epsilon)
        seg.mu_, seg.lms_, seg.lm_dir_, seg.history_, seg.info_ = float(mu), lms, None, [], {}
        seg.mean_length_, seg.length_shape_, seg.length_bias_ = 1.0 / float(mu), _UNTUNED_SHAPE, _UNTUNED_BIAS
        return seg


def _history_entry(event: FeatureAdded) -> dict:
    return {
        "round": event.round, "feature": event.feature.description, "gain": event.gain,
        "weight": event.weights[-1], "train_loglik": event.train_loglik, "heldout_p_mu": event.heldout_p_mu,
        "seconds": round(event.seconds, 4), "iis_iterations": event.iis_iterations,
        "weights": [float(w) for w in event.weights],
    }
