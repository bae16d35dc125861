"""The decision rule of Section 7: threshold alpha, minimum separation epsilon.

A boundary is placed at every position whose model probability q(yes) exceeds
``alpha``, subject to boundaries being at least ``epsilon`` sentences apart.

Tie rule (the paper does not say): when two positions above the threshold are
closer than ``epsilon``, the one with the **higher probability wins**; the
positions are visited greedily in order of descending probability (equal
probabilities: the earlier position first), each is kept unless a kept boundary
lies within ``epsilon - 1`` sentences.  A useful consequence: the boundaries kept
at threshold ``alpha`` are exactly the boundaries kept at threshold 0 that exceed
``alpha`` (a visit only depends on higher-probability positions), so one greedy
pass per epsilon serves a whole grid of thresholds -- that is how
:class:`segviz.rules.ThresholdRule` tunes a whole grid of alpha at once.

Positions follow :mod:`segviz.features`: ``probs[r]`` belongs to the boundary
*before* sentence ``b = r + 1`` of a stream of ``n = len(probs) + 1`` sentences.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from segviz.errors import SegvizError

__all__ = ["decode", "greedy_order_keep", "greedy_order", "greedy_keep_in_order", "check_probabilities", "DEFAULT_ALPHAS",
           "DEFAULT_EPSILONS"]

DEFAULT_ALPHAS = tuple(np.round(np.arange(0.02, 0.99, 0.02), 2))
DEFAULT_EPSILONS = (1, 2, 3, 4, 5, 6, 8)


def check_probabilities(probs) -> np.ndarray:
    """``probs`` as a 1-D float array of values in [0, 1], or one SegvizError."""
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 1:
        raise SegvizError(f"boundary probabilities must be a 1-D array, got shape {p.shape}")
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise SegvizError("boundary probabilities must lie in [0, 1]")
    return p


def greedy_order_keep(probs: np.ndarray, epsilon: int) -> np.ndarray:
    """Boolean mask (len(probs),): kept by the greedy minimum-separation pass at threshold 0."""
    p = check_probabilities(probs)
    eps = int(epsilon)
    if eps < 1:
        raise SegvizError(f"epsilon must be >= 1 sentence, got {epsilon}")
    if eps == 1:
        return np.ones(p.size, dtype=bool)
    return greedy_keep_in_order(greedy_order(p), eps)


def greedy_order(probs: np.ndarray) -> np.ndarray:
    """The order in which the greedy pass visits the positions: by decreasing probability, equal probabilities
    earliest first.  It does not depend on epsilon, so a caller moving epsilon can sort once."""
    return np.argsort(-np.asarray(probs, dtype=np.float64), kind="stable")


def greedy_keep_in_order(order: np.ndarray, epsilon: int) -> np.ndarray:
    """:func:`greedy_order_keep` from the visiting order :func:`greedy_order` gave for the same probabilities."""
    eps = int(epsilon)
    if eps < 1:
        raise SegvizError(f"epsilon must be >= 1 sentence, got {epsilon}")
    order = np.asarray(order, dtype=np.int64)
    if eps == 1:
        return np.ones(order.size, dtype=bool)
    return _greedy_keep(order, order.size, eps)


def _greedy_keep_python(order: np.ndarray, n: int, eps: int) -> np.ndarray:
    """The greedy pass (the reference the compiled kernel is tested against)."""
    keep = np.zeros(n, dtype=bool)
    blocked = np.zeros(n + 2 * eps, dtype=bool)  # padded so slices never go negative
    for r in order.tolist():  # sequential by nature (each decision depends on earlier ones)
        if not blocked[r + eps]:
            keep[r] = True
            blocked[r + 1: r + 2 * eps] = True  # positions r-eps+1 .. r+eps-1 (shifted by eps)
    return keep


@njit(cache=True, nogil=True)
def _greedy_keep(order, n, eps):  # pragma: no cover - compiled; checked against _greedy_keep_python
    """The greedy pass, compiled: a slider on 10^5 sentences needs it in a few milliseconds, and without the GIL
    a background pass never stalls the window."""
    keep = np.zeros(n, dtype=np.bool_)
    blocked = np.zeros(n + 2 * eps, dtype=np.bool_)
    for k in range(order.size):
        r = order[k]
        if not blocked[r + eps]:
            keep[r] = True
            for q in range(r + 1, r + 2 * eps):
                blocked[q] = True
    return keep


def decode(probs, alpha: float, epsilon: int) -> np.ndarray:
    """Boundary positions b (sorted, 1..n-1) where q(yes) > alpha, >= epsilon apart (Section 7)."""
    p = check_probabilities(probs)
    if not 0.0 <= float(alpha) <= 1.0:
        raise SegvizError(f"alpha must lie in [0, 1], got {alpha}")
    keep = greedy_order_keep(p, epsilon) & (p > alpha)
    return np.flatnonzero(keep) + 1
