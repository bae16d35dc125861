"""``segviz compare CORPUS... [--model MODEL] [--json] [--stream]``: every segmenter, same documents, one table.

Runs the trained model (``--model``; without it the bundled default model, :data:`segviz.paths.DEFAULT_MODEL`),
the peers TextTiling and C99 (:mod:`segviz.peers`) and the paper's
baselines on the same units and prints P_mu, P_k, WindowDiff, precision, recall, F, segment counts and time per
1,000 sentences.  Per-document evaluation (each file on its own, rates averaged over files) is the default;
``--stream`` scores the concatenated stream as the paper does.  The model decides each document with its own
rule unless ``--alpha``/``--epsilon``, ``--segments`` or ``--mean-length`` replace it.  The engine is
:func:`segviz.evaluation.compare_segmenters`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..baselines import BASELINES
from ..evaluation import compare_segmenters
from ..paths import default_model
from ..peers import PEERS
from ..printable import printable
from .arguments import names_list, seed
from .common import format_table, load_model, print_json, read_input, run_with_progress
from .reading import add_reader_arguments, reader_params
from .rule_options import add_rule_arguments, apply_rule_arguments

TIME_COLUMN = ("s / 1k sent.", "seconds_per_1000_sentences", "{:.2f}")


def render(comparison) -> str:
    rows = comparison.rows
    if comparison.evaluation == "stream":
        how = "stream (the corpus as one text, as the paper evaluates)"
    else:
        k = len(comparison.units)
        how = (f"per document: each of {k} files segmented on its own, rates averaged over files" if k > 1
               else "per document: one file")
    head = (f"{printable(comparison.corpus)}: {comparison.n_sentences} sentences, "
            f"{comparison.reference_segments} reference segments; {how}")
    text = head + "\n" + format_table(rows, reference_segments=comparison.reference_segments,
                                      extra_columns=(TIME_COLUMN,))
    notes = [f"{name}: skipped on {row['skipped']} unit(s): {'; '.join(row.get('errors', []))}"
             for name, row in rows.items() if row.get("skipped")]
    return text + ("\n" + "\n".join(notes) if notes else "")


def _cmd_compare(args: argparse.Namespace) -> int:
    model = apply_rule_arguments(load_model(args.model), args) if args.model else None
    model_name = f"model {Path(args.model).name}" if args.model else "default model"
    corpus = read_input(args.corpus, **reader_params(args))
    if model is None:   # the bundled default model, once the input is known to be readable
        if default_model().is_file():
            model = apply_rule_arguments(load_model(str(default_model())), args)
        else:
            print(f"segviz: the bundled default model is missing ({default_model()}); its row is left out",
                  file=sys.stderr)
    work = compare_segmenters(corpus, model=model, model_name=model_name,
                              evaluation="stream" if args.stream else "per-document", peers=args.peers,
                              baselines=args.baselines, seed=args.seed)
    comparison = run_with_progress(work)
    if args.json:
        print_json(comparison.to_json())
    else:
        print(render(comparison))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compare",
        help="run the model, TextTiling, C99 and the baselines on the same documents; one table",
        description=(
            "Segment CORPUS with every available segmenter (the trained model with --model, else the bundled default model, TextTiling, C99 and "
            "the paper's baselines) and print P_mu, P_k, WindowDiff, precision, recall, F, segment counts and "
            "time per 1,000 sentences.  By default each file is segmented on its own and rates are averaged "
            "over files (the Choi-corpus protocol); --stream scores the concatenated stream instead."
        ),
    )
    p.add_argument("corpus", nargs="+", help="corpus files, directories or globs (Choi, Reuters SGML or plain text)")
    add_reader_arguments(p)
    p.add_argument("--model", metavar="MODEL", help="a trained segmenter (segviz train) to include (default: the "
                                                    "bundled default model)")
    p.add_argument("--stream", action="store_true", help="evaluate the concatenated stream, not each file")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--peers", type=names_list(tuple(PEERS), "peer"), metavar="NAMES",
                   help=f"comma-separated peers to run (default: {','.join(PEERS)}; '' for none)")
    p.add_argument("--baselines", type=names_list(BASELINES, "baseline"), metavar="NAMES",
                   help="comma-separated baselines (default: all; '' for none)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the random baseline (default 0)")
    add_rule_arguments(p)
    p.set_defaults(func=_cmd_compare)
