"""The reader options every command that reads a corpus can share, and the one line that says what was read.

``--format F`` (``auto`` by default: detected from content), ``--headings`` (prose: heading lines become
reference boundaries) and ``--wiki-level L`` (Wiki-727K: only sections of level <= L open a segment);
:func:`report_reading` prints ``read FILE as FORMAT: D documents, S sentences, R reference boundaries`` and
each of the reader's notes on stderr (beyond five files, one line for the whole corpus).
"""
from __future__ import annotations

import argparse
import sys

from ..readers import FORMATS
from .arguments import positive_int

#: beyond this many files, what was read is summed up in one line
MAX_FILES_LISTED = 5


def add_reader_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("auto", *FORMATS), default="auto",
                        help="how to read CORPUS: text (prose: paragraphs, hard-wrapped lines joined, sentences "
                             "split), lines (one sentence per line, blank line between documents), choi, reuters, "
                             "wiki (Wiki-727K), jsonl; default auto: detected from each file's content")
    parser.add_argument("--headings", action="store_true",
                        help="text format: heading lines (CHAPTER IV, 2. Methods, ...) start reference segments "
                             "and leave the sentences (default: off, prose has no reference)")
    parser.add_argument("--wiki-level", type=positive_int, default=None, metavar="L",
                        help="wiki format: only sections of level <= L open a segment (default: every section)")


def reader_params(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`segviz.corpus.read_corpus` from :func:`add_reader_arguments`' options."""
    return {"format": args.format, "headings": args.headings, "wiki_level": args.wiki_level}


def report_reading(corpus, *, stream=None, max_files: int = MAX_FILES_LISTED) -> None:
    """What was read, on stderr: one line per file (``read FILE as FORMAT: ...``) and its notes; beyond
    ``max_files`` files, one line for the corpus and the notes of the first files that have any."""
    stream = stream or sys.stderr
    readings = corpus.readings
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
