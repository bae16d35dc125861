"""What the readers made of a corpus, and what looks wrong: the engine of ``segviz inspect``.

:func:`inspect_corpus` returns a JSON-ready dict: ``format``, ``files`` (one entry per file: path, format,
whether detected, counts, the reader's notes, ``headings_decision``: whether prose was read with its headings and
who decided), ``documents``, ``sentences``, ``tokens``, ``paragraphs`` (``None`` when the format does not say),
``reference_segments`` and ``mean_segment_length`` (``None`` for unlabelled text), ``headings`` (prose read with
its headings, a book or ``--headings``: every heading taken as the start of a reference segment, as ``file``,
``line`` -- 1-based, in the file -- ``text`` and ``title``; empty otherwise), ``first_sentences`` and
``warnings`` (one sentence each):

* the reader's own notes (sentences cut for length, placeholders dropped, hyphens joined, headings found);
* very long sentences (more than :data:`LONG_SENTENCE_TOKENS` tokens): usually a paragraph the splitter could
  not break, or text without sentence punctuation;
* sentences that look like wrapped lines: one ends without terminal punctuation and the next begins in lower
  case, in a format that takes lines as sentences (read the file with ``--format text``);
* many sentences (over :data:`UNTERMINATED_WARNING_FRACTION`) without terminal punctuation;
* fewer than two sentences (nothing to segment); unlabelled text (nothing to score against).
"""
from __future__ import annotations

import re
from typing import Any

from .documents import HEADINGS_ASKED, HEADINGS_BOOK, HEADINGS_REFUSED
from .printable import printable
from .readers.prose import TERMINAL_RE

#: a sentence longer than this (in tokens) is reported (the longest of Choi 1/3-11 has 159, of wiki300 192)
LONG_SENTENCE_TOKENS = 200
#: warn when more than this share of the sentences lacks terminal punctuation
UNTERMINATED_WARNING_FRACTION = 0.10
#: files listed one by one in the text report
MAX_FILES_SHOWN = 10
#: formats that take each line as one sentence (where wrapped lines become fragments)
LINE_FORMATS = ("lines", "choi", "wiki")

_LOWER_START_RE = re.compile(r"^[\"'“‘(\[]?[a-z]")


def _preview(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def inspect_corpus(corpus, *, first: int = 5) -> dict[str, Any]:
    """The report described in the module docstring (``first``: how many opening sentences to show)."""
    texts = corpus.sentence_texts()
    sentences = corpus.sentences()
    readings = list(corpus.readings)
    formats = list(dict.fromkeys(r.format for r in readings))
    warnings: list[str] = []
    for r in readings:
        warnings.extend(f"{r.path}: {note}" for note in r.notes)

    if len(formats) > 1:
        warnings.append(f"the files were read in different formats ({', '.join(formats)})")
    if corpus.n_sentences < 2:
        warnings.append(f"{_count(corpus.n_sentences, 'sentence')}: nothing to segment")

    long = [i for i, s in enumerate(sentences) if len(s) > LONG_SENTENCE_TOKENS]
    if long:
        warnings.append(f"{_count(len(long), 'sentence')} longer than {LONG_SENTENCE_TOKENS} tokens (the first, "
                        f"sentence {long[0] + 1}: \"{_preview(texts[long[0]], 60)}\"); a paragraph the splitter could "
                        "not break, or text without sentence punctuation?")

    unterminated = [i for i, t in enumerate(texts) if not TERMINAL_RE.search(t)]
    wrapped = 0
    start = 0
    for doc in corpus.documents:
        for i in range(start, start + len(doc) - 1):
            if not TERMINAL_RE.search(texts[i]) and _LOWER_START_RE.match(texts[i + 1]):
                wrapped += 1
        start += len(doc)
    line_formats = [f for f in formats if f in LINE_FORMATS]
    if wrapped and wrapped >= 0.05 * max(corpus.n_sentences, 1) and line_formats:
        warnings.append(f"{_count(wrapped, 'sentence')} end without punctuation and the next begins in lower case: "
                        f"the lines look hard-wrapped, so read as {'/'.join(line_formats)} they are fragments of "
                        "sentences; try --format text")
    if texts and len(unterminated) > UNTERMINATED_WARNING_FRACTION * len(texts):
        warnings.append(f"{len(unterminated) / len(texts):.0%} of the sentences ({len(unterminated):,}) do not end "
                        f"in terminal punctuation (the first: \"{_preview(texts[unterminated[0]], 60)}\")")
    if not corpus.has_reference:
        warnings.append("no reference boundaries: segment works, but evaluate, compare and train need a labelled "
                        "corpus")

    paragraphs = corpus.paragraph_starts()
    segments = len(corpus) if corpus.has_reference else None
    return {
        "format": "+".join(formats) if formats else None,
        "files": [{"path": r.path, "format": r.format, "detected": r.detected, "documents": r.documents,
                   "sentences": r.sentences, "reference_boundaries": r.reference_boundaries,
                   "notes": list(r.notes), "book_headings": r.book_headings,
                   "headings_decision": r.headings_decision} for r in readings],
        "documents": sum(r.documents for r in readings) if readings else len(corpus),
        "sentences": corpus.n_sentences,
        "tokens": corpus.n_tokens,
        "paragraphs": sum(paragraphs) if paragraphs else None,
        "reference_segments": segments,
        "mean_segment_length": corpus.n_sentences / segments if segments else None,
        "headings": [{"file": r.path, "line": h.line, "text": h.text, "title": h.title}
                     for r in readings for h in r.headings],
        "unterminated_sentences": len(unterminated),
        "long_sentences": len(long),
        "wrapped_line_pairs": wrapped,
        "first_sentences": [_preview(t, 200) for t in texts[:first]],
        "warnings": warnings,
    }


#: what the text report adds to a prose file's format for each way its headings were decided
_HEADINGS_READ = {HEADINGS_ASKED: ", with its headings (as asked)",
                  HEADINGS_BOOK: ", read as a book (it looks like one)",
                  HEADINGS_REFUSED: ", as plain prose (as asked)"}


def render_inspection(report: dict[str, Any]) -> str:
    """The report as a few lines of text for a terminal."""
    lines = [f"format      {report['format']}"]
    shown = report["files"][:MAX_FILES_SHOWN]
    for f in shown:
        how = "detected" if f["detected"] else "as asked"
        ref = "no reference" if f["reference_boundaries"] is None else f"{f['reference_boundaries']:,} ref. boundaries"
        read = _HEADINGS_READ.get(f.get("headings_decision", ""), "")
        lines.append(f"  {printable(f['path'])}: {f['format']} ({how}){read}, {_count(f['documents'], 'document')}, "
                     f"{_count(f['sentences'], 'sentence')}, {ref}")
    if len(report["files"]) > len(shown):
        lines.append(f"  ... and {len(report['files']) - len(shown):,} more files (--json lists them all)")
    lines.append(f"documents   {report['documents']:,}")
    lines.append(f"sentences   {report['sentences']:,}   ({report['tokens']:,} tokens"
                 + (f", {report['paragraphs']:,} paragraphs)" if report["paragraphs"] is not None else ")"))
    if report["reference_segments"] is None:
        lines.append("reference   none (unlabelled text)")
    else:
        lines.append(f"reference   {report['reference_segments']:,} segments, mean length "
                     f"{report['mean_segment_length']:.1f} sentences")
    if report["headings"]:
        lines.append(f"headings    {_count(len(report['headings']), 'heading')} taken as segment starts")
        one_file = len({h["file"] for h in report["headings"]}) == 1
        for h in report["headings"]:
            where = f"line {h['line']}" if one_file else f"{printable(h['file'])}:{h['line']}"
            title = "" if h["title"] == h["text"] else f"  (title: {h['title']})"
            lines.append(f"  {where}  {h['text']}{title}")
    lines.append("first sentences")
    lines.extend(f"  {i + 1}. {t}" for i, t in enumerate(report["first_sentences"]))
    if report["warnings"]:
        lines.append("warnings")
        lines.extend(f"  - {printable(w)}" for w in report["warnings"])   # a warning names its file
    else:
        lines.append("warnings    none")
    return "\n".join(lines)
