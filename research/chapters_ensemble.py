"""Would two runs of the chapters recipe, averaged, place chapters better than either?  Held-out books only (the
test books are never read).

Runs of `reproduce chapters` on the same books move the test books by several points (docs/reproduction.md,
"Chapters"): the held-out stop falls anywhere on a flat plateau and the rule's grid is flat where its choices
fall.  Averaging two runs' gap log-odds is the usual cure for such spread.  Each expert's gap probabilities on each
of the 21 held-out books are computed once (as the product reads a book, one at a time); the ensemble's are the
logistic of the mean of the two log-odds, or the mean of the two probabilities.  For each of the three, every point of a grid of the length-prior rule in
words (shape x bias; the expert's own rule otherwise) decides every book, and each book is scored by the point
chosen on the other 20 for the mean P_mu (the shipped criterion), leave one book out.

    nice python research/chapters_ensemble.py --model A=resources/default_model.segviz \\
        --model B=OUT/chapters-model.segviz [--json out.json]

(``A``'s ``chapters`` expert is taken when the file is the default model.)
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from segviz import load_model
from segviz.metrics import score_row
from segviz.protocols import CHAPTER_BOOKS, read_books
from segviz.rules import document_sizes

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
SHAPES = (2.0, 4.0, 8.0, 16.0)
BIASES = tuple(np.arange(6.0, 13.01, 0.5))


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return np.log(p) - np.log1p(-p)


def grid(rule, probs: np.ndarray, sizes, ref: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """P_k and P_mu of one book at every (shape, bias) of the grid."""
    params = rule.get_params(deep=False)
    p_k = np.zeros((len(SHAPES), len(BIASES)))
    p_mu = np.zeros_like(p_k)
    for i, shape in enumerate(SHAPES):
        for j, bias in enumerate(BIASES):
            hyp = type(rule)(**{**params, "shape": shape, "bias": float(bias)}).decide(probs, sizes)
            masses = np.diff(np.concatenate([[0], np.asarray(hyp, dtype=int), [len(probs) + 1]]))
            row = score_row(ref, tuple(int(m) for m in masses))
            p_k[i, j], p_mu[i, j] = row["p_k"], row["p_mu"]
    return p_k, p_mu


def leave_one_out(p_k: np.ndarray, p_mu: np.ndarray) -> dict:
    """Each book decided by the grid point with the best mean P_mu over the other books."""
    n = p_k.shape[0]
    chosen_k, chosen_mu, points = [], [], []
    for b in range(n):
        others = np.delete(p_mu, b, axis=0).mean(axis=0)
        i, j = np.unravel_index(int(np.argmax(others)), others.shape)
        chosen_k.append(p_k[b, i, j])
        chosen_mu.append(p_mu[b, i, j])
        points.append((SHAPES[i], float(BIASES[j])))
    return {"p_k": float(np.mean(chosen_k)), "p_mu": float(np.mean(chosen_mu)),
            "books_p_k": [float(x) for x in chosen_k], "points": points}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--model", action="append", required=True, help="NAME=MODEL, twice")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    experts = {}
    for spec in args.model:
        name, path = spec.split("=", 1)
        model = load_model(path)
        experts[name] = model.segmenters().get("chapters", model)
    if len(experts) != 2:
        raise SystemExit("give --model twice")
    (a, ea), (b, eb) = experts.items()
    books = read_books(args.data, CHAPTER_BOOKS["heldout"], "heldout").by_file()
    variants = {a: ea.rule_, b: eb.rule_, f"mean log-odds of {a} and {b}": ea.rule_,
                f"mean probability of {a} and {b}": ea.rule_}
    p_k = {name: [] for name in variants}
    p_mu = {name: [] for name in variants}
    names = []
    for book in books:
        sizes = document_sizes(book.sentences())
        ref = tuple(int(m) for m in book.masses())
        pa = np.asarray(ea.boundary_probabilities(book), dtype=np.float64)
        pb = np.asarray(eb.boundary_probabilities(book), dtype=np.float64)
        pe = 1.0 / (1.0 + np.exp(-(_logit(pa) + _logit(pb)) / 2))
        for name, probs in zip(variants, (pa, pb, pe, (pa + pb) / 2)):
            k, mu = grid(variants[name], probs, sizes, ref)
            p_k[name].append(k)
            p_mu[name].append(mu)
        names.append(Path(book.files[0]).stem)
        print(f"  {names[-1]}", flush=True)
    out = {"models": args.model, "books": names, "shapes": list(SHAPES), "biases": [float(x) for x in BIASES],
           "variants": {}}
    for name in variants:
        result = leave_one_out(np.array(p_k[name]), np.array(p_mu[name]))
        out["variants"][name] = result
        print(f"{name:>40s}  leave-one-book-out P_k {100 * result['p_k']:.1f} %  P_mu {100 * result['p_mu']:.1f} %")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
