"""The reader options every command that reads a corpus can share, and the one line that says what was read.

``--format F`` (``auto`` by default: detected from content), ``--headings`` / ``--no-headings`` (prose: heading
lines become reference boundaries, or stay text; by default they do when the text looks like a book) and
``--wiki-level L`` (Wiki-727K: only sections of level <= L open a segment); :func:`report_reading` prints
``read FILE as FORMAT: D documents, S sentences, R reference boundaries`` and each of the reader's notes on stderr
(beyond five files, one line for the whole corpus), after one line for the files read as books without being
asked (:func:`book_lines`).
"""
from __future__ import annotations

import argparse
import sys

from ..readers import FORMATS
from ..readers.prose import MIN_BOOK_HEADINGS
from .arguments import positive_int

#: beyond this many files, what was read is summed up in one line
MAX_FILES_LISTED = 5


def add_reader_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("auto", *FORMATS), default="auto",
                        help="how to read CORPUS: text (prose: paragraphs, hard-wrapped lines joined, sentences "
                             "split), lines (one sentence per line, blank line between documents), choi, reuters, "
                             "wiki (Wiki-727K), jsonl; default auto: detected from each file's content")
    headings = parser.add_mutually_exclusive_group()
    headings.add_argument("--headings", action="store_true", default=None,
                          help="text format: read prose with its headings: chapter headings (CHAPTER IV, BOOK II, "
                               "a Markdown # line, ...) start reference segments and leave the sentences (default: "
                               f"when the text looks like a book, with at least {MIN_BOOK_HEADINGS} numbered chapter "
                               "headings)")
    headings.add_argument("--no-headings", dest="headings", action="store_false", default=None,
                          help="text format: read a book as plain prose (its headings, title page and contents stay "
                               "sentences; no reference)")
    parser.add_argument("--wiki-level", type=positive_int, default=None, metavar="L",
                        help="wiki format: only sections of level <= L open a segment (default: every section)")


def reader_params(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`segviz.corpus.read_corpus` from :func:`add_reader_arguments`' options."""
    return {"format": args.format, "headings": args.headings, "wiki_level": args.wiki_level}


def book_lines(readings, *, max_files: int = MAX_FILES_LISTED) -> list[str]:
    """``segviz: FILE looks like a book (N chapter headings): read with its headings; --no-headings reads it as
    plain prose`` for each file read as a book without being asked (beyond ``max_files`` of them, one line)."""
    books = [r for r in readings if r.read_as_book]
    if len(books) > max_files:
        first = books[0]
        return [(f"segviz: {len(books):,} files look like books ({first.path}: {len(first.headings)} chapter "
                 "headings, ...): read with their headings; --no-headings reads them as plain prose")]
    return [(f"segviz: {r.path} looks like a book ({len(r.headings)} chapter headings): read with its headings; "
             "--no-headings reads it as plain prose") for r in books]


def report_reading(corpus, *, stream=None, max_files: int = MAX_FILES_LISTED) -> None:
    """What was read, on stderr: the files read as books without being asked (:func:`book_lines`), then one line
    per file (``read FILE as FORMAT: ...``) and its notes; beyond ``max_files`` files, one line for the corpus and
    the notes of the first files that have any."""
    stream = stream or sys.stderr
    readings = corpus.readings
    for line in book_lines(readings, max_files=max_files):
        print(line, file=stream)
    if len(readings) > max_files:
        print(corpus.summary(), file=stream)
    else:
        for reading in readings:
            print(reading.summary(), file=stream)
            for note in reading.notes:
                print(f"  {note}", file=stream)
        if len(readings) > 1:
            print(corpus.summary(), file=stream)
        return
    noted = [r for r in readings if r.notes]
    for reading in noted[:max_files]:
        print(f"  {reading.path}: {'; '.join(reading.notes)}", file=stream)
    if len(noted) > max_files:
        print(f"  ... and notes on {len(noted) - max_files} more files (segviz inspect lists them)", file=stream)
