"""How far a test set's mean P_k can be trusted: book-level bootstrap intervals of the per-book record.

    python research/chapters_spread.py [--record research/results/chapters_users_default.json] [--json out.json]

Reads the per-book record of ``chapters_books_as_users.py`` (each test book scored as a user scores it) and, per
portion, resamples its books with replacement (10,000 times, a fixed seed) to give a 95 % interval of the mean P_k
of the model and of each baseline, of the model's paired gain over each baseline (the same books in each resample),
and the share of resamples whose mean P_k is at most 0.30 (the target of the chapters protocol).  The books are the
unit: chapters within a book are not independent, and the books are what a reader picks.  Nothing here chooses
anything.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

RECORD = Path(__file__).resolve().parent / "results" / "chapters_users_default.json"
METHODS = ("model", "told_count", "none", "even", "even-words")
BASELINES = ("none", "even", "even-words")
TARGET_P_K = 0.30


def spread(p_k: dict[str, np.ndarray], resamples: int, seed: int) -> dict:
    """The bootstrap summary of one portion's per-book P_k (one array per method, books in the same order)."""
    n = len(p_k["model"])
    picks = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    means = {m: v[picks].mean(axis=1) for m, v in p_k.items()}
    out = {"books": n}
    for m in METHODS:
        lo, hi = np.percentile(means[m], [2.5, 97.5])
        out[m] = {"mean": float(p_k[m].mean()), "low": float(lo), "high": float(hi)}
    for b in BASELINES:
        gain = means[b] - means["model"]
        lo, hi = np.percentile(gain, [2.5, 97.5])
        out[f"gain over {b}"] = {"mean": float((p_k[b] - p_k["model"]).mean()), "low": float(lo), "high": float(hi)}
    out["share at most target"] = float((means["model"] <= TARGET_P_K).mean())
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", default=str(RECORD))
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    record = json.loads(Path(args.record).read_text())
    out = {"record": Path(args.record).name, "resamples": args.resamples, "seed": args.seed, "portions": {}}
    for portion, rows in record["portions"].items():
        books = list(rows["books"].values())
        p_k = {m: np.array([book[m]["p_k"] for book in books]) for m in METHODS}
        summary = spread(p_k, args.resamples, args.seed)
        out["portions"][portion] = summary
        print(f"{portion} ({summary['books']} books), mean P_k % and its 95 % interval over books:")
        for m in METHODS:
            s = summary[m]
            print(f"  {m:12s} {100 * s['mean']:5.1f}  [{100 * s['low']:5.1f}, {100 * s['high']:5.1f}]")
        for b in BASELINES:
            s = summary[f"gain over {b}"]
            print(f"  gain over {b:10s} {100 * s['mean']:5.1f}  [{100 * s['low']:5.1f}, {100 * s['high']:5.1f}] points")
        print(f"  share of resamples with the model's mean P_k <= {TARGET_P_K:.2f}: "
              f"{summary['share at most target']:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
