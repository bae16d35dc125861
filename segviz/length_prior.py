"""A decision rule for long segments: dynamic programming over the boundary probabilities with a length prior.

The paper's rule (Section 7, :mod:`segviz.decode`) places a boundary wherever q(yes) exceeds alpha, at least
epsilon sentences apart.  When segments run to a hundred sentences or more, a separation of a few sentences does
not stop the rule from cutting a long segment wherever one sentence looks like a fresh start.  This rule (beyond
the paper) chooses the whole segmentation at once:

.. math::

    \\hat B = \\arg\\max_B \\sum_{b \\in B} \\bigl(\\operatorname{logit} q_b + \\beta\\bigr)
              + \\sum_{\\text{segments } s} \\log \\pi(|s|)

where ``logit q_b`` is the boundary model's log-odds at gap ``b`` (so the first sum is the log-likelihood ratio
of the chosen boundaries against none, Section 4), ``beta`` a bias tuned like alpha, and ``pi`` a discretised
gamma prior on segment lengths with mean ``m`` (the mean training segment length, 1/mu) and shape ``k`` (tuned
like epsilon; ``k = 1`` is memoryless, larger ``k`` prefers lengths near ``m``):
``log pi(L) = k log(k/m) - lgamma(k) + (k - 1) log L - k L / m``.

The exact maximiser is found by dynamic programming over segment ends, O(n * L_max) with
``L_max = min(n, 5 m + 10)`` (a segment longer than five means is cut: its prior weight is below e^-5 for any
``k >= 1``).

A segment's length ``L`` may also be measured in words (``sizes``: each sentence's word count): the prior then
holds in words, with ``m`` a mean in words.  A book's chapters vary in length from one author to the next somewhat
less in words than in sentences, because an author of long sentences writes fewer of them to a chapter (the
standard deviation of the logarithm of a book's mean chapter length is 0.51 in sentences and 0.46 in words over
the 15 training books of the ``chapters`` protocol, 0.34 and 0.30 without Heart of Darkness's three chapters;
0.57 and 0.45 over all 26 books).  In words the prior is a density over lengths that only sentence ends can take,
so it is off from a probability by a constant per segment, which the bias absorbs.

:class:`segviz.rules.LengthPriorRule` holds ``(m, k, beta)`` and tunes ``(k, beta)`` on held-out data
(:func:`segviz.tuning.tune_rule`).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .errors import SegvizError

__all__ = ["decode_length_prior", "length_prior_gains", "check_sizes", "DEFAULT_SHAPES", "DEFAULT_BIASES",
           "log_length_prior"]

DEFAULT_SHAPES = (1.0, 2.0, 4.0, 8.0)
DEFAULT_BIASES = tuple(float(b) for b in np.round(np.arange(-4.0, 4.01, 0.5), 2))
#: probabilities are clipped to [CLIP, 1 - CLIP] before taking log-odds (a model at its lambda cap says 1e-9)
CLIP = 1e-6


def log_length_prior(lengths: np.ndarray, mean_length: float, shape: float) -> np.ndarray:
    """``log pi(L)`` of the discretised gamma prior (see the module docstring) for each length ``L >= 1``."""
    L = np.asarray(lengths, dtype=np.float64)
    k, m = float(shape), float(mean_length)
    return k * math.log(k / m) - math.lgamma(k) + (k - 1.0) * np.log(L) - k * L / m


@njit(cache=True)
def _segment_ends(back: np.ndarray, n: int) -> np.ndarray:
    """Boundary indicator (length n+1, entry j = a segment ends before sentence j) from the DP's back-pointers
    (``back[j]``: where the best segment ending at j starts)."""
    ends = np.zeros(n + 1, dtype=np.bool_)
    j = n
    while j > 0:
        i = back[j]
        if i > 0:
            ends[i] = True
        j = i
    return ends


@njit(cache=True)
def _best_segmentation(gains: np.ndarray, prior: np.ndarray, n: int, max_length: int) -> np.ndarray:
    """Boundary indicator (length n+1, entry j = a segment ends before sentence j) of the DP maximiser."""
    best = np.full(n + 1, -np.inf)
    back = np.zeros(n + 1, dtype=np.int64)
    best[0] = 0.0
    for j in range(1, n + 1):
        gain = gains[j] if j < n else 0.0
        lo = j - max_length
        if lo < 0:
            lo = 0
        top = -np.inf
        arg = lo
        for i in range(lo, j):
            v = best[i] + prior[j - i]
            if v > top:
                top = v
                arg = i
        best[j] = top + gain
        back[j] = arg
    return _segment_ends(back, n)


@njit(cache=True)
def _best_segmentation_sized(gains: np.ndarray, cumulative: np.ndarray, prior: np.ndarray, n: int) -> np.ndarray:
    """:func:`_best_segmentation` with each segment's length the sum of its sentences' sizes (``cumulative``:
    length n+1, their running sum from 0) and ``prior`` indexed by that sum; a segment may run past the table's
    end only as one sentence (at the table's last entry)."""
    max_size = prior.size - 1
    best = np.full(n + 1, -np.inf)
    back = np.zeros(n + 1, dtype=np.int64)
    best[0] = 0.0
    for j in range(1, n + 1):
        gain = gains[j] if j < n else 0.0
        top = -np.inf
        arg = j - 1
        i = j - 1
        while i >= 0:
            length = cumulative[j] - cumulative[i]
            if length > max_size:
                if i < j - 1:
                    break
                length = max_size
            v = best[i] + prior[length]
            if v > top:
                top = v
                arg = i
            i -= 1
        best[j] = top + gain
        back[j] = arg
    return _segment_ends(back, n)


def _check(probs, mean_length: float, shape: float, bias: float) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 1:
        raise SegvizError(f"boundary probabilities must be a 1-D array, got shape {p.shape}")
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise SegvizError("boundary probabilities must lie in [0, 1]")
    if not (math.isfinite(mean_length) and mean_length >= 1):
        raise SegvizError(f"the mean segment length must be a number >= 1, got {mean_length}")
    if not (math.isfinite(shape) and shape > 0):
        raise SegvizError(f"the length prior's shape must be a positive number, got {shape}")
    if not math.isfinite(bias):
        raise SegvizError(f"the boundary bias must be a finite number, got {bias}")
    return p


def length_prior_gains(probs: np.ndarray) -> np.ndarray:
    """The log-odds logit q_b of each gap, the probabilities clipped to [CLIP, 1 - CLIP] first."""
    q = np.clip(np.asarray(probs, dtype=np.float64), CLIP, 1.0 - CLIP)
    return np.log(q) - np.log1p(-q)


def check_sizes(sizes, n: int) -> np.ndarray:
    """Each of ``n`` sentences' size (its word count) as whole numbers of at least 1 (an empty sentence counts
    one)."""
    s = np.asarray(sizes, dtype=np.float64)
    if s.shape != (n,):
        raise SegvizError(f"sentence sizes must be one number per sentence ({n}), got shape {s.shape}")
    if s.size and (not np.all(np.isfinite(s)) or s.min() < 0 or s.max() > 1e6):
        raise SegvizError("sentence sizes must be whole numbers from 0 to 10^6")
    return np.maximum(np.rint(s), 1.0).astype(np.int64)


def decode_length_prior(probs, *, mean_length: float, shape: float = 2.0, bias: float = 0.0,
                        max_length: int | None = None, sizes=None) -> np.ndarray:
    """Boundary positions b (sorted, 1..n-1) of the length-prior rule for gap probabilities ``probs``; with
    ``sizes`` (one per sentence, n = len(probs) + 1) segment lengths, ``mean_length`` and ``max_length`` are
    sums of sizes (words) instead of sentence counts."""
    p = _check(probs, mean_length, shape, bias)
    n = p.size + 1
    gains = np.zeros(n + 1)
    gains[1:n] = length_prior_gains(p) + bias
    if sizes is None:
        default_limit = min(n, math.ceil(5 * mean_length) + 10)
    else:
        cumulative = np.concatenate([[0], np.cumsum(check_sizes(sizes, n))])
        default_limit = min(int(cumulative[-1]), math.ceil(5 * mean_length + 10 * cumulative[-1] / n))
    limit = int(default_limit) if max_length is None else int(max_length)
    if limit < 1:
        raise SegvizError(f"max_length must be >= 1, got {max_length}")
    prior = np.full(limit + 1, -np.inf)
    prior[1:] = log_length_prior(np.arange(1, limit + 1), mean_length, shape)
    ends = _best_segmentation(gains, prior, n, limit) if sizes is None else \
        _best_segmentation_sized(gains, cumulative, prior, n)
    return np.flatnonzero(ends[1:n]) + 1
