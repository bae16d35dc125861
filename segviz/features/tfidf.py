"""The multi-scale tf-idf cohesion family (beyond the paper): lexical cohesion at the scale of the segment.

The paper's questions look at most 10 sentences away; sections and chapters run to 100 sentences and more.
These questions compare the previous k and the next k sentences for k up to 100 (TextTiling's block comparison,
Hearst 1997, at several scales):

* ``tfidf`` -- the cosine of the summed tf-idf vectors of the two blocks.  Each sentence is a tf-idf vector over
  content words (no stopwords, at least one letter) with idf computed within its source group (document),
  ``idf = ln((1 + m) / (1 + df)) + 1`` over the group's ``m`` sentences, scaled to unit length;
* ``tfidf_z`` -- that cosine as a z-score among the gaps of its document (a low value *for this text*);
* ``tfidf_depth`` -- TextTiling's depth score of the cosine at the gap: how far it lies below the peaks reached
  by climbing left and right while the cosine rises.

Blocks are clipped to the document; gaps between two documents get no value.  Every inner product of two blocks
is a rectangle of the sentences' Gram matrix, summed from its 2-D cumulative sums in chunks of a few hundred
sentences, so every k costs O(1) a gap (the window never grows the work).
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal
from segviz.features.stream import TokenStream
from segviz.peers import default_stopwords

__all__ = [
    "TFIDF_WINDOWS",
    "content_vocabulary",
    "tfidf_cohesion",
    "tfidf_cosines",
    "term_counts",
    "profiles_from_cosines",
    "missing_windows",
    "install_cosines",
    "valley_depth",
    "tfidf_questions",
    "FAMILY",
]

#: The k of the previous/next k sentences compared (up to the length of long segments).
TFIDF_WINDOWS: tuple[int, ...] = (2, 5, 10, 25, 50, 100)
TFIDF_EDGES: tuple[float, ...] = (-math.inf, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, math.inf)
TFIDF_Z_EDGES: tuple[float, ...] = (-math.inf, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, math.inf)
TFIDF_DEPTH_EDGES: tuple[float, ...] = (-math.inf, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, math.inf)
#: gaps per chunk of the stream (memory: the chunk's Gram matrix, (chunk + 2 max k)^2 floats)
CHUNK = 200
#: cosines are rounded to this many decimals: a block sum is a difference of cumulative sums whose last bits
#: depend on where its chunk starts (the corpus's files, the windows computed together), and the valley depth
#: compares neighbours for equality, so equal blocks must give equal values however the chunks fall
COSINE_DECIMALS = 12

_LETTER = re.compile(r"[^\W\d_]")


def content_vocabulary(sentences: Sequence[Sequence[str]]) -> list[str]:
    """The content words of the sentences, sorted: no stopword, at least one letter."""
    stop = default_stopwords()
    return sorted(t for t in {t for s in sentences for t in s} if t not in stop and _LETTER.search(t))


def _term_counts(sentences: Sequence[Sequence[str]]) -> sp.csr_matrix:
    """Sentence x content-word counts."""
    vocab = content_vocabulary(sentences)
    stream = TokenStream(sentences, vocab)
    known = stream.tok >= 0
    return sp.csr_matrix((np.ones(int(known.sum())), (stream.sent[known], stream.tok[known])),
                         shape=(len(sentences), max(len(vocab), 1)))


def _unit_vectors(counts: sp.csr_matrix, sizes: Sequence[int]) -> sp.csr_matrix:
    """Unit-length tf-idf rows of the sentences, each word's idf from the sentence's group alone.

    ``idf = ln((1 + m) / (1 + df)) + 1`` with ``m`` the group's sentences and ``df`` how many of them hold the
    word: one sort of the (group, word) pairs gives every group's document frequencies at once."""
    n, V = counts.shape
    sizes = np.asarray(sizes, dtype=np.int64)
    group = np.repeat(np.arange(sizes.size), sizes)
    rows = np.repeat(np.arange(n), np.diff(counts.indptr))
    _, inverse, df = np.unique(group[rows] * V + counts.indices, return_inverse=True, return_counts=True)
    data = counts.data * (np.log((1.0 + sizes[group[rows]]) / (1.0 + df[inverse.ravel()])) + 1.0)
    norms = np.sqrt(np.bincount(rows, weights=data * data, minlength=n))
    data *= (1.0 / np.where(norms > 0, norms, 1.0))[rows]
    return sp.csr_matrix((data, counts.indices, counts.indptr), shape=(n, V))


def _stream_cosines(X: sp.csr_matrix, sizes: Sequence[int], ks: Sequence[int], chunks: Sequence[int]
                    ) -> dict[int, np.ndarray]:
    """Block cosines at the gaps inside a group (blocks clipped to the group), for the gaps of the stream's chunks
    numbered ``chunks`` (of :func:`_chunk_starts`); NaN elsewhere.

    A block's vector is a sum of sentence vectors, so every inner product of two blocks is a sum of sentence
    inner products over a rectangle of the chunk's Gram matrix ``G = X X^T``: with ``P`` the 2-D cumulative sums
    of ``G``, each of a gap's three products (left . right, left . left, right . right) is four entries of ``P``,
    whatever k.  A chunk is a few hundred sentences of the stream, whatever the groups: the block sums over the
    chunk's vocabulary, group by group, took five times as long on 10^6 sentences in 26,000 documents.  The
    chunk reaches :data:`TFIDF_WINDOWS`' largest k (at least) on each side whichever windows are asked, so the
    values do not depend on the windows computed together."""
    n = X.shape[0]
    sizes = np.asarray(sizes, dtype=np.int64)
    ends = np.cumsum(sizes)
    group_start = np.repeat(ends - sizes, sizes)
    group_end = np.repeat(ends, sizes)
    out = {k: np.full(max(n - 1, 0), np.nan) for k in ks}
    K = max(max(ks), max(TFIDF_WINDOWS))
    starts = _chunk_starts(n)
    for c in chunks:
        j0 = starts[c]
        j1 = min(j0 + CHUNK, n)                          # gaps j0 .. j1-1 (before sentence j)
        gaps = np.arange(j0, j1)
        gaps = gaps[group_start[gaps] < gaps]            # inside a group: sentences j-1 and j share it
        if gaps.size == 0:
            continue
        r0, r1 = max(0, j0 - K), min(n, j1 + K)          # the sentences their blocks can reach
        block = X[r0:r1]
        gram = (block @ block.T).toarray()
        P = np.zeros((r1 - r0 + 1, r1 - r0 + 1))
        np.cumsum(np.cumsum(gram, axis=0), axis=1, out=P[1:, 1:])
        g = gaps - r0
        lo, hi = group_start[gaps] - r0, group_end[gaps] - r0
        for k in ks:
            a = np.maximum(g - k, lo)                    # the left block: sentences a .. g-1
            b = np.minimum(g + k, hi)                    # the right block: g .. b-1
            dot = _rectangle(P, a, g, g, b)
            norm = np.sqrt(np.maximum(_rectangle(P, a, g, a, g), 0.0) * np.maximum(_rectangle(P, g, b, g, b), 0.0))
            cosine = np.where(norm > 0, dot / np.where(norm > 0, norm, 1.0), 0.0)
            out[k][gaps - 1] = np.round(cosine, COSINE_DECIMALS)
    return out


def _rectangle(P: np.ndarray, a0, a1, b0, b1) -> np.ndarray:
    """Sums of the rectangles rows a0..a1-1 x columns b0..b1-1 of the matrix whose 2-D cumulative sums are ``P``.

    Grouped so that a rectangle of zero rows (sentences without content words) is exactly 0: the cumulative sums
    at its two row edges are then equal to the last bit."""
    return (P[a1, b1] - P[a0, b1]) - (P[a1, b0] - P[a0, b0])


def _chunk_starts(n: int) -> list[int]:
    """The first gap of each chunk of a stream of ``n`` sentences."""
    return list(range(1, n, CHUNK))


def valley_depth(values: np.ndarray) -> np.ndarray:
    """TextTiling's depth score (Hearst 1997) of each point of a sequence.

    From point i climb left while the next value to the left is higher, and likewise right; the depth is
    ``(left peak - v_i) + (right peak - v_i)``.  The climbs are prefix maxima of "where a climb stops", so the
    whole sequence costs O(n)."""
    v = np.asarray(values, dtype=np.float64)
    n = v.size
    if n == 0:
        return v.copy()
    idx = np.arange(n)
    stop_left = np.ones(n, dtype=bool)
    stop_left[1:] = v[:-1] <= v[1:]          # the left neighbour is not higher: the climb ends here
    left = np.maximum.accumulate(np.where(stop_left, idx, 0))
    stop_right = np.ones(n, dtype=bool)
    stop_right[:-1] = v[1:] <= v[:-1]
    right = (n - 1) - np.maximum.accumulate(np.where(stop_right[::-1], idx, 0))[::-1]
    return (v[left] - v) + (v[right] - v)


def _zscore(values: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return values.copy()
    sd = values.std()
    return (values - values.mean()) / sd if sd > 0 else np.zeros_like(values)


def term_counts(sentences: Sequence[Sequence[str]]) -> sp.csr_matrix:
    """The sentence x content-word counts the cosines are built from (pass them to :func:`tfidf_cosines` to
    share one count between calls)."""
    return _term_counts(sentences)


def tfidf_cosines(sentences: Sequence[Sequence[str]], groups: Sequence[int] | None = None,
                  ks: Sequence[int] = TFIDF_WINDOWS, share: tuple[float, float] = (0.0, 1.0), *,
                  counts: sp.csr_matrix | None = None) -> dict[int, np.ndarray]:
    """Per k: the block cosine of every gap b = 1..n-1 (NaN between two groups).

    ``share = (lo, hi)`` computes only the chunks in that fraction of the stream's chunks (NaN elsewhere): two
    processes given complementary shares compute the same values as one (every chunk's arithmetic is its own),
    and :func:`profiles_from_cosines` takes their merge."""
    n = len(sentences)
    sizes = [n] if groups is None else [int(g) for g in groups]
    counts = _term_counts(sentences) if counts is None else counts
    n_chunks = len(_chunk_starts(n))
    lo, hi = round(share[0] * n_chunks), round(share[1] * n_chunks)
    if lo >= hi:
        return {k: np.full(max(n - 1, 0), np.nan) for k in ks}
    return _stream_cosines(_unit_vectors(counts, sizes), sizes, ks, range(lo, hi))


def profiles_from_cosines(cosines: dict[int, np.ndarray], groups: Sequence[int] | None, n: int
                          ) -> dict[int, dict[str, np.ndarray]]:
    """Per k: the ``"cosine"``, its ``"z"``-score and ``"depth"`` within each group (NaN between groups)."""
    sizes = [n] if groups is None else [int(g) for g in groups]
    out = {}
    for k, cosine in cosines.items():
        z, depth = np.full(max(n - 1, 0), np.nan), np.full(max(n - 1, 0), np.nan)
        start = 0
        for size in sizes:
            if size >= 2:
                inner = slice(start, start + size - 1)
                z[inner] = _zscore(cosine[inner])
                depth[inner] = valley_depth(cosine[inner])
            start += size
        out[k] = {"cosine": cosine, "z": z, "depth": depth}
    return out


def tfidf_cohesion(sentences: Sequence[Sequence[str]], groups: Sequence[int] | None = None,
                   ks: Sequence[int] = TFIDF_WINDOWS) -> dict[int, dict[str, np.ndarray]]:
    """Per k: the ``"cosine"``, ``"z"`` and ``"depth"`` of every gap b = 1..n-1 (NaN between two groups)."""
    return profiles_from_cosines(tfidf_cosines(sentences, groups, ks), groups, len(sentences))


def missing_windows(context, ks: Sequence[int] = TFIDF_WINDOWS) -> list[int]:
    """The tf-idf windows ``ks`` asks about that the context has not computed, with every standard window not
    cached yet (one pass serves them all: the term counts and dense block sums are shared; each further k
    costs three inner products per gap); empty when every k of ``ks`` is cached."""
    wanted = set(ks)
    missing = [k for k in sorted(wanted | set(TFIDF_WINDOWS)) if not context.is_cached(("tfidf", k))]
    return missing if set(missing) & wanted else []


def install_cosines(context, cosines: dict[int, np.ndarray]) -> None:
    """Cache the profiles of fully computed cosines (a merge of complementary shares) in ``context``."""
    fresh = profiles_from_cosines(cosines, context.groups, context.n_sentences)
    for k in cosines:
        context.memo(("tfidf", k), lambda k=k: fresh[k])


def _profiles(context, ks: Sequence[int]) -> dict[int, dict[str, np.ndarray]]:
    """The context's tf-idf profiles for ``ks`` (on a miss, every standard window not cached yet in one pass)."""
    missing = missing_windows(context, ks)
    if missing:
        install_cosines(context, tfidf_cosines(context.sentences, context.groups, missing))
    return {k: context.memo(("tfidf", k), lambda: None) for k in sorted(set(ks))}   # every k is cached by now


def _signal(name: str, part: str, symbol: str, subject: str, tag: str) -> Signal:
    return register_signal(Signal(
        name=name, kind="tfidf", symbol=symbol,
        subject=lambda w: subject.format(k=w.end), tag=lambda w: tag.format(k=w.end),
        compute=lambda context, window: _profiles(context, (window.end,))[window.end][part]))


TFIDF = _signal("tfidf", "cosine", "T", "the tf-idf cosine of the previous {k} and next {k} sentences", "T±{k}")
TFIDF_Z = _signal("tfidf_z", "z", "Z",
                  "the tf-idf cosine of the previous {k} and next {k} sentences as a z-score within its document",
                  "Tz±{k}")
TFIDF_DEPTH = _signal("tfidf_depth", "depth", "D",
                      "the depth of the tf-idf cosine valley (previous {k} / next {k} sentences) at this gap",
                      "Td±{k}")


def tfidf_questions(windows: Sequence[int] = TFIDF_WINDOWS) -> list[IntervalQuestion]:
    return [IntervalQuestion(signal.name, Window("sentence", -k, k), lo, hi)
            for k in windows
            for signal, edges in ((TFIDF, TFIDF_EDGES), (TFIDF_Z, TFIDF_Z_EDGES), (TFIDF_DEPTH, TFIDF_DEPTH_EDGES))
            for lo, hi in interval_grid(edges)]


class _TfidfFamily(IntervalFamily):
    def candidates(self, context, settings):
        _profiles(context, TFIDF_WINDOWS)   # every k in one pass over the text
        yield from super().candidates(context, settings)


FAMILY = _TfidfFamily(
    "tfidf", lambda settings: tfidf_questions(),
    summary="tf-idf cosine of the previous/next k sentences, k = 2..100: raw, z-score per document, depth")
