"""One task of ``segment --scheduler``: a partition read, segmented and rendered on a worker.

The partition's documents are segmented by :func:`segviz.segmented.segment_documents` with the model the worker
holds (:mod:`segviz.distributed.worker_model`), the same function and the same model as the one-machine run, each
source unit on its own; the result is rendered by the output format's part renderer
(:data:`segviz.writers.PARTS`), so the parts laid end to end are the one-machine output.  A reading error is
returned, not raised: it is the input's fault and a retry on another worker would only say it again.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..documents import Corpus
from ..domain import model_coverage
from ..errors import SegvizError
from ..segmented import segment_documents
from ..writers import PARTS, titles_shown
from .piece_reading import PieceReading, read_piece
from .pieces import Partition
from .worker_model import shipped_model


@dataclass(frozen=True)
class PartitionResult:
    """What a worker sends back for one partition: the rendered output (and, for a format whose rows depend on
    titles, the output with the title column too), the counts, the experts that answered, the model's vocabulary
    coverage, and each piece's reading; or the one-line ``error`` of the piece ``error_piece`` that could not be
    read."""

    index: int
    text: str = ""
    titled_text: str | None = None
    has_titles: bool = False
    units: int = 0
    sentences: int = 0
    segments: int = 0
    experts: Counter = field(default_factory=Counter)
    covered_words: int = 0
    words: int = 0
    vocabulary: int | None = None
    readings: tuple[PieceReading, ...] = ()
    error: str | None = None
    error_piece: int | None = None


def segment_partition(partition: Partition, model_key: str, out_format: str, format: str = "auto",
                      headings: bool | None = None, wiki_level: int | None = None) -> PartitionResult:
    """Read, segment and render ``partition`` on this worker (module docstring)."""
    readings = []
    for i, piece in enumerate(partition.pieces):
        try:
            readings.append(read_piece(piece, format=format, headings=headings, wiki_level=wiki_level))
        except SegvizError as exc:
            return PartitionResult(partition.index, error=str(exc), error_piece=i)
    documents = [d for r in readings for d in r.documents]
    units = [u for r in readings for u in r.units]
    corpus = Corpus(documents, name=partition.describe(), files=units,
                    has_reference=all(r.has_reference for r in readings),
                    readings=[r.reading for r in readings if r.reading is not None])
    model = shipped_model(model_key)
    segmented = segment_documents(model, corpus) if len(corpus) else []
    parts = PARTS[out_format]
    text = parts.part(segmented, False) if segmented else ""
    titled = parts.part(segmented, True) if segmented and parts.depends_on_titles else None
    coverage = model_coverage(model, corpus) if len(corpus) else None
    # the pieces' documents travel back only as the rendered text: the client needs their counts, not them
    light = tuple(PieceReading((), (), r.reading, r.objects, r.sentences, r.reference_boundaries, r.notes, r.ids)
                  for r in readings)
    return PartitionResult(
        partition.index, text, titled, titles_shown(segmented), len(segmented), corpus.n_sentences,
        sum(len(d.masses) for d in segmented), Counter(d.expert for d in segmented),
        coverage.covered if coverage else 0, coverage.words if coverage else 0,
        coverage.vocabulary if coverage else None, light)
