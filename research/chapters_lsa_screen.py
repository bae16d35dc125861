"""Would a dense, learned word space help the paragraph score?  Latent semantic analysis (tf-idf then a truncated
SVD, fitted on sentences of the training books only) gives each sentence a 100-number vector; at every paragraph
start, the cosine of the previous k and the next k sentences' summed vectors (k = 10, 25, 50) joins the paragraph
measurements and the cue score as columns of the boosted trees.  A screen on the ``chapters`` protocol's training
and held-out books only (the test books are never read); run after ``chapters_lexical_cues.py`` has filled its
cache with the same ``--cache``.

    nice python research/chapters_lsa_screen.py [--data ../shared/corpora] [--cache DIR] [--jobs 2] [--json out.json]
"""
from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from chapters_lexical_cues import cached_cue_book, evaluate_columns, lexical_scores
from chapters_pool_screen import screen_parser
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer

from segviz.features import FeatureContext
from segviz.features.paragraph_measures import paragraph_start_gaps
from segviz.protocols import CHAPTER_BOOKS, read_books

SPANS = (10, 25, 50)
DIMENSIONS = 100
#: every n-th training sentence fits the word space (the vocabulary and the SVD)
SAMPLE_EVERY = 5


def _sentences(args) -> dict:
    data, name, cache = args
    path = Path(cache) / (name.replace("/", "__") + ".sentences.json")
    if not path.exists():
        context = FeatureContext.from_corpus(read_books(data, [name], name))
        gaps = np.flatnonzero(paragraph_start_gaps(context))
        path.write_text(json.dumps({"sentences": [" ".join(s).lower() for s in context.sentences],
                                    "gaps": gaps.tolist()}))
    return json.loads(path.read_text())


def _window_cosines(vectors: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """Per gap g (between sentences g and g+1) and span k: the cosine of sentences g-k+1..g against g+1..g+k."""
    n = vectors.shape[0]
    cumulative = np.vstack([np.zeros(vectors.shape[1]), np.cumsum(vectors, axis=0)])
    out = np.zeros((gaps.size, len(SPANS)))
    for j, k in enumerate(SPANS):
        lo, mid, hi = np.maximum(gaps + 1 - k, 0), gaps + 1, np.minimum(gaps + 1 + k, n)
        before, after = cumulative[mid] - cumulative[lo], cumulative[hi] - cumulative[mid]
        norm = np.linalg.norm(before, axis=1) * np.linalg.norm(after, axis=1)
        out[:, j] = np.where(norm > 0, (before * after).sum(axis=1) / np.where(norm > 0, norm, 1.0), 0.0)
    return out


def main(argv=None) -> int:
    args = screen_parser(__doc__).parse_args(argv)
    Path(args.cache).mkdir(parents=True, exist_ok=True)
    names = {role: CHAPTER_BOOKS[role] for role in ("train", "heldout")}
    with ProcessPoolExecutor(args.jobs) as pool:
        books = {role: list(pool.map(cached_cue_book, [(args.data, n, args.cache, 2, 30) for n in ns]))
                 for role, ns in names.items()}
        texts = {role: list(pool.map(_sentences, [(args.data, n, args.cache) for n in ns]))
                 for role, ns in names.items()}
    train, held = books["train"], books["heldout"]
    for role in ("train", "heldout"):
        for book, text in zip(books[role], texts[role]):
            if not np.array_equal(book["gaps"], text["gaps"]):
                raise SystemExit(f"{book['name']}: the cache was made by another reader; clear it")
    sample = [s for text in texts["train"] for s in text["sentences"][::SAMPLE_EVERY]]
    tfidf = TfidfVectorizer(min_df=5, sublinear_tf=True, stop_words="english", dtype=np.float32).fit(sample)
    svd = TruncatedSVD(DIMENSIONS, random_state=0).fit(tfidf.transform(sample))
    print(f"word space: {len(tfidf.vocabulary_)} words from {len(sample)} training sentences, "
          f"{svd.explained_variance_ratio_.sum():.2f} of the variance in {DIMENSIONS} dimensions", flush=True)
    for role in ("train", "heldout"):
        for book, text in zip(books[role], texts[role]):
            vectors = svd.transform(tfidf.transform(text["sentences"]))
            book["lsa"] = _window_cosines(vectors, book["gaps"])
    words_per_chapter = sum(b["words"] for b in train) / sum(len(b["masses"]) for b in train)
    lexical_scores(train, held)
    out: dict = {}
    evaluate_columns(train, held, lambda b: np.c_[b["X"], b["lex"]], words_per_chapter, "measurements + cues", out)
    evaluate_columns(train, held, lambda b: np.c_[b["X"], b["lex"], b["lsa"]], words_per_chapter,
              "measurements + cues + LSA cosines", out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
