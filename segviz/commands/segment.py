"""``segviz segment MODEL.json CORPUS... [--alpha A] [--epsilon E] [-o OUT]``: boundaries in Choi format."""
from __future__ import annotations

import argparse
import sys

from ..corpus import read_corpus, write_choi
from ..errors import SegvizError
from ..persist import atomic_write_text
from .common import load_segmenter


def _cmd_segment(args: argparse.Namespace) -> int:
    seg = load_segmenter(args.model)
    corpus = read_corpus(args.corpus)
    if corpus.n_sentences < 2:
        raise SegvizError(f"{corpus.name}: fewer than 2 sentences; nothing to segment")
    masses = seg.predict(corpus, alpha=args.alpha, epsilon=args.epsilon)
    text = write_choi(masses, corpus.sentence_texts())
    if args.output and args.output != "-":
        atomic_write_text(args.output, text)
        print(f"wrote {args.output}: {len(masses)} segments over {corpus.n_sentences} sentences", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def register(subparsers) -> None:
    s = subparsers.add_parser(
        "segment", help="segment a corpus with a trained model; writes Choi format",
        description="Place boundaries where q(yes) > alpha, at least epsilon sentences apart (Section 7).")
    s.add_argument("model", metavar="MODEL.json")
    s.add_argument("corpus", nargs="+", metavar="CORPUS")
    s.add_argument("--alpha", type=float, default=None, help="override the model's threshold")
    s.add_argument("--epsilon", type=int, default=None, help="override the model's minimum separation")
    s.add_argument("-o", "--output", metavar="OUT", help="output file (default stdout)")
    s.set_defaults(func=_cmd_segment)
