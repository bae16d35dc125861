"""Can a book's chapter length be told from the book before it is segmented?  A screen on the ``chapters``
protocol's training and held-out books only (the test books are never read).

Told its true count, the trees' placing of the held-out books is about a point of P_k better than with a count
from the book's length in words (the training books' mean words per chapter), and on the test books the default
model's count is off by a factor of two on some books (docs/reproduction.md, "Chapters").  So: does anything a
book shows as a whole predict how long its chapters are?  Per book, from the training books:

* the target, the logarithm of the book's mean chapter length in words;
* the book's statistics: the logarithm of its length in words and of its paragraph starts per 10,000 words; the
  trees' expected count (the sum of their probabilities over its paragraph starts, cross-fitted on the training
  books: each book scored by trees fitted on the other folds) and how many paragraph starts score above 0.1, 0.3,
  0.5 and 0.7, each per 10,000 words, as logarithms; its mean share of quoting sentences per paragraph and the
  logarithm of its mean paragraph length in words;
* ridge regressions (the penalty chosen by leave-one-out on the training books) on the length alone and on every
  statistic, against the constant (the training mean).

Each held-out book is decided by a segment-count rule over the trees' probabilities with the count each estimate
gives (and with its true count, the ceiling), and the logarithmic error of each estimate is reported.  With
``--book-z`` the trees also read every measurement as a z-score within its book (a book's own scale of paragraph
lengths, quoting and cosines), told the count and from the length.

With ``--map`` each held-out book's chapter length is instead chosen by the length-prior rule itself
(:mod:`segviz.length_prior`, lengths in sentences): for each mean m on a grid of 0.3 to 3.3 times the training
mean m0, the rule's best segmentation and its objective (the boundaries' log-odds plus the bias, plus the log prior
of its segments' lengths), less a log-normal penalty ``lam * (log m/m0)^2 / (2 sd^2)`` (sd the training books'
spread of the log mean length); the book takes the m that scores highest.  ``lam`` from 0 (m free) to 10, against m0
for every book; the bias and the prior's shape tuned leaving one held-out book out (chosen on the other 20, scored
on it), for P_mu as the product tunes and for P_k.

    nice python research/chapters_count_screen.py [--data ../shared/corpora] [--cache DIR] [--jobs 2] [--book-z]
        [--map] [--json OUT]
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from chapters_pool_screen import held_out_row, screen_books, screen_parser, summarise
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import RidgeCV

from segviz.features.paragraph_measures import MEASUREMENTS
from segviz.length_prior import decode_length_prior, length_prior_gains, log_length_prior
from segviz.metrics import score_row
from segviz.segmentation import boundaries_to_masses

FOLDS = 5
THRESHOLDS = (0.1, 0.3, 0.5, 0.7)
#: the length-prior rule's grid in the ``--map`` screen: means (times the training mean), biases, shapes, penalties
MEAN_FACTORS = np.exp(np.linspace(-1.2, 1.2, 13))
BIASES = tuple(float(b) for b in range(-2, 14))
SHAPES = (2.0, 4.0, 8.0)
PENALTIES = (0.0, 0.1, 0.3, 1.0, 3.0, 10.0)
STATISTICS = ("log words", "log paragraph starts per 10k words", "log expected count per 10k words",
              *(f"log starts scoring above {t} per 10k words" for t in THRESHOLDS),
              "quoting share", "log mean paragraph words")


def trees() -> HistGradientBoostingClassifier:
    """The trees of the product's paragraph score (segviz.gap_scorer's defaults), without the cue column."""
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                          l2_regularization=1.0, random_state=0)


def _fit(books: list[dict], columns) -> HistGradientBoostingClassifier:
    return trees().fit(np.vstack([columns(b) for b in books]), np.concatenate([b["y"] for b in books]))


def score_books(train: list[dict], held: list[dict], columns) -> None:
    """Adds ``p`` (the trees' probability at each paragraph start) to every book: cross-fitted by book over FOLDS
    folds on the training books, from trees fitted on every training book for the held-out ones."""
    fold = np.arange(len(train)) % FOLDS
    np.random.default_rng(0).shuffle(fold)
    for f in range(FOLDS):
        model = _fit([b for b, g in zip(train, fold) if g != f], columns)
        for book, g in zip(train, fold):
            if g == f:
                book["p"] = model.predict_proba(columns(book))[:, 1]
    model = _fit(train, columns)
    for book in held:
        book["p"] = model.predict_proba(columns(book))[:, 1]


def scored_books(args) -> tuple[list[dict], list[dict], float]:
    """The training and held-out books (:func:`chapters_pool_screen.screen_books`) with the first trees' scores
    ``p`` (:func:`score_books`), and the training books' mean words per chapter."""
    train, held = screen_books(args)
    words_per_chapter = sum(b["words"] for b in train) / sum(len(b["masses"]) for b in train)
    print(f"{len(train)} training books, {len(held)} held-out books", flush=True)
    score_books(train, held, lambda b: b["X"])
    return train, held, words_per_chapter


def log_odds(p: np.ndarray) -> np.ndarray:
    """The logit of probabilities ``p`` (clipped to 1e-6 .. 1 - 1e-6)."""
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def book_statistics(book: dict) -> list[float]:
    """The book-level statistics of STATISTICS, in order."""
    words, p = book["words"], book["p"]
    per_10k = 1e4 / words
    quoting = MEASUREMENTS.index("quoting_after")
    paragraph_words = MEASUREMENTS.index("words_after")
    return [np.log(words), np.log(p.size * per_10k), np.log(p.sum() * per_10k + 1e-3),
            *(np.log((p > t).sum() * per_10k + 0.1) for t in THRESHOLDS),
            float(np.nanmean(book["X"][:, quoting])), float(np.log(np.nanmean(book["X"][:, paragraph_words]) + 1))]


def _book_z(X: np.ndarray) -> np.ndarray:
    """Every column as a z-score within the book (NaN stays NaN; a constant column becomes 0)."""
    mean, sd = np.nanmean(X, axis=0), np.nanstd(X, axis=0)
    sd[~(sd > 0)] = 1.0
    return (X - mean) / sd


def count_rows(train: list[dict], held: list[dict], out: dict) -> None:
    """The count estimates on the held-out books: their logarithmic errors and the segment-count rule's scores."""
    stats_train = np.array([book_statistics(b) for b in train])
    stats_held = np.array([book_statistics(b) for b in held])
    target_train = np.log([b["words"] / len(b["masses"]) for b in train])
    target_held = np.log([b["words"] / len(b["masses"]) for b in held])
    constant = float(np.log(sum(b["words"] for b in train) / sum(len(b["masses"]) for b in train)))
    estimates = {"constant (training mean)": np.full(len(held), constant)}
    alphas = np.logspace(-3, 4, 15)
    for label, cols in (("ridge on the length", [0]), ("ridge on every statistic", list(range(len(STATISTICS))))):
        ridge = RidgeCV(alphas=alphas).fit(stats_train[:, cols], target_train)
        estimates[label] = ridge.predict(stats_held[:, cols])
        out.setdefault("ridge", {})[label] = {"alpha": float(ridge.alpha_),
                                               "coefficients": dict(zip([STATISTICS[c] for c in cols],
                                                                        map(float, ridge.coef_)))}
    estimates["the trees' expected count"] = np.log([b["words"] / max(1.0, float(b["p"].sum())) for b in held])
    out["training_sd_of_log_length"] = float(np.std(target_train))
    print(f"training books: sd of the log mean chapter length {np.std(target_train):.3f}", flush=True)
    out["log_error"] = {}
    for label, estimate in estimates.items():
        rmse = float(np.sqrt(np.mean((estimate - target_held) ** 2)))
        out["log_error"][label] = rmse
        print(f"{label:40s} held-out RMS error of the log length {rmse:.3f}", flush=True)
    counts = {"true count": [len(b["masses"]) for b in held]}
    counts.update({label: [max(1, round(b["words"] / np.exp(e))) for b, e in zip(held, est)]
                   for label, est in estimates.items()})
    out["counts"] = {label: dict(zip([b["name"] for b in held], ks)) for label, ks in counts.items()}
    for label, ks in counts.items():
        summarise(label, held, [held_out_row(b, b["p"], k) for b, k in zip(held, ks)], out)


def _map_grid(book: dict, mean: float) -> dict:
    """(bias, shape, mean factor index) -> (objective, P_k, P_mu) of the length-prior rule on one book."""
    q = np.full(book["n"] - 1, 1e-9)
    q[book["gaps"]] = book["p"]
    gains = length_prior_gains(q)
    grid = {}
    for bias in BIASES:
        for shape in SHAPES:
            for i, factor in enumerate(MEAN_FACTORS):
                m = mean * factor
                cuts = decode_length_prior(q, mean_length=m, shape=shape, bias=bias)
                masses = boundaries_to_masses(cuts, book["n"])
                objective = float(np.sum(gains[cuts - 1] + bias)) + float(np.sum(log_length_prior(masses, m, shape)))
                row = score_row(book["masses"], masses)
                grid[bias, shape, i] = (objective, row["p_k"], row["p_mu"])
    return grid


def _leave_one_out(table: dict, books: int, criterion: str) -> tuple[float, float]:
    """Mean (P_k, P_mu) over the books, each scored at the (bias, shape) best for ``criterion`` on the others."""
    column, sign = {"p_mu": (2, 1.0), "p_k": (1, -1.0)}[criterion]
    scored = []
    for i in range(books):
        best = max(table, key=lambda key: sign * np.mean([table[key][j][column] for j in range(books) if j != i]))
        scored.append(table[best][i])
    return float(np.mean([s[1] for s in scored])), float(np.mean([s[2] for s in scored]))


def map_rows(train: list[dict], held: list[dict], out: dict) -> None:
    """Each held-out book's mean chapter length chosen by the length-prior rule's own objective (see --map)."""
    mean = sum(b["n"] for b in train) / sum(len(b["masses"]) for b in train)
    sd = float(np.std(np.log([b["n"] / len(b["masses"]) for b in train])))
    grids = [_map_grid(b, mean) for b in held]
    middle = len(MEAN_FACTORS) // 2
    for penalty in (None, *PENALTIES):
        table = {}
        for bias in BIASES:
            for shape in SHAPES:
                picks = []
                for grid in grids:
                    if penalty is None:
                        picks.append(grid[bias, shape, middle])
                        continue
                    i = max(range(len(MEAN_FACTORS)), key=lambda i: grid[bias, shape, i][0]
                            - penalty * np.log(MEAN_FACTORS[i]) ** 2 / (2 * sd**2))
                    picks.append(grid[bias, shape, i])
                table[bias, shape] = picks
        label = "training mean for every book" if penalty is None else f"mean chosen per book, penalty {penalty:g}"
        for criterion in ("p_mu", "p_k"):
            p_k, p_mu = _leave_one_out(table, len(held), criterion)
            out[f"{label}, tuned for {criterion}"] = {"p_k": p_k, "p_mu": p_mu}
            print(f"{label:42s} tuned for {criterion:4s}  P_k {p_k:.3f}  P_mu {p_mu:.3f}", flush=True)


def main(argv=None) -> int:
    ap = screen_parser(__doc__)
    ap.add_argument("--book-z", action="store_true",
                    help="also score trees that read every measurement as a z-score within its book")
    ap.add_argument("--map", action="store_true",
                    help="also choose each book's chapter length by the length-prior rule's own objective")
    args = ap.parse_args(argv)
    train, held, _ = scored_books(args)
    out: dict = {"measurements": {}}
    count_rows(train, held, out["measurements"])
    if args.map:
        out["length-prior rule choosing each book's mean"] = section = {}
        map_rows(train, held, section)
    if args.book_z:
        out["measurements and their z-scores within the book"] = section = {}
        score_books(train, held, lambda b: np.c_[b["X"], _book_z(b["X"])])
        words_per_chapter = sum(b["words"] for b in train) / sum(len(b["masses"]) for b in train)
        for label, ks in (("true count", [len(b["masses"]) for b in held]),
                          ("constant (training mean)", [max(1, round(b["words"] / words_per_chapter))
                                                        for b in held])):
            summarise(f"book z-scores, {label}", held, [held_out_row(b, b["p"], k) for b, k in zip(held, ks)],
                      section)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
