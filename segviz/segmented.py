"""A corpus segmented by a trained model, source unit by source unit: what ``segviz segment`` writes out.

Each source unit (a file; one object of a JSONL file; :meth:`Corpus.by_file`) is segmented on its own: its
gap probabilities q(yes) come from :meth:`Segmenter.boundary_probabilities` and its boundaries from the
decision rule of Section 7 (:func:`segviz.decode.decode`, threshold alpha, minimum separation epsilon).  A unit
of one sentence is one segment.  Units never share a segment: a file edge is always a boundary.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Generator, Iterator

import numpy as np

from .decode import decode
from .events import Progress, run_to_end
from .segmentation import boundaries_to_masses, segment_starts, validate_masses


@dataclass(frozen=True)
class SegmentedDocument:
    """One source unit and its hypothesis: sentence texts, segment lengths and the gap probabilities.

    ``probabilities[b - 1]`` is q(yes) for the gap before sentence ``b`` (``b = 1 .. n-1``); empty for a unit of
    one sentence.  ``paragraph_starts`` is empty when the reader did not know the paragraphs."""

    name: str
    texts: tuple[str, ...]
    masses: tuple[int, ...]
    probabilities: tuple[float, ...]
    paragraph_starts: tuple[bool, ...] = ()
    #: the expert a router chose for this unit (:mod:`segviz.routing`), or None for a single segmenter
    expert: str | None = None

    def __post_init__(self) -> None:
        validate_masses(self.masses, what=f"segmentation of {self.name}")
        if sum(self.masses) != len(self.texts):
            raise ValueError(f"{self.name}: segments cover {sum(self.masses)} sentences, the text has "
                             f"{len(self.texts)}")
        if self.probabilities and len(self.probabilities) != len(self.texts) - 1:
            raise ValueError(f"{self.name}: {len(self.probabilities)} gap probabilities for {len(self.texts)} "
                             "sentences")

    def segments(self) -> Iterator[tuple[int, int, int]]:
        """``(index, start, end)`` of each segment: sentence indices within the unit, end exclusive."""
        for k, (start, size) in enumerate(zip(segment_starts(self.masses).tolist(), self.masses)):
            yield k, int(start), int(start + size)

    def gap_probability(self, sentence: int) -> float | None:
        """q(yes) for the gap before ``sentence``; ``None`` for the first sentence (no gap before it)."""
        if sentence == 0 or not self.probabilities:
            return None
        return float(self.probabilities[sentence - 1])


def segment_documents_iter(model, corpus, *, alpha: float | None = None, epsilon: int | None = None
                           ) -> Generator[Progress, None, list[SegmentedDocument]]:
    """Segment every source unit of ``corpus`` with ``model`` (module docstring); yields
    ``Progress("segment", units_done, n_units)`` and returns the :class:`SegmentedDocument` s.

    A router (:class:`segviz.routing.ExpertRouter`) picks its expert unit by unit; each unit is then decided
    with that expert's own alpha and epsilon unless ``alpha``/``epsilon`` override them."""
    units = corpus.by_file()
    out: list[SegmentedDocument] = []
    yield Progress("segment", 0, len(units))
    for i, unit in enumerate(units):
        texts = tuple(unit.sentence_texts())
        expert_name, segmenter = None, model
        # a router is recognised by its experts, not imported: the corpus readers import this module's writers
        if hasattr(model, "experts_") and len(texts) > 1:
            expert_name = model.route(unit).expert
            segmenter = model.experts_[expert_name]
        if len(texts) > 1:
            probs = np.asarray(segmenter.boundary_probabilities(unit), dtype=np.float64)
            if alpha is None and epsilon is None and hasattr(segmenter, "decide"):
                boundaries = segmenter.decide(probs)   # the model's own tuned rule (threshold or length prior)
            else:
                a = segmenter.alpha_ if alpha is None else float(alpha)
                e = segmenter.epsilon_ if epsilon is None else int(epsilon)
                boundaries = decode(probs, a, e)
            masses = boundaries_to_masses(boundaries, len(texts))
        else:
            probs, masses = np.zeros(0), (len(texts),)
        out.append(SegmentedDocument(unit.name, texts, tuple(int(m) for m in masses),
                                     tuple(float(p) for p in probs), unit.paragraph_starts(), expert_name))
        yield Progress("segment", i + 1, len(units))
    return out


def segment_documents(model, corpus, *, alpha: float | None = None, epsilon: int | None = None
                      ) -> list[SegmentedDocument]:
    """:func:`segment_documents_iter` run to the end."""
    return run_to_end(segment_documents_iter(model, corpus, alpha=alpha, epsilon=epsilon))
