"""C99 (Choi 2000, "Advances in domain independent linear text segmentation"), for documents and whole books.

1. **Similarity.** Each sentence is a vector of term counts over its content words (tokens with a letter, not a
   stopword, Porter-stemmed when ``stem=True`` as Choi did); ``sim_`` is the cosine matrix.
2. **Rank transform.** Each element is replaced by the fraction of its neighbours in an ``mask x mask`` window
   (11 x 11 for C99) whose similarity is lower; near the edges only the neighbours inside the matrix are
   examined (excluding the element itself), as Choi's release does.
3. **Divisive clustering.** Starting from one segment, each step adds one boundary to increase the inside
   density ``D = sum_k s_k / sum_k a_k`` (``s_k`` the rank sum of segment k's square on the diagonal, ``a_k`` its
   area), down to single sentences.  ``split="choi"`` (default) follows Choi's C99 release: every segment
   proposes the split that maximises the density of its own two halves, and the step takes the proposal that
   maximises D; ``split="global"`` takes the best of *all* candidate positions for D.  Region sums come from a
   2-D prefix sum of the rank matrix, and after each step only the candidates inside the split segment are
   re-scored, so a step is one O(n) scan (compiled).
4. **Stopping.** With ``n_segments`` given, the first ``n_segments - 1`` splits are kept.  Otherwise the
   gradient ``dD(m) = D(m) - D(m-1)`` is smoothed with the kernel ``[1, 2, 4, 8, 4, 2, 1]`` (renormalised at the
   ends) and thresholded at ``mean + c * sd`` with c = 1.2; the splits made before the gradient first falls to
   the threshold are kept (``stop="leading"``).  These are the choices of Choi's release (its ``C99.java``);
   ``smooth_gradient=False`` and ``stop="last"`` (keep up to the last step above the threshold, as the PyPI
   ``uts`` package) are the alternatives measured in docs/peers.md.

**Memory.**  C99 is quadratic by nature, but of all its n x n arrays the clustering needs only one: the prefix
sums ``P`` of the rank matrix, float64 ((n+1)^2 x 8 bytes: 0.8 GB at 10,000 sentences, 3.2 GB at 20,000).
They stay float64 because region sums are differences of entries up to ~n^2/2 and ties between candidate
splits are decided on them (float32 would leave no correct digit for small segments of a long text).  The
similarity matrix is never held whole: it is computed a band of rows at a time, ranked, and folded into ``P``
row by row; the rank numerators (counts of lower neighbours, at most 120) are kept as uint8 so that ``rank_``
can be given on request.  ``sim_`` and ``rank_`` are computed when read (dense float64, 8 n^2 bytes each).
Every value is the same float as the dense implementation this replaced (same sparse products, same division,
same sequential cumulative sums, same comparison order in the clustering), so segmentations are identical
(tests/test_peers_c99.py checks frozen outputs and the old code on random inputs).  A text whose ``P`` would
not fit in the memory available is refused with a clear error rather than left to exhaust it; ``max_sentences``
sets an explicit limit as well.  Times on whole books are in docs/peers.md.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import scipy.sparse as sp
from numba import njit

from ..errors import SegvizError
from ._text import resolve_stopwords, validate_sentences

__all__ = ["C99", "preload_stemmer", "content_words", "cosine_matrix", "rank_transform", "divisive_clustering", "choose_splits", "smooth_choi",
           "memory_needed"]


@lru_cache(maxsize=1)
def _porter():
    try:
        from nltk.stem.porter import PorterStemmer  # pure Python, no data download
    except ImportError as exc:  # pragma: no cover - nltk is a declared dependency
        raise SegvizError("C99 with stem=True needs nltk (pip install nltk), or pass stem=False") from exc
    stemmer = PorterStemmer()
    return lru_cache(maxsize=200_000)(stemmer.stem)


def preload_stemmer() -> None:
    """Import the Porter stemmer C99 stems with now rather than on its first sentence: importing nltk takes
    0.6-0.8 s, which a caller can spend while it waits for something else (the app's model child, while the
    corpus is read)."""
    _porter()


def content_words(sentence: Sequence[str], stop: frozenset[str], stem: bool) -> list[str]:
    """The words of a sentence C99 compares: not stopwords, with a letter, Porter-stemmed when ``stem``."""
    # a word must contain a letter: punctuation and numbers carry no topic (Choi removes them too)
    words = [t for t in sentence if t not in stop and any(ch.isalpha() for ch in t)]
    if stem:
        st = _porter()
        words = [st(w) for w in words]
    return words


def _unit_vectors(sentences_words: Sequence[Sequence[str]]) -> sp.csr_matrix:
    """The sentences' term-count vectors scaled to unit length (rows of zeros for sentences without words)."""
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
    return sp.csr_matrix(sp.diags(inv) @ x)


@njit(cache=True, nogil=True)
def _cosine_rows(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, lo, out):  # pragma: no cover - compiled
    """``out[i - lo] = `` row ``i`` of ``A @ B`` (CSR operands, dense rows), for ``i`` in ``lo .. lo + len(out)``.

    scipy's sparse product (SMMP) adds ``a_ik * b_kj`` into entry ``(i, j)`` in the order of row i's stored
    terms, starting from 0; so does this loop, so the rows are bit-for-bit those of ``A @ B`` -- which other rows
    take part does not matter, and the matrix never has to exist whole."""
    for li in range(out.shape[0]):
        o = out[li]
        o[:] = 0.0
        i = lo + li
        for jj in range(a_ptr[i], a_ptr[i + 1]):
            k = a_idx[jj]
            v = a_val[jj]
            for kk in range(b_ptr[k], b_ptr[k + 1]):
                o[b_idx[kk]] += v * b_val[kk]


class _CosineRows:
    """Rows of the cosine matrix of unit vectors (CSR): ``rows(lo, hi, out)`` writes rows ``lo:hi`` into ``out``.

    ``symmetric`` is true when every vector stores its terms in the same order (all ascending or all
    descending, as scipy leaves them): entries (i, j) and (j, i) then add the same products in the same order,
    so the matrix is exactly symmetric and so is its rank matrix."""

    def __init__(self, unit: sp.csr_matrix):
        self.unit = unit
        self.n = unit.shape[0]
        self.unit_t = sp.csr_matrix(unit.T)        # the operand scipy converts ``unit.T`` to in ``unit @ unit.T``
        step = np.diff(unit.indices.astype(np.int64))    # consecutive stored terms ...
        same_row = np.ones(step.size, dtype=bool)        # ... of the same vector
        starts = unit.indptr[1:-1]
        same_row[starts[(starts > 0) & (starts <= step.size)] - 1] = False
        self.symmetric = bool(np.all(step[same_row] > 0) or np.all(step[same_row] < 0))

    def __call__(self, lo: int, hi: int, out: np.ndarray) -> None:
        a, b = self.unit, self.unit_t
        _cosine_rows(a.indptr, a.indices, a.data, b.indptr, b.indices, b.data, lo, out[:hi - lo])

    def dense(self) -> np.ndarray:
        out = np.empty((self.n, self.n))
        self(0, self.n, out)
        return out


class _DenseRows:
    """Rows of a given (dense) similarity matrix, with the same interface as :class:`_CosineRows`."""

    symmetric = False       # a caller's matrix may not be: rank every element

    def __init__(self, sim: np.ndarray):
        self.sim = sim
        self.n = sim.shape[0]

    def __call__(self, lo: int, hi: int, out: np.ndarray) -> None:
        out[:hi - lo] = self.sim[lo:hi]


def cosine_matrix(sentences_words: Sequence[Sequence[str]]) -> np.ndarray:
    """Cosine similarity between the term-count vectors of the sentences (0 for sentences without words)."""
    return _CosineRows(_unit_vectors(sentences_words)).dense()


def _band_rows(n: int) -> int:
    # ~32 MB of float64 per band of similarity rows: large enough that the 2r rows a band re-reads from its
    # neighbours are a few percent of the work, small enough to be nothing next to the prefix sums
    return max(64, (1 << 22) // max(n, 1))


def _count_dtype(mask: int):
    # a count of lower neighbours is at most mask^2 - 1 (120 for C99's 11 x 11): one byte per element
    top = mask * mask - 1
    return np.uint8 if top <= 0xFF else np.uint16 if top <= 0xFFFF else np.uint32


def _inside(n: int, r: int) -> np.ndarray:
    """Rows (or columns) of the clipped window of each position: the mask clipped to the matrix."""
    ar = np.arange(n)
    return (np.minimum(ar, r) + np.minimum(ar[::-1], r) + 1).astype(np.int64)


def _padded_band(rows, i0: int, i1: int, r: int, buf: np.ndarray) -> np.ndarray:
    """Similarity rows ``i0 - r .. i1 + r`` with ``r`` columns each side, NaN outside the matrix (NaN never
    compares lower, so cells outside the matrix are not counted), in ``buf``."""
    n = rows.n
    band = buf[:i1 - i0 + 2 * r]
    lo, hi = max(0, i0 - r), min(n, i1 + r)
    band[:lo - (i0 - r)] = np.nan
    band[hi - (i0 - r):] = np.nan
    band[:, :r] = np.nan
    band[:, r + n:] = np.nan
    rows(lo, hi, band[lo - (i0 - r):hi - (i0 - r), r:r + n])
    return band


_TILE = 512   # columns per pass of the rank kernel: the mask's 11 rows of a tile stay in the L1/L2 cache


@njit(cache=True, nogil=True)
def _count_lower(band, r, out, j_start):  # pragma: no cover - compiled; checked against a brute-force rank
    """``out[i, j]`` (``j >= j_start``) = number of cells of the ``(2r+1)^2`` window around
    ``band[i + r, j + r]`` (itself excluded) that are strictly lower.  Comparisons are exact, so the order of
    the work is free."""
    m, n = out.shape
    mask = 2 * r + 1
    cnt = np.zeros(_TILE, np.int32)
    centre = np.empty(_TILE)
    for li in range(m):
        for j0 in range(j_start, n, _TILE):
            w = min(_TILE, n - j0)
            # a private copy of the centres and contiguous slices of the neighbours: this form is the one LLVM
            # vectorises (0.13 ns a comparison; indexing the band in the inner loop was 10x slower)
            centre[:w] = band[li + r, j0 + r:j0 + r + w]
            cnt[:w] = 0
            for di in range(mask):
                for dj in range(mask):
                    if di == r and dj == r:
                        continue
                    seg = band[li + di, j0 + dj:j0 + dj + w]
                    for t in range(w):
                        cnt[t] += np.int32(seg[t] < centre[t])
            for t in range(w):
                out[li, j0 + t] = cnt[t]


@njit(cache=True, nogil=True)
def _fold_prefix(counts, i0, inside, col, P):  # pragma: no cover - compiled; checked against the dense code
    """Add rank rows ``i0 ..`` (``counts / examined``) to the prefix sums: ``col`` carries the column sums of
    the rows so far, and ``P[i + 1, 1:]`` is the running sum of ``col`` along the row.  The operations and their
    order are those of ``rank.cumsum(0).cumsum(1)`` on the dense matrix (sequential accumulation), so every
    entry of ``P`` is the same float."""
    m, n = counts.shape
    for li in range(m):
        i = i0 + li
        acc = 0.0
        for j in range(n):
            e = inside[i] * inside[j] - 1
            if e < 1:
                e = 1
            col[j] = col[j] + counts[li, j] / e
            acc = acc + col[j]
            P[i + 1, j + 1] = acc


@njit(cache=True, nogil=True)
def _fold_rank_prefix(rank, P):  # pragma: no cover - compiled; checked against the dense code
    """``P[1:, 1:] = rank.cumsum(0).cumsum(1)`` with the same sequential accumulation, without the two n x n
    temporaries numpy would make."""
    n = rank.shape[0]
    col = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for j in range(n):
            col[j] = col[j] + rank[i, j]
            acc = acc + col[j]
            P[i + 1, j + 1] = acc


def _zeroed_prefix(n: int) -> np.ndarray:
    P = np.empty((n + 1, n + 1))
    P[0, :] = 0.0
    P[:, 0] = 0.0
    return P


def _check_mask(mask) -> int:
    if isinstance(mask, bool) or not isinstance(mask, (int, np.integer)) or mask < 1 or mask % 2 == 0:
        raise SegvizError(f"C99: mask must be an odd positive integer, got {mask!r}")
    return int(mask)


def _rank_counts(rows, mask: int, P: np.ndarray | None = None) -> np.ndarray:
    """Counts of lower neighbours for the similarity matrix given by ``rows`` (:class:`_CosineRows` or
    :class:`_DenseRows`), a band of rows at a time; with ``P`` given, the rank rows are folded into its prefix
    sums as they are made."""
    n, r = rows.n, mask // 2
    counts = np.empty((n, n), dtype=_count_dtype(mask))
    inside = _inside(n, r)
    col = np.zeros(n)
    step = _band_rows(n)
    buf = np.empty((min(step, n) + 2 * r, n + 2 * r))
    for i0 in range(0, n, step):
        i1 = min(n, i0 + step)
        band = _padded_band(rows, i0, i1, r, buf)
        if rows.symmetric:
            # a symmetric matrix has a symmetric rank: count right of the band's diagonal block only (half the
            # comparisons, the bulk of the work) and copy the left part from the rows counted before
            _count_lower(band, r, counts[i0:i1], i0)
            counts[i0:i1, :i0] = counts[:i0, i0:i1].T
        else:
            _count_lower(band, r, counts[i0:i1], 0)
        if P is not None:
            _fold_prefix(counts[i0:i1], i0, inside, col, P)
    return counts


def _rank_from_counts(counts: np.ndarray, mask: int) -> np.ndarray:
    # neighbours examined = (rows inside the window) x (cols inside the window) - the element itself
    inside = _inside(counts.shape[0], mask // 2)
    examined = np.outer(inside, inside) - 1
    return counts / np.maximum(examined, 1)


def rank_transform(sim: np.ndarray, mask: int = 11) -> np.ndarray:
    """Choi's rank matrix: for each element, the fraction of examined neighbours (in a ``mask x mask`` window
    clipped to the matrix, excluding the element itself) whose value is strictly lower."""
    s = np.asarray(sim, dtype=np.float64)
    mask = _check_mask(mask)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise SegvizError(f"C99: the similarity matrix must be square, got shape {s.shape}")
    return _rank_from_counts(_rank_counts(_DenseRows(s), mask), mask)


@njit(cache=True, nogil=True)
def _square(P, lo, hi):  # pragma: no cover - compiled
    # the rank sum of [lo, hi) x [lo, hi), evaluated in the dense code's order (left to right)
    return P[hi, hi] - P[lo, hi] - P[hi, lo] + P[lo, lo]


@njit(cache=True, nogil=True)
def _propose(P, gain_s, eligible, a, b):  # pragma: no cover - compiled
    # the best split of segment [a, b) by the density of its two halves alone (Choi's bestBoundary_max)
    if b - a < 2:
        return
    whole = _square(P, a, b)
    best, best_v = 0, -np.inf
    for k in range(b - a - 1):
        q = a + 1 + k
        v = (gain_s[a + k] + whole) / ((q - a) ** 2 + (b - q) ** 2)
        if v >= best_v:                                    # ties to the later position
            best, best_v = k, v
    if not best_v > 0:                                     # Choi starts from D_max = 0 and B = start
        best = 0
    eligible[a + best] = True


@njit(cache=True, nogil=True)
def _cluster(P, n_steps, choi):  # pragma: no cover - compiled; checked against the release transcription
    """The divisive clustering of :func:`divisive_clustering` on the prefix sums ``P``.

    A step scans the eligible candidates (O(n)) and re-scores those of the segment it splits (O(segment)); the
    arithmetic is the dense implementation's, term by term, so the choices (ties included) are the same."""
    n = P.shape[0] - 1
    gain_s = np.empty(max(n - 1, 0))
    gain_a = np.empty(max(n - 1, 0))
    seg_lo = np.zeros(max(n - 1, 0), np.int64)           # the segment [lo, hi) holding candidate q = k + 1
    seg_hi = np.full(max(n - 1, 0), n, np.int64)
    total_s = _square(P, 0, n)
    total_a = float(n * n)
    for k in range(n - 1):
        p = k + 1
        gain_s[k] = _square(P, 0, p) + _square(P, p, n) - total_s
        gain_a[k] = float(p) ** 2 + (n - p) ** 2 - n * n
    eligible = np.zeros(max(n - 1, 0), np.bool_)
    if choi:
        _propose(P, gain_s, eligible, 0, n)
    else:
        eligible[:] = True
    splits = np.empty(n_steps, np.int64)
    density = np.empty(n_steps + 1)
    density[0] = total_s / total_a
    for step in range(n_steps):
        j = n - 2 if choi else 0                          # numpy's argmax when every score is -inf
        best = -np.inf
        for k in range(n - 1):
            if eligible[k]:
                d = (total_s + gain_s[k]) / (total_a + gain_a[k])
                if d > best or (choi and d == best):       # choi: ties to the later segment; global: earliest
                    best, j = d, k
        p = j + 1
        total_s += gain_s[j]
        total_a += gain_a[j]
        density[step + 1] = total_s / total_a
        splits[step] = p
        lo, hi = seg_lo[j], seg_hi[j]
        for a, b in ((lo, p), (p, hi)):                    # candidates strictly inside the two new segments
            whole = _square(P, a, b)
            for k in range(a, b - 1):
                q = k + 1
                gain_s[k] = _square(P, a, q) + _square(P, q, b) - whole
                gain_a[k] = (q - a) ** 2 + (b - q) ** 2 - (b - a) ** 2
                seg_lo[k], seg_hi[k] = a, b
                if choi:
                    eligible[k] = False
            if choi:
                _propose(P, gain_s, eligible, a, b)
        gain_s[j], gain_a[j] = -np.inf, 0.0               # a boundary cannot be added twice
        eligible[j] = False
    return splits, density


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
    rk = np.ascontiguousarray(rank, dtype=np.float64)
    n = rk.shape[0]
    # P[i, j] = sum of rk[:i, :j]; the square [l, r) x [l, r) sums to P[r,r] - P[l,r] - P[r,l] + P[l,l]
    P = _zeroed_prefix(n)
    _fold_rank_prefix(rk, P)
    return _clustering(P, max_splits, split)


def _clustering(P: np.ndarray, max_splits: int | None, split: str) -> tuple[np.ndarray, np.ndarray]:
    n = P.shape[0] - 1
    n_steps = n - 1 if max_splits is None else min(max_splits, n - 1)
    return _cluster(P, max(n_steps, 0), split == "choi")


def _memory_available() -> int | None:
    """Bytes of memory available to a new allocation (Linux ``MemAvailable``), None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_needed(n: int, mask: int = 11) -> int:
    """Bytes C99 holds while segmenting ``n`` sentences: the float64 prefix sums, the rank counts and one band
    of similarity rows (the sparse term vectors are small beside them)."""
    band = (_band_rows(n) + mask) * (n + mask) * 8          # the padded band of similarity rows
    return 8 * (n + 1) ** 2 + np.dtype(_count_dtype(mask)).itemsize * n * n + band


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
    """Choi's C99 segmenter (Choi 2000; the module docstring has the algorithm and its memory use).

    Parameters (keyword-only, stored verbatim): ``n_segments`` (None = automatic stopping), ``mask`` (rank window,
    11), ``c`` (threshold coefficient, 1.2), ``stem`` (Porter stemming, True), ``stopwords`` (None = bundled list),
    ``split`` ("choi" or "global"), ``smooth_gradient`` (True), ``stop`` ("leading" or "last"), ``max_sentences``
    (None = no limit but the memory available; an integer refuses longer inputs).  The defaults are Choi's C99
    release.

    ``fit(sentences)`` sets ``splits_`` (boundaries in the order found), ``density_``, ``gradient_``,
    ``threshold_``, ``n_splits_``, ``boundaries_`` (sorted sentence positions) and ``masses_``; ``sim_`` and
    ``rank_`` (n x n float64) are computed from the fitted state when read.
    """

    def __init__(self, *, n_segments: int | None = None, mask: int = 11, c: float = 1.2, stem: bool = True,
                 stopwords: Iterable[str] | None = None, split: str = "choi", smooth_gradient: bool = True,
                 stop: str = "leading", max_sentences: int | None = None):
        self.n_segments = n_segments
        self.mask = mask
        self.c = c
        self.stem = stem
        self.stopwords = stopwords
        self.split = split
        self.smooth_gradient = smooth_gradient
        self.stop = stop
        self.max_sentences = max_sentences

    def _check(self, n: int) -> None:
        """Every parameter and the input length, before any n x n work."""
        if self.max_sentences is not None:
            if (isinstance(self.max_sentences, bool) or not isinstance(self.max_sentences, (int, np.integer))
                    or self.max_sentences < 1):
                raise SegvizError(f"C99: max_sentences must be a positive integer or None, got {self.max_sentences!r}")
            if n > self.max_sentences:
                raise SegvizError(f"C99: {n} sentences exceed max_sentences={self.max_sentences}")
        if self.n_segments is not None and (isinstance(self.n_segments, bool)
                                            or not isinstance(self.n_segments, (int, np.integer))
                                            or not 1 <= self.n_segments <= n):
            raise SegvizError(f"C99: n_segments must be an integer in 1..{n}, got {self.n_segments!r}")
        _check_mask(self.mask)
        if self.split not in ("choi", "global"):
            raise SegvizError(f"C99: split must be 'choi' or 'global', got {self.split!r}")
        if self.stop not in ("leading", "last"):
            raise SegvizError(f"C99: stop must be 'leading' or 'last', got {self.stop!r}")
        need, have = memory_needed(n, int(self.mask)), _memory_available()
        if have is not None and need > have:
            # refuse now with the reason rather than be killed by the kernel half way through
            raise SegvizError(f"C99: {n} sentences need {need / 2**30:.1f} GiB (n x n prefix sums), more than the "
                              f"{have / 2**30:.1f} GiB available; segment the text in parts")

    def fit(self, sentences: Sequence[Sequence[str]]) -> C99:
        sents = validate_sentences(sentences, who="C99")
        n = len(sents)
        self._check(n)
        mask = int(self.mask)
        stop = resolve_stopwords(self.stopwords)
        self._unit = _unit_vectors([content_words(s, stop, bool(self.stem)) for s in sents])
        P = _zeroed_prefix(n)
        self._counts = _rank_counts(_CosineRows(self._unit), mask, P)
        max_splits = None if self.n_segments is None else self.n_segments - 1
        self.splits_, self.density_ = _clustering(P, max_splits, self.split)
        del P                                            # the largest array: do not keep it past the clustering
        if self.n_segments is None:
            self.n_splits_, self.gradient_, self.threshold_ = choose_splits(
                self.density_, c=self.c, smooth=self.smooth_gradient, stop=self.stop)
        else:
            self.n_splits_, self.gradient_, self.threshold_ = self.n_segments - 1, np.diff(self.density_), float("nan")
        self.boundaries_ = np.sort(self.splits_[:self.n_splits_])
        self.masses_ = tuple(int(m) for m in np.diff(np.r_[0, self.boundaries_, n]))
        return self

    @property
    def sim_(self) -> np.ndarray:
        """The cosine similarity matrix of the fitted sentences (n x n float64, computed on each read)."""
        return _CosineRows(self._fitted("_unit")).dense()

    @property
    def rank_(self) -> np.ndarray:
        """Choi's rank matrix of the fitted sentences (n x n float64, computed from the kept counts on each read)."""
        return _rank_from_counts(self._fitted("_counts"), int(self.mask))

    def _fitted(self, name: str):
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"C99 has no {name.lstrip('_')} before fit()") from None

    def segment(self, sentences: Sequence[Sequence[str]]) -> tuple[int, ...]:
        """Masses (segment lengths in sentences) of the C99 segmentation of ``sentences``."""
        return self.fit(sentences).masses_

    def __repr__(self) -> str:
        return (f"C99(n_segments={self.n_segments}, mask={self.mask}, c={self.c}, stem={self.stem}, "
                f"smooth_gradient={self.smooth_gradient})")
