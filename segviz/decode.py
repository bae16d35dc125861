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

from segviz.errors import SegvizError

__all__ = ["decode", "tune", "greedy_order_keep", "p_mu_fast", "positions_to_masses",
           "DEFAULT_ALPHAS", "DEFAULT_EPSILONS"]

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
    keep = np.zeros(p.size, dtype=bool)
    if eps == 1:
        keep[:] = True
        return keep
    order = np.argsort(-p, kind="stable")  # stable: equal probabilities -> earlier position first
    blocked = np.zeros(p.size + 2 * eps, dtype=bool)  # padded so slices never go negative
    for r in order.tolist():  # sequential by nature (each decision depends on earlier ones)
        if not blocked[r + eps]:
            keep[r] = True
            blocked[r + 1: r + 2 * eps] = True  # positions r-eps+1 .. r+eps-1 (shifted by eps)
    return keep


def decode(probs, alpha: float, epsilon: int) -> np.ndarray:
    """Boundary positions b (sorted, 1..n-1) where q(yes) > alpha, >= epsilon apart (Section 7)."""
    p = _check_probs(probs)
    if not 0.0 <= float(alpha) <= 1.0:
        raise SegvizError(f"alpha must lie in [0, 1], got {alpha}")
    keep = greedy_order_keep(p, epsilon) & (p > alpha)
    return np.flatnonzero(keep) + 1


def positions_to_masses(positions, n: int) -> tuple[int, ...]:
    """Segment lengths for boundary positions b (boundary before sentence b) in a stream of n sentences."""
    b = np.unique(np.asarray(positions, dtype=np.int64))
    edges = np.concatenate([[0], b[(b > 0) & (b < n)], [n]])
    return tuple(int(x) for x in np.diff(edges))


def _pair_mass(lengths: np.ndarray, r: float) -> np.ndarray:
    """sum_{0<=i<=j<L} r^(j-i) for each segment length L (closed form of the geometric sums)."""
    L = lengths.astype(np.float64)
    if r == 1.0:
        return L * (L + 1) / 2
    rL = r ** L
    s0 = (1 - rL) / (1 - r)
    s1 = r * (1 - L * r ** (L - 1) + (L - 1) * rL) / (1 - r) ** 2
    return L * s0 - s1


def _mass_of(boundaries: np.ndarray, n: int, r: float) -> float:
    edges = np.concatenate([[0], boundaries, [n]])
    return float(_pair_mass(np.diff(edges), r).sum())


def p_mu_fast(ref_positions, hyp_positions, n: int, mu: float) -> float:
    """P_mu (Section 6) over pairs i <= j with D(i,j) proportional to exp(-mu |i-j|), in O(#boundaries).

    Agreement = pairs together in both + pairs apart in both
              = S(ref & hyp) + (Total - S(ref) - S(hyp) + S(ref & hyp)),
    where S(seg) is the weighted mass of pairs inside one segment of ``seg`` and
    "together in both" means inside one segment of the union of the boundaries.
    """
    r = float(np.exp(-mu))
    ref = np.unique(np.asarray(ref_positions, dtype=np.int64))
    hyp = np.unique(np.asarray(hyp_positions, dtype=np.int64))
    total = _mass_of(np.zeros(0, np.int64), n, r)
    s_ref = _mass_of(ref, n, r)
    s_hyp = _mass_of(hyp, n, r)
    s_both = _mass_of(np.union1d(ref, hyp), n, r)
    return (total - s_ref - s_hyp + 2 * s_both) / total


def _default_mu(ref_masses: Sequence[int]) -> float:
    m = np.asarray(ref_masses, dtype=np.float64)
    return 1.0 / float(m.mean())


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
    if int(np.sum(ref_masses)) != n:
        raise SegvizError(f"reference covers {int(np.sum(ref_masses))} sentences, probabilities {n}")
    mu = _default_mu(ref_masses) if mu is None else float(mu)
    ref = np.cumsum(np.asarray(ref_masses, dtype=np.int64))[:-1]
    a = np.asarray(alphas, dtype=np.float64)
    out = np.empty((len(epsilons), a.size))
    for i, eps in enumerate(epsilons):
        keep = greedy_order_keep(p, int(eps))
        kept_r = np.flatnonzero(keep)
        kept_p = p[kept_r]
        for j, al in enumerate(a):
            out[i, j] = p_mu_fast(ref, kept_r[kept_p > al] + 1, n, mu)
    return out
