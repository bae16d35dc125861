"""Segmentations written out: Choi, JSON Lines, CSV and plain text (``docs/formats.md`` has the details).

``choi`` (``.ref``)
    A line ``==========`` before each segment and one at the end, one sentence per line; segments of all
    documents in order (a document edge is a segment edge).  ``segviz evaluate REF HYP`` and every Choi tool
    read it.
``jsonl`` (``.jsonl``)
    One object per segment: ``document`` (the source unit), ``segment`` (0-based within the document),
    ``start``/``end`` (sentence indices within the document, end exclusive), ``text`` (the sentences, paragraphs
    separated by a blank line), ``sentences`` (the list), ``boundary_probability`` (the model's q(yes) for the
    boundary opening the segment; ``null`` for a document's first segment), and ``title`` when the segment
    starts inside a titled reference segment (a chapter whose heading the reader took out of the text: its
    title).  The ``jsonl`` reader reads it back.
``csv`` (``.csv``)
    One row per sentence: ``document``, ``sentence`` (0-based index within the document), ``probability`` (q(yes)
    for the gap before the sentence; empty for a document's first sentence), ``boundary`` (1 when a segment
    starts at this sentence after the first, else 0), ``text``; and a last column ``title`` (the title of the
    reference segment the sentence lies in) when any document has titled reference segments.
``text`` (``.txt``)
    For reading: each document opens with a line ``======== NAME ========``, each segment with a line
    ``-------- segment K (boundary probability P) --------`` (then ``title: TITLE`` when the segment starts inside
    a titled reference segment); then the segment's paragraphs separated by blank lines (one sentence per line
    when the reader did not know the paragraphs).

Document names are written as :func:`segviz.printable.portable` gives them (the bytes of a file name that are
not UTF-8 as ``\\xNN``) in every format; the text format shows their control characters escaped too, so that a
name stays on its ``========`` line.

Titles come from :meth:`SegmentedDocument.title_at`: the reference segment (chapter) a hypothesised segment
starts in, whatever the model decided.

Every writer renders to a string; :func:`write_segmentation` writes it to ``-`` (standard output) or to a file,
atomically through :mod:`segviz.persist`.
"""
from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import SegvizError
from .persist import atomic_write_text
from .printable import portable, printable
from .readers.choi import CHOI_SEPARATOR
from .segmentation import validate_masses
from .segmented import SegmentedDocument

DOCUMENT_RULE = "========"
SEGMENT_RULE = "--------"
CSV_COLUMNS = ("document", "sentence", "probability", "boundary", "text")
#: the column added when the reference segments have titles
CSV_TITLE_COLUMN = "title"

#: output format -> file name endings that select it
EXTENSIONS = {"choi": (".ref", ".choi"), "jsonl": (".jsonl", ".ndjson"), "csv": (".csv",), "text": (".txt", ".text")}
OUTPUT_FORMATS = tuple(EXTENSIONS)
#: what standard output gets when no format is named
DEFAULT_STREAM_FORMAT = "choi"


def write_choi(masses: Sequence[int], sentence_texts: Sequence[str]) -> str:
    """Render a segmentation of ``sentence_texts`` in Choi format (separator before each segment and at the end)."""
    m = validate_masses(masses)
    if sum(m) != len(sentence_texts):
        raise SegvizError(f"segmentation covers {sum(m)} sentences but the text has {len(sentence_texts)}")
    return _choi_lines(m, sentence_texts) + CHOI_TAIL


#: what closes a Choi file: the separator after the last segment
CHOI_TAIL = CHOI_SEPARATOR + "\n"


def _choi_lines(masses: Sequence[int], sentence_texts: Sequence[str]) -> str:
    """A separator line before each segment, then its sentences; every line ends in a newline."""
    out, i = [], 0
    for size in masses:
        out.append(CHOI_SEPARATOR)
        out.extend(sentence_texts[i: i + size])
        i += size
    return "".join(line + "\n" for line in out)


def _choi_part(documents: Sequence[SegmentedDocument], titled: bool = False) -> str:
    return _choi_lines([m for d in documents for m in d.masses], [t for d in documents for t in d.texts])


def render_choi(documents: Sequence[SegmentedDocument]) -> str:
    masses = [m for d in documents for m in d.masses]
    return write_choi(masses, [t for d in documents for t in d.texts])


def _paragraphs(doc: SegmentedDocument, start: int, end: int) -> list[list[str]]:
    """The sentences of ``start:end`` grouped by paragraph (one group per sentence when unknown)."""
    groups: list[list[str]] = []
    for i in range(start, end):
        if not doc.paragraph_starts or doc.paragraph_starts[i] or i == start:
            groups.append([])
        groups[-1].append(doc.texts[i])
    return groups


def _segment_text(doc: SegmentedDocument, start: int, end: int) -> str:
    if doc.paragraph_starts:
        return "\n\n".join(" ".join(p) for p in _paragraphs(doc, start, end))
    return " ".join(doc.texts[start:end])


def _jsonl_part(documents: Sequence[SegmentedDocument], titled: bool = False) -> str:
    lines = []
    for doc in documents:
        for k, start, end in doc.segments():
            row = {"document": portable(doc.name), "segment": k, "start": start, "end": end,
                   "text": _segment_text(doc, start, end), "sentences": list(doc.texts[start:end]),
                   "boundary_probability": doc.gap_probability(start) if k else None}
            title = doc.title_at(start)
            if title:
                row["title"] = title
            lines.append(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    return "".join(lines)


def render_jsonl(documents: Sequence[SegmentedDocument]) -> str:
    return _jsonl_part(documents) or "\n"


def titles_shown(documents: Sequence[SegmentedDocument]) -> bool:
    """Does CSV output of ``documents`` have the title column (some document has titled reference segments)?"""
    return any(doc.titles for doc in documents)


def _csv_head(titled: bool) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(CSV_COLUMNS + ((CSV_TITLE_COLUMN,) if titled else ()))
    return buffer.getvalue()


def _csv_part(documents: Sequence[SegmentedDocument], titled: bool = False) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for doc in documents:
        starts = {start for k, start, _ in doc.segments() if k}
        titles = _sentence_titles(doc) if titled else []
        name = portable(doc.name)
        for i, text in enumerate(doc.texts):
            p = doc.gap_probability(i)
            row = [name, i, "" if p is None else f"{p:.6f}", int(i in starts), text]
            writer.writerow(row + [titles[i]] if titled else row)
    return buffer.getvalue()


def render_csv(documents: Sequence[SegmentedDocument]) -> str:
    titled = titles_shown(documents)
    return _csv_head(titled) + _csv_part(documents, titled)


def _sentence_titles(doc: SegmentedDocument) -> list[str]:
    """The title of the reference segment each sentence lies in ('' where untitled), in one pass."""
    out = [""] * len(doc.texts)
    marks = list(doc.titles) + [(len(doc.texts), "")]
    for (start, title), (end, _) in zip(marks, marks[1:]):
        out[start:end] = [title] * max(0, min(end, len(out)) - start)
    return out


def _text_part(documents: Sequence[SegmentedDocument], titled: bool = False) -> str:
    out: list[str] = []
    for doc in documents:
        out.append(f"{DOCUMENT_RULE} {printable(doc.name)} {DOCUMENT_RULE}")   # one line, whatever the name
        for k, start, end in doc.segments():
            p = doc.gap_probability(start) if k else None
            how = "" if p is None else f" (boundary probability {p:.2f})"
            out.extend(["", f"{SEGMENT_RULE} segment {k + 1}{how} {SEGMENT_RULE}"])
            title = doc.title_at(start)
            if title:
                out.append(f"title: {title}")
            out.append("")
            groups = _paragraphs(doc, start, end)
            if doc.paragraph_starts:
                out.append("\n\n".join(" ".join(g) for g in groups))
            else:
                out.extend(t for g in groups for t in g)
        out.append("")
    return "\n".join(out)


def render_text(documents: Sequence[SegmentedDocument]) -> str:
    return _text_part(documents)


RENDERERS: dict[str, Callable[[Sequence[SegmentedDocument]], str]] = {
    "choi": render_choi, "jsonl": render_jsonl, "csv": render_csv, "text": render_text,
}


@dataclass(frozen=True)
class PartsRendering:
    """A format rendered a part (a run of documents) at a time, for output written as it is computed:
    ``head(titled) + part(p1, titled) + between + part(p2, titled) + ... + tail`` is exactly what
    ``RENDERERS[format]`` renders for the documents of p1, p2, ... taken together (each part holding at least
    one document), ``titled`` being :func:`titles_shown` of all of them (only CSV's head and rows depend on
    it: ``depends_on_titles``)."""

    head: Callable[[bool], str]
    part: Callable[[Sequence[SegmentedDocument], bool], str]
    between: str
    tail: str
    depends_on_titles: bool


def _no_head(titled: bool) -> str:
    return ""


#: format -> how it is rendered a part at a time
PARTS: dict[str, PartsRendering] = {
    "choi": PartsRendering(_no_head, _choi_part, "", CHOI_TAIL, False),
    "jsonl": PartsRendering(_no_head, _jsonl_part, "", "", False),
    "csv": PartsRendering(_csv_head, _csv_part, "", "", True),
    "text": PartsRendering(_no_head, _text_part, "\n", "", False),
}


def output_format_for(path: str | os.PathLike | None, requested: str | None = None) -> str:
    """The output format: ``requested`` if given, else by ``path``'s extension (standard output: Choi)."""
    if requested is not None:
        if requested not in RENDERERS:
            raise SegvizError(f"unknown output format {requested!r}; choose {', '.join(OUTPUT_FORMATS)}")
        return requested
    if path is None or os.fspath(path) == "-":
        return DEFAULT_STREAM_FORMAT
    suffix = Path(path).suffix.lower()
    for name, endings in EXTENSIONS.items():
        if suffix in endings:
            return name
    raise SegvizError(f"{path}: cannot tell the output format from the extension {suffix or '(none)'!r}; use "
                      f"{', '.join(e for es in EXTENSIONS.values() for e in es)} or give --output-format")


def write_segmentation(path: str | os.PathLike | None, documents: Sequence[SegmentedDocument], format: str,
                       *, stream=None) -> str:
    """Render ``documents`` in ``format`` and write them to ``path`` (``-`` or ``None``: standard output);
    returns the rendered text.  Files are replaced atomically (:func:`segviz.persist.atomic_write_text`)."""
    text = RENDERERS[output_format_for(None, format)](documents)
    if path is None or os.fspath(path) == "-":
        (stream or sys.stdout).write(text)
    else:
        atomic_write_text(path, text)
    return text
