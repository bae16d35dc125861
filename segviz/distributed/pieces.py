"""A collection cut into partitions of whole source units, planned on the client without keeping its text.

A *source unit* is what ``segviz segment`` segments on its own: a file, or one object of a JSONL file
(:meth:`segviz.corpus.Corpus.by_file`).  The planner looks at one input file at a time: a JSONL file larger than a
partition is cut into *pieces*, runs of whole lines (its byte range and the number of its first line, so a
worker reads only its own lines and reports errors with the file's own line numbers); every other file is one
piece, read whole by the worker with the one-machine reader.  Consecutive pieces are grouped into partitions of
about ``target_bytes`` of input.

A JSONL file is cut only where the cut cannot change what the one-machine reader makes of it: valid UTF-8 text
(no NUL byte, no UTF-16 byte-order mark), a first object that is a document object, and no segment objects (whose
documents span lines).  Anything else is one piece, and the worker's reading of it, errors included, is the
one-machine reading.  Two pieces that could form one source unit (a file named twice on the command line) are
never put in different partitions.
"""
from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import SegvizError
from ..printable import portable
from ..readers import detect_format
from ..readers.source import decode_text, expand_paths, read_source

#: the input bytes of one partition by default: a few hundred JSONL documents, a second or so of a worker's time
DEFAULT_PARTITION_BYTES = 256 * 1024

#: what :func:`segviz.readers.detect_format` looks at
DETECTION_BYTES = 262144
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


@dataclass(frozen=True)
class Piece:
    """A run of whole source units of one input file: the whole file (``stop`` is None), or the lines from
    ``first_line`` on of a JSONL file, its bytes ``start:stop``.  ``path`` is the file as the readers name it
    (:func:`segviz.readers.source.expand_paths`), ``units`` counts its source units (one for a whole file that is
    not JSONL), ``size`` its bytes."""

    path: str
    start: int = 0
    stop: int | None = None
    first_line: int = 1
    units: int = 1
    size: int = 0
    #: the position of the file in the input list (a file named twice is two occurrences)
    occurrence: int = 0

    @property
    def whole(self) -> bool:
        return self.stop is None

    @property
    def source(self) -> str:
        """The file's name as outputs and messages write it."""
        return portable(self.path)


@dataclass(frozen=True)
class Partition:
    """Consecutive pieces segmented by one task; ``index`` is its place in the output."""

    index: int
    pieces: tuple[Piece, ...]

    @property
    def units(self) -> int:
        return sum(p.units for p in self.pieces)

    @property
    def size(self) -> int:
        return sum(p.size for p in self.pieces)

    def describe(self) -> str:
        first, last = self.pieces[0], self.pieces[-1]
        where = first.source if first.whole else f"{first.source} from line {first.first_line}"
        return where if first is last else f"{where} .. {last.source}"


def plan_pieces(paths, *, format: str = "auto", target_bytes: int = DEFAULT_PARTITION_BYTES) -> Iterator[Piece]:
    """The pieces of the files named by ``paths`` (files, directories, globs, expanded as the readers do), in
    input order."""
    files = expand_paths(paths)
    if not files:
        raise SegvizError("no corpus files given")
    for occurrence, f in enumerate(files):
        yield from _file_pieces(os.fspath(f), format, target_bytes, occurrence)


def _file_pieces(path: str, format: str, target_bytes: int, occurrence: int) -> Iterator[Piece]:
    try:
        st = os.stat(path)
    except OSError:   # the worker's one-machine reading says what is wrong, in its place in the input
        yield Piece(path, occurrence=occurrence)
        return
    whole = Piece(path, size=st.st_size, occurrence=occurrence)
    if format not in ("auto", "jsonl") or not stat.S_ISREG(st.st_mode) or st.st_size <= target_bytes or \
            (format == "auto" and detect_format(_head(path)) != "jsonl"):
        yield whole
        return
    try:
        data = read_source(path)
    except SegvizError:
        yield whole
        return
    if not _splittable(data):
        yield whole
        return
    try:
        text = decode_text(data, source=portable(path))
    except SegvizError:
        yield whole
        return
    lines = text.split("\n")
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(data)]
    if len(starts) != len(lines) or not _first_object_is_a_document(lines):
        yield whole   # never expected (each raw line break is one "\n" of the text); the whole file is safe
        return
    yield from _cut(path, data, lines, starts, target_bytes, occurrence)


def _head(path: str) -> bytes:
    """The start of a file, all that format detection reads (:func:`segviz.readers.detect_format`)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(DETECTION_BYTES)
    except OSError:
        return b""


def _splittable(data: bytes) -> bool:
    return not data.startswith(_UTF16_BOMS) and b"\x00" not in data and b'"segment"' not in data


def _first_object_is_a_document(lines: Sequence[str]) -> bool:
    first = next((line for line in lines if line.strip()), None)
    try:
        obj = json.loads(first) if first is not None else None
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict)


def _cut(path: str, data: bytes, lines: Sequence[str], starts: Sequence[int], target_bytes: int,
         occurrence: int) -> Iterator[Piece]:
    """Pieces of about ``target_bytes``, each cut after a line break and holding at least one non-blank line."""
    first, units = 0, 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        if units and end - starts[first] > target_bytes:
            yield Piece(path, starts[first], starts[i], first + 1, units, starts[i] - starts[first], occurrence)
            first, units = i, 0
        units += 1
    yield Piece(path, starts[first], len(data), first + 1, units, len(data) - starts[first], occurrence)


def plan_partitions(pieces: Iterable[Piece], *, target_bytes: int = DEFAULT_PARTITION_BYTES) -> list[Partition]:
    """Consecutive pieces grouped into partitions of about ``target_bytes`` each, in input order."""
    out: list[Partition] = []
    group: list[Piece] = []
    for piece in pieces:
        if group and _may_cut(group[-1], piece) and sum(p.size for p in group) + piece.size > target_bytes:
            out.append(Partition(len(out), tuple(group)))
            group = []
        group.append(piece)
    if group:
        out.append(Partition(len(out), tuple(group)))
    return out


def _may_cut(before: Piece, after: Piece) -> bool:
    """May a partition end between these pieces?  Not between two occurrences of one file: the one-machine
    reading joins a unit that ends one and starts the next when both have the same name."""
    return Path(before.path) != Path(after.path) or before.occurrence == after.occurrence
