"""Each test book as a user scores it: a model on one book at a time (as ``segviz compare BOOK.txt`` does), its own
rule and told the book's true number of chapters (``--segments N``), beside none, even and even-words.

    nice python research/chapters_books_as_users.py [--model M] [--portions test test_more] [--json out.json]

``--model`` defaults to the bundled default model (each book routed to the expert it chooses).  The rows say, per
portion, how often telling the count helps; nothing here chooses anything (the test books are scored after every
choice was made on held-out books).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from segviz import SegmentCountRule, load_model
from segviz.baselines import even_masses, even_words_masses, none_masses
from segviz.evaluation import macro_average
from segviz.metrics import score_row
from segviz.protocols import CHAPTER_BOOKS, read_books
from segviz.rules import document_sizes

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--model", default=None)
    ap.add_argument("--portions", nargs="+", default=["test", "test_more"])
    ap.add_argument("--words-per-chapter", type=float, default=None,
                    help="even-words' segment length (default: the training books' mean chapter length in words)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    model = load_model(args.model)
    words_per_chapter = args.words_per_chapter
    if words_per_chapter is None:
        train = read_books(args.data, CHAPTER_BOOKS["train"], "train")
        words_per_chapter = float(document_sizes(train.sentences()).sum()) / len(train.documents)
    out = {"model": args.model or "bundled default", "even_words_per_segment": words_per_chapter, "portions": {}}
    for portion in args.portions:
        books = read_books(args.data, CHAPTER_BOOKS[portion], portion).by_file()
        rows = {}
        for book in books:
            ref = book.masses()
            told = model.with_rule(SegmentCountRule(segments=len(ref)))
            sizes = document_sizes(book.sentences())
            rows[Path(book.files[0]).stem] = {
                "chapters": len(ref),
                "model": score_row(ref, model.predict(book)[0]),
                "model_segments": len(model.predict(book)[0]),
                "told_count": score_row(ref, told.predict(book)[0]),
                "none": score_row(ref, none_masses(ref)),
                "even": score_row(ref, even_masses(ref)),
                "even-words": score_row(ref, even_words_masses(sizes, words_per_chapter)),
            }
            r = rows[Path(book.files[0]).stem]
            print(f"{portion:9s} {Path(book.files[0]).stem[:34]:34s} ch {len(ref):4d} found {r['model_segments']:4d}  "
                  + "  ".join(f"{k} {r[k]['p_k']:.3f}/{r[k]['p_mu']:.3f}"
                              for k in ("model", "told_count", "none", "even", "even-words")), flush=True)
        means = {k: macro_average([r[k] for r in rows.values()]) for k in
                 ("model", "told_count", "none", "even", "even-words")}
        wins = {k: sum(r["model"]["p_k"] < r[k]["p_k"] and r["model"]["p_mu"] > r[k]["p_mu"] for r in rows.values())
                for k in ("none", "even", "even-words")}
        helped = sum(r["told_count"]["p_k"] < r["model"]["p_k"] for r in rows.values())
        out["portions"][portion] = {"books": rows, "mean": means, "model_beats_on_both": wins,
                                    "told_count_lowers_p_k": helped}
        print(f"{portion}: mean " + "  ".join(f"{k} P_k {v['p_k']:.3f} P_mu {v['p_mu']:.3f}" for k, v in means.items()))
        print(f"{portion}: the model beats on P_k and P_mu, books of {len(rows)}: {wins}; telling the count lowers "
              f"P_k on {helped}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
