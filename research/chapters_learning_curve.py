"""Does the chapters model want more books?  The chapters configuration trained on random subsets of the training
books and scored on the held-out books (the test books are never read).

For each size N and seed, N of the 15 training books are drawn, the chapters configuration
(``segviz.protocols.CHAPTERS_SEGMENTER``) is trained on them with the held-out stop, its rule tuned on the 5
held-out books, and each held-out book is scored on its own (mean P_k and P_mu): with the model's own rule and with
the true number of chapters (the oracle count, so only the placing is scored).  The rule is tuned on the books it
scores, so the "own" column is a little optimistic at every size alike: it is the comparison across sizes that
counts.  A flat curve says that more books of this kind would not lift the model much.

    nice python research/chapters_learning_curve.py 5:1 5:2 5:3 10:1 10:2 10:3 15:0 --json /tmp/curve.json
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from chapters_select import heldout_scores  # research/ is the script's own folder

from segviz import Segmenter
from segviz.protocols import CHAPTER_BOOKS, CHAPTERS_SEGMENTER, chapter_books
from segviz.readers import read_corpus

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def size_and_seed(text: str) -> tuple[int, int]:
    """``N:SEED`` -> (N, SEED), N between 2 and the number of training books."""
    size, _, seed = text.partition(":")
    n, s = int(size), int(seed or 0)
    if not 2 <= n <= len(CHAPTER_BOOKS["train"]):
        raise argparse.ArgumentTypeError(f"N must be 2..{len(CHAPTER_BOOKS['train'])}")
    return n, s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=size_and_seed, help="N:SEED, N training books drawn with SEED")
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    root = Path(args.data) / "gutenberg_novels"
    held = chapter_books(args.data, "heldout")
    names = list(CHAPTER_BOOKS["train"])
    rows = []
    for n, seed in args.runs:
        books = names if n == len(names) else sorted(random.Random(seed).sample(names, n))
        train = read_corpus([root / f"{b}.txt" for b in books], kind="text", headings=True,
                            name=f"{n} training books")
        t0 = time.perf_counter()
        seg = Segmenter(**CHAPTERS_SEGMENTER).fit(train, held)
        own, oracle = heldout_scores(seg, held)
        row = {"books": n, "seed": seed, "training_books": books, "own": own, "oracle_count": oracle,
               "features": len(seg.features_),
               "seconds": round(time.perf_counter() - t0)}
        rows.append(row)
        print(f"{n:2d} books (seed {seed}) held-out P_k {row['own']['p_k']:.3f} P_mu {row['own']['p_mu']:.3f} | "
              f"oracle count P_k {row['oracle_count']['p_k']:.3f} P_mu {row['oracle_count']['p_mu']:.3f} | "
              f"{row['features']} features, {row['seconds']} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
