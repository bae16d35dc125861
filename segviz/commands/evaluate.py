"""``segviz evaluate``: score segmentations with the paper's metrics, the baselines beside them.

* ``segviz evaluate --model MODEL CORPUS...``: segment CORPUS with a trained model (the paper's Tables 5/6).
* ``segviz evaluate REF HYP``: a Choi-format hypothesis of the same text against the reference.

The model segments each document (source unit) on its own with its own decision rule, as ``segviz segment``
does; ``--alpha``/``--epsilon``, ``--segments`` or ``--mean-length`` replace the rule.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import SegvizError
from ..evaluation import score_segmenters, table_payload
from ..model_protocol import stream_masses
from .arguments import seed
from .common import load_model, print_json, read_input, render_table, run_with_progress
from .reading import add_reader_arguments, reader_params
from .rule_options import add_rule_arguments, apply_rule_arguments, rule_overridden
from .segment import describe_routes


def _print(args, payload: dict, rows: dict) -> None:
    if args.json:
        print_json(payload)
    else:
        print(render_table(payload, rows))


def _evaluate_model(args: argparse.Namespace, model_path, corpus_paths) -> int:
    if not corpus_paths:
        raise SegvizError("no corpus to evaluate the model on (usage: segviz evaluate --model MODEL CORPUS...)")
    model = apply_rule_arguments(load_model(model_path), args)
    corpus = read_input(corpus_paths, **reader_params(args))
    if corpus.n_sentences < 3:
        raise SegvizError(f"{corpus.name}: {corpus.n_sentences} sentence(s); scoring needs at least 3")
    units = corpus.by_file()
    applied = run_with_progress(model.segment_iter(corpus), quiet=True)
    masses = stream_masses([a.masses() for a in applied])
    comparison = score_segmenters(corpus, models={"model": lambda _: masses}, peers=(), evaluation="stream",
                                  seed=args.seed)
    rows = comparison.score_rows
    payload = table_payload(corpus, rows, evaluation="stream")
    payload["model_file"] = str(model_path)
    payload["documents"] = [{"document": unit.name, "expert": a.expert, "route": a.reason(),
                             "rule": a.rule.describe()} for unit, a in zip(units, applied)]
    summary = describe_routes(model, [a.expert for a in applied])
    if summary:
        print(f"segviz: {summary}", file=sys.stderr)
    _print(args, payload, rows)
    return 0


def _evaluate_hypothesis(args: argparse.Namespace) -> int:
    if rule_overridden(args):
        raise SegvizError("--alpha, --epsilon, --segments and --mean-length apply to a model "
                          "(segviz evaluate --model MODEL CORPUS...)")
    reference = read_input(args.paths[0], **reader_params(args))
    hypothesis = read_input(args.paths[1], **reader_params(args))
    if len(reference.sentence_texts()) != len(hypothesis.sentence_texts()):
        raise SegvizError(f"reference has {reference.n_sentences} sentences but hypothesis has "
                          f"{hypothesis.n_sentences}; they must be the same text")
    mismatch = next((i for i, (a, b) in enumerate(zip(reference.sentences(), hypothesis.sentences())) if a != b), None)
    if mismatch is not None:
        raise SegvizError(f"reference and hypothesis differ in sentence {mismatch + 1}; they must be the same text")
    if reference.n_sentences < 3:
        raise SegvizError(f"{reference.name}: {reference.n_sentences} sentence(s); scoring needs at least 3")
    hyp = hypothesis.masses()
    comparison = score_segmenters(reference, models={"hypothesis": lambda _: hyp}, peers=(), evaluation="stream",
                                  seed=args.seed)
    rows = comparison.score_rows
    _print(args, table_payload(reference, rows, evaluation="stream"), rows)
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    if args.model is not None:
        return _evaluate_model(args, args.model, args.paths)
    if len(args.paths) != 2:
        raise SegvizError("give REF_CORPUS HYP_CORPUS, or --model MODEL CORPUS... "
                          f"(got {len(args.paths)} path(s) and no --model)")
    return _evaluate_hypothesis(args)


def register(subparsers) -> None:
    e = subparsers.add_parser(
        "evaluate",
        help="score a trained model on a corpus (--model), or a hypothesis against a reference",
        description=(
            "segviz evaluate --model MODEL CORPUS...: segment CORPUS with a trained model and print the paper's "
            "table (the model, then the baselines).  segviz evaluate REF_CORPUS HYP_CORPUS: score a Choi-format "
            "hypothesis of the same text against the reference, with the baselines beside it."
        ),
    )
    e.add_argument("paths", nargs="+", metavar="PATH", help="CORPUS... with --model, else REF HYP")
    e.add_argument("--model", metavar="MODEL", help="a trained segmenter (segviz train) to evaluate")
    add_reader_arguments(e)
    e.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    e.add_argument("--seed", type=seed, default=0, help="seed of the random baseline (default 0)")
    add_rule_arguments(e)
    e.set_defaults(func=_cmd_evaluate)
