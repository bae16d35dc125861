"""C99 (Choi 2000, "Advances in domain independent linear text segmentation"), vectorised.

1. **Similarity.** Each sentence is a vector of term counts over its content words (tokens with a letter, not a
   stopword, Porter-stemmed when ``stem=True`` as Choi did); ``sim_`` is the cosine matrix.
2. **Rank transform.** Each element is replaced by the fraction of its neighbours in an ``mask x mask`` window
   (11 x 11 for C99) whose similarity is lower; near the edges only the neighbours inside the matrix are
   examined, which is Choi's normalisation ``r = #lower / #examined``.  120 shifted comparisons of the whole
   matrix, no loops over elements.
3. **Divisive clustering.** Starting from one segment, each step adds the boundary that maximises the inside
   density ``D = sum_k s_k / sum_k a_k`` (``s_k`` the rank sum of segment k's square on the diagonal, ``a_k`` its
   area).  Region sums come from a 2-D prefix sum of the rank matrix, so one step scores every candidate
   position at once (O(n) per step).
4. **Stopping.** With ``n_segments`` given, the first ``n_segments - 1`` splits are kept.  Otherwise the
   gradient ``dD(m) = D(m) - D(m-1)`` over all steps is thresholded at ``mean + c * sd`` (c = 1.2, Choi) and
   the splits up to the last step whose gradient exceeds it are kept.  ``smooth_gradient=True`` first
   convolves the gradient with the kernel ``[1, 2, 4, 8, 4, 2, 1] / 22`` used in Choi's C99 release (off by
   default: the paper states the plain threshold).

The matrices are dense ``n x n``; ``max_sentences`` (default 5,000: ~200 MB at float64 x 1) refuses larger
inputs with a clear error instead of exhausting memory.  C99 is meant for documents, not whole corpora.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from ..errors import SegvizError
from ._text import resolve_stopwords, validate_sentences

__all__ = ["C99", "cosine_matrix", "rank_transform", "divisive_clustering", "choose_splits"]


@lru_cache(maxsize=1)
def _porter():
    try:
        from nltk.stem.porter import PorterStemmer   # pure Python, no data download
    except ImportError as exc:  # pragma: no cover - nltk is a declared dependency
        raise SegvizError("C99 with stem=True needs nltk (pip install nltk), or pass stem=False") from exc
    stemmer = PorterStemmer()
    return lru_cache(maxsize=200_000)(stemmer.stem)


def _content_words(sentence: Sequence[str], stop: frozenset[str], stem: bool) -> list[str]:
    # a word must contain a letter: punctuation and numbers carry no topic (Choi removes them too)
    words = [t for t in sentence if t not in stop and any(ch.isalpha() for ch in t)]
    if stem:
        st = _porter()
        words = [st(w) for w in words]
    return words


def cosine_matrix(sentences_words: Sequence[Sequence[str]]) -> np.ndarray:
    """Cosine similarity between the term-count vectors of the sentences (0 for sentences without words)."""
    vocab: dict[str, int] = {}
    rows, cols = [], []
    for i, ws in enumerate(sentences_words):
        for w in ws:
            rows.append(i)
            cols.append(vocab.setdefault(w, len(vocab)))
    n = len(sentences_words)
    x = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, max(len(vocab), 1)))
    x.sum_duplicates()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    xn = sp.diags(inv) @ x
    return np.asarray((xn @ xn.T).todense())


def rank_transform(sim: np.ndarray, mask: int = 11) -> np.ndarray:
    """Choi's rank matrix: for each element, the fraction of examined neighbours (in a ``mask x mask`` window
    clipped to the matrix, excluding the element itself) whose value is strictly lower."""
    s = np.asarray(sim, dtype=np.float64)
    n = s.shape[0]
    if mask < 1 or mask % 2 == 0:
        raise SegvizError(f"C99: mask must be an odd positive integer, got {mask!r}")
    r = mask // 2
    padded = np.full((n + 2 * r, n + 2 * r), np.nan)   # NaN never compares lower: outside cells are not counted
    padded[r:r + n, r:r + n] = s
    lower = np.zeros((n, n), dtype=np.int32)
    for di in range(mask):
        for dj in range(mask):
            if di == r and dj == r:
                continue
            lower += padded[di:di + n, dj:dj + n] < s
    # neighbours examined = (rows inside the window) x (cols inside the window) - the element itself
    inside = np.minimum(np.arange(n), r) + np.minimum(np.arange(n)[::-1], r) + 1
    examined = np.outer(inside, inside) - 1
    return lower / np.maximum(examined, 1)


def divisive_clustering(rank: np.ndarray, max_splits: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy divisive clustering maximising the inside density (Choi 2000, Section 3.3).

    Returns ``(splits, density)``: ``splits[j]`` is the sentence position b (boundary before sentence b) added at
    step j+1, and ``density[m]`` is D with m+1 segments (``density[0]`` for the whole text).
    """
    rk = np.asarray(rank, dtype=np.float64)
    n = rk.shape[0]
    # P[i, j] = sum of rk[:i, :j]; the square [l, r) x [l, r) sums to P[r,r] - P[l,r] - P[r,l] + P[l,l]
    P = np.zeros((n + 1, n + 1))
    P[1:, 1:] = rk.cumsum(0).cumsum(1)

    def square(lo, hi):
        return P[hi, hi] - P[lo, hi] - P[hi, lo] + P[lo, lo]

    n_steps = n - 1 if max_splits is None else min(max_splits, n - 1)
    is_boundary = np.zeros(n + 1, dtype=bool)
    is_boundary[[0, n]] = True
    pos = np.arange(1, n)                               # candidate positions
    total_s, total_a = square(0, n), float(n * n)
    density = [total_s / total_a]
    splits = []
    for _ in range(n_steps):
        b_idx = np.flatnonzero(is_boundary)
        seg = np.searchsorted(b_idx, pos, side="right") - 1   # the segment [lo, hi) containing each candidate
        lo, hi = b_idx[seg], b_idx[seg + 1]
        s_new = total_s - square(lo, hi) + square(lo, pos) + square(pos, hi)
        a_new = total_a - (hi - lo) ** 2 + (pos - lo) ** 2 + (hi - pos) ** 2
        d = np.where(is_boundary[pos], -np.inf, s_new / a_new)
        j = int(np.argmax(d))
        p = int(pos[j])
        is_boundary[p] = True
        total_s, total_a = float(s_new[j]), float(a_new[j])
        density.append(total_s / total_a)
        splits.append(p)
    return np.asarray(splits, dtype=np.int64), np.asarray(density)


_CHOI_KERNEL = np.array([1, 2, 4, 8, 4, 2, 1], dtype=np.float64) / 22.0


def choose_splits(density: np.ndarray, *, c: float = 1.2, smooth: bool = False) -> tuple[int, np.ndarray, float]:
    """Number of splits to keep from the density curve: the last step whose gradient exceeds mean + c*sd.

    Returns ``(n_splits, gradient, threshold)``.
    """
    grad = np.diff(np.asarray(density, dtype=np.float64))
    if grad.size == 0:
        return 0, grad, 0.0
    if smooth and grad.size >= _CHOI_KERNEL.size:
        grad = np.convolve(grad, _CHOI_KERNEL, mode="same")
    threshold = float(grad.mean() + c * grad.std())
    above = np.flatnonzero(grad > threshold)
    return (int(above[-1]) + 1 if above.size else 0), grad, threshold


class C99:
    """Choi's C99 segmenter (module docstring has the algorithm).

    Parameters (keyword-only, stored verbatim): ``n_segments`` (None = automatic stopping), ``mask`` (rank window,
    11), ``c`` (threshold coefficient, 1.2), ``stem`` (Porter stemming, True), ``stopwords`` (None = bundled list),
    ``smooth_gradient`` (False), ``max_sentences`` (5,000).

    ``fit(sentences)`` sets ``sim_``, ``rank_``, ``splits_`` (boundaries in the order found), ``density_``,
    ``gradient_``, ``threshold_``, ``n_splits_``, ``boundaries_`` (sorted sentence positions) and ``masses_``.
    """

    def __init__(self, *, n_segments: int | None = None, mask: int = 11, c: float = 1.2, stem: bool = True,
                 stopwords: Iterable[str] | None = None, smooth_gradient: bool = False, max_sentences: int = 5000):
        self.n_segments = n_segments
        self.mask = mask
        self.c = c
        self.stem = stem
        self.stopwords = stopwords
        self.smooth_gradient = smooth_gradient
        self.max_sentences = max_sentences

    def fit(self, sentences: Sequence[Sequence[str]]) -> "C99":
        sents = validate_sentences(sentences, who="C99")
        n = len(sents)
        if n > self.max_sentences:
            raise SegvizError(f"C99: {n} sentences exceed max_sentences={self.max_sentences} (C99 needs n x n "
                              "matrices); segment documents one at a time")
        if self.n_segments is not None and (not isinstance(self.n_segments, (int, np.integer))
                                            or not 1 <= self.n_segments <= n):
            raise SegvizError(f"C99: n_segments must be an integer in 1..{n}, got {self.n_segments!r}")
        if not isinstance(self.mask, (int, np.integer)) or self.mask < 1 or self.mask % 2 == 0:
            raise SegvizError(f"C99: mask must be an odd positive integer, got {self.mask!r}")
        stop = resolve_stopwords(self.stopwords)
        words = [_content_words(s, stop, bool(self.stem)) for s in sents]
        self.sim_ = cosine_matrix(words)
        self.rank_ = rank_transform(self.sim_, self.mask)
        max_splits = None if self.n_segments is None else self.n_segments - 1
        self.splits_, self.density_ = divisive_clustering(self.rank_, max_splits)
        if self.n_segments is None:
            self.n_splits_, self.gradient_, self.threshold_ = choose_splits(
                self.density_, c=self.c, smooth=self.smooth_gradient)
        else:
            self.n_splits_, self.gradient_, self.threshold_ = self.n_segments - 1, np.diff(self.density_), float("nan")
        self.boundaries_ = np.sort(self.splits_[:self.n_splits_])
        self.masses_ = tuple(int(m) for m in np.diff(np.r_[0, self.boundaries_, n]))
        return self

    def segment(self, sentences: Sequence[Sequence[str]]) -> tuple[int, ...]:
        """Masses (segment lengths in sentences) of the C99 segmentation of ``sentences``."""
        return self.fit(sentences).masses_

    def __repr__(self) -> str:
        return (f"C99(n_segments={self.n_segments}, mask={self.mask}, c={self.c}, stem={self.stem}, "
                f"smooth_gradient={self.smooth_gradient})")
