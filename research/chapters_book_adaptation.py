"""Does a book tell its own chapters apart -- by the rhythm of its strong starts, or by what its own likeliest
starts share?  A screen on the ``chapters`` protocol's training and held-out books only (the test books are never
read).

Chapters within one book are fairly regular (the spread of chapter lengths within a book, as a coefficient of
variation, has a median of 0.38 over the 148 books), while books differ a lot (the standard deviation of the log
mean chapter length between books is 0.41), and the model's count is where it loses most on some test books.  The
first trees (the product's paragraph score without its cue column, :func:`chapters_count_screen.score_books`:
cross-fitted on the training books, fitted on all of them for the held-out ones) score every paragraph start; then:

* **rhythm** -- each book's scores laid along its words (50-word bins), their autocorrelation (smoothed over five
  lags), and the lag between 600 and 20,000 words (at most half the book) where it peaks, as the book's chapter
  length; its log error against the true mean chapter length in words, beside the training books' mean's, and the
  correlation of the two logarithms, over the training and held-out books (for the score, its square, and the
  starts scoring above 0.3);
* **self-training** -- per held-out book, its K likeliest starts (K the count from its length in words, or half
  that) taken as positives and the rest as negatives, a logistic regression on the book's measurements as z-scores
  within the book, its standardised score added (weight 0.5 or 1) to the trees' log-odds; each held-out book decided
  by a segment-count rule told its true count and with the count from its length;
* **ceiling of the book's own evidence** -- the same regression (with the trees' log-odds as one more column) fitted
  on the true chapter starts of the first half of a held-out book and scored on the second, and the other way
  round: the AUC of a book-specific ranking that knows half the book's answers, against the trees' AUC on the same
  halves.

    nice python research/chapters_book_adaptation.py [--data ../shared/corpora] [--cache DIR] [--jobs 2] [--json OUT]
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from chapters_count_screen import log_odds, scored_books
from chapters_pool_screen import count_rule_rows, screen_parser, summarise
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from segviz.features.paragraph_measures import MEASUREMENTS

BIN_WORDS = 50
LAG_WORDS = (600, 20000)
SIGNALS = {"score": lambda p: p, "score squared": lambda p: p ** 2, "starts above 0.3": lambda p: (p > 0.3) * 1.0}
SELF_TRAINING = ((1.0, 0.5), (1.0, 1.0), (0.5, 0.5), (0.5, 1.0))   # (share of the length's count, weight)


def start_positions(book: dict) -> np.ndarray:
    """Each paragraph start's position in words from the book's first paragraph start."""
    words = np.nan_to_num(book["X"][:, MEASUREMENTS.index("words_after")], nan=0.0)
    return np.concatenate([[0.0], np.cumsum(words)[:-1]])


def rhythm_length(book: dict, signal) -> float:
    """The lag in words where the autocorrelation of ``signal(p)`` along the book peaks (NaN if the book is too
    short for the lag range)."""
    position = start_positions(book)
    bins = int(position.max() // BIN_WORDS) + 2
    series = np.zeros(bins)
    np.add.at(series, (position // BIN_WORDS).astype(int), signal(book["p"]))
    series -= series.mean()
    spectrum = np.fft.rfft(series, 2 * bins)
    acf = np.fft.irfft(spectrum * np.conj(spectrum))[:bins]
    acf = np.convolve(acf / max(acf[0], 1e-12), np.ones(5) / 5, "same")
    lags = np.arange(bins) * BIN_WORDS
    usable = (lags >= LAG_WORDS[0]) & (lags <= min(LAG_WORDS[1], position.max() / 2))
    if not usable.any():
        return float("nan")
    return float(lags[np.flatnonzero(usable)[np.argmax(acf[usable])]])


def within_book_z(X: np.ndarray) -> np.ndarray:
    X = np.nan_to_num(X, nan=0.0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - X.mean(axis=0)) / sd


def self_trained(book: dict, words_per_chapter: float, share: float, weight: float) -> np.ndarray:
    """The trees' probabilities moved by a regression fitted on the book's own likeliest starts."""
    p = book["p"]
    positives = np.zeros(p.size)
    positives[np.argsort(-p)[:max(2, int(share * book["words"] / words_per_chapter))]] = 1
    X = within_book_z(book["X"])
    own = LogisticRegression(C=0.1, max_iter=1000, class_weight="balanced").fit(X, positives).decision_function(X)
    return 1 / (1 + np.exp(-(log_odds(p) + weight * (own - own.mean()) / own.std())))


def half_book_aucs(book: dict) -> list[tuple[float, float]]:
    """(trees' AUC, book-specific AUC) on each half of the book, the regression fitted on the other half."""
    X = np.c_[within_book_z(book["X"]), log_odds(book["p"])]
    y = book["y"].astype(int)
    first = np.arange(y.size) < y.size // 2
    pairs = []
    for fit, score in ((first, ~first), (~first, first)):
        if y[fit].sum() < 2 or y[score].sum() < 2:
            continue
        own = LogisticRegression(C=0.1, max_iter=1000).fit(X[fit], y[fit])
        pairs.append((roc_auc_score(y[score], book["p"][score]), roc_auc_score(y[score], own.decision_function(X[score]))))
    return pairs


def main(argv=None) -> int:
    args = screen_parser(__doc__).parse_args(argv)
    train, held, words_per_chapter = scored_books(args)
    out: dict = {"rhythm": {}}
    truth = np.array([np.log(b["words"] / len(b["masses"])) for b in train + held])
    lengths = [np.array(b["masses"][1:-1] if len(b["masses"]) > 3 else b["masses"], dtype=float) for b in train + held]
    spread = [float(m.std() / m.mean()) for m in lengths]
    out["within_book_cv_quartiles"] = [float(q) for q in np.percentile(spread, [25, 50, 75])]
    out["between_books_sd_log_length"] = float(truth.std())
    mean_error = np.log(words_per_chapter) - truth
    for label, signal in SIGNALS.items():
        estimate = np.log([rhythm_length(b, signal) for b in train + held])
        ok = np.isfinite(estimate)
        row = {"rms_log_error": float(np.sqrt(np.mean((estimate[ok] - truth[ok]) ** 2))),
               "rms_log_error_training_mean": float(np.sqrt(np.mean(mean_error[ok] ** 2))),
               "correlation_with_truth": float(np.corrcoef(estimate[ok], truth[ok])[0, 1]), "books": int(ok.sum())}
        out["rhythm"][label] = row
        print(f"rhythm from {label:18s} RMS log error {row['rms_log_error']:.3f} (training mean "
              f"{row['rms_log_error_training_mean']:.3f}), correlation with the truth {row['correlation_with_truth']:+.3f}",
              flush=True)
    for count in ("true", "words"):
        summarise(f"trees, count {count}", held, count_rule_rows(held, lambda b: b["p"], count, words_per_chapter), out)
    for share, weight in SELF_TRAINING:
        for count in ("true", "words"):
            rows = count_rule_rows(held, lambda b: self_trained(b, words_per_chapter, share, weight), count,
                                   words_per_chapter)
            summarise(f"self-trained {share} x count, weight {weight}, count {count}", held, rows, out)
    pairs = np.array([pair for b in held for pair in half_book_aucs(b)])
    out["half_book_auc"] = {"trees": float(pairs[:, 0].mean()), "book_specific": float(pairs[:, 1].mean()),
                            "halves": int(len(pairs))}
    print(f"AUC on half books: trees {pairs[:, 0].mean():.3f}, told the other half's chapter starts "
          f"{pairs[:, 1].mean():.3f} ({len(pairs)} halves)", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
