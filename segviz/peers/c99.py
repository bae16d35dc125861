"""C99 (Choi 2000, "Advances in domain independent linear text segmentation"), vectorised.

1. **Similarity.** Each sentence is a vector of term counts over its content words (tokens with a letter, not a
   stopword, Porter-stemmed when ``stem=True`` as Choi did); ``sim_`` is the cosine matrix.
2. **Rank transform.** Each element is replaced by the fraction of its neighbours in an ``mask x mask`` window
   (11 x 11 for C99) whose similarity is lower; near the edges only the neighbours inside the matrix are
   examined (excluding the element itself), as Choi's release does.  120 shifted comparisons of whole bands of
   rows, no loops over elements.
3. **Divisive clustering.** Starting from one segment, each step adds one boundary to increase the inside
   density ``D = sum_k s_k / sum_k a_k`` (``s_k`` the rank sum of segment k's square on the diagonal, ``a_k`` its
   area), down to single sentences.  ``split="choi"`` (default) follows Choi's C99 release: every segment
   proposes the split that maximises the density of its own two halves, and the step takes the proposal that
   maximises D; ``split="global"`` takes the best of *all* candidate positions for D.  Region sums come from a
   2-D prefix sum of the rank matrix, and after each step only the candidates inside the split segment are
   re-scored, so a step is one O(n) argmax.
4. **Stopping.** With ``n_segments`` given, the first ``n_segments - 1`` splits are kept.  Otherwise the
   gradient ``dD(m) = D(m) - D(m-1)`` is smoothed with the kernel ``[1, 2, 4, 8, 4, 2, 1]`` (renormalised at the
   ends) and thresholded at ``mean + c * sd`` with c = 1.2; the splits made before the gradient first falls to
   the threshold are kept (``stop="leading"``).  These are the choices of Choi's release (its ``C99.java``);
   ``smooth_gradient=False`` and ``stop="last"`` (keep up to the last step above the threshold, as the PyPI
   ``uts`` package) are the alternatives measured in docs/peers.md.

The matrices are dense ``n x n`` (similarity, padded copy, rank, prefix sums: ~1 GB at n = 5,000);
``max_sentences`` (default 5,000) refuses larger inputs with a clear error instead of exhausting memory.  C99 is
meant for documents, not whole corpora (Choi's documents have ~70 sentences).
"""
from __future__ import annotations

import bisect
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from ..errors import SegvizError
from ._text import resolve_stopwords, validate_sentences

__all__ = ["C99", "preload_stemmer", "cosine_matrix", "rank_transform", "divisive_clustering", "choose_splits", "smooth_choi"]


@lru_cache(maxsize=1)
def _porter():
    try:
        from nltk.stem.porter import PorterStemmer   # pure Python, no data download
    except ImportError as exc:  # pragma: no cover - nltk is a declared dependency
        raise SegvizError("C99 with stem=True needs nltk (pip install nltk), or pass stem=False") from exc
    stemmer = PorterStemmer()
    return lru_cache(maxsize=200_000)(stemmer.stem)


def preload_stemmer() -> None:
    """Import the Porter stemmer C99 stems with now rather than on its first sentence: importing nltk takes
    0.6-0.8 s, which a caller can spend while it waits for something else (the app's model child, while the
    corpus is read)."""
    _porter()


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
    lower = np.zeros((n, n), dtype=np.int16 if mask * mask < 2**15 else np.int32)
    # 120 shifted comparisons, done a band of rows at a time so that the operands stay in cache (3x faster
    # than whole-matrix passes at n = 3,000, where the loop is memory-bound)
    rows = max(1, (1 << 18) // max(n, 1))
    for i0 in range(0, n, rows):
        i1 = min(n, i0 + rows)
        s_band, lower_band = s[i0:i1], lower[i0:i1]
        buf = np.empty((i1 - i0, n), dtype=bool)
        for di in range(mask):
            shifted_rows = padded[i0 + di:i1 + di]
            for dj in range(mask):
                if di == r and dj == r:
                    continue
                np.less(shifted_rows[:, dj:dj + n], s_band, out=buf)
                lower_band += buf
    # neighbours examined = (rows inside the window) x (cols inside the window) - the element itself
    inside = np.minimum(np.arange(n), r) + np.minimum(np.arange(n)[::-1], r) + 1
    examined = np.outer(inside, inside) - 1
    return lower / np.maximum(examined, 1)


def divisive_clustering(rank: np.ndarray, max_splits: int | None = None, *,
                        split: str = "choi") -> tuple[np.ndarray, np.ndarray]:
    """Greedy divisive clustering maximising the inside density (Choi 2000, Section 3.3).

    ``split="global"``: each step adds the boundary, among all candidates, that maximises the overall density D.
    ``split="choi"`` (Choi's C99 release): each segment proposes its own best split -- the one maximising the
    density of its two halves alone (ties to the later position) -- and the step takes the proposal that
    maximises D (ties to the later segment).

    Returns ``(splits, density)``: ``splits[j]`` is the sentence position b (boundary before sentence b) added at
    step j+1, and ``density[m]`` is D with m+1 segments (``density[0]`` for the whole text).
    """
    if split not in ("choi", "global"):
        raise SegvizError(f"C99: split must be 'choi' or 'global', got {split!r}")
    rk = np.asarray(rank, dtype=np.float64)
    n = rk.shape[0]
    # P[i, j] = sum of rk[:i, :j]; the square [l, r) x [l, r) sums to P[r,r] - P[l,r] - P[r,l] + P[l,l]
    P = np.zeros((n + 1, n + 1))
    P[1:, 1:] = rk.cumsum(0).cumsum(1)

    def square(lo, hi):
        return P[hi, hi] - P[lo, hi] - P[hi, lo] + P[lo, lo]

    n_steps = n - 1 if max_splits is None else min(max_splits, n - 1)
    pos = np.arange(1, n)                               # candidate positions b = 1..n-1
    total_s, total_a = square(0, n), float(n * n)
    # change in (rank sum, area) if b were added, given the segment [lo, hi) that currently contains it; only
    # the candidates inside the segment just split need recomputing after each step
    gain_s = square(0, pos) + square(pos, n) - total_s
    gain_a = (pos.astype(np.float64) ** 2 + (n - pos) ** 2 - n * n)
    # Choi's rule: only each segment's own best split is eligible
    eligible = np.ones(n - 1, dtype=bool) if split == "global" else np.zeros(n - 1, dtype=bool)

    def propose(a: int, b: int) -> None:
        # the best split of segment [a, b) by the density of its two halves alone (Choi's bestBoundary_max)
        if b - a < 2:
            return
        q = pos[a:b - 1]
        local = (gain_s[a:b - 1] + square(a, b)) / ((q - a) ** 2 + (b - q) ** 2)
        best = local.size - 1 - int(np.argmax(local[::-1]))   # ties to the later position
        if not local[best] > 0:                                # Choi starts from D_max = 0 and B = start
            best = 0
        eligible[a + best] = True

    if split == "choi":
        propose(0, n)
    boundaries = [0, n]
    density = [total_s / total_a]
    splits = []
    for _ in range(n_steps):
        d = np.where(eligible, (total_s + gain_s) / (total_a + gain_a), -np.inf)
        j = d.size - 1 - int(np.argmax(d[::-1])) if split == "choi" else int(np.argmax(d))
        p = int(pos[j])
        total_s += gain_s[j]
        total_a += gain_a[j]
        density.append(total_s / total_a)
        splits.append(p)
        k = bisect.bisect(boundaries, p)
        lo, hi = boundaries[k - 1], boundaries[k]
        boundaries.insert(k, p)
        for a, b in ((lo, p), (p, hi)):                  # candidates strictly inside the two new segments
            q = pos[a:b - 1]                             # positions a+1 .. b-1 (pos[i] == i + 1)
            gain_s[a:b - 1] = square(a, q) + square(q, b) - square(a, b)
            gain_a[a:b - 1] = (q - a) ** 2 + (b - q) ** 2 - (b - a) ** 2
            if split == "choi":
                eligible[a:b - 1] = False
                propose(a, b)
        gain_s[j], gain_a[j] = -np.inf, 0.0             # a boundary cannot be added twice
        eligible[j] = False
    return np.asarray(splits, dtype=np.int64), np.asarray(density)


_CHOI_KERNEL = np.array([1, 2, 4, 8, 4, 2, 1], dtype=np.float64)


def smooth_choi(values: np.ndarray) -> np.ndarray:
    """Convolution with ``[1, 2, 4, 8, 4, 2, 1]``, renormalised by the weights inside the series at the ends
    (Choi's ``Statx.convolve``)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return v.copy()
    num = np.convolve(v, _CHOI_KERNEL, mode="full")[3:3 + v.size]
    den = np.convolve(np.ones_like(v), _CHOI_KERNEL, mode="full")[3:3 + v.size]
    return num / den


def choose_splits(density: np.ndarray, *, c: float = 1.2, smooth: bool = True,
                  stop: str = "leading") -> tuple[int, np.ndarray, float]:
    """Number of splits to keep from the density curve (Choi 2000, Section 3.4).

    The gradient ``dD`` (optionally smoothed by :func:`smooth_choi`) is thresholded at ``mean + c * sd``;
    ``stop="leading"`` keeps the steps before the gradient first drops to the threshold (Choi's release),
    ``stop="last"`` keeps the steps up to the last one above it.  Returns ``(n_splits, gradient, threshold)``.
    """
    if stop not in ("leading", "last"):
        raise SegvizError(f"C99: stop must be 'leading' or 'last', got {stop!r}")
    grad = np.diff(np.asarray(density, dtype=np.float64))
    if grad.size == 0:
        return 0, grad, 0.0
    if smooth:
        grad = smooth_choi(grad)
    threshold = float(grad.mean() + c * grad.std())
    above = grad > threshold
    if stop == "last":
        idx = np.flatnonzero(above)
        return (int(idx[-1]) + 1 if idx.size else 0), grad, threshold
    return (int(np.argmin(above)) if not above.all() else int(above.size)), grad, threshold


class C99:
    """Choi's C99 segmenter (module docstring has the algorithm).

    Parameters (keyword-only, stored verbatim): ``n_segments`` (None = automatic stopping), ``mask`` (rank window,
    11), ``c`` (threshold coefficient, 1.2), ``stem`` (Porter stemming, True), ``stopwords`` (None = bundled list),
    ``split`` ("choi" or "global"), ``smooth_gradient`` (True), ``stop`` ("leading" or "last"), ``max_sentences``
    (5,000).  The defaults are Choi's C99 release.

    ``fit(sentences)`` sets ``sim_``, ``rank_``, ``splits_`` (boundaries in the order found), ``density_``,
    ``gradient_``, ``threshold_``, ``n_splits_``, ``boundaries_`` (sorted sentence positions) and ``masses_``.
    """

    def __init__(self, *, n_segments: int | None = None, mask: int = 11, c: float = 1.2, stem: bool = True,
                 stopwords: Iterable[str] | None = None, split: str = "choi", smooth_gradient: bool = True,
                 stop: str = "leading", max_sentences: int = 5000):
        self.n_segments = n_segments
        self.mask = mask
        self.c = c
        self.stem = stem
        self.stopwords = stopwords
        self.split = split
        self.smooth_gradient = smooth_gradient
        self.stop = stop
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
        self.splits_, self.density_ = divisive_clustering(self.rank_, max_splits, split=self.split)
        if self.n_segments is None:
            self.n_splits_, self.gradient_, self.threshold_ = choose_splits(
                self.density_, c=self.c, smooth=self.smooth_gradient, stop=self.stop)
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
