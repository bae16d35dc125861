"""A corpus segmented by a model, document by document: what ``segviz segment`` writes out and the app shows.

Each source unit (a file; one object of a JSONL file; :meth:`Corpus.by_file`) is one document, segmented on its
own by the model's :meth:`~segviz.model_protocol.SegmentationModel.segment_iter`: its gap probabilities q(yes),
its boundaries under the decision rule the model uses for it (a router's chosen expert's own rule), and which
expert answered.  A unit of one sentence is one segment.  Units never share a segment: a file edge is always a
boundary.  A decision rule given here (``rule``) replaces the model's own for every document.
"""
from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass

from .events import Progress, run_to_end
from .segmentation import segment_starts, validate_masses


@dataclass(frozen=True)
class SegmentedDocument:
    """One source unit and its hypothesis: sentence texts, segment lengths and the gap probabilities.

    ``probabilities[b - 1]`` is q(yes) for the gap before sentence ``b`` (``b = 1 .. n-1``); empty for a unit of
    one sentence.  ``paragraph_starts`` is empty when the reader did not know the paragraphs.  ``expert`` names
    the segmenter that answered (a router's expert; ``model`` for a lone segmenter) and ``rule`` describes the
    decision rule that placed the boundaries.  ``titles`` holds ``(first sentence, title)`` of every reference
    segment of the unit when any has a title (a chapter heading the reader took out of the text), else nothing."""

    name: str
    texts: tuple[str, ...]
    masses: tuple[int, ...]
    probabilities: tuple[float, ...]
    paragraph_starts: tuple[bool, ...] = ()
    expert: str | None = None
    rule: str = ""
    titles: tuple[tuple[int, str], ...] = ()

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

    def title_at(self, start: int) -> str:
        """The title of the reference segment (chapter) that sentence ``start`` lies in ('' when untitled)."""
        found = ""
        for sentence, title in self.titles:
            if sentence > start:
                break
            found = title
        return found


def reference_titles(unit) -> tuple[tuple[int, str], ...]:
    """``(first sentence, title)`` of every reference segment of ``unit`` when any has a title, else ()."""
    if not any(document.title for document in unit.documents):
        return ()
    out, offset = [], 0
    for document in unit.documents:   # untitled segments too, so that a title does not run on past its chapter
        out.append((offset, document.title))
        offset += len(document)
    return tuple(out)


def segment_documents_iter(model, corpus, *, rule=None) -> Generator[Progress, None, list[SegmentedDocument]]:
    """Segment every source unit of ``corpus`` with ``model`` (module docstring); yields
    ``Progress("segment", units_done, n_units)`` and returns the :class:`SegmentedDocument` s.

    ``rule`` (a :mod:`segviz.rules` decision rule) replaces the rule of every segmenter in the model."""
    if rule is not None:
        model = model.with_rule(rule)
    units = corpus.by_file()
    applied = yield from model.segment_iter(corpus)
    out: list[SegmentedDocument] = []
    for unit, result in zip(units, applied):
        out.append(SegmentedDocument(unit.name, tuple(unit.sentence_texts()), result.masses(),
                                     tuple(float(p) for p in result.probabilities), unit.paragraph_starts(),
                                     result.expert, result.rule.describe(), reference_titles(unit)))
    return out


def segment_documents(model, corpus, *, rule=None) -> list[SegmentedDocument]:
    """:func:`segment_documents_iter` run to the end."""
    return run_to_end(segment_documents_iter(model, corpus, rule=rule))
