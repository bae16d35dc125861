"""``segviz baselines CORPUS``: the paper's baseline segmenters scored with its metrics (Tables 5/6 rows)."""
from __future__ import annotations

import argparse

from ..evaluation import score_segmenters, table_payload
from .arguments import seed
from .common import print_json, read_input, render_table
from .reading import add_reader_arguments, reader_params


def _cmd_baselines(args: argparse.Namespace) -> int:
    corpus = read_input(args.corpus, **reader_params(args))
    comparison = score_segmenters(corpus, peers=(), seed=args.seed,
                                  evaluation="per-document" if args.per_file else "stream")
    rows = comparison.score_rows
    evaluation = f"mean over {len(comparison.units)} files" if args.per_file else "stream"
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
    add_reader_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--seed", type=seed, default=0, help="seed of the random baseline (default 0)")
    p.add_argument("--per-file", action="store_true", help="segment each file on its own and average (Choi style)")
    p.set_defaults(func=_cmd_baselines)
