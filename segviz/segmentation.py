"""Segmentation primitives: the one home of masses, boundaries and indicators (paper Sections 2 and 6).

A segmentation of a stream of ``n`` sentences is exchanged in three equivalent shapes:

masses
    segment lengths in sentences, segeval's convention: ``(3, 2)`` for ``n = 5``.
boundaries
    sorted positions ``b`` in ``1..n-1``; a boundary lies *before* sentence ``b`` (0-based): ``[3]``.
indicator
    a boolean array of the ``n - 1`` gaps; entry ``b - 1`` is True when a boundary lies before sentence ``b``.
    The induction's training labels (one event per gap, Section 4) are this array.

Every conversion validates its input and raises :class:`~segviz.errors.SegvizError` with one line: a position
outside ``1..n-1`` is an error, never silently dropped.  ``default_mu`` is the paper's choice of the P_mu
parameter (Section 6: ``1/mu`` = the mean reference segment length), and :func:`logistic` the model's link
(Section 4: ``q(yes | w) = 1 / (1 + e^{-(theta_0 + lambda . f(w))})``).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from scipy.special import expit

from .errors import SegvizError

__all__ = [
    "validate_masses",
    "masses_to_boundaries",
    "boundaries_to_masses",
    "masses_to_indicator",
    "indicator_to_masses",
    "segment_starts",
    "default_mu",
    "logistic",
]


def validate_masses(masses: Sequence[int], *, what: str = "segmentation") -> tuple[int, ...]:
    """Return ``masses`` as a tuple of positive ints, or raise :class:`SegvizError` naming ``what``.

    >>> validate_masses([3, 2])
    (3, 2)
    """
    try:
        arr = np.asarray(masses)
    except (TypeError, ValueError):
        raise SegvizError(f"{what}: masses must be a sequence of integers") from None
    if arr.ndim != 1:
        raise SegvizError(f"{what}: masses must be a flat sequence of integers")
    if arr.size == 0:
        raise SegvizError(f"{what}: empty segmentation (no sentences)")
    if not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        elif arr.dtype == object:
            try:
                if not all(float(m) == int(m) for m in arr.tolist()):
                    raise ValueError
                arr = np.asarray([int(m) for m in arr.tolist()], dtype=np.int64)
            except (TypeError, ValueError, OverflowError):
                raise SegvizError(f"{what}: masses must be a sequence of integers") from None
        else:
            raise SegvizError(f"{what}: masses must be a sequence of integers")
    if arr.dtype == np.bool_:
        raise SegvizError(f"{what}: masses must be a sequence of integers")
    if arr.min() <= 0:
        raise SegvizError(f"{what}: segment lengths must be positive, got {arr.min()}")
    return tuple(arr.astype(np.int64, copy=False).tolist())   # Python ints, without a per-item loop


def masses_to_boundaries(masses: Sequence[int]) -> np.ndarray:
    """Boundary positions of a segmentation: sorted ``b`` in ``1..n-1``.

    >>> masses_to_boundaries((3, 2)).tolist()
    [3]
    """
    m = np.asarray(validate_masses(masses), dtype=np.int64)
    return np.cumsum(m)[:-1]


def boundaries_to_masses(boundaries: Iterable[int], n: int) -> tuple[int, ...]:
    """Masses of a stream of ``n`` sentences with boundaries before sentences ``boundaries``.

    Duplicates are merged; a position outside ``1..n-1`` raises.

    >>> boundaries_to_masses([3], 5)
    (3, 2)
    """
    n = int(n)
    if n <= 0:
        raise SegvizError("a segmentation needs at least one sentence")
    try:
        given = boundaries if isinstance(boundaries, (np.ndarray, list, tuple)) else list(boundaries)
        b = np.asarray(given, dtype=np.int64)
        if b.ndim != 1 or (b.size > 1 and not np.all(b[1:] > b[:-1])):
            b = np.unique(b)   # (already sorted and distinct, as decoders give them: nothing to do)
    except (TypeError, ValueError, OverflowError):
        raise SegvizError("boundary positions must be integers") from None
    if b.size and (b[0] < 1 or b[-1] > n - 1):
        raise SegvizError(f"boundary positions must lie in 1..{n - 1}, got {int(b[0])}..{int(b[-1])}")
    edges = np.concatenate([[0], b, [n]])
    return tuple(np.diff(edges).tolist())   # vectorised: a slider converts 10^4 boundaries per frame


def masses_to_indicator(masses: Sequence[int]) -> np.ndarray:
    """Boolean array of the ``n - 1`` gaps: True where a segment starts (the induction's event labels).

    >>> masses_to_indicator((3, 2)).tolist()
    [False, False, True, False]
    """
    m = validate_masses(masses)
    out = np.zeros(max(sum(m) - 1, 0), dtype=bool)
    out[masses_to_boundaries(m) - 1] = True
    return out


def indicator_to_masses(indicator: Sequence[bool]) -> tuple[int, ...]:
    """Inverse of :func:`masses_to_indicator` (``len(indicator) + 1`` sentences)."""
    ind = np.asarray(indicator, dtype=bool)
    if ind.ndim != 1:
        raise SegvizError("a boundary indicator must be a 1-D array")
    return boundaries_to_masses(np.flatnonzero(ind) + 1, ind.size + 1)


def segment_starts(masses: Sequence[int]) -> np.ndarray:
    """Index of the first sentence of each segment (``0`` first): document starts of a corpus.

    >>> segment_starts((3, 2)).tolist()
    [0, 3]
    """
    m = np.asarray(validate_masses(masses), dtype=np.int64)
    return np.concatenate([[0], np.cumsum(m)[:-1]]).astype(np.int64)


def default_mu(reference: Sequence[int]) -> float:
    """The paper's P_mu parameter (Section 6): ``1/mu`` = the mean reference segment length.

    >>> default_mu((3, 1))
    0.5
    """
    ref = validate_masses(reference, what="reference")
    return len(ref) / sum(ref)


def logistic(scores) -> np.ndarray:
    """``1 / (1 + e^{-s})`` elementwise (Section 4's link): no overflow for any finite ``s``, and full relative
    precision for tiny probabilities (``0.5 (1 + tanh(s/2))`` rounds 1e-20 to 0)."""
    return expit(np.asarray(scores, dtype=np.float64))
