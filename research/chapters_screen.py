"""Is the chapters model short of signal or of learner?  A screen on the ``chapters`` protocol's training and
held-out books only (the test books are never read).

Every paragraph start of a book is a candidate chapter start (every chapter start of the 26 books is one).  Each
gets a row of measurements, a gradient-boosted tree classifier (scikit-learn's ``HistGradientBoostingClassifier``:
interactions and thresholds learnt freely, unlike the exponential model's binary questions) is fitted on the
training books, and each held-out book is decided with its true number of chapters (``SegmentCountRule``, an
oracle count), so the score measures the *placing* alone.  Measurement sets:

* ``tfidf``   -- the tf-idf block cosine, its z-score and valley depth at k = 5, 10, 25, 50, 100 sentences
  (:mod:`segviz.features.tfidf`);
* ``paragraph-cosine`` -- the tf-idf cosine of the previous m and the next m *paragraphs* (m = 1, 3, 8, 20);
* ``local``   -- the paragraphs on either side: their sentences, words and quoting share; whether the sentences
  on either side quote, their lengths; a closing "!" or "?"; time words and "had" in the opening sentence;
* ``names``   -- the share of the names of the next 10, 25, 50 sentences that the book has not mentioned before;
* ``openings`` -- a logistic regression on the words of the opening sentence (its first 12 words, its first word)
  and the closing one (its last 8), over words that occur so in at least 8 of the 15 training books (so no book's
  own names or rare words), its score cross-fitted on the training books (5 folds by book) and added as one more
  measurement.

    nice python research/chapters_screen.py [--data ../shared/corpora] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from segviz import SegmentCountRule
from segviz.evaluation import macro_average
from segviz.features.dialogue import quoting_sentences
from segviz.features.names import sentence_names
from segviz.features.tfidf import term_counts, tfidf_cohesion
from segviz.features.transitions import TIME_WORDS
from segviz.metrics import score_row
from segviz.protocols import chapter_books
from segviz.segmentation import boundaries_to_masses

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
TFIDF_KS = (5, 10, 25, 50, 100)
PARAGRAPH_SPANS = (1, 3, 8, 20)
NAME_SPANS = (10, 25, 50)
#: column ranges of each measurement set in a book's matrix
SETS = {"tfidf": range(0, 15), "paragraph-cosine": range(15, 19), "local": range(19, 33), "names": range(33, 36)}
#: a word must open (or close) paragraphs in this many of the 15 training books to be an opening-word measurement
OPENING_BOOKS = 8
_WORD = re.compile(r"\w")
_CLOSING = re.compile(r"[!?][\"'\u201d\u2019]*\s*$")


def _book(corpus) -> dict:
    """One book's candidate rows: the measurements at every paragraph start, the label, the opening words."""
    sents = [list(s) for d in corpus.documents for s in d.sentences]
    texts = [t for d in corpus.documents for t in d.texts]
    n = len(sents)
    par = np.array(corpus.paragraph_starts(), dtype=bool)
    prof = tfidf_cohesion(sents, None, TFIDF_KS)
    quote = quoting_sentences(texts)
    words = np.array([sum(1 for t in s if _WORD.search(t)) for s in sents], dtype=float)
    starts = np.flatnonzero(par)
    lengths = np.diff(np.r_[starts, n])
    para_words = np.add.reduceat(words, starts)
    para_quote = np.add.reduceat(quote, starts) / lengths
    counts = term_counts(sents).tocsr()
    idf = np.log((1 + n) / (1 + np.bincount(counts.indices, minlength=counts.shape[1]))) + 1
    owner = sp.csr_matrix((np.ones(n), (np.cumsum(par) - 1, np.arange(n))), shape=(len(starts), n))
    para_vectors = (owner @ sp.csr_matrix(counts.multiply(idf[None, :]))).tocsr()
    cumulative = sp.vstack([sp.csr_matrix((1, counts.shape[1])), para_vectors]).toarray().cumsum(axis=0)

    def paragraph_cosine(j: int, m: int) -> float:
        a = cumulative[j] - cumulative[max(j - m, 0)]
        b = cumulative[min(j + m, len(starts))] - cumulative[j]
        norm = np.linalg.norm(a) * np.linalg.norm(b)
        return float(a @ b / norm) if norm > 0 else 0.0

    first_mentions, mentions, seen = np.zeros(n), np.zeros(n), set()
    for i, names in enumerate(sentence_names(texts)):
        mentions[i] = len(names)
        first_mentions[i] = sum(1 for x in set(names) if x not in seen)
        seen.update(names)
    cum_first, cum_all = np.r_[0, np.cumsum(first_mentions)], np.r_[0, np.cumsum(mentions)]
    reference = set(np.cumsum(corpus.masses())[:-1].tolist())
    rows, gaps, labels, tokens = [], [], [], []
    for j in range(1, len(starts)):
        b = int(starts[j])
        row = [prof[k][part][b - 1] for k in TFIDF_KS for part in ("cosine", "z", "depth")]
        row += [paragraph_cosine(j, m) for m in PARAGRAPH_SPANS]
        row += [lengths[j - 1], lengths[j], para_words[j - 1], para_words[j], para_quote[j - 1], para_quote[j],
                quote[b], quote[b - 1], words[b], words[b - 1], float(bool(_CLOSING.search(texts[b - 1]))),
                sum(w in TIME_WORDS for w in sents[b]), sum(w == "had" for w in sents[b]),
                sum(w in TIME_WORDS for w in sents[b][:4])]
        for span in NAME_SPANS:
            hi = min(b + span, n)
            total = cum_all[hi] - cum_all[b]
            row.append((cum_first[hi] - cum_first[b]) / total if total else np.nan)
        rows.append(row)
        gaps.append(b - 1)
        labels.append(b in reference)
        opening = sents[b]
        tokens.append([f"open:{w}" for w in opening[:12]] + [f"first:{opening[0]}"] * bool(opening)
                      + [f"close:{w}" for w in sents[b - 1][-8:]])
    return {"name": Path(corpus.files[0]).stem, "X": np.array(rows, dtype=float), "gaps": np.array(gaps),
            "y": np.array(labels), "tokens": tokens, "n": n, "masses": corpus.masses()}


def _opening_vocabulary(books) -> dict[str, int]:
    in_books = Counter()
    for book in books:
        in_books.update({w for ws in book["tokens"] for w in ws})
    need = OPENING_BOOKS * len(books) / 15
    return {w: i for i, w in enumerate(sorted(w for w, c in in_books.items() if c >= need))}


def _opening_matrix(book, vocabulary) -> sp.csr_matrix:
    r, c = [], []
    for i, ws in enumerate(book["tokens"]):
        for w in set(ws):
            if w in vocabulary:
                r.append(i)
                c.append(vocabulary[w])
    return sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(len(book["tokens"]), len(vocabulary)))


def _opening_model(books):
    vocabulary = _opening_vocabulary(books)
    X = sp.vstack([_opening_matrix(b, vocabulary) for b in books])
    y = np.concatenate([b["y"] for b in books])
    return vocabulary, LogisticRegression(C=0.1, max_iter=3000).fit(X, y)


def _opening_scores(train, held) -> tuple[list, list]:
    """Cross-fitted opening-word scores of the training books (5 folds by book), and the held-out books' scores
    from a model of all training books."""
    train_scores = [None] * len(train)
    for fold in range(5):
        inside = [i for i in range(len(train)) if i % 5 == fold]
        vocabulary, model = _opening_model([b for i, b in enumerate(train) if i not in inside])
        for i in inside:
            train_scores[i] = model.decision_function(_opening_matrix(train[i], vocabulary))
    vocabulary, model = _opening_model(train)
    return train_scores, [model.decision_function(_opening_matrix(b, vocabulary)) for b in held]


def _score(train, held, columns, train_extra=None, held_extra=None) -> dict:
    def matrix(book, extra):
        X = book["X"][:, columns]
        return X if extra is None else np.c_[X, extra]

    X = np.vstack([matrix(b, None if train_extra is None else train_extra[i]) for i, b in enumerate(train)])
    y = np.concatenate([b["y"] for b in train])
    model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                           l2_regularization=1.0, random_state=0).fit(X, y)
    rows, aucs = [], []
    for i, book in enumerate(held):
        p = model.predict_proba(matrix(book, None if held_extra is None else held_extra[i]))[:, 1]
        q = np.full(book["n"] - 1, 1e-9)
        q[book["gaps"]] = p
        hyp = SegmentCountRule(segments=len(book["masses"])).decide(q)
        rows.append(score_row(book["masses"], boundaries_to_masses(hyp, book["n"])))
        aucs.append(roc_auc_score(book["y"], p))
    mean = macro_average(rows)
    return {"p_k": mean["p_k"], "p_mu": mean["p_mu"], "auc_among_paragraph_starts": float(np.mean(aucs)),
            "per_book_p_k": {b["name"]: r["p_k"] for b, r in zip(held, rows)}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    train = [_book(c) for c in chapter_books(args.data, "train").by_file()]
    held = [_book(c) for c in chapter_books(args.data, "heldout").by_file()]
    every = list(range(train[0]["X"].shape[1]))
    variants = {"tfidf": list(SETS["tfidf"]),
                "tfidf + paragraph-cosine": list(SETS["tfidf"]) + list(SETS["paragraph-cosine"]),
                "all measurements": every}
    variants.update({f"all but {name}": [c for c in every if c not in cols] for name, cols in SETS.items()})
    out = {name: _score(train, held, cols) for name, cols in variants.items()}
    train_openings, held_openings = _opening_scores(train, held)
    out["all measurements + openings"] = _score(train, held, every, train_openings, held_openings)
    for name, row in out.items():
        books = " ".join(f"{v:.2f}" for v in row["per_book_p_k"].values())
        print(f"{name:30s} oracle-count P_k {row['p_k']:.3f}  P_mu {row['p_mu']:.3f}  "
              f"AUC {row['auc_among_paragraph_starts']:.3f}   per book P_k {books}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
