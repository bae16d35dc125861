"""Segmentation metrics: the paper's P_mu and its successors, all O(n).

Every metric takes ``reference, hypothesis`` as **masses** (segment lengths in sentences, segeval's convention)
over the same number of sentences ``n``.  Nothing here loops over pairs of sentences: P_mu uses a table of
per-segment-length pair masses, P_k and WindowDiff use prefix sums of boundary indicators, so a slider in the app
can recompute them live on 10^6 sentences.

Conventions (chosen to agree with segeval 2.0.11, the tool the literature's numbers come from):

* ``p_mu`` is the probability of *agreement* (1 is perfect), as in the paper (Section 6).
* ``p_k`` and ``window_diff`` are *error* rates (0 is perfect), as in Beeferman et al. (1999) and
  Pevzner & Hearst (2002): over the ``n - k`` sentence pairs ``(i, i + k)``.
* Default ``k``: half the mean reference segment length, rounded half-to-even (Python's ``round``, as segeval
  does), and at least 2 (segeval's floor).  NLTK's default differs (it divides ``n - 1`` by the number of
  boundaries; NLTK issue 3102), but with the same explicit ``k`` all three agree.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .errors import SegvizError
from .segmentation import default_mu as _paper_default_mu


def _as_masses(masses: Sequence[int], what: str) -> np.ndarray:
    """Validated int64 array of positive segment lengths (vectorised: the app passes 10^5 segments per frame)."""
    try:
        arr = np.asarray(masses)
    except (TypeError, ValueError):
        raise SegvizError(f"{what}: masses must be a sequence of integers") from None
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        if arr.ndim == 1 and arr.size and np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise SegvizError(f"{what}: masses must be a sequence of integers")
    if arr.size == 0:
        raise SegvizError(f"{what}: empty segmentation (no sentences)")
    arr = arr.astype(np.int64, copy=False)
    if arr.min() <= 0:
        raise SegvizError(f"{what}: segment lengths must be positive, got {arr.min()}")
    return arr


def _check_pair(reference: Sequence[int], hypothesis: Sequence[int]) -> tuple[np.ndarray, np.ndarray, int]:
    ref = _as_masses(reference, "reference")
    hyp = _as_masses(hypothesis, "hypothesis")
    n_ref, n_hyp = int(ref.sum()), int(hyp.sum())
    if n_ref != n_hyp:
        raise SegvizError(f"reference covers {n_ref} sentences but hypothesis covers {n_hyp}")
    return ref, hyp, n_ref


default_mu = _paper_default_mu  # one definition, in segviz.segmentation


def default_k(reference: Sequence[int]) -> int:
    """Half the mean reference segment length, rounded half-to-even, at least 2 (segeval's convention)."""
    ref = _as_masses(reference, "reference")
    return max(2, int(round(int(ref.sum()) / ref.size / 2)))


@lru_cache(maxsize=8)
def _within_weights(mu: float, n: int) -> np.ndarray:
    """``W[L] = sum_{d=0}^{L-1} (L - d) e^{-mu d}`` for L = 0..n: the D_mu mass of pairs i <= j inside a segment
    of length L.

    Computed as the cumulative sum of the geometric partial sums ``G(m) = (1 - r^m) / (1 - r)``, each evaluated
    with ``expm1`` -- all terms positive, so no cancellation even for tiny ``mu`` where the textbook closed form
    ``(L(1-r) - r(1-r^L)) / (1-r)^2`` loses digits.
    """
    m = np.arange(1, n + 1, dtype=np.float64)
    if mu == 0.0:
        g = m
    else:
        g = np.expm1(-mu * m) / np.expm1(-mu)
    table = np.concatenate([[0.0], np.cumsum(g)])
    table.setflags(write=False)  # cached: callers share it (a slider keeps mu and n fixed)
    return table


def _boundaries(masses: np.ndarray) -> np.ndarray:
    return np.cumsum(masses)[:-1]


def p_mu(reference: Sequence[int], hypothesis: Sequence[int], mu: float | None = None) -> float:
    """The paper's probabilistic metric P_mu (Section 6).

    ``sum_{i <= j} D_mu(i, j) * XNOR(same_ref(i, j), same_hyp(i, j))`` with ``D_mu(i, j) = gamma exp(-mu |i-j|)``
    and ``gamma`` normalising over all pairs ``1 <= i <= j <= n``.  Default ``1/mu`` is the mean reference
    segment length.

    >>> p_mu((3, 3), (3, 3))
    1.0
    >>> round(p_mu((3, 3), (6,)), 4)
    0.7352
    """
    ref, hyp, n = _check_pair(reference, hypothesis)
    if mu is None:
        mu = ref.size / n
    return p_mu_from_boundaries(_boundaries(ref), _boundaries(hyp), n, mu)


def p_mu_from_boundaries(reference_boundaries, hypothesis_boundaries, n: int, mu: float) -> float:
    """P_mu of two boundary sets (sorted positions in ``1..n-1``) over ``n`` sentences: the one P_mu kernel.

    The disagreeing mass is ``W(ref) + W(hyp) - 2 W(ref ∧ hyp)``, where ``W(s)`` is the D_mu mass of pairs in the
    same segment of ``s`` and ``ref ∧ hyp`` is the common refinement (pairs in the same segment of both); each
    ``W`` is a lookup in one O(n) table of per-length masses built without cancellation, hence O(n) overall and
    exact to rounding for any ``mu`` (the held-out tuning of :mod:`segviz.decode` calls it on every grid point).
    """
    mu = float(mu)
    if not np.isfinite(mu) or mu < 0:
        raise SegvizError(f"mu must be a non-negative finite number, got {mu}")
    n = int(n)
    weights = _within_weights(mu, n)
    ref_b = np.asarray(reference_boundaries, dtype=np.int64)
    hyp_b = np.asarray(hypothesis_boundaries, dtype=np.int64)

    def within(b: np.ndarray) -> float:
        return float(weights[np.diff(np.concatenate([[0], b, [n]]))].sum())

    total = float(weights[n])
    # the common refinement's boundaries: a boolean union is O(n) and, for the dense boundary sets of a long
    # stream, several times faster than the hashing of np.union1d (same sorted positions)
    both = np.zeros(n + 1, dtype=bool)
    both[ref_b] = True
    both[hyp_b] = True
    disagreement = max(0.0, within(ref_b) + within(hyp_b) - 2.0 * within(np.flatnonzero(both)))
    return 1.0 - disagreement / total


def _window_counts(masses: np.ndarray, k: int) -> np.ndarray:
    """Number of boundaries between sentence i and i + k, for i = 0 .. n-k-1."""
    n = int(masses.sum())
    indicator = np.zeros(n, dtype=np.int32)
    indicator[_boundaries(masses)] = 1  # boundary before sentence b
    before = np.cumsum(indicator)  # before[j] = boundaries b <= j
    return before[k:] - before[: n - k]


def _check_k(k: int | None, reference: Sequence[int], n: int) -> int:
    if k is None:
        k = default_k(reference)
    if int(k) != k or k < 1:
        raise SegvizError(f"window size k must be a positive integer, got {k}")
    k = int(k)
    if k >= n:
        raise SegvizError(f"window size k={k} must be smaller than the number of sentences ({n})")
    return k


def p_k(reference: Sequence[int], hypothesis: Sequence[int], k: int | None = None) -> float:
    """P_k (Beeferman, Berger & Lafferty 1999): the fraction of sentence pairs ``(i, i + k)`` on which reference and
    hypothesis disagree about being in the same segment.  An error rate: 0 is perfect.

    >>> p_k((2, 3, 3), (2, 3, 3), k=2)
    0.0
    """
    ref, hyp, n = _check_pair(reference, hypothesis)
    if n < 2:
        return 0.0
    k = _check_k(k, ref, n)
    return float(np.mean((_window_counts(ref, k) > 0) != (_window_counts(hyp, k) > 0)))


def window_diff(reference: Sequence[int], hypothesis: Sequence[int], k: int | None = None) -> float:
    """WindowDiff (Pevzner & Hearst 2002): the fraction of windows of ``k`` sentence gaps in which reference and
    hypothesis place a different *number* of boundaries.  An error rate: 0 is perfect."""
    ref, hyp, n = _check_pair(reference, hypothesis)
    if n < 2:
        return 0.0
    k = _check_k(k, ref, n)
    return float(np.mean(_window_counts(ref, k) != _window_counts(hyp, k)))


def boundary_prf(reference: Sequence[int], hypothesis: Sequence[int]) -> tuple[float, float, float]:
    """Exact-match precision, recall and F1 of hypothesised boundaries, as in the paper's tables.

    With no hypothesised boundaries precision is 0 (the paper prints '---' for F; we return 0).
    """
    ref, hyp, _ = _check_pair(reference, hypothesis)
    rb, hb = _boundaries(ref), _boundaries(hyp)
    hits = np.intersect1d(rb, hb, assume_unique=True).size
    precision = hits / hb.size if hb.size else 0.0
    recall = hits / rb.size if rb.size else (1.0 if hb.size == 0 else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return float(precision), float(recall), float(f1)


def score_row(reference: Sequence[int], hypothesis: Sequence[int], *, mu: float | None = None, k: int | None = None) -> dict:
    """One row of the paper's tables (Tables 5/6) plus WindowDiff, as a JSON-ready dict."""
    ref, hyp, n = _check_pair(reference, hypothesis)
    precision, recall, f1 = boundary_prf(ref, hyp)
    return {
        "hypothesis_segments": int(hyp.size),
        "p_mu": p_mu(ref, hyp, mu),
        "p_k": p_k(ref, hyp, k) if n > 2 else 0.0,
        "window_diff": window_diff(ref, hyp, k) if n > 2 else 0.0,
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }
