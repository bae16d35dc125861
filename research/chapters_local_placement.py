"""Where are the chapters model's errors: in finding a chapter's neighbourhood, or in picking its start there?  A
screen on the ``chapters`` protocol's training and held-out books only (the test books are never read).

The first trees (the product's paragraph score without its cue column, :func:`chapters_count_screen.score_books`)
score every paragraph start; each held-out book is decided by a segment-count rule (told its true count, and with
the count from its length in words).  Then every boundary so placed is moved to another paragraph start within W
sentences of it (W = 30, 60):

* **oracle** -- to the nearest true chapter start there, if there is one: the ceiling of placing alone, with the
  neighbourhoods the rule found;
* **local ranker** -- to the start a second classifier likes best there.  The ranker is fitted on the training
  books' paragraph starts within W sentences of a true chapter start only (the true start the positive, its
  neighbours the negatives), over the measurements, the trees' log-odds, both less their means over the window,
  and the trees' rank within the window: a learner asked only the local question.

Also, per held-out chapter start, whether the trees and the ranker put it first among the paragraph starts within W
sentences of it (top-1 within the window).

    nice python research/chapters_local_placement.py [--data ../shared/corpora] [--cache DIR] [--jobs 2] [--json OUT]
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
from chapters_count_screen import log_odds, scored_books, trees
from chapters_pool_screen import count_rule_boundaries, screen_parser

from segviz.evaluation import macro_average
from segviz.metrics import score_row
from segviz.segmentation import boundaries_to_masses

WINDOWS = (30, 60)
MOVES = ("as decided", "oracle", "local ranker")


def near(book: dict, gap: int, window: int) -> np.ndarray:
    """Indices of the book's paragraph starts within ``window`` sentences of ``gap``."""
    return np.flatnonzero(np.abs(book["gaps"] - gap) <= window)


def local_columns(book: dict, rows: np.ndarray) -> np.ndarray:
    """The ranker's columns for paragraph starts ``rows`` of one window."""
    X = np.c_[book["X"], log_odds(book["p"])][rows]
    with warnings.catch_warnings():   # a measurement missing in the whole window stays NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        centred = X - np.nanmean(X, axis=0)
    rank = np.argsort(np.argsort(-book["p"][rows])) / max(1, rows.size - 1)
    return np.c_[X, centred, rank]


def first_among_neighbours(books: list[dict], window: int, scores) -> list[bool]:
    """Per chapter start of ``books``: does ``scores(book, rows)`` rank it first among the paragraph starts
    ``rows`` within ``window`` sentences of it?"""
    first = []
    for book in books:
        for start in book["gaps"][book["y"] == 1]:
            rows = near(book, start, window)
            first.append(bool(book["gaps"][rows[np.argmax(scores(book, rows))]] == start))
    return first


def fit_ranker(train: list[dict], window: int):
    columns, labels = [], []
    for book in train:
        for start in book["gaps"][book["y"] == 1]:
            rows = near(book, start, window)
            columns.append(local_columns(book, rows))
            labels.append(book["gaps"][rows] == start)
    return trees().fit(np.vstack(columns), np.concatenate(labels))


def moved(book: dict, gaps: np.ndarray, window: int, how: str, ranker) -> np.ndarray:
    """The decided boundary gaps ``gaps`` moved as ``how`` says within ``window`` sentences."""
    if how == "as decided":
        return gaps
    starts = book["gaps"][book["y"] == 1]
    out = []
    for gap in gaps:
        rows = near(book, gap, window)
        if how == "oracle":
            close = starts[np.abs(starts - gap) <= window]
            out.append(close[np.argmin(np.abs(close - gap))] if close.size else gap)
        elif rows.size:
            out.append(book["gaps"][rows[np.argmax(ranker.predict_proba(local_columns(book, rows))[:, 1])]])
        else:
            out.append(gap)
    return np.unique(out)


def main(argv=None) -> int:
    args = screen_parser(__doc__).parse_args(argv)
    train, held, words_per_chapter = scored_books(args)
    out: dict = {}
    for window in WINDOWS:
        ranker = fit_ranker(train, window)
        top = {"trees": first_among_neighbours(held, window, lambda b, rows: b["p"][rows]),
               "local ranker": first_among_neighbours(
                   held, window, lambda b, rows: ranker.predict_proba(local_columns(b, rows))[:, 1])}
        out[f"window {window}"] = {"top1_trees": float(np.mean(top["trees"])),
                                   "top1_local_ranker": float(np.mean(top["local ranker"])),
                                   "chapter_starts": len(top["trees"])}
        print(f"window ±{window}: a held-out chapter start first among its neighbours: trees "
              f"{np.mean(top['trees']):.3f}, local ranker {np.mean(top['local ranker']):.3f}", flush=True)
        for count in ("true", "words"):
            for how in MOVES:
                rows = []
                for book in held:
                    segments = {"true": len(book["masses"]),
                                "words": max(1, round(book["words"] / words_per_chapter))}[count]
                    gaps = count_rule_boundaries(book, book["p"], segments) - 1
                    rows.append(score_row(book["masses"],
                                          boundaries_to_masses(moved(book, gaps, window, how, ranker) + 1, book["n"])))
                mean = macro_average(rows)
                out[f"window {window}"][f"count {count}, {how}"] = {
                    "p_k": mean["p_k"], "p_mu": mean["p_mu"], "f1": mean.get("f1"),
                    "per_book_p_k": {b["name"]: r["p_k"] for b, r in zip(held, rows)}}
                print(f"  count {count:5s} {how:12s} P_k {mean['p_k']:.3f}  P_mu {mean['p_mu']:.3f}  "
                      f"F1 {mean.get('f1', float('nan')):.3f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
