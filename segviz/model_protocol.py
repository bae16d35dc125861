"""What every segmentation model answers, whatever it holds inside: the model layer's one abstract base.

A model is a single :class:`~segviz.segmenter.Segmenter` (one exponential model and its decision rule,
Sections 4-7) or an :class:`~segviz.routing.ExpertRouter` (several, one chosen per document).  Callers -- the
command line, the app, the evaluation -- never ask which: they use :class:`SegmentationModel`.

The unit of work is a *document*: one source unit of a corpus (a file, one object of a JSONL file;
:meth:`segviz.corpus.Corpus.by_file`).  A document is segmented on its own, and a document edge is always a
boundary.  :meth:`SegmentationModel.apply` gives, for one document, everything the decision needs in one
:class:`AppliedDocument`: the gap probabilities q(yes) (Section 4), the decision rule that turns them into
boundaries (:mod:`segviz.rules`), which segmenter answered and, for a router, why.  Every other query
(:meth:`~SegmentationModel.segment_iter`, :meth:`~SegmentationModel.predict`, :meth:`~SegmentationModel.score`,
...) is built on it here, once, so the command line, Python and the app segment alike.

What a caller may want to know of the segmenters inside a model -- their decision rules, language models, induced
features, training lengths and provenance -- it asks through the accessors, each a dict by segmenter name
(:meth:`~SegmentationModel.segmenters`' names, in order), never through the attributes of a concrete class.
"""
from __future__ import annotations

import abc
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .corpus import Corpus
from .errors import SegvizError
from .events import Progress, run_to_end
from .metrics import score_row
from .rules import DecisionRule, document_sizes
from .segmentation import boundaries_to_masses

if TYPE_CHECKING:   # annotations only: the model layer's callers need not import either
    from .features import FeatureSpec
    from .lm.models import LanguageModels

__all__ = ["SegmentationModel", "AppliedDocument", "InducedFeatures", "TrainingLengths", "as_corpus",
           "stream_masses", "SCORE_KEYS"]

SCORE_KEYS = ("p_mu", "p_k", "window_diff", "precision", "recall", "f1")


def as_corpus(data, *, what: str = "corpus") -> Corpus:
    """A :class:`Corpus`, or a list of tokenised sentences wrapped as one (reference-free) document."""
    if isinstance(data, Corpus):
        return data
    if isinstance(data, (list, tuple)) and all(isinstance(s, (list, tuple)) for s in data):
        return Corpus.from_sentences(data)
    raise SegvizError(f"{what}: expected a Corpus or a list of tokenised sentences, got {type(data).__name__}")


@dataclass(frozen=True)
class AppliedDocument:
    """A model on one document: gap probabilities (n - 1; q(yes) before sentences 1..n-1), the decision rule that
    places its boundaries, the name of the segmenter that answered (``expert``) and that segmenter, and, when a
    router chose it, why (``route``: a :class:`segviz.routing.Route`; None for a model of one segmenter)."""

    probabilities: np.ndarray = field(repr=False)
    rule: DecisionRule
    expert: str
    segmenter: SegmentationModel = field(repr=False)
    route: Any = None
    #: each sentence's size (:func:`segviz.rules.document_sizes`), for a rule that measures segments in words
    sizes: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_sentences(self) -> int:
        return int(self.probabilities.size) + 1

    def boundaries(self) -> np.ndarray:
        """Boundary positions (1..n-1) under :attr:`rule`."""
        if self.probabilities.size == 0:
            return np.zeros(0, dtype=np.int64)
        return np.asarray(self.rule.decide(self.probabilities, self.sizes), dtype=np.int64)

    def masses(self) -> tuple[int, ...]:
        return tuple(int(m) for m in boundaries_to_masses(self.boundaries(), self.n_sentences))

    def reason(self) -> str:
        """Why this segmenter answered, in words: the router's reasoning, or ``the NAME expert``."""
        return self.route.describe() if self.route is not None else f"the {self.expert} expert"


@dataclass(frozen=True)
class InducedFeatures:
    """A segmenter's induced features (Section 4) in order of induction: their questions, their factors e^lambda,
    the record of each induction round (gain, log-likelihood, held-out P_mu; display only) and the cap on
    |lambda| the induction held them to."""

    specs: tuple[FeatureSpec, ...]
    weights: np.ndarray = field(repr=False)
    history: tuple[dict, ...] = field(default=(), repr=False)
    lambda_max: float | None = None

    def __len__(self) -> int:
        return len(self.specs)


@dataclass(frozen=True)
class TrainingLengths:
    """What a segmenter's training text measured: its mean segment length in sentences (1 / mu, Section 6) and its
    mean number of words per sentence (None where a model does not record it).  A decision rule that leaves its
    expected segment length open takes these (:meth:`segviz.rules.DecisionRule.with_mean_length`)."""

    mean_length: float
    words_per_sentence: float | None = None


class SegmentationModel(abc.ABC):
    """The model layer's abstract base (module docstring): :class:`~segviz.segmenter.Segmenter` and
    :class:`~segviz.routing.ExpertRouter` implement it.

    A model implements :meth:`apply`, :meth:`expert_for`, :meth:`with_rule`, :meth:`save`, :meth:`to_dict` and the
    accessors (:meth:`segmenters`, :meth:`rules`, :meth:`language_models`, :meth:`features`,
    :meth:`training_lengths`, :meth:`provenance`); every query is built on them here."""

    # ------------------------------------------------------------------ what a model implements
    @abc.abstractmethod
    def apply(self, document, *, n_jobs: int = 1) -> AppliedDocument:
        """The model on one document (module docstring); ``n_jobs=2`` may answer the costliest questions in a
        forked process."""

    @abc.abstractmethod
    def expert_for(self, document) -> str:
        """The name of the segmenter that answers for ``document`` (one document; a model of one segmenter may be
        asked without one)."""

    @abc.abstractmethod
    def with_rule(self, rule: DecisionRule, *, expert: str | None = None) -> SegmentationModel:
        """A copy deciding with ``rule`` in every segmenter (``expert``: only in that one); where the rule leaves
        its expected segment length open, each segmenter's training lengths fill it in."""

    @abc.abstractmethod
    def save(self, path, *, parents: bool = False):
        """Write the model (with its language models) as one file, atomically; returns its path."""

    @abc.abstractmethod
    def to_dict(self) -> dict:
        """The model's own JSON document (a router's names its experts, whose documents :meth:`save` stores
        beside it)."""

    @abc.abstractmethod
    def segmenters(self) -> dict[str, SegmentationModel]:
        """The segmenters inside, by name, in order (a router's experts, finest scale first; a lone segmenter:
        itself), each a model of one segmenter."""

    @abc.abstractmethod
    def rules(self) -> dict[str, DecisionRule]:
        """Each segmenter's decision rule, by name."""

    @abc.abstractmethod
    def language_models(self) -> dict[str, LanguageModels | None]:
        """Each segmenter's language models (the relevance questions of Section 3.3), None where it has none."""

    @abc.abstractmethod
    def features(self) -> dict[str, InducedFeatures]:
        """Each segmenter's induced features and their weights."""

    @abc.abstractmethod
    def training_lengths(self) -> dict[str, TrainingLengths]:
        """What each segmenter's training text measured (:class:`TrainingLengths`)."""

    @abc.abstractmethod
    def provenance(self) -> dict[str, dict]:
        """What each segmenter's training recorded (corpora, sizes, timings, the held-out score of its rule):
        plain JSON values, for display."""

    # ------------------------------------------------------------------ every query, built on those
    def rule_for(self, document=None) -> DecisionRule:
        """The decision rule that decides ``document``: that of the segmenter answering for it."""
        return self.rules()[self.expert_for(document)]

    def boundary_probabilities(self, document) -> np.ndarray:
        """q(yes | gap) at the n - 1 gaps of ``document`` (one document: a stream read as one)."""
        return self.apply(document).probabilities

    def decide(self, probabilities, document=None) -> np.ndarray:
        """Boundary positions (1..n-1) for ``probabilities`` under the rule this model uses for ``document``
        (whose sentences' sizes a rule that measures segments in words needs)."""
        sizes = None if document is None else document_sizes(as_corpus(document).sentences())
        return self.rule_for(document).decide(probabilities, sizes)

    def apply_short(self, document) -> AppliedDocument:
        """A one-sentence document: one segment, nothing to decide or route (the last segmenter, a router's
        expert for the longest segments, answers for it)."""
        name, segmenter = list(self.segmenters().items())[-1]
        return AppliedDocument(np.zeros(0), self.rules()[name], name, segmenter)

    def segment_iter(self, corpus) -> Generator[Progress, None, list[AppliedDocument]]:
        """Every document (source unit) of ``corpus`` applied on its own; yields ``Progress("segment", done,
        total)`` and returns one :class:`AppliedDocument` per document (a one-sentence document has no gaps)."""
        corpus = as_corpus(corpus)
        units = corpus.by_file()
        out = []
        yield Progress("segment", 0, len(units))
        for i, unit in enumerate(units):
            out.append(self.apply(unit) if unit.n_sentences > 1 else self.apply_short(unit))
            yield Progress("segment", i + 1, len(units))
        return out

    def predict(self, corpus) -> list[tuple[int, ...]]:
        """Segment lengths (masses), one tuple per document of ``corpus`` (its source units)."""
        return [applied.masses() for applied in run_to_end(self.segment_iter(corpus))]

    def predict_proba(self, corpus) -> np.ndarray:
        """P(a segment starts at sentence i) for every sentence of ``corpus``: 1 at each document's first
        sentence (a document edge is always a boundary), q(yes) of the gap before it elsewhere."""
        parts = []
        for applied in run_to_end(self.segment_iter(corpus)):
            parts.append(np.concatenate([[1.0], applied.probabilities]))
        return np.concatenate(parts)

    def score(self, corpus) -> dict[str, float]:
        """P_mu, P_k, WindowDiff, precision, recall and F1 of :meth:`predict` (the documents one after another)
        against the corpus's reference; mu = 1 / the mean reference segment length, k half of it."""
        corpus = as_corpus(corpus)
        row = score_row(corpus.masses(), stream_masses(self.predict(corpus)))
        return {key: float(row[key]) for key in SCORE_KEYS}


def stream_masses(per_document: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The segment lengths of documents placed one after another (a document edge is a boundary)."""
    return tuple(int(m) for masses in per_document for m in masses)
