"""What every segmentation model answers, whatever it holds inside: the model layer's one protocol.

A model is a single :class:`~segviz.segmenter.Segmenter` (one exponential model and its decision rule,
Sections 4-7) or an :class:`~segviz.routing.ExpertRouter` (several, one chosen per document).  Callers -- the
command line, the app, the evaluation -- never ask which: they use :class:`SegmentationModel`.

The unit of work is a *document*: one source unit of a corpus (a file, one object of a JSONL file;
:meth:`segviz.corpus.Corpus.by_file`).  A document is segmented on its own, and a document edge is always a
boundary.  :meth:`SegmentationModel.apply` gives, for one document, everything the decision needs in one
:class:`AppliedDocument`: the gap probabilities q(yes) (Section 4), the decision rule that turns them into
boundaries (:mod:`segviz.rules`), which segmenter answered and why (:class:`Route`).  Every other query is
built on it by :class:`ModelQueries`, so the command line, Python and the app segment alike.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Generator, Protocol, Sequence, runtime_checkable

import numpy as np

from .corpus import Corpus
from .errors import SegvizError
from .events import Progress, run_to_end
from .metrics import score_row
from .rules import document_sizes
from .segmentation import boundaries_to_masses

__all__ = ["SegmentationModel", "ModelQueries", "AppliedDocument", "Route", "Check", "as_corpus", "stream_masses",
           "EXPERT_NAME", "SCORE_KEYS"]

#: an expert's (and a lone segmenter's) name: a lowercase word
EXPERT_NAME = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
SCORE_KEYS = ("p_mu", "p_k", "window_diff", "precision", "recall", "f1")


def as_corpus(data, *, what: str = "corpus") -> Corpus:
    """A :class:`Corpus`, or a list of tokenised sentences wrapped as one (reference-free) document."""
    if isinstance(data, Corpus):
        return data
    if isinstance(data, (list, tuple)) and all(isinstance(s, (list, tuple)) for s in data):
        return Corpus.from_sentences(data)
    raise SegvizError(f"{what}: expected a Corpus or a list of tokenised sentences, got {type(data).__name__}")


@dataclass(frozen=True)
class Check:
    """One rule of a router's decision list asked of a document: ``expert`` claims it when the segment length
    the ``gauge`` expert expects there, ``expected_length``, is at most ``threshold``."""

    expert: str
    gauge: str
    expected_length: float
    threshold: float

    @property
    def claims(self) -> bool:
        return self.expected_length <= self.threshold


@dataclass(frozen=True)
class Route:
    """Which segmenter answered for a document (``expert``) and the checks that led there, in the order they
    were asked (none for a model of one segmenter)."""

    expert: str
    checks: tuple[Check, ...] = ()

    def describe(self) -> str:
        """``the excerpts expert: the excerpts expert expects segments of 6.7 sentences here (at most 10.2)``; for
        an expert further down the list, why each one before it declined (each gauge said once)."""
        by_gauge: dict[str, list[Check]] = {}
        for check in self.checks:
            by_gauge.setdefault(check.gauge, []).append(check)
        said = []
        for gauge, checks in by_gauge.items():
            declined = [c for c in checks if not c.claims]
            claimed = [c for c in checks if c.claims]
            bits = []
            if declined:
                bits.append(f"more than {' and '.join(f'{c.threshold:g}' for c in declined)}: not the "
                            f"{' or the '.join(c.expert for c in declined)} expert")
            if claimed:
                bits.append(f"at most {claimed[0].threshold:g}")
            said.append(f"the {gauge} expert expects segments of {checks[0].expected_length:.1f} sentences here "
                        f"({'; '.join(bits)})")
        return f"the {self.expert} expert: " + "; ".join(said) if said else f"the {self.expert} expert"

    def summary(self) -> str:
        """One short line: ``the long-form expert (expected segment lengths: excerpts 22.2, mixed 188.2)``."""
        lengths: dict[str, float] = {}
        for check in self.checks:
            lengths.setdefault(check.gauge, check.expected_length)
        said = ", ".join(f"{gauge} {length:.1f}" for gauge, length in lengths.items())
        return f"the {self.expert} expert" + (f" (expected segment lengths: {said})" if said else "")

    def to_dict(self) -> dict:
        return {"expert": self.expert, "checks": [[c.expert, c.gauge, c.expected_length, c.threshold]
                                                  for c in self.checks]}

    @classmethod
    def from_dict(cls, d: dict) -> "Route":
        """The route :meth:`to_dict` wrote, its fields checked (ValueError otherwise)."""
        if not isinstance(d, dict):
            raise ValueError("a route must be an object")
        expert, checks = d.get("expert"), d.get("checks")
        if not (isinstance(expert, str) and EXPERT_NAME.match(expert)) or not isinstance(checks, list) \
                or len(checks) > 64:
            raise ValueError("an unknown route")
        out = []
        for item in checks:
            if not isinstance(item, list) or len(item) != 4:
                raise ValueError("an unknown route")
            name, gauge, length, threshold = item
            if not all(isinstance(x, str) and EXPERT_NAME.match(x) for x in (name, gauge)) or not all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                    for x in (length, threshold)) or length < 0:   # a length: never negative
                raise ValueError("an unknown route")
            out.append(Check(name, gauge, float(length), float(threshold)))
        return cls(expert, tuple(out))


@dataclass(frozen=True)
class AppliedDocument:
    """A model on one document: gap probabilities (n - 1; q(yes) before sentences 1..n-1), the decision rule that
    places its boundaries, the segmenter that answered (``segmenter``) and why (``route``)."""

    probabilities: np.ndarray = field(repr=False)
    rule: object
    route: Route
    segmenter: object = field(repr=False)
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


@runtime_checkable
class SegmentationModel(Protocol):
    """The model layer's protocol (module docstring); :class:`~segviz.segmenter.Segmenter` and
    :class:`~segviz.routing.ExpertRouter` implement it."""

    def apply(self, document, *, n_jobs: int = 1) -> AppliedDocument: ...

    def boundary_probabilities(self, document) -> np.ndarray: ...

    def decide(self, probabilities, document=None) -> np.ndarray: ...

    def route(self, document) -> Route: ...

    def predict(self, corpus) -> list[tuple[int, ...]]: ...

    def predict_proba(self, corpus) -> np.ndarray: ...

    def score(self, corpus) -> dict[str, float]: ...

    def segment_iter(self, corpus) -> Generator[Progress, None, list[AppliedDocument]]: ...

    def apply_short(self, document) -> AppliedDocument: ...

    def with_rule(self, rule, *, expert: str | None = None) -> "SegmentationModel": ...

    def segmenters(self) -> dict[str, object]: ...

    def save(self, path, *, parents: bool = False): ...


class ModelQueries:
    """Every query of :class:`SegmentationModel` built on :meth:`apply` (one document at a time) -- the one
    implementation the segmenter and the router share."""

    def apply(self, document) -> AppliedDocument:   # pragma: no cover - each model defines it
        raise NotImplementedError

    def rule_for(self, document):
        """The decision rule that decides ``document``."""
        raise NotImplementedError

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
        return AppliedDocument(np.zeros(0), segmenter.rule_for(document), Route(name), segmenter)

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

