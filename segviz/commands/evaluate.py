"""``segviz evaluate REF HYP`` (a Choi-format hypothesis of the same text) and
``segviz evaluate MODEL.json CORPUS...`` (segment CORPUS with a trained model): the paper's table, baselines beside."""
from __future__ import annotations

import argparse

from ..corpus import read_corpus
from ..errors import SegvizError
from ..evaluation import baseline_rows, model_rows, table_payload
from ..metrics import score_row
from .common import load_segmenter, print_json, render_table


def _evaluate_model(args: argparse.Namespace) -> int:
    if len(args.paths) < 2:
        raise SegvizError("usage: segviz evaluate MODEL.json CORPUS...")
    seg = load_segmenter(args.paths[0])
    corpus = read_corpus(args.paths[1:])
    if corpus.n_sentences < 3:
        raise SegvizError(f"{corpus.name}: too few sentences to evaluate")
    rows = model_rows(seg, corpus, alpha=args.alpha, epsilon=args.epsilon, seed=args.seed)
    payload = table_payload(corpus, rows, evaluation="stream")
    payload["model_file"] = str(args.paths[0])
    payload["alpha"] = seg.alpha_ if args.alpha is None else args.alpha
    payload["epsilon"] = seg.epsilon_ if args.epsilon is None else args.epsilon
    if args.json:
        print_json(payload)
    else:
        print(render_table(payload, rows))
    return 0


def _evaluate_hypothesis(args: argparse.Namespace) -> int:
    if len(args.paths) != 2:
        raise SegvizError("usage: segviz evaluate REF_CORPUS HYP_CORPUS  (or: segviz evaluate MODEL.json CORPUS...)")
    reference = read_corpus(args.paths[0])
    hypothesis = read_corpus(args.paths[1])
    ref_texts, hyp_texts = reference.sentence_texts(), hypothesis.sentence_texts()
    if len(ref_texts) != len(hyp_texts):
        raise SegvizError(
            f"reference has {len(ref_texts)} sentences but hypothesis has {len(hyp_texts)}; they must be the same text"
        )
    mismatch = next((i for i, (a, b) in enumerate(zip(reference.sentences(), hypothesis.sentences())) if a != b), None)
    if mismatch is not None:
        raise SegvizError(f"reference and hypothesis differ in sentence {mismatch + 1}; they must be the same text")
    ref = reference.masses()
    rows = {"hypothesis": score_row(ref, hypothesis.masses())}
    rows.update(baseline_rows(ref, seed=args.seed))
    payload = table_payload(reference, rows, evaluation="stream")
    if args.json:
        print_json(payload)
    else:
        print(render_table(payload, rows))
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    if str(args.paths[0]).endswith(".json"):
        return _evaluate_model(args)
    return _evaluate_hypothesis(args)


def register(subparsers) -> None:
    e = subparsers.add_parser(
        "evaluate",
        help="score a hypothesis against a reference (or a trained model on a corpus)",
        description=(
            "segviz evaluate REF_CORPUS HYP_CORPUS: score a Choi-format hypothesis of the same text against the "
            "reference, with the baselines beside it.  segviz evaluate MODEL.json CORPUS...: segment CORPUS with a "
            "trained model and print the paper's table."
        ),
    )
    e.add_argument("paths", nargs="+", metavar="PATH", help="REF HYP, or MODEL.json CORPUS...")
    e.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    e.add_argument("--seed", type=int, default=0, help="seed of the random baseline (default 0)")
    e.add_argument("--alpha", type=float, default=None, help="(model form) override the decision threshold")
    e.add_argument("--epsilon", type=int, default=None, help="(model form) override the minimum separation")
    e.set_defaults(func=_cmd_evaluate)
