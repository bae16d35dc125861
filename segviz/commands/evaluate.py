"""``segviz evaluate``: score segmentations with the paper's metrics, the baselines beside them.

* ``segviz evaluate --model MODEL CORPUS...``: segment CORPUS with a trained model (the paper's Tables 5/6).
* ``segviz evaluate REF HYP``: a Choi-format hypothesis of the same text against the reference.
* ``segviz evaluate MODEL CORPUS...`` (the earlier form, deprecated): recognised by the *content* of MODEL (a
  segviz model file), never by its name; it works and says once on stderr to use ``--model``.
"""
from __future__ import annotations

import argparse
import os
import re
import stat
import sys

from ..errors import SegvizError
from ..evaluation import model_segmenter, score_segmenters, table_payload
from .arguments import positive_int, probability, seed
from .common import load_model, print_json, read_input, render_table
from .reading import add_reader_arguments, reader_params

_MODEL_JSON = re.compile(rb'^\s*\{.*"format"\s*:\s*"segviz-segmenter"', re.S)


def looks_like_model(path) -> bool:
    """True when ``path`` is a regular file whose first bytes are those of a segviz model (an archive, or the
    earlier JSON layout); a corpus never starts like either."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            head = handle.read(65536)
    except OSError:
        return False
    return head.startswith(b"PK\x03\x04") or bool(_MODEL_JSON.match(head))


def _print(args, payload: dict, rows: dict) -> None:
    if args.json:
        print_json(payload)
    else:
        print(render_table(payload, rows))


def _evaluate_model(args: argparse.Namespace, model_path, corpus_paths) -> int:
    if not corpus_paths:
        raise SegvizError("no corpus to evaluate the model on (usage: segviz evaluate --model MODEL CORPUS...)")
    seg = load_model(model_path)
    corpus = read_input(corpus_paths, **reader_params(args))
    if corpus.n_sentences < 3:
        raise SegvizError(f"{corpus.name}: {corpus.n_sentences} sentence(s); scoring needs at least 3")
    route = None
    if hasattr(seg, "route"):   # a router: the stream is one document, segmented by the expert it chooses
        route = seg.route(corpus)
        seg = seg.experts_[route.expert]
        print(f"segviz: the model routes {corpus.name} to {route.describe()}", file=sys.stderr)
    comparison = score_segmenters(
        corpus, models={"model": model_segmenter(seg, alpha=args.alpha, epsilon=args.epsilon)}, peers=(),
        evaluation="stream", seed=args.seed)
    rows = comparison.score_rows
    payload = table_payload(corpus, rows, evaluation="stream")
    payload["model_file"] = str(model_path)
    payload["alpha"] = seg.alpha_ if args.alpha is None else args.alpha
    payload["epsilon"] = seg.epsilon_ if args.epsilon is None else args.epsilon
    if route is not None:
        payload["route"] = route.to_dict()
    _print(args, payload, rows)
    return 0


def _evaluate_hypothesis(args: argparse.Namespace) -> int:
    if args.alpha is not None or args.epsilon is not None:
        raise SegvizError("--alpha and --epsilon apply to a model (segviz evaluate --model MODEL CORPUS...)")
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
    if args.paths and looks_like_model(args.paths[0]):
        print("segviz: note: `evaluate MODEL CORPUS` is deprecated; write `evaluate --model MODEL CORPUS`",
              file=sys.stderr)
        return _evaluate_model(args, args.paths[0], args.paths[1:])
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
    e.add_argument("--alpha", type=probability, default=None, help="(with a model) override the decision threshold")
    e.add_argument("--epsilon", type=positive_int, default=None,
                   help="(with a model) override the minimum separation in sentences")
    e.set_defaults(func=_cmd_evaluate)
