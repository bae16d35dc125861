"""A worker reads its pieces (:mod:`segviz.distributed.pieces`) into documents, as the one-machine reader does.

A whole file is read by :func:`segviz.readers.read_file`, the one-machine reader itself.  A run of lines of a
JSONL file is read from its own bytes, decoded as the whole file is (:func:`segviz.readers.source.decode_text`)
and parsed by :func:`segviz.readers.jsonl.read_jsonl` with its first line's number, so its documents, their
names and its errors are the ones the whole file gives.  The checks that need the whole file (an id used in two
runs, a reference in some runs only, no sentence in any run) are the client's, from what :class:`PieceReading`
reports.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from ..documents import Document, FileReading
from ..errors import SegvizError
from ..readers import read_file, unit_names
from ..readers.jsonl import document_id, read_jsonl
from ..readers.source import MAX_FILE_BYTES, decode_text
from .pieces import Piece


@dataclass(frozen=True)
class PieceReading:
    """What a worker made of one piece: its documents and the source unit of each (as
    :func:`segviz.readers.read_corpus` names them), and what was read: the file's :class:`FileReading` for a whole
    file; for a run of JSONL lines, its counts and notes, whether it has a reference, and the id of every
    document object on its lines (``(line, id)``)."""

    documents: tuple[Document, ...]
    units: tuple[str, ...]
    reading: FileReading | None = None
    objects: int = 0
    sentences: int = 0
    reference_boundaries: int | None = None
    notes: tuple[str, ...] = ()
    ids: tuple[tuple[int, str], ...] = field(default=(), repr=False)

    @property
    def has_reference(self) -> bool:
        if self.reading is not None:
            return self.reading.has_reference
        return self.reference_boundaries is not None


def read_piece(piece: Piece, *, format: str = "auto", headings: bool | None = None,
               wiki_level: int | None = None) -> PieceReading:
    """Read ``piece`` (reader options as :func:`segviz.readers.read_corpus` takes them); a one-line
    :class:`SegvizError` names the file (and line) of anything unreadable."""
    if piece.whole:
        parsed, reading = read_file(piece.path, format=format, headings=headings, wiki_level=wiki_level)
        return PieceReading(tuple(parsed.documents), tuple(unit_names(parsed, piece.path)), reading)
    text = decode_text(_read_range(piece), source=piece.source)
    parsed = read_jsonl(text, source=piece.source, first_line=piece.first_line, part=True)
    ids = []
    for lineno, line in enumerate(text.split("\n"), start=piece.first_line):
        if line.strip():   # every line parsed as an object above, or read_jsonl said which did not
            ids.append((lineno, document_id(json.loads(line), lineno)))
    boundaries = len(parsed.documents) - len(set(parsed.units)) if parsed.has_reference else None
    return PieceReading(tuple(parsed.documents), tuple(parsed.units), None, parsed.n_documents,
                        sum(len(d) for d in parsed.documents), boundaries, tuple(parsed.notes), tuple(ids))


def _read_range(piece: Piece) -> bytes:
    """The piece's bytes of its file; a file that changed since it was planned is an error, not other text."""
    try:
        with open(piece.path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_FILE_BYTES or piece.stop > size:
                raise SegvizError(f"{piece.source}: changed while it was being read (now {size:,} bytes)")
            handle.seek(piece.start)
            return handle.read(piece.stop - piece.start)
    except OSError as exc:
        raise SegvizError(f"{piece.source}: cannot read ({exc.strerror or exc})") from None
