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
pass per epsilon serves a whole grid of thresholds -- that is how :func:`tune`
vectorises over alpha.

Positions follow :mod:`segviz.features`: ``probs[r]`` belongs to the boundary
*before* sentence ``b = r + 1`` of a stream of ``n = len(probs) + 1`` sentences.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

from segviz.errors import SegvizError
from segviz.metrics import p_mu_from_boundaries
from segviz.segmentation import default_mu, validate_masses

__all__ = ["decode", "tune", "tune_table", "greedy_order_keep", "DEFAULT_ALPHAS", "DEFAULT_EPSILONS"]

DEFAULT_ALPHAS = tuple(np.round(np.arange(0.02, 0.99, 0.02), 2))
DEFAULT_EPSILONS = (1, 2, 3, 4, 5, 6, 8)


def _check_probs(probs) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 1:
        raise SegvizError(f"boundary probabilities must be a 1-D array, got shape {p.shape}")
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise SegvizError("boundary probabilities must lie in [0, 1]")
    return p


def greedy_order_keep(probs: np.ndarray, epsilon: int) -> np.ndarray:
    """Boolean mask (len(probs),): kept by the greedy minimum-separation pass at threshold 0."""
    p = _check_probs(probs)
    eps = int(epsilon)
    if eps < 1:
        raise SegvizError(f"epsilon must be >= 1 sentence, got {epsilon}")
    if eps == 1:
        return np.ones(p.size, dtype=bool)
    order = np.argsort(-p, kind="stable")  # stable: equal probabilities -> earlier position first
    return _greedy_keep(order, p.size, eps)


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
    p = _check_probs(probs)
    if not 0.0 <= float(alpha) <= 1.0:
        raise SegvizError(f"alpha must lie in [0, 1], got {alpha}")
    keep = greedy_order_keep(p, epsilon) & (p > alpha)
    return np.flatnonzero(keep) + 1


def tune(
    probs,
    ref_masses: Sequence[int],
    *,
    mu: float | None = None,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    epsilons: Sequence[int] = DEFAULT_EPSILONS,
) -> tuple[float, int, float]:
    """Choose (alpha, epsilon) maximising P_mu on held-out data (Section 7).

    ``mu`` defaults to 1 / mean reference segment length (the paper's choice).
    Grid ties go to the smallest epsilon, then the smallest alpha.
    Returns ``(alpha, epsilon, p_mu)``.
    """
    table = tune_table(probs, ref_masses, mu=mu, alphas=alphas, epsilons=epsilons)
    i, j = np.unravel_index(int(np.argmax(table)), table.shape)
    return float(alphas[j]), int(epsilons[i]), float(table[i, j])


def tune_table(probs, ref_masses, *, mu=None, alphas=DEFAULT_ALPHAS, epsilons=DEFAULT_EPSILONS) -> np.ndarray:
    """P_mu for every (epsilon, alpha) of the grid, shape (len(epsilons), len(alphas))."""
    p = _check_probs(probs)
    n = p.size + 1
    ref_masses = validate_masses(ref_masses, what="reference")
    if sum(ref_masses) != n:
        raise SegvizError(f"reference covers {sum(ref_masses)} sentences, probabilities {n}")
    mu = default_mu(ref_masses) if mu is None else float(mu)
    ref = np.cumsum(np.asarray(ref_masses, dtype=np.int64))[:-1]
    a = np.asarray(alphas, dtype=np.float64)
    out = np.empty((len(epsilons), a.size))
    for i, eps in enumerate(epsilons):
        keep = greedy_order_keep(p, int(eps))
        kept_r = np.flatnonzero(keep)
        kept_p = p[kept_r]
        for j, al in enumerate(a):
            out[i, j] = p_mu_from_boundaries(ref, kept_r[kept_p > al] + 1, n, mu)
    return out
