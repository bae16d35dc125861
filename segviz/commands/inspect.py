"""``segviz inspect CORPUS... [--format F] [--json]``: what the readers made of the input, and what looks wrong.

Format (and whether it was detected), documents, sentences, reference segments and their mean length, for prose
read with its headings (a book, or ``--headings``) every heading taken (file, line, text and the segment's title),
the first sentences, and warnings (:mod:`segviz.inspection`).  ``--json`` prints one object whose keys include
``format``, ``documents``, ``sentences``, ``reference_segments``, ``headings`` and ``warnings``.  Unlike the other
commands, ``inspect`` accepts a corpus of fewer than two sentences: it says so among the warnings.  A file read as
a book without being asked is said on stderr, beside the report.
"""
from __future__ import annotations

import argparse
import sys

from ..corpus import read_corpus
from ..inspection import inspect_corpus, render_inspection
from .arguments import non_negative_int
from .common import print_json
from .reading import add_reader_arguments, book_lines, reader_params


def _cmd_inspect(args: argparse.Namespace) -> int:
    corpus = read_corpus(args.corpus, **reader_params(args))
    for line in book_lines(corpus.readings):   # stdout is the report (maybe JSON): what was decided goes beside it
        print(line, file=sys.stderr)
    report = inspect_corpus(corpus, first=args.first)
    if args.json:
        print_json(report)
    else:
        print(render_inspection(report))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "inspect", help="show what the readers make of a corpus: format, counts, first sentences, warnings",
        description="Read CORPUS as segment/evaluate would and report the format (detected or given), documents, "
                    "sentences, reference segments, mean segment length, for a book (or with --headings) every "
                    "heading taken (file, line, text, title), the first sentences, and warnings (very long "
                    "sentences, lines that look hard-wrapped, sentences without terminal punctuation).")
    p.add_argument("corpus", nargs="+", metavar="CORPUS", help="files, directories or globs")
    add_reader_arguments(p)
    p.add_argument("--first", type=non_negative_int, default=5, metavar="N",
                   help="opening sentences to show (default 5)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(func=_cmd_inspect)
