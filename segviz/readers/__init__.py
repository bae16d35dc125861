"""Corpus readers: one module per format, chosen by name or detected from content (:mod:`.detect`).

``text`` (raw prose), ``lines`` (one sentence per line), ``choi``, ``reuters``, ``wiki`` (Wiki-727K) and
``jsonl``; ``docs/formats.md`` describes each.  :func:`read_corpus` reads files, directories and globs into one
:class:`~segviz.documents.Corpus` that records, per file, the format used and whether it was detected
(``Corpus.readings``) and whether prose was read with its headings (a book is, unless asked otherwise), so the CLI
and the app can say what was decided.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from ..documents import Corpus, Document, FileReading
from ..errors import SegvizError
from ..printable import portable
from .choi import read_choi
from .detect import detect_format
from .jsonl import read_jsonl
from .lines import read_lines
from .prose import read_text
from .reuters import ENCODING as REUTERS_ENCODING
from .reuters import read_reuters
from .sentences import ParsedFile
from .source import decode_text, expand_paths, read_source
from .wiki import read_wiki

#: format name -> reader(text, source=..., **options)
READERS: dict[str, Callable[..., ParsedFile]] = {
    "text": read_text,
    "lines": read_lines,
    "choi": read_choi,
    "reuters": read_reuters,
    "wiki": read_wiki,
    "jsonl": read_jsonl,
}
FORMATS = tuple(READERS)


def _check_format(format: str) -> str:
    if format != "auto" and format not in READERS:
        raise SegvizError(f"unknown corpus format {format!r}; choose auto, {', '.join(FORMATS)}")
    return format


def read_file(path: str | os.PathLike, *, format: str = "auto", headings: bool | None = None,
              wiki_level: int | None = None) -> tuple[ParsedFile, FileReading]:
    """One file: what the reader made of it and the summary of what was decided (``headings`` as in
    :func:`read_corpus`)."""
    format = _check_format(format)
    source = portable(path)   # a name that is not UTF-8 is written as \xNN in every output and message
    data = read_source(path)
    chosen = detect_format(data) if format == "auto" else format
    decoding: list[str] = []   # a Gutenberg e-text read in its 8-bit character set says so
    text = decode_text(data, source=source, encoding=REUTERS_ENCODING if chosen == "reuters" else "utf-8",
                       notes=decoding)
    options = {"text": {"headings": headings}, "wiki": {"max_level": wiki_level}}.get(chosen, {})
    parsed = READERS[chosen](text, source=source, **options)
    n_units = len(set(parsed.units)) if parsed.units else 1
    reading = FileReading(path=source, format=chosen, detected=format == "auto", documents=parsed.n_documents,
                          sentences=sum(len(d) for d in parsed.documents),
                          reference_boundaries=len(parsed.documents) - n_units if parsed.has_reference else None,
                          notes=(*decoding, *parsed.notes), headings=tuple(parsed.headings),
                          book_headings=parsed.book_headings, headings_decision=parsed.headings_decision)
    return parsed, reading


def unit_names(parsed: ParsedFile, path: str | os.PathLike) -> list[str]:
    """The source unit of each document of a file ``path`` read as ``parsed``: the reader's own names (a JSONL
    object, an e-text of a concatenation), else the file."""
    return list(parsed.units) or [portable(path)] * len(parsed.documents)


def read_corpus(paths: str | os.PathLike | Sequence[str | os.PathLike], *, format: str = "auto",
                kind: str | None = None, name: str | None = None, headings: bool | None = None,
                wiki_level: int | None = None) -> Corpus:
    """Read files, directories or globs into one :class:`Corpus`.

    ``format`` is one of :data:`FORMATS` or ``auto`` (each file detected from its content; ``kind`` is its old
    name).  ``headings`` applies to ``text`` files: True reads them with their headings (chapters are reference
    segments), False as plain prose, None (the default) with them when a file looks like a book; each file's
    reading records what was decided (``FileReading.headings_decision``).  ``wiki_level`` applies to ``wiki``
    files (see their modules).  The
    corpus has a reference only if every file has one.  Raises :class:`SegvizError` with one clear line for
    anything it cannot read (missing, empty, binary, non-UTF-8, too large, not a regular file, wrong format, no
    sentences).
    """
    format = _check_format(kind if kind is not None else format)
    files = expand_paths(paths)
    if not files:
        raise SegvizError("no corpus files given")
    documents: list[Document] = []
    sources: list[str] = []
    readings: list[FileReading] = []
    for f in files:
        parsed, reading = read_file(f, format=format, headings=headings, wiki_level=wiki_level)
        documents.extend(parsed.documents)
        sources.extend(unit_names(parsed, f))
        readings.append(reading)
    if name is None:
        name = files[0].name if len(files) == 1 else f"{files[0].parent.name or files[0].name} ({len(files)} files)"
    name = portable(name)
    return Corpus(documents, name=name, files=sources, has_reference=all(r.has_reference for r in readings),
                  readings=readings)


__all__ = ["FORMATS", "READERS", "read_corpus", "read_file", "detect_format", "unit_names"]
