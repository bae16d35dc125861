"""The segmenter: an estimator that induces an exponential boundary model and decodes it (paper Sections 3-7).

:class:`Segmenter` follows scikit-learn's estimator style.  Hyperparameters are keyword-only and stored verbatim
in ``__init__``.  :meth:`Segmenter.fit` (or :meth:`Segmenter.fit_iter`, a generator of the engine's small typed
events) does five things in order:

1. It computes per-sentence relevance with the language models (Section 3.3).
2. It builds the candidate matrix of the training stream (Section 3.4).
3. It grows the model one feature per round by greedy induction (Section 4, :mod:`segviz.induction`).
4. It reports held-out P_mu each round.
5. It tunes its decision rule (``rule``, :mod:`segviz.rules`; the paper's alpha/epsilon threshold rule by
   default) on the held-out data (Section 7).

Learned state carries a trailing underscore.  The estimator can be queried after every
:class:`~segviz.induction.FeatureAdded` event (:meth:`predict`, :meth:`predict_proba`, :meth:`score`), so a
caller can stop pulling at any round and keep the model of that round.  It implements the model layer's
protocol (:class:`segviz.model_protocol.SegmentationModel`), as a router of several segmenters does.

A fitted model is saved by :meth:`save` as one file (a bundle, :mod:`segviz.bundle`: the segmenter's JSON
document with its language models) and read back, validated, by :meth:`load`.
"""
from __future__ import annotations

import copy
import math
import os
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from segviz import __version__
from segviz.bundle import member_digests, members_digest, read_bundle, write_bundle
from segviz.corpus import Corpus
from segviz.errors import SegvizError
from segviz.events import Progress
from segviz.features import (
    RELEVANCE_EDGES,
    FeatureContext,
    FeatureSpec,
    build_candidates,
    evaluate_features,
    resolve_families,
)
from segviz.features.question_columns import QuestionColumns
from segviz.gap_scorer import GapScorer
from segviz.induction import BoundaryModel, FeatureAdded, InductionFinished
from segviz.lm.models import LanguageModels
from segviz.model_protocol import AppliedDocument, InducedFeatures, SegmentationModel, TrainingLengths, as_corpus
from segviz.model_schema import SEGMENTER_PARAMS, TEMPLATE_SETS, validate_model_document
from segviz.params import ParamsMixin
from segviz.rules import DecisionRule, ThresholdRule, document_sizes
from segviz.segmentation import default_mu, logistic, masses_to_indicator
from segviz.tuning import check_tuning

__all__ = ["Segmenter", "FeatureAdded", "InductionFinished", "TEMPLATE_SETS", "DEFAULT_FAMILIES", "FORMAT",
           "VERSION", "as_corpus"]

FORMAT = "segviz-segmenter"
VERSION = 2


#: the candidate families asked by default: the paper's vocabulary and relevance questions (Sections 3.3-3.4) and
#: lexical cohesion (relevance only when language models are given)
DEFAULT_FAMILIES = ("vocabulary", "relevance", "cohesion")
#: the name a lone segmenter answers to where a router names its experts (:meth:`Segmenter.segmenters`)
SEGMENTER_NAME = "model"


def _given_relevance(relevance, n: int, what: str) -> np.ndarray:
    """A caller's per-sentence relevance, checked against the ``n`` sentences it is for."""
    rel = np.asarray(relevance, dtype=np.float64)
    if rel.shape != (n,) or not np.isfinite(rel).all():
        raise SegvizError(f"{what} relevance must be {n} finite numbers, one per sentence; got shape {rel.shape}")
    return rel


def _relevance(lms, sentences, needed: bool) -> np.ndarray | None:
    if not needed:
        return None
    if lms is None:
        raise SegvizError("this model asks relevance questions but has no language models (train with --lm)")
    from segviz.relevance import sentence_relevance

    return np.asarray(sentence_relevance(lms, sentences), dtype=np.float64)


@dataclass
class _Applied:
    """The induced features evaluated on one corpus (kept so a new round costs one column, not all of them)."""

    corpus: Corpus
    relevance: np.ndarray | None   # as the caller gave it (None: computed here)
    context: FeatureContext
    features: tuple[FeatureSpec, ...]
    matrix: sp.csr_matrix


class Segmenter(ParamsMixin, SegmentationModel):
    """Text segmentation with an exponential boundary model (Beeferman, Berger & Lafferty 1997).

    Parameters (keyword-only, stored verbatim)
    ------------------------------------------
    n_features : features to induce (the paper used 70 and 100).
    vocabulary : candidate words: an int (that many most frequent training words) or a list of words.
    templates : ``"extended"`` (the paper's 15 vocabulary questions of Section 3.4 plus next/previous 10
        sentences and 2/3 words), ``"paper"`` (the 15), or a sequence of :class:`segviz.features.Template`.
    families : names of the candidate families to ask (:data:`segviz.features.FAMILIES`, e.g.
        ``("vocabulary", "relevance", "tfidf", "shape")``); None = :data:`DEFAULT_FAMILIES`.  The relevance
        questions of Section 3.3 need language models at fit time; without them that family asks nothing
        (``info_["families"]`` records the families actually asked).
    min_support : drop candidates firing on fewer training events than this.
    l2 : precision of a Gaussian prior on the weights (gains and IIS maximise the penalised likelihood); 0 =
        the paper's maximum likelihood.  Keeps questions seen on a handful of training events off the cap.
    relevance_edges : the relevance interval grid.
    mu : the P_mu parameter for tuning; None = 1 / mean training segment length (Section 6).
    stopping : ``"last"`` keeps every induced feature; ``"heldout"`` keeps the round with the best held-out P_mu.
    rule : the decision rule (:mod:`segviz.rules`) whose settings are tuned on held-out data: None = the paper's
        :class:`~segviz.rules.ThresholdRule` (Section 7); :class:`~segviz.rules.LengthPriorRule` for long
        segments; :class:`~segviz.rules.SegmentCountRule`.  Its grids are the tuning grids.
    tuning_metric : what the decision rule are tuned for on held-out data: ``"p_mu"`` (maximised, the paper's
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
    rule_ : the decision rule, tuned on held-out data (:mod:`segviz.rules`).
    mu_ : the P_mu parameter used for tuning; ``mean_length_`` = 1 / mu_, the mean training segment length.
    lms_ : the :class:`~segviz.lm.LanguageModels` behind the relevance questions (None without them).
    history_ : one JSON-ready dict per induction round (feature, gain, e^lambda, log-likelihood, held-out P_mu,
        and every weight after that round).
    info_ : provenance (corpora, sizes, timings, the stopping rule applied).
    """

    #: what each parameter accepts: checked by :meth:`check_params`, a saved model's schema and ``--param``
    PARAM_CONSTRAINTS = SEGMENTER_PARAMS

    def __init__(self, *, n_features: int = 100, vocabulary: int | Sequence[str] = 30000,
                 templates: str | Sequence = "extended", families: Sequence[str] | None = None,
                 min_support: int = 1, l2: float = 0.0, relevance_edges: Sequence[float] = RELEVANCE_EDGES,
                 mu: float | None = None, stopping: str = "last", lambda_max: float = 10.0, iis_tol: float = 1e-6,
                 rule: DecisionRule | None = None, tuning_metric: str = "p_mu", tuning_units: str = "stream"):
        self.n_features = n_features
        self.vocabulary = vocabulary
        self.templates = templates
        self.families = families
        self.min_support = min_support
        self.l2 = l2
        self.relevance_edges = relevance_edges
        self.mu = mu
        self.stopping = stopping
        self.lambda_max = lambda_max
        self.iis_tol = iis_tol
        self.rule = rule
        self.tuning_metric = tuning_metric
        self.tuning_units = tuning_units

    # ------------------------------------------------------------------ validation
    def _template_set(self):
        if isinstance(self.templates, str):
            if self.templates not in TEMPLATE_SETS:
                raise SegvizError(f"templates must be one of {', '.join(TEMPLATE_SETS)} or a sequence of "
                                  f"Template, not {self.templates!r}")
            return TEMPLATE_SETS[self.templates]
        return tuple(self.templates)

    def check_params(self) -> Segmenter:
        """Validate the hyperparameters (as :meth:`fit` does first), so a caller can refuse bad values before
        reading any data; returns ``self``.  Every problem is one :class:`SegvizError`."""
        try:
            self._validate_params()
        except (TypeError, ValueError, OverflowError) as exc:
            raise SegvizError(f"invalid Segmenter parameters ({exc})") from None
        return self

    def _validate_params(self) -> None:
        # one declaration (segviz.model_schema.SEGMENTER_PARAMS), shared with a saved model's schema and the
        # command line's --param: the limits a saved model is held to (segviz.limits); a model trained with
        # lambda_max = 1e308 broke induction's arithmetic, and could not have been loaded again anyway
        self.check_declared_params()

    def base_rule(self) -> DecisionRule:
        """The decision rule before tuning (``rule``, or the paper's threshold rule)."""
        return ThresholdRule() if self.rule is None else self.rule

    def candidate_families(self) -> tuple[str, ...]:
        """The candidate families this estimator asks about (``families``, or :data:`DEFAULT_FAMILIES`)."""
        if self.families is None:
            return resolve_families(DEFAULT_FAMILIES)
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
    def fit(self, train, heldout=None, lms=None, *, relevance=None, heldout_relevance=None) -> Segmenter:
        """Induce the model on ``train`` and tune the decision rule on ``heldout`` (see :meth:`fit_iter`)."""
        for _ in self.fit_iter(train, heldout, lms, relevance=relevance, heldout_relevance=heldout_relevance):
            pass
        return self

    def fit_iter(self, train, heldout=None, lms=None, *, relevance=None, heldout_relevance=None
                 ) -> Generator[Progress | FeatureAdded | InductionFinished, None, None]:
        """:meth:`fit` as a generator of the engine's typed events.

        Yields :class:`~segviz.events.Progress` (relevance, candidates, rounds, tuning), one
        :class:`~segviz.induction.FeatureAdded` per induced feature, and an
        :class:`~segviz.induction.InductionFinished`.  After every ``FeatureAdded`` the estimator holds the model
        of that round: its weights, and a decision rule (a threshold rule: the round's best held-out alpha and
        epsilon, 0.5 and 1 without held-out data; another rule: untuned).  When the generator is exhausted the
        stopping rule has been applied and the decision rule tuned on the held-out data (on the training data
        without any).

        ``lms`` (a fitted :class:`~segviz.lm.LanguageModels`) enables the relevance family; without it that
        family asks nothing.  ``relevance`` / ``heldout_relevance``: the sentences' relevance under ``lms``
        (Section 3.3), when the caller has it already (the app computes it for the whole corpus it shows);
        computed here otherwise.
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
        families = self.candidate_families()
        if lms is None:   # relevance questions need language models: recorded as not asked
            families = tuple(f for f in families if f != "relevance")
        use_relevance = "relevance" in families
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)   # a refit starts from nothing
        self._applied = None
        mu = default_mu(masses) if self.mu is None else float(self.mu)

        yield Progress("relevance", 0, 2)
        rel = (_given_relevance(relevance, len(train_sentences), "the training corpus's")
               if relevance is not None and use_relevance else _relevance(lms, train_sentences, use_relevance))
        rel_h = None
        if heldout is not None:
            rel_h = (_given_relevance(heldout_relevance, heldout.n_sentences, "the held-out corpus's")
                     if heldout_relevance is not None and use_relevance
                     else _relevance(lms, heldout.sentences(), use_relevance))
        yield Progress("relevance", 2, 2)
        train_context = FeatureContext.from_corpus(train, relevance=rel)
        held_context = None if heldout is None else FeatureContext.from_corpus(heldout, relevance=rel_h)
        scorer = None
        if "paragraph-score" in families:
            scorer = GapScorer()
            if scorer.usable(train_context):
                # cross-fitted: each training book scored by trees that never saw it (gap_scorer's docstring)
                train_context.set_gap_score((yield from scorer.fit_iter(train_context, y)))
                scorer.release(train_context)
                if held_context is not None:
                    held_context.set_gap_score(scorer.scores(held_context))
                    scorer.release(held_context)
            else:   # too few books with paragraphs to learn from: recorded as not asked
                scorer = None
                families = tuple(f for f in families if f != "paragraph-score")
        yield Progress("candidate features", 0, 2)
        X, specs = build_candidates(train_context, families=families,
                                    vocabulary=self.vocabulary, templates=self._template_set(),
                                    relevance_edges=self.relevance_edges, min_support=int(self.min_support))
        if X.shape[1] == 0:
            raise SegvizError(f"no candidate question fires on at least min_support = {self.min_support} of the "
                              f"{X.shape[0]} training events; lower min-support or train on more text")
        yield Progress("candidate features", 1, 2)
        Xh = heldout_masses = None
        if heldout is not None:
            # answered per chosen feature, as rounds ask: induction reads no other held-out column
            Xh = QuestionColumns(specs, held_context)
            heldout_masses = heldout.masses()
        yield Progress("candidate features", 2, 2)
        t1 = time.perf_counter()

        words_per_sentence = float(document_sizes(train_sentences).sum()) / max(1, len(train_sentences))
        base_rule = self.base_rule().with_mean_length(1.0 / mu, words_per_sentence)
        round_rule = base_rule if isinstance(base_rule, ThresholdRule) else None
        model = BoundaryModel(n_features=int(self.n_features), lambda_max=float(self.lambda_max), l2=float(self.l2),
                              iis_tol=float(self.iis_tol), rule=round_rule)
        self.mu_ = mu
        self.lms_ = lms
        self.scorer_ = scorer
        self.info_ = {
            "train_corpus": train.name, "heldout_corpus": heldout.name if heldout is not None else None,
            "train_sentences": len(train_sentences), "train_words_per_sentence": words_per_sentence,
            "train_events": int(X.shape[0]),
            "train_boundaries": int(y.sum()), "candidates": int(X.shape[1]), "candidate_nonzeros": int(X.nnz),
            "vocabulary": self.vocabulary if isinstance(self.vocabulary, (int, np.integer)) else len(self.vocabulary),
            "families": list(families),
            "min_support": int(self.min_support), "l2": float(self.l2),
            "stopping": self.stopping, "prepare_seconds": round(t1 - t0, 3),
        }
        self.history_ = []
        for event in model.induce(X, y, specs, heldout_X=Xh, heldout_masses=heldout_masses, mu=mu):
            if isinstance(event, FeatureAdded):
                self.history_.append(_history_entry(event))
                rule = event.heldout_rule if round_rule is not None and event.heldout_rule is not None \
                    else base_rule
                self._set_model(model.features_, model.lambdas_, model.prior_, rule)
            yield event
        if not hasattr(model, "prior_") or not model.features_:
            raise SegvizError("no candidate feature has any gain on this training corpus")
        t2 = time.perf_counter()

        yield Progress("tuning the decision rule", 0, 1)
        rounds = len(model.features_)
        if self.stopping == "heldout" and Xh is not None:
            scores = [e.heldout_p_mu if e.heldout_p_mu is not None else -1.0 for e in model.history_]
            rounds = int(np.argmax(scores)) + 1
        kept = model.truncated(rounds)
        if Xh is not None:
            probs, reference, groups = kept.predict_proba(Xh.columns(kept.columns_)), heldout_masses, \
                heldout.source_groups()
            sizes = document_sizes(heldout.sentences())
        else:
            probs, reference, groups = kept.predict_proba(X[:, kept.columns_]), masses, train.source_groups()
            sizes = document_sizes(train_sentences)
        self._set_model(kept.features_, kept.lambdas_, kept.prior_, base_rule)
        self.info_.update(self._tune_rule(base_rule, probs, reference, groups, sizes))
        self.info_.update(rounds_induced=len(model.features_), rounds_kept=rounds,
                          tuned_on="heldout" if Xh is not None else "train",
                          induction_seconds=round(t2 - t1, 3), total_seconds=round(time.perf_counter() - t0, 3))
        yield Progress("tuning the decision rule", 1, 1)

    @property
    def mean_length_(self) -> float:
        """The mean training segment length, 1 / mu_ (the length prior's default expectation)."""
        self._check_fitted()
        return 1.0 / self.mu_

    @property
    def words_per_sentence_(self) -> float | None:
        """The training corpus's mean number of words per sentence (a length-prior rule that measures segments in
        words expects ``mean_length_`` sentences of this many words); None for a model that does not record it."""
        self._check_fitted()
        return _recorded_words_per_sentence(self.info_)

    def _with_training_lengths(self, rule: DecisionRule) -> DecisionRule:
        """``rule`` with the training means filled in where it leaves them open
        (:meth:`DecisionRule.with_mean_length`)."""
        return rule.with_mean_length(self.mean_length_, self.words_per_sentence_)

    def tuned_rule(self, probabilities, reference, groups=None, *, rule: DecisionRule | None = None, sizes=None
                   ) -> tuple[DecisionRule, float]:
        """``rule`` (default :meth:`base_rule`; its expected segment length, where it leaves it open, the training
        mean) tuned on gap probabilities of a held-out stream against its ``reference`` masses (``groups``: its
        source groups; ``sizes``: its sentences' sizes, :func:`segviz.rules.document_sizes`), as ``fit`` tunes its
        own: for ``tuning_metric`` over ``tuning_units`` (:func:`segviz.tuning.tune_rule`).  Returns the tuned rule
        and its score; this segmenter is unchanged."""
        base = self._with_training_lengths(self.base_rule() if rule is None else rule)
        return base.tune(probabilities, reference, groups=groups, metric=self.tuning_metric, units=self.tuning_units,
                         mu=self.mu_, sizes=sizes)

    def _tune_rule(self, base_rule: DecisionRule, probs, reference, groups, sizes) -> dict:
        """:meth:`tuned_rule` of ``base_rule`` as this segmenter's ``rule_``; returns what the tuning reached, for
        ``info_``."""
        self.rule_, score = self.tuned_rule(probs, reference, groups, rule=base_rule, sizes=sizes)
        return {"tuning": f"{self.tuning_metric}, {self.tuning_units}", "tuned_score": float(score),
                "rule": self.rule_.describe()}

    def _set_model(self, features, lambdas, prior, rule: DecisionRule) -> None:
        self.features_ = list(features)
        self.lambdas_ = np.array(lambdas, dtype=np.float64)
        self.prior_ = float(prior)
        self.rule_ = rule

    # ------------------------------------------------------------------ application
    def _applied_to(self, corpus: Corpus, relevance: np.ndarray | None, n_jobs: int = 1) -> _Applied:
        """The induced features on ``corpus``; reuses the last evaluation when only new features were added."""
        features = tuple(self.features_)
        cached = getattr(self, "_applied", None)
        if (cached is not None and cached.corpus is corpus and cached.relevance is relevance
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
        rel = (_given_relevance(relevance, len(sentences), "the corpus's") if relevance is not None
               else _relevance(getattr(self, "lms_", None), sentences, needs))
        context = FeatureContext.from_corpus(corpus, relevance=rel)
        if getattr(self, "scorer_", None) is not None and any(f.kind == "paragraph-score" for f in features):
            context.set_gap_score(self.scorer_.scores(context))
            self.scorer_.release(context)
        matrix = (evaluate_features(list(features), context, n_jobs=n_jobs) if features
                  else sp.csr_matrix((len(sentences) - 1, 0)))
        # kept for the next round's one new column (a live training's curve); keyed on the very relevance array
        applied = self._applied = _Applied(corpus, relevance, context, features, matrix)
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

    def expert_for(self, document=None) -> str:
        """A lone segmenter answers for every document itself."""
        return SEGMENTER_NAME

    def apply(self, document, *, relevance: np.ndarray | None = None, n_jobs: int = 1) -> AppliedDocument:
        """This segmenter on one document: its gap probabilities and the rule that decides them.  ``n_jobs=2``
        answers the costliest questions in a forked process (:meth:`feature_matrix`)."""
        document = as_corpus(document)
        if n_jobs != 1 and relevance is None:
            self.feature_matrix(document, n_jobs=n_jobs)   # kept: the probabilities below reuse it
        return AppliedDocument(self.boundary_probabilities(document, relevance=relevance), self.rule_for(document),
                               SEGMENTER_NAME, self, sizes=document_sizes(document.sentences()))

    def with_tuned_rule(self, rule: DecisionRule, heldout, *, relevance: np.ndarray | None = None,
                        tuning_metric: str | None = None, tuning_units: str | None = None) -> Segmenter:
        """A copy of this fitted segmenter deciding with ``rule`` tuned on ``heldout`` (a corpus with a reference),
        as ``fit`` tunes its own (``tuning_metric``, ``tuning_units``; either given here is the copy's own).  ``rule``
        becomes the copy's ``rule`` parameter, so a later re-tuning (:meth:`tuned_rule`) starts from it."""
        self._check_fitted()
        heldout = as_corpus(heldout, what="held-out corpus")
        out = copy.copy(self)
        out.rule = rule
        out.tuning_metric = self.tuning_metric if tuning_metric is None else tuning_metric
        out.tuning_units = self.tuning_units if tuning_units is None else tuning_units
        check_tuning(out.tuning_metric, out.tuning_units)
        probs = self.boundary_probabilities(heldout, relevance=relevance)
        out.info_ = dict(self.info_)
        out.info_.update(out._tune_rule(rule.check(), probs, heldout.masses(), heldout.source_groups(),
                                        document_sizes(heldout.sentences())))
        return out

    # ------------------------------------------------------------------ the model protocol's accessors
    def segmenters(self) -> dict[str, Segmenter]:
        """The segmenters inside this model by name: this one."""
        return {SEGMENTER_NAME: self}

    def rules(self) -> dict[str, DecisionRule]:
        """This segmenter's decision rule (``rule_``), under its name."""
        self._check_fitted()
        return {SEGMENTER_NAME: self.rule_}

    def language_models(self) -> dict[str, LanguageModels | None]:
        """This segmenter's language models (``lms_``; None without them), under its name."""
        self._check_fitted()
        return {SEGMENTER_NAME: self.lms_}

    def features(self) -> dict[str, InducedFeatures]:
        """This segmenter's induced features (``features_``), their e^lambda and the induction's record."""
        self._check_fitted()
        return {SEGMENTER_NAME: InducedFeatures(tuple(self.features_), self.weights_,
                                                tuple(h for h in (getattr(self, "history_", None) or ())),
                                                self.lambda_max)}

    def training_lengths(self) -> dict[str, TrainingLengths]:
        """The training text's mean segment length (``mean_length_``) and words per sentence."""
        return {SEGMENTER_NAME: TrainingLengths(self.mean_length_, self.words_per_sentence_)}

    def provenance(self) -> dict[str, dict]:
        """What this segmenter's training recorded (``info_``)."""
        self._check_fitted()
        info = getattr(self, "info_", None)
        return {SEGMENTER_NAME: info if isinstance(info, dict) else {}}

    def with_rule(self, rule: DecisionRule, *, expert: str | None = None) -> Segmenter:
        """A copy of this fitted segmenter that decides with ``rule`` (its expected segment length, where the
        rule leaves it open, the training mean).  ``expert`` may only name this segmenter."""
        self._check_fitted()
        if expert not in (None, SEGMENTER_NAME):
            raise SegvizError(f"this model is one segmenter; it has no expert {expert!r}")
        if not isinstance(rule, DecisionRule):
            raise SegvizError(f"rule must be a decision rule (segviz.rules), not {type(rule).__name__}")
        out = copy.copy(self)
        out.rule_ = self._with_training_lengths(rule.check()).check_ready()
        return out

    def active_features(self, corpus, position: int, *, relevance: np.ndarray | None = None
                        ) -> list[tuple[FeatureSpec, float]]:
        """The induced features that fire at gap ``position`` (1..n-1), with their e^lambda."""
        X = self.feature_matrix(corpus, relevance=relevance)
        if not 1 <= int(position) <= X.shape[0]:
            raise SegvizError(f"position must be in 1..{X.shape[0]}, got {position}")
        row = X.getrow(int(position) - 1)
        w = self.weights_
        return [(self.features_[j], float(w[j])) for j in sorted(row.indices.tolist())]

    def truncated(self, rounds: int, *, heldout=None, heldout_relevance: np.ndarray | None = None) -> Segmenter:
        """The model as it stood after ``rounds`` induction rounds (that round's weights, from ``history_``);
        the decision rule re-tuned on ``heldout`` when given, else kept."""
        self._check_fitted()
        if not 1 <= rounds <= len(self.features_):
            raise SegvizError(f"rounds must be in 1..{len(self.features_)}")
        try:
            weights = np.asarray(self.history_[rounds - 1]["weights"], dtype=np.float64)
        except (IndexError, KeyError, TypeError, ValueError):
            raise SegvizError("this model has no per-round weights in its history; cannot truncate") from None
        if weights.shape != (rounds,) or not np.all(np.isfinite(weights)) or np.any(weights <= 0):
            raise SegvizError(f"the model's history holds no valid weights for round {rounds}; cannot truncate")
        seg = Segmenter(**self.get_params(deep=False))
        seg._set_model(self.features_[:rounds], np.log(weights), self.prior_, self.rule_)
        seg.mu_, seg.lms_, seg.scorer_ = self.mu_, self.lms_, getattr(self, "scorer_", None)
        seg.history_ = list(self.history_[:rounds])
        seg.info_ = dict(self.info_, rounds_kept=rounds)
        if heldout is not None:
            return seg.with_tuned_rule(self.base_rule(), heldout, relevance=heldout_relevance)
        return seg

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """The segmenter's JSON document (its language models are stored beside it by :meth:`save`)."""
        self._check_fitted()
        params = self.get_params(deep=False)
        if not isinstance(params["templates"], str):
            params["templates"] = "custom"
        params["rule"] = None if params["rule"] is None else params["rule"].to_dict()
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
            "rule": self.rule_.to_dict(),
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
        scorer_digest = None
        if getattr(self, "scorer_", None) is not None:
            scorer_documents, scorer_arrays = self.scorer_.bundle_parts(f"{base}scorer")
            documents.update(scorer_documents)
            arrays.update(scorer_arrays)
            scorer_digest = members_digest(member_digests(scorer_documents, scorer_arrays), f"{base}scorer")
        documents[f"{base}segmenter"] = dict(self.to_dict(), lm_sha256=lm_digest)
        if scorer_digest is not None:
            documents[f"{base}segmenter"]["scorer_sha256"] = scorer_digest
        return documents, arrays

    def save(self, path: str | os.PathLike, *, parents: bool = False) -> Path:
        """Write the model and its language models as ONE file, atomically (a bundle, :mod:`segviz.bundle`).

        A reader sees the previous file or this one, never a mix (:meth:`bundle_parts`)."""
        documents, arrays = self.bundle_parts()
        return write_bundle(path, "segmenter", documents, arrays, parents=parents)

    @classmethod
    def load(cls, path: str | os.PathLike, *, lms=None) -> Segmenter:
        """Read a model saved by :meth:`save` (one file), validating every field before use; errors name the
        file and the field."""
        return cls.from_bundle(read_bundle(path, kind="segmenter"), lms=lms)

    @classmethod
    def from_bundle(cls, bundle, prefix: str = "", *, lms=None) -> Segmenter:
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
        scorer = None
        if f"{base}scorer" in bundle.documents:
            if d.get("scorer_sha256") != bundle.digest_of(f"{base}scorer"):
                raise SegvizError(f"{source}: its paragraph scorer does not match the segmenter (checksum differs); "
                                  "the file was assembled from parts of different models")
            scorer = GapScorer.from_bundle(bundle, f"{base}scorer", source=source)
        return cls._from_document(d, source=source, lms=lms, scorer=scorer)

    @classmethod
    def _from_document(cls, d: dict, *, source: str, lms, scorer=None) -> Segmenter:
        values = validate_model_document(d, source=source, template_sets=tuple(TEMPLATE_SETS),
                                         known_params=cls._param_names())
        features = values["features"]
        if any(f.kind == "relevance" for f in features) and lms is None:
            raise SegvizError(f"{source}: the model asks relevance questions but holds no language models")
        if any(f.kind == "paragraph-score" for f in features) and scorer is None:
            raise SegvizError(f"{source}: the model asks about a paragraph score but holds no paragraph scorer")
        seg = cls()
        for name, value in values["params"].items():
            setattr(seg, name, value)
        # a rule saved with its expected segment length left open takes the training means, as fit gives them
        rule = values["rule"].with_mean_length(1.0 / values["mu"], _recorded_words_per_sentence(values["info"]))
        try:
            rule.check_ready()
        except SegvizError as exc:
            raise SegvizError(f"{source}: {exc}") from None
        seg._set_model(features, values["lambdas"], values["prior"], rule)
        seg.mu_, seg.lms_, seg.scorer_ = values["mu"], lms, scorer
        seg.history_ = values["history"]
        seg.info_ = values["info"]
        return seg

    @classmethod
    def from_weights(cls, features: Sequence[FeatureSpec], lambdas: Sequence[float], *, prior: float,
                     mu: float, rule: DecisionRule | None = None, lms=None) -> Segmenter:
        """A fitted segmenter from explicit features and weights (for tests and hand-built models); ``rule``
        defaults to the threshold rule at alpha 0.5, epsilon 1."""
        if len(features) != len(lambdas):
            raise SegvizError(f"{len(features)} features but {len(lambdas)} weights")
        if not 0.0 < prior < 1.0:
            raise SegvizError(f"prior must lie in (0, 1), got {prior}")
        seg = cls(n_features=max(1, len(features)))
        seg.mu_, seg.lms_, seg.scorer_, seg.history_, seg.info_ = float(mu), lms, None, [], {}
        rule = ThresholdRule() if rule is None else rule
        seg._set_model(features, lambdas, prior, rule.check().with_mean_length(1.0 / float(mu)).check_ready())
        return seg


def _recorded_words_per_sentence(info) -> float | None:
    """The training mean of words per sentence that ``fit`` recorded in ``info_`` (None if absent or not a
    positive number: the file is read, not trusted)."""
    value = info.get("train_words_per_sentence") if isinstance(info, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and 0 < value <= 10_000 else None


def _history_entry(event: FeatureAdded) -> dict:
    return {
        "round": event.round, "feature": event.feature.description, "gain": event.gain,
        "weight": event.weights[-1], "train_loglik": event.train_loglik, "heldout_p_mu": event.heldout_p_mu,
        "seconds": round(event.seconds, 4), "iis_iterations": event.iis_iterations,
        "weights": [float(w) for w in event.weights],
    }
