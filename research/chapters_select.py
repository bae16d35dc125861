"""Held-out selection of the chapters model's configuration (the ``chapters`` protocol's training and held-out
books only; the test books are never read).

Each configuration is trained on the 15 training books, its decision rule tuned on the 5 held-out books, and
scored on each held-out book on its own (mean P_k and P_mu), beside the same probabilities decided with the true
number of chapters (an oracle count: how much of the error is the count, how much the placing).

    nice python research/chapters_select.py base names-dialogue vocabulary --json /tmp/chapters_select.json
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from segviz import SegmentCountRule, Segmenter
from segviz.evaluation import macro_average
from segviz.metrics import score_row
from segviz.protocols import CHAPTERS_SEGMENTER, chapter_books
from segviz.segmentation import boundaries_to_masses

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
BASE = dict(CHAPTERS_SEGMENTER, stopping="heldout")
CONFIGS = {
    "base": {**BASE, "n_features": 60},
    "base-100": {**BASE, "n_features": 100},
    "names-dialogue": {**BASE, "n_features": 80,
                       "families": BASE["families"] + ("names", "dialogue")},
    "vocabulary": {**BASE, "n_features": 100, "vocabulary": 2000, "min_support": 20,
                   "families": ("vocabulary",) + BASE["families"] + ("names", "dialogue")},
    "chapters": dict(CHAPTERS_SEGMENTER),
    "novelty": {**CHAPTERS_SEGMENTER, "families": CHAPTERS_SEGMENTER["families"] + ("novelty",)},
    "transitions": {**CHAPTERS_SEGMENTER, "families": CHAPTERS_SEGMENTER["families"] + ("transitions",)},
    "strong-prior": {**BASE, "n_features": 100, "l2": 10.0,
                     "families": BASE["families"] + ("names", "dialogue")},
}


def heldout_scores(seg: Segmenter, held) -> tuple[dict, dict]:
    """Mean scores over the held-out books, each on its own: decided by the model's rule, and with the book's
    true number of chapters (the oracle count: only the placing is scored)."""
    own, oracle = [], []
    for book in held.by_file():
        q = seg.boundary_probabilities(book)
        ref = book.masses()
        own.append(score_row(ref, boundaries_to_masses(seg.decide(q, book), book.n_sentences)))
        oracle.append(score_row(ref, boundaries_to_masses(
            SegmentCountRule(segments=len(ref)).decide(q), book.n_sentences)))
    return macro_average(own), macro_average(oracle)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="+", choices=tuple(CONFIGS))
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    train, held = chapter_books(args.data, "train"), chapter_books(args.data, "heldout")
    out = {}
    for name in args.configs:
        t0 = time.perf_counter()
        seg = Segmenter(**CONFIGS[name]).fit(train, held)
        own, oracle = heldout_scores(seg, held)
        row = {"own": own, "oracle_count": oracle, "features": len(seg.features_),
               "rule": seg.rule_.describe(), "seconds": round(time.perf_counter() - t0)}
        out[name] = row
        print(f"{name:16s} held-out P_k {row['own']['p_k']:.3f} P_mu {row['own']['p_mu']:.3f} | oracle count "
              f"P_k {row['oracle_count']['p_k']:.3f} P_mu {row['oracle_count']['p_mu']:.3f} | "
              f"{row['features']} features, {row['rule']}, {row['seconds']} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
