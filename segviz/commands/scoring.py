"""``segviz evaluate REF HYP`` and ``segviz baselines CORPUS``: score segmentations with the paper's metrics."""
from __future__ import annotations

import argparse

import numpy as np

from ..baselines import BASELINES, baseline_masses
from ..corpus import read_corpus
from ..errors import SegvizError
from ..metrics import default_k, default_mu, score_row
from .common import format_table, print_json


def baseline_rows(reference: tuple[int, ...], *, seed: int = 0, mu: float | None = None) -> dict[str, dict]:
    """Score every baseline of the paper against ``reference`` (one dict per row)."""
    mu = default_mu(reference) if mu is None else mu
    return {name: score_row(reference, baseline_masses(name, reference, mu=mu, seed=seed), mu=mu) for name in BASELINES}


def average_rows(per_file: list[dict[str, dict]]) -> dict[str, dict]:
    """Macro-average rows over files (counts are summed, rates averaged), as the Choi literature reports."""
    out: dict[str, dict] = {}
    for name in per_file[0]:
        rows = [f[name] for f in per_file]
        avg = {key: float(np.mean([r[key] for r in rows])) for key in rows[0] if key != "hypothesis_segments"}
        avg["hypothesis_segments"] = int(sum(r["hypothesis_segments"] for r in rows))
        out[name] = avg
    return out


def table_payload(corpus, rows: dict[str, dict], *, evaluation: str) -> dict:
    reference = corpus.masses()
    payload = {
        "corpus": corpus.name,
        "evaluation": evaluation,
        "sentences": corpus.n_sentences,
        "reference_segments": len(reference),
        "mu": default_mu(reference),
        "k": default_k(reference) if corpus.n_sentences > 2 else None,
    }
    payload.update(rows)
    return payload


def render(payload: dict, rows: dict[str, dict]) -> str:
    head = (
        f"{payload['corpus']}: {payload['sentences']} sentences, {payload['reference_segments']} reference segments, "
        f"1/mu = {1 / payload['mu']:.1f} sentences, k = {payload['k']} ({payload['evaluation']})"
    )
    return head + "\n" + format_table(rows, reference_segments=payload["reference_segments"])


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
        print(render(payload, rows))
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    first = str(args.paths[0])
    if first.endswith(".json"):
        from .segment import evaluate_model  # the trained-model form: segviz evaluate MODEL.json CORPUS...

        return evaluate_model(args)
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
        print(render(payload, rows))
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
