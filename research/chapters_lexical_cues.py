"""Do the words that open a paragraph, and those that close the one before, say "a chapter starts here"?  A screen
on the ``chapters`` protocol's training and held-out books only (the test books are never read).

At every paragraph start of a book: the lower-cased words of the opening two sentences and of the closing two
sentences before the gap, as hashed unigrams and bigrams (the first and last three words also by position).  A
logistic regression learns P(chapter start) from them on the training books, cross-fitted by book (each book scored
by a regression fitted without it); its scores join the paragraph measurements of
:mod:`segviz.features.paragraph_measures` as columns of the gradient-boosted trees.  Each held-out book is decided
with a segment-count rule, told its true count or with a count from its length in words, with and without the
cues.  Letter case is never read (in some books a chapter's first words are printed in capitals).

    nice python research/chapters_lexical_cues.py [--data ../shared/corpora] [--cache DIR] [--jobs 2]
"""
from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from chapters_pool_screen import held_out_row, screen_parser, summarise
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.feature_extraction import FeatureHasher
from sklearn.linear_model import LogisticRegression

from segviz.features import FeatureContext
from segviz.features.paragraph_measures import paragraph_measurements, paragraph_start_gaps
from segviz.protocols import CHAPTER_BOOKS, read_books
from segviz.segmentation import masses_to_indicator

HASH_BITS = 20


SENTENCES = 2


def _tokens(context, gap: int, side: str) -> list[str]:
    """The words of the SENTENCES sentences after (``open``) or before (``close``) gap ``gap``, within bounds."""
    n = context.n_sentences
    picks = range(gap + 1, gap + 1 + SENTENCES) if side == "open" else range(gap + 1 - SENTENCES, gap + 1)
    words: list[str] = []
    for i in picks:
        if 0 <= i < n:
            words.extend(w.lower() for w in context.sentences[i] if any(c.isalnum() for c in w))
    return words


WORDS = 30


def _cue_terms(opening: list[str], closing: list[str]) -> list[str]:
    terms = [f"o:{w}" for w in opening[:WORDS]] + [f"c:{w}" for w in closing[-WORDS:]]
    terms += [f"o2:{a}_{b}" for a, b in zip(opening[:12], opening[1:12])]
    terms += [f"c2:{a}_{b}" for a, b in zip(closing[-12:], closing[-11:])]
    terms += [f"o@{i}:{w}" for i, w in enumerate(opening[:3])]
    terms += [f"c@{i}:{w}" for i, w in enumerate(reversed(closing[-3:]))]
    return terms


def cached_cue_book(args) -> dict:
    data, name, cache, sentences, words = args
    global SENTENCES, WORDS
    SENTENCES, WORDS = sentences, words
    suffix = "" if (sentences, words) == (2, 30) else f".{sentences}.{words}"
    path = Path(cache) / (name.replace("/", "__") + f".lex{suffix}.json")
    measures = Path(cache) / (name.replace("/", "__") + ".npz")
    if not path.exists() or not measures.exists():
        corpus = read_books(data, [name], name)
        context = FeatureContext.from_corpus(corpus)
        gaps = np.flatnonzero(paragraph_start_gaps(context))
        if not measures.exists():
            y = masses_to_indicator(corpus.masses())[gaps]
            words = sum(len(s) for d in corpus.documents for s in d.sentences)
            np.savez(measures, X=paragraph_measurements(context)[gaps], gaps=gaps, y=y, n=context.n_sentences,
                     masses=np.array(corpus.masses()), words=words)
        terms = [_cue_terms(_tokens(context, int(g), "open"), _tokens(context, int(g), "close")) for g in gaps]
        path.write_text(json.dumps(terms))
    z = np.load(measures)
    return {"name": name, "X": z["X"], "gaps": z["gaps"], "y": z["y"], "n": int(z["n"]),
            "masses": [int(m) for m in z["masses"]], "words": int(z["words"]),
            "terms": json.loads(path.read_text())}


def lexical_scores(train: list[dict], held: list[dict], *, folds: int = 5, C: float = 0.1) -> None:
    """Adds ``lex`` (cross-fitted on training books, full fit on held-out) to every book."""
    hasher = FeatureHasher(n_features=1 << HASH_BITS, input_type="string", alternate_sign=False)
    for book in train + held:
        m = hasher.transform(book["terms"]).tocsr()
        m.data = np.minimum(m.data, 1.0)
        book["H"] = m

    def fit(books):
        X = sp.vstack([b["H"] for b in books]).tocsr()
        y = np.concatenate([b["y"] for b in books])
        return LogisticRegression(C=C, max_iter=2000, solver="liblinear").fit(X, y)

    for f in range(folds):
        inside = [b for i, b in enumerate(train) if i % folds == f]
        model = fit([b for i, b in enumerate(train) if i % folds != f])
        for b in inside:
            b["lex"] = model.decision_function(b["H"])
    model = fit(train)
    for b in held:
        b["lex"] = model.decision_function(b["H"])
    vocab_weights = model.coef_.ravel()
    top = np.argsort(vocab_weights)[-15:][::-1]
    print("largest cue weights (hashed):", [round(float(vocab_weights[t]), 2) for t in top], flush=True)


def _neighbour_columns(cue: np.ndarray, span: int) -> np.ndarray:
    """Per paragraph start: the cue score less the largest cue score of the ``span`` paragraph starts before it, and
    of the ``span`` after it (0 where there are none)."""
    n = cue.size
    before, after = np.zeros(n), np.zeros(n)
    for i in range(n):
        lo, hi = cue[max(0, i - span):i], cue[i + 1:i + 1 + span]
        before[i] = cue[i] - lo.max() if lo.size else 0.0
        after[i] = cue[i] - hi.max() if hi.size else 0.0
    return np.c_[before, after]


def evaluate_columns(train, held, columns, words_per_chapter, label, out):
    X = np.vstack([columns(b) for b in train])
    y = np.concatenate([b["y"] for b in train])
    model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                           l2_regularization=1.0, random_state=0).fit(X, y)
    for count in ("true", "words"):
        rows = []
        for book in held:
            k = {"true": len(book["masses"]), "words": max(1, round(book["words"] / words_per_chapter))}[count]
            rows.append(held_out_row(book, model.predict_proba(columns(book))[:, 1], k))
        summarise(f"{label}, count {count}", held, rows, out)


def main(argv=None) -> int:
    ap = screen_parser(__doc__)
    ap.add_argument("--neighbours", type=int, default=0,
                    help="also give the trees the cue score less the largest of the N paragraph starts either side")
    ap.add_argument("--sentences", type=int, default=2, help="sentences read on each side of the gap")
    ap.add_argument("--words", type=int, default=30, help="words read on each side of the gap")
    ap.add_argument("--C", type=float, default=0.1, help="the regression's inverse regularisation")
    args = ap.parse_args(argv)
    Path(args.cache).mkdir(parents=True, exist_ok=True)
    names = {role: CHAPTER_BOOKS[role] for role in ("train", "heldout")}
    with ProcessPoolExecutor(args.jobs) as pool:
        books = {role: list(pool.map(cached_cue_book, [(args.data, n, args.cache, args.sentences, args.words) for n in ns])) for role, ns in names.items()}
    train, held = books["train"], books["heldout"]
    words_per_chapter = sum(b["words"] for b in train) / sum(len(b["masses"]) for b in train)
    print(f"{len(train)} training books, {sum(b['y'].size for b in train)} paragraph starts", flush=True)
    lexical_scores(train, held, C=args.C)
    lex_alone = np.concatenate([b["lex"] for b in held])
    from sklearn.metrics import roc_auc_score
    print(f"held-out AUC of the cues alone {roc_auc_score(np.concatenate([b['y'] for b in held]), lex_alone):.3f}",
          flush=True)
    out: dict = {}
    evaluate_columns(train, held, lambda b: b["X"], words_per_chapter, "measurements", out)
    evaluate_columns(train, held, lambda b: np.c_[b["X"], b["lex"]], words_per_chapter, "measurements + cues", out)
    if args.neighbours:
        for b in train + held:
            b["near"] = _neighbour_columns(b["lex"], args.neighbours)
        evaluate_columns(train, held, lambda b: np.c_[b["X"], b["lex"], b["near"]], words_per_chapter,
                  f"measurements + cues + neighbours {args.neighbours}", out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
