"""``segviz baselines CORPUS``: the paper's baseline segmenters scored with its metrics (Tables 5/6 rows)."""
from __future__ import annotations

import argparse

from ..corpus import read_corpus
from ..errors import SegvizError
from ..evaluation import average_rows, baseline_rows, table_payload
from .common import print_json, render_table


def _cmd_baselines(args: argparse.Namespace) -> int:
    corpus = read_corpus(args.corpus)
    if corpus.n_sentences < 2:
        raise SegvizError(f"{corpus.name}: only {corpus.n_sentences} sentence; nothing to segment")
    if args.per_file:
        parts = [c for c in corpus.by_file() if c.n_sentences > 2]
        rows = average_rows([baseline_rows(c.masses(), seed=args.seed) for c in parts])
        evaluation = f"mean over {len(parts)} files"
    else:
        rows = baseline_rows(corpus.masses(), seed=args.seed)
        evaluation = "stream"
    payload = table_payload(corpus, rows, evaluation=evaluation)
    if args.json:
        print_json(payload)
    else:
        print(render_table(payload, rows))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "baselines",
        help="score the paper's baselines (random, all, none, even) on a corpus",
        description="Print the paper's table rows (Tables 5/6) for the baseline segmenters on CORPUS.",
    )
    p.add_argument("corpus", nargs="+", help="corpus files, directories or globs (Choi, Reuters SGML or plain text)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--seed", type=int, default=0, help="seed of the random baseline (default 0)")
    p.add_argument("--per-file", action="store_true", help="segment each file on its own and average (Choi style)")
    p.set_defaults(func=_cmd_baselines)
