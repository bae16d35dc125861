"""Which tuning criterion for the chapters expert's decision rule: each candidate chosen on the held-out books only,
then scored on the held-out and the test books, book by book, beside none and even.

    nice python research/chapters_rule_criteria.py [--model M] [--cache probs.npz] [--json out.json]

The expert's gap probabilities are computed once per book, read alone as the product reads it (cached in
``--cache``); each criterion tunes the expert's own rule grid (the length prior in words) per book on the 21
held-out books, for P_mu (the shipped choice), P_k or P_mu - P_k, and, with ``scale``, the prior's mean taken per
book from the model's own expected count.  The choice is made on the held-out rows; the test rows are reported,
never used to choose.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from segviz import load_model
from segviz.baselines import even_masses, none_masses
from segviz.metrics import score_row
from segviz.protocols import CHAPTER_BOOKS, read_books
from segviz.rules import document_sizes
from segviz.tuning import TUNING_METRICS

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
PORTIONS = ("heldout", "test", "test_more")
SCALES = (0.25, 0.35, 0.5, 0.7, 1.0, 1.4, 2.0, 2.8, 4.0)


def book_probabilities(expert, data: str, cache: Path | None) -> dict[str, dict]:
    """Per portion, per book: its gap probabilities, reference masses and sentence sizes."""
    stored = dict(np.load(cache, allow_pickle=False)) if cache is not None and cache.is_file() else {}
    out: dict[str, dict] = {}
    for portion in PORTIONS:
        books = read_books(data, CHAPTER_BOOKS[portion], portion).by_file()
        out[portion] = {}
        for book in books:
            name = Path(book.files[0]).stem
            key = f"{portion}/{name}"
            if key not in stored:
                stored[key] = np.asarray(expert.boundary_probabilities(book), dtype=np.float64)
                print(f"  {key}: {stored[key].size + 1} sentences", flush=True)
            out[portion][name] = {"probs": stored[key], "ref": tuple(int(m) for m in book.masses()),
                                  "sizes": document_sizes(book.sentences())}
    if cache is not None:
        np.savez(cache, **stored)
    return out


def candidates(rule) -> dict[str, object]:
    params = rule.get_params(deep=False)
    scaled = type(rule)(**{**params, "scale": 1.0, "scales": SCALES})
    return {"mean": rule, "scale": scaled}


def tuned(rule, books: dict[str, dict], metric: str, mu: float):
    names = list(books)
    probs = np.concatenate([np.concatenate([books[n]["probs"], [1.0]]) for n in names])[:-1]
    ref = [m for n in names for m in books[n]["ref"]]
    groups = [len(books[n]["probs"]) + 1 for n in names]
    sizes = np.concatenate([books[n]["sizes"] for n in names])
    return rule.tune(probs, ref, groups=groups, metric=metric, units="per-document", mu=mu, sizes=sizes)


def scored(rule, books: dict[str, dict]) -> dict[str, dict]:
    rows = {}
    for name, book in books.items():
        hyp = rule.decide(book["probs"], book["sizes"])
        masses = np.diff(np.concatenate([[0], np.asarray(hyp, dtype=int), [len(book["probs"]) + 1]]))
        ref = book["ref"]
        rows[name] = {"model": score_row(ref, tuple(int(m) for m in masses)), "none": score_row(ref, none_masses(ref)),
                      "even": score_row(ref, even_masses(ref))}
    return rows


def summary(rows: dict[str, dict]) -> dict:
    def mean(who, key):
        return float(np.mean([r[who][key] for r in rows.values()]))

    wins = sum(1 for r in rows.values()
               if r["model"]["p_k"] < min(r["none"]["p_k"], r["even"]["p_k"])
               and r["model"]["p_mu"] > max(r["none"]["p_mu"], r["even"]["p_mu"]))
    return {"p_k": mean("model", "p_k"), "p_mu": mean("model", "p_mu"), "books_beating_none_and_even": wins,
            "books": len(rows), "none_p_k": mean("none", "p_k"), "even_p_mu": mean("even", "p_mu")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--model", default=None, help="a model file (default: the bundled model's chapters expert)")
    ap.add_argument("--expert", default="chapters")
    ap.add_argument("--cache", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    model = load_model(args.model)
    expert = model.segmenters()[args.expert] if args.expert in model.segmenters() else model
    books = book_probabilities(expert, args.data, Path(args.cache) if args.cache else None)
    results = {}
    for kind, rule in candidates(expert.rule_).items():
        for metric in TUNING_METRICS:
            choice, score = tuned(rule, books["heldout"], metric, expert.mu_)
            row = {"rule": choice.describe(), "heldout_tuning_score": float(score)}
            for portion in PORTIONS:
                row[portion] = summary(scored(choice, books[portion]))
            results[f"{kind} / {metric}"] = row
            print(f"{kind:5s} {metric:8s} {choice.describe()}")
            for portion in PORTIONS:
                s = row[portion]
                print(f"    {portion:9s} P_k {s['p_k']:.3f} P_mu {s['p_mu']:.3f}  beats none and even on "
                      f"{s['books_beating_none_and_even']}/{s['books']} books", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
