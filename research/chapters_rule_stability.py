"""How stable is the chapters expert's rule choice, and which way of choosing it holds up on a book it did not see?
Held-out books only (the test books are never read).

The expert's gap probabilities on each of the 21 held-out books are computed once (as the product reads a book);
every point of its rule grid (the length prior in words: shape x bias) decides every book, and P_k and P_mu are
kept per book and grid point.  Each way of choosing is then scored **leave one book out**: the grid point chosen on
20 books decides the 21st.  Ways: the best mean P_mu (the shipped criterion), the best mean P_k, the best
P_mu - P_k, and each of them on the grid's *plateau* (a point's score averaged with its neighbours' in bias and
shape, so a lone peak between worse points is not chosen).

    nice python research/chapters_rule_stability.py --model OUT/chapters-model.segviz [--json out.json]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.ndimage import uniform_filter

from segviz import load_model
from segviz.metrics import score_row
from segviz.protocols import CHAPTER_BOOKS, read_books
from segviz.rules import document_sizes

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def grid_scores(expert, data: str):
    rule = expert.rule_
    shapes, biases = list(rule.shapes), list(rule.biases)
    books = read_books(data, CHAPTER_BOOKS["heldout"], "heldout").by_file()
    p_k = np.zeros((len(books), len(shapes), len(biases)))
    p_mu = np.zeros_like(p_k)
    params = rule.get_params(deep=False)
    for b, book in enumerate(books):
        probs = np.asarray(expert.boundary_probabilities(book), dtype=np.float64)
        sizes = document_sizes(book.sentences())
        ref = tuple(int(m) for m in book.masses())
        for i, shape in enumerate(shapes):
            for j, bias in enumerate(biases):
                choice = type(rule)(**{**params, "shape": shape, "bias": bias})
                hyp = choice.decide(probs, sizes)
                masses = np.diff(np.concatenate([[0], np.asarray(hyp, dtype=int), [len(probs) + 1]]))
                row = score_row(ref, tuple(int(m) for m in masses))
                p_k[b, i, j], p_mu[b, i, j] = row["p_k"], row["p_mu"]
        print(f"  {Path(book.files[0]).stem}", flush=True)
    return shapes, biases, p_k, p_mu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--model", required=True)
    ap.add_argument("--expert", default="chapters")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    model = load_model(args.model)
    expert = model.segmenters().get(args.expert, model)
    shapes, biases, p_k, p_mu = grid_scores(expert, args.data)
    criteria = {"p_mu": p_mu, "p_k": -p_k, "p_mu-p_k": p_mu - p_k}
    out = {"shapes": shapes, "biases": biases, "ways": {}}
    n = p_k.shape[0]
    for name, gain in criteria.items():
        for plateau in (False, True):
            chosen, cv_k, cv_mu = [], [], []
            for b in range(n):
                surface = np.delete(gain, b, axis=0).mean(axis=0)
                if plateau:
                    surface = uniform_filter(surface, size=3, mode="nearest")
                i, j = np.unravel_index(int(np.argmax(surface)), surface.shape)
                chosen.append((shapes[i], biases[j]))
                cv_k.append(p_k[b, i, j])
                cv_mu.append(p_mu[b, i, j])
            surface = gain.mean(axis=0)
            if plateau:
                surface = uniform_filter(surface, size=3, mode="nearest")
            i, j = np.unravel_index(int(np.argmax(surface)), surface.shape)
            key = f"{name}{' plateau' if plateau else ''}"
            out["ways"][key] = {"all_books_choice": [shapes[i], biases[j]],
                                "leave_one_out_p_k": float(np.mean(cv_k)), "leave_one_out_p_mu": float(np.mean(cv_mu)),
                                "distinct_choices": len(set(chosen))}
            print(f"{key:18s} all books: shape {shapes[i]:g} bias {biases[j]:+g}   leave one book out: "
                  f"P_k {np.mean(cv_k):.3f} P_mu {np.mean(cv_mu):.3f}  ({len(set(chosen))} distinct choices)",
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
