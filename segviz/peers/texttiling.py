"""TextTiling (Hearst 1994, 1997) at sentence level, as a peer for the paper's Section 2.1 comparison.

Hearst's algorithm, block-comparison variant, with NLTK's ``TextTilingTokenizer`` defaults (w=20, k=10,
one smoothing pass of width 2, "HC" cutoff) so that the two can be cross-checked (``tests/test_peers_texttiling``
checks gap, smoothed and depth scores and the boundary flags against NLTK's ``demo_mode`` output):

1. **Pseudo-sentences.** The word stream (see :func:`segviz.peers._text.token_words`) is cut into
   pseudo-sentences of ``w`` words; stopwords count towards ``w`` but are then dropped.
2. **Block comparison.** The score of the gap after pseudo-sentence ``g`` is the cosine between the word counts
   of the ``k`` pseudo-sentences before and the ``k`` after (fewer near the ends, as NLTK).
3. **Smoothing** by a moving average of ``smoothing_width + 1`` gaps with reflected ends (NLTK/SciPy cookbook).
4. **Depth scores** ``(lpeak - s) + (rpeak - s)``, climbing from each gap to the nearest peak on each side;
   the first and last ``clip = min(max(n_gaps // 10, 2), 5)`` gaps get depth 0 (NLTK).
5. **Boundaries** at gaps whose depth exceeds ``mean - sd/2`` (Hearst's "HC" cutoff; ``cutoff="lc"`` gives
   ``mean - sd``), taken deepest first and dropped when a deeper one lies fewer than ``min_gap`` gaps away.
6. **Snapping.** Each boundary gap ends at word ``(g + 1) * w``; it moves to the nearest sentence edge
   (earlier edge on a tie).  NLTK instead places gap ``g`` after word ``max(g, 1) * w + 1`` -- one
   pseudo-sentence early, an off-by-one in ``_normalize_boundaries`` -- and snaps to paragraph breaks of at
   least 100 characters; ``placement="nltk"`` reproduces NLTK's word position for the cross-check.

Everything is vectorised: the block sums are a banded sparse matrix times the pseudo-sentence x word count
matrix, and the peak climbs are prefix scans.  Only the greedy suppression in step 5 loops, over the
candidate gaps.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from ..errors import SegvizError
from ._text import resolve_stopwords, token_words, validate_sentences

__all__ = ["TextTiling", "block_comparison", "smooth_scores", "depth_scores", "identify_boundaries"]


def _band(n_rows: int, n_cols: int, starts: np.ndarray, stops: np.ndarray) -> sp.csr_matrix:
    """0/1 matrix whose row i has ones in columns [starts[i], stops[i])."""
    lengths = np.maximum(stops - starts, 0)
    rows = np.repeat(np.arange(n_rows), lengths)
    # column index = start of the row + position inside the run
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    cols = np.repeat(starts, lengths) + offsets
    data = np.ones(len(rows), dtype=np.float64)
    return sp.csr_matrix((data, (rows, cols)), shape=(n_rows, n_cols))


def block_comparison(counts: sp.spmatrix, k: int) -> np.ndarray:
    """Gap scores: cosine of the word counts in the blocks of ``k`` pseudo-sentences either side of each gap.

    ``counts`` is the (pseudo-sentences x words) count matrix.  Near the ends the block size shrinks to the
    number of pseudo-sentences available, exactly as NLTK's ``_block_comparison``.
    """
    counts = sp.csr_matrix(counts, dtype=np.float64)
    n_ps = counts.shape[0]
    n_gaps = n_ps - 1
    if n_gaps < 1:
        return np.zeros(0)
    g = np.arange(n_gaps)
    size = np.full(n_gaps, k)
    tail = g > n_gaps - k
    size[tail] = n_gaps - g[tail]
    head = g < k - 1                    # NLTK tests the head condition first
    size[head] = g[head] + 1
    left = _band(n_gaps, n_ps, g - size + 1, g + 1) @ counts
    right = _band(n_gaps, n_ps, g + 1, np.minimum(g + size + 1, n_ps)) @ counts
    dot = np.asarray(left.multiply(right).sum(axis=1)).ravel()
    norm = np.sqrt(np.asarray(left.multiply(left).sum(axis=1)).ravel()
                   * np.asarray(right.multiply(right).sum(axis=1)).ravel())
    out = np.zeros(n_gaps)
    ok = norm > 0
    out[ok] = dot[ok] / norm[ok]
    return out


def smooth_scores(scores: np.ndarray, width: int = 2) -> np.ndarray:
    """Moving average over ``width + 1`` gaps with the ends reflected through the end values (NLTK's smooth).

    Returns the scores unchanged when the window is below 3 or longer than the series (NLTK raises there).
    """
    x = np.asarray(scores, dtype=np.float64)
    window = int(width) + 1
    if window < 3 or x.size < window:
        return x.copy()
    s = np.r_[2 * x[0] - x[window:1:-1], x, 2 * x[-1] - x[-1:-window:-1]]
    y = np.convolve(np.ones(window) / window, s, mode="same")
    return y[window - 1:-window + 1]


def depth_scores(scores: np.ndarray) -> np.ndarray:
    """Depth of each gap below its nearest peaks: ``lpeak + rpeak - 2 * score`` (Hearst 1997, Section 5.2).

    The climb to the left continues while the scores do not decrease (NLTK's ``>=``), so ``lpeak`` is the score
    at the start of the maximal run ``s[L] >= s[L+1] >= ... >= s[i]``; likewise to the right.  The first and
    last ``clip`` gaps keep depth 0.
    """
    s = np.asarray(scores, dtype=np.float64)
    n = s.size
    depth = np.zeros(n)
    if n == 0:
        return depth
    idx = np.arange(n)
    # L(i) = i where the run breaks (s[i-1] < s[i]), else L(i-1): a running maximum of break positions.
    brk_left = np.r_[True, s[:-1] < s[1:]]
    left_start = np.maximum.accumulate(np.where(brk_left, idx, 0))
    # R(i) = i where s[i+1] < s[i] (or the end), else R(i+1): a running minimum from the right.
    brk_right = np.r_[s[1:] < s[:-1], True]
    right_end = np.minimum.accumulate(np.where(brk_right, idx, n - 1)[::-1])[::-1]
    clip = min(max(n // 10, 2), 5)
    inner = slice(clip, n - clip) if n > 2 * clip else slice(0, 0)
    depth[inner] = (s[left_start] + s[right_end] - 2 * s)[inner]
    return depth


def identify_boundaries(depth: np.ndarray, *, cutoff: str = "hc", min_gap: int = 4) -> np.ndarray:
    """Boolean flag per gap: depth above the cutoff, deepest first, none within ``min_gap - 1`` of a deeper one.

    ``cutoff="hc"``: mean - sd/2 (Hearst's default); ``"lc"``: mean - sd.  Ties in depth go to the later gap,
    as NLTK's reversed sort does.
    """
    d = np.asarray(depth, dtype=np.float64)
    flags = np.zeros(d.size, dtype=bool)
    if d.size == 0:
        return flags
    mean, sd = d.mean(), d.std()
    threshold = mean - (sd / 2.0 if cutoff == "hc" else sd)
    order = np.lexsort((-np.arange(d.size), -d))     # depth descending, then index descending
    candidates = order[d[order] > threshold]
    reach = min_gap - 1
    for i in candidates:                               # greedy non-maximum suppression over candidates only
        if not flags[max(0, i - reach):i + reach + 1].any():
            flags[i] = True
    return flags


class TextTiling:
    """Hearst's TextTiling as a sentence-level segmenter (module docstring has the algorithm).

    Parameters (keyword-only, stored verbatim): ``w`` pseudo-sentence size in words, ``k`` block size in
    pseudo-sentences, ``smoothing_width``, ``cutoff`` ("hc" or "lc"), ``min_gap`` (suppression distance in gaps),
    ``stopwords`` (None = bundled list), ``placement`` ("hearst" or "nltk", see step 6).

    ``fit(sentences)`` computes ``gap_scores_``, ``smoothed_scores_``, ``depth_scores_``, ``gap_flags_``,
    ``boundaries_`` (sentence positions b: a boundary before sentence b) and ``masses_``; ``segment`` returns
    the masses.
    """

    def __init__(self, *, w: int = 20, k: int = 10, smoothing_width: int = 2, cutoff: str = "hc",
                 min_gap: int = 4, stopwords: Iterable[str] | None = None, placement: str = "hearst"):
        self.w = w
        self.k = k
        self.smoothing_width = smoothing_width
        self.cutoff = cutoff
        self.min_gap = min_gap
        self.stopwords = stopwords
        self.placement = placement

    def _check_params(self) -> None:
        for name in ("w", "k", "min_gap"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise SegvizError(f"TextTiling: {name} must be a positive integer, got {v!r}")
        if not isinstance(self.smoothing_width, (int, np.integer)) or self.smoothing_width < 0:
            raise SegvizError(f"TextTiling: smoothing_width must be a non-negative integer, got {self.smoothing_width!r}")
        if self.cutoff not in ("hc", "lc"):
            raise SegvizError(f"TextTiling: cutoff must be 'hc' or 'lc', got {self.cutoff!r}")
        if self.placement not in ("hearst", "nltk"):
            raise SegvizError(f"TextTiling: placement must be 'hearst' or 'nltk', got {self.placement!r}")

    def fit(self, sentences: Sequence[Sequence[str]]) -> TextTiling:
        self._check_params()
        sents = validate_sentences(sentences, who="TextTiling")
        stop = resolve_stopwords(self.stopwords)
        n = len(sents)
        words_per_sentence = []
        words: list[str] = []
        for s in sents:
            ws = [w for t in s for w in token_words(t)]
            words_per_sentence.append(len(ws))
            words.extend(ws)
        self.n_sentences_ = n
        self.n_words_ = len(words)
        # word -> pseudo-sentence, stopwords removed *after* the division (they still count towards w)
        ps_of_word = np.arange(len(words)) // self.w
        n_ps = int(ps_of_word[-1]) + 1 if words else 0
        keep = np.fromiter((w not in stop for w in words), dtype=bool, count=len(words))
        vocab: dict[str, int] = {}
        ids = np.fromiter((vocab.setdefault(w, len(vocab)) for w, kp in zip(words, keep) if kp),
                          dtype=np.int64, count=int(keep.sum()))
        counts = sp.csr_matrix((np.ones(ids.size), (ps_of_word[keep], ids)), shape=(n_ps, max(len(vocab), 1)))
        self.gap_scores_ = block_comparison(counts, self.k)
        self.smoothed_scores_ = smooth_scores(self.gap_scores_, self.smoothing_width)
        self.depth_scores_ = depth_scores(self.smoothed_scores_)
        self.gap_flags_ = identify_boundaries(self.depth_scores_, cutoff=self.cutoff, min_gap=self.min_gap)
        self.boundaries_ = self._snap(np.flatnonzero(self.gap_flags_), np.asarray(words_per_sentence))
        self.masses_ = tuple(int(m) for m in np.diff(np.r_[0, self.boundaries_, n]))
        return self

    def _snap(self, gaps: np.ndarray, words_per_sentence: np.ndarray) -> np.ndarray:
        """Move each boundary gap to the nearest sentence edge, in words (earlier edge on ties)."""
        n = words_per_sentence.size
        if gaps.size == 0 or n < 2:
            return np.zeros(0, dtype=np.int64)
        if self.placement == "hearst":
            target = (gaps + 1) * self.w                 # the gap after pseudo-sentence g
        else:
            target = np.maximum(gaps, 1) * self.w + 1    # where NLTK's _normalize_boundaries puts it
        edges = np.cumsum(words_per_sentence)[:-1]       # words before sentence b, for b = 1..n-1
        pos = np.searchsorted(edges, target)             # first edge >= target
        lo = np.clip(pos - 1, 0, n - 2)
        hi = np.clip(pos, 0, n - 2)
        pick = np.where(np.abs(edges[hi] - target) < np.abs(target - edges[lo]), hi, lo)
        # several sentences can share a word offset (sentences without words): take the first of them
        first = np.searchsorted(edges, edges[pick], side="left")
        return np.unique(first + 1).astype(np.int64)

    def segment(self, sentences: Sequence[Sequence[str]]) -> tuple[int, ...]:
        """Masses (segment lengths in sentences) of the TextTiling segmentation of ``sentences``."""
        return self.fit(sentences).masses_

    def __repr__(self) -> str:
        return (f"TextTiling(w={self.w}, k={self.k}, smoothing_width={self.smoothing_width}, "
                f"cutoff={self.cutoff!r}, min_gap={self.min_gap}, placement={self.placement!r})")
