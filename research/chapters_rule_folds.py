"""Is the chapters rule tuned on enough books?  The length-prior rule tuned on the training books' out-of-fold
probabilities (15 books) against the rule tuned on the held-out books (5), both scored on the held-out books (the
test books are never read).

The 15 training books are cut into 5 folds of 3; the chapters configuration
(``segviz.protocols.CHAPTERS_SEGMENTER``) is trained on the other 12 for each fold, and the fold's books get that
model's probabilities (out of fold, so no better than a new book's).  The model trained on all 15 gives the
held-out books' probabilities.  The rule's grid (its shapes and biases) is then tuned for the mean P_mu, or
P_k, per book: on the 15 out-of-fold books; on them and the other four held-out books (each held-out book scored
by the rule tuned without it); and on the other four held-out books alone (cross-fitted, as ``segviz train``
scores a candidate).

    nice python research/chapters_rule_folds.py    # about 25 minutes on two cores
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from segviz import Segmenter
from segviz.evaluation import macro_average
from segviz.metrics import score_row
from segviz.protocols import CHAPTER_BOOKS, CHAPTERS_SEGMENTER, chapter_books
from segviz.readers import read_corpus
from segviz.rules import document_sizes
from segviz.segmentation import boundaries_to_masses
from segviz.tuning import unit_score

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
FOLDS = 5


def scored_books(seg: Segmenter, corpus) -> list[tuple[np.ndarray, np.ndarray, tuple[int, ...]]]:
    """(probabilities, sentence sizes, reference) of each book of ``corpus`` under ``seg``."""
    return [(seg.boundary_probabilities(book), document_sizes(book.sentences()), book.masses())
            for book in corpus.by_file()]


def tuned(rule, books, metric: str):
    """The candidate of ``rule``'s grid with the best mean ``metric`` over ``books`` (the first best in grid
    order, as :func:`segviz.tuning.tune_rule` chooses)."""
    totals, candidates = None, None
    for q, sizes, ref in books:
        decided = list(rule.decisions(q, sizes=sizes))
        scores = np.array([unit_score(ref, boundaries, metric) for _, boundaries in decided])
        totals = scores if totals is None else totals + scores
        candidates = [candidate for candidate, _ in decided]
    return candidates[int(np.argmax(totals))]


def scores(rule, books) -> tuple[dict, list[dict]]:
    rows = [score_row(ref, boundaries_to_masses(rule.decide(q, sizes), len(sizes))) for q, sizes, ref in books]
    return macro_average(rows), rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    args = ap.parse_args(argv)
    root = Path(args.data) / "gutenberg_novels"
    names = list(CHAPTER_BOOKS["train"])
    held = chapter_books(args.data, "heldout")

    def books(selected, label):
        return read_corpus([root / f"{b}.txt" for b in selected], kind="text", headings=True, name=label)

    out_of_fold = []
    for k in range(FOLDS):
        fold = names[k::FOLDS]
        seg = Segmenter(**CHAPTERS_SEGMENTER).fit(books([b for b in names if b not in fold], f"fold {k}"), held)
        out_of_fold += scored_books(seg, books(fold, f"out of fold {k}"))
        print(f"fold {k}: {len(seg.features_)} features", flush=True)
    full = Segmenter(**CHAPTERS_SEGMENTER).fit(books(names, "training books"), held)
    heldout = scored_books(full, held)
    rule = full.rule_
    print(f"the chapters model's rule (tuned on the held-out books): {rule.describe()}", flush=True)
    for metric in ("p_mu", "p_k"):
        on_folds = tuned(rule, out_of_fold, metric)
        mean, rows = scores(on_folds, heldout)
        print(f"for {metric}, tuned on the 15 out-of-fold books: {on_folds.describe()}\n"
              f"    held-out P_k {mean['p_k']:.3f} P_mu {mean['p_mu']:.3f} (books: "
              + " ".join(f"{r['p_k']:.3f}" for r in rows) + ")", flush=True)
        for label, with_folds in (("the 15 out-of-fold books and the other 4 held-out", True),
                                  ("the other 4 held-out books (cross-fitted)", False)):
            rows = []
            for i, book in enumerate(heldout):
                others = [b for j, b in enumerate(heldout) if j != i]
                rows.append(scores(tuned(rule, (out_of_fold if with_folds else []) + others, metric), [book])[1][0])
            mean = macro_average(rows)
            print(f"for {metric}, tuned on {label}: held-out P_k {mean['p_k']:.3f} P_mu {mean['p_mu']:.3f} "
                  "(books: " + " ".join(f"{r['p_k']:.3f}" for r in rows) + ")", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
