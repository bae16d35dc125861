"""Does a non-linear learner over paragraph-level measurements place chapters better with 127 training books than
with 15?  A screen on the ``chapters`` protocol's training and held-out books only (the test books are never
read): the measurements of :mod:`segviz.features.paragraph_measures` at every paragraph start of each book (cached per book as
``.npz``), a gradient-boosted classifier fitted on the training books, each held-out book decided with its true
number of chapters (the placing alone), with a count estimated from its length in words, and with the trees' own
expected count (the sum of their probabilities over the book's paragraph starts).

    nice python research/chapters_pool_screen.py [--data ../shared/corpora] [--cache DIR] [--jobs 2]
"""
from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from chapters_screen import DEFAULT_DATA
from sklearn.ensemble import HistGradientBoostingClassifier

from segviz import SegmentCountRule
from segviz.evaluation import macro_average
from segviz.features import FeatureContext
from segviz.features.paragraph_measures import paragraph_measurements, paragraph_start_gaps
from segviz.metrics import score_row
from segviz.protocols import CHAPTER_BOOKS, read_books
from segviz.segmentation import boundaries_to_masses, masses_to_indicator


def cached_book(args) -> dict:
    """One book's paragraph-start rows, read once and cached as ``.npz``: ``args`` is (corpora, book name, cache
    directory)."""
    data, name, cache = args
    path = Path(cache) / (name.replace("/", "__") + ".npz")
    if not path.exists():
        corpus = read_books(data, [name], name)
        context = FeatureContext.from_corpus(corpus)
        at = paragraph_start_gaps(context)
        gaps = np.flatnonzero(at)
        y = masses_to_indicator(corpus.masses())[gaps]
        words = sum(len(s) for d in corpus.documents for s in d.sentences)
        np.savez(path, X=paragraph_measurements(context)[gaps], gaps=gaps, y=y, n=context.n_sentences,
                 masses=np.array(corpus.masses()), words=words)
    z = np.load(path)
    return {"name": name, "X": z["X"], "gaps": z["gaps"], "y": z["y"], "n": int(z["n"]),
            "masses": [int(m) for m in z["masses"]], "words": int(z["words"])}


def count_rule_boundaries(book: dict, p: np.ndarray, segments: int) -> np.ndarray:
    """The boundaries (segment-start sentences) the segment-count rule places in a book (``segments`` segments)
    over the trees' probabilities ``p`` at its paragraph starts (every other gap all but never)."""
    q = np.full(book["n"] - 1, 1e-9)
    q[book["gaps"]] = p
    return np.asarray(SegmentCountRule(segments=segments).decide(q))


def held_out_row(book: dict, p: np.ndarray, segments: int) -> dict:
    """One held-out book decided by :func:`count_rule_boundaries`, scored against its chapters."""
    return score_row(book["masses"], boundaries_to_masses(count_rule_boundaries(book, p, segments), book["n"]))


def count_rule_rows(held: list[dict], probabilities, count: str, words_per_chapter: float) -> list[dict]:
    """Each held-out book decided by the segment-count rule over ``probabilities(book)`` with the count told
    (``"true"``, an oracle), estimated from its length in words (``"words"``) or the trees' own expected count
    (``"sum_p"``: the sum of their probabilities over the book's paragraph starts)."""
    rows = []
    for book in held:
        p = probabilities(book)
        k = {"true": len(book["masses"]), "words": max(1, round(book["words"] / words_per_chapter)),
             "sum_p": max(1, round(float(p.sum())))}[count]
        rows.append(held_out_row(book, p, k))
    return rows


def summarise(key: str, held: list[dict], rows: list[dict], out: dict) -> None:
    """The mean over the held-out books' ``rows`` under ``key`` in ``out``, printed as one line."""
    mean = macro_average(rows)
    out[key] = {"p_k": mean["p_k"], "p_mu": mean["p_mu"], "f1": mean.get("f1"),
                "per_book_p_k": {b["name"]: r["p_k"] for b, r in zip(held, rows)}}
    print(f"{key:40s} P_k {mean['p_k']:.3f}  P_mu {mean['p_mu']:.3f}  F1 {mean.get('f1', float('nan')):.3f}",
          flush=True)


def screen_parser(doc: str) -> argparse.ArgumentParser:
    """The arguments every chapters screen takes: the corpora, the cache of read books, the processes reading them
    and where the record goes."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--cache", default="/tmp/screen_cache")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=None)
    return ap


def screen_books(args: argparse.Namespace) -> tuple[list[dict], list[dict]]:
    """The training and held-out books of the chapters protocol as :func:`cached_book` rows (read by
    ``args.jobs`` processes, cached under ``args.cache``)."""
    Path(args.cache).mkdir(parents=True, exist_ok=True)
    names = {role: CHAPTER_BOOKS[role] for role in ("train", "heldout")}
    with ProcessPoolExecutor(args.jobs) as pool:
        books = {role: list(pool.map(cached_book, [(args.data, n, args.cache) for n in ns]))
                 for role, ns in names.items()}
    return books["train"], books["heldout"]


def main(argv=None) -> int:
    args = screen_parser(__doc__).parse_args(argv)
    train, held = screen_books(args)
    words_per_chapter = sum(b["words"] for b in train) / sum(len(b["masses"]) for b in train)
    X = np.vstack([b["X"] for b in train])
    y = np.concatenate([b["y"] for b in train])
    print(f"{len(train)} training books, {X.shape[0]} paragraph starts, {int(y.sum())} chapter starts; "
          f"{words_per_chapter:.0f} words a chapter", flush=True)
    out = {}
    for leaves, iters in ((15, 200), (31, 400)):
        model = HistGradientBoostingClassifier(max_iter=iters, learning_rate=0.05, max_leaf_nodes=leaves,
                                               l2_regularization=1.0, random_state=0).fit(X, y)
        for count in ("true", "words", "sum_p"):
            rows = count_rule_rows(held, lambda b: model.predict_proba(b["X"])[:, 1], count, words_per_chapter)
            summarise(f"leaves {leaves}, {iters} trees, count {count}", held, rows, out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
