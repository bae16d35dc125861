"""The peer-evidence family (opt-in; an addition to the paper).

Not in the paper, but in its spirit (Section 3: "the features might include ..."): interval questions about
the evidence the unsupervised peers -- C99 (Choi 2000) and TextTiling (Hearst 1997), see :mod:`segviz.peers`
-- compute, each from the text alone, never from the labels.

The peers run per source group (a source file, i.e. one Choi document; larger groups are cut into chunks of at
most PEER_MAX_GROUP sentences because C99 needs n x n matrices).  Positions between two groups get NaN, so every
peer question answers "no" there.  One run of the peers gives every peer signal; the context caches it.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from segviz.errors import SegvizError
from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal
from segviz.peers import C99, TextTiling, token_words

__all__ = [
    "PEER_SIGNALS",
    "PEER_CONTRAST_WINDOWS",
    "peer_questions",
    "peer_values",
    "rank_contrast",
    "FAMILY",
]

#: The peer signals.
#: ``c99_contrast``: on C99's rank matrix (Choi 2000), mean rank inside the k sentences before and the k after
#: the gap (off the diagonal) minus the mean rank across the gap; ``c99_near``: distance in sentences from the
#: gap to the nearest boundary C99 places (its own stopping rule); ``c99_order``: the step at which C99's
#: divisive clustering splits at this gap, divided by the number of splits C99 keeps (<= 1: C99 keeps it);
#: ``tt_depth``: TextTiling's depth score (Hearst 1997) at the pseudo-sentence gap nearest to the sentence edge.
PEER_SIGNALS: tuple[str, ...] = ("c99_contrast", "c99_near", "c99_order", "tt_depth")
PEER_CONTRAST_WINDOWS: tuple[int, ...] = (2, 5, 10)
PEER_CONTRAST_EDGES: tuple[float, ...] = (-math.inf, -0.2, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, math.inf)
PEER_NEAR_DISTANCES: tuple[int, ...] = (0, 1, 2)
PEER_ORDER_EDGES: tuple[float, ...] = (-math.inf, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, math.inf)
PEER_DEPTH_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, math.inf)
#: TextTiling's block reaches k=10 pseudo-sentences of w=20 words either side; drawn as +-10 sentences.
PEER_DEPTH_WINDOW = 10
PEER_MAX_GROUP = 500


def _chunks(groups: Sequence[int]) -> list[int]:
    out = []
    for x in groups:  # C99 needs n x n matrices: cut long groups into near-equal chunks
        parts = -(-x // PEER_MAX_GROUP)
        base, extra = divmod(x, parts)
        out.extend([base + 1] * extra + [base] * (parts - extra))
    return out


def rank_contrast(rank: np.ndarray, k: int) -> np.ndarray:
    """Inside-minus-across mean rank for the gaps b = 1..n-1 of one group (windows clipped to the group)."""
    n = rank.shape[0]
    P = np.zeros((n + 1, n + 1))
    P[1:, 1:] = rank.cumsum(0).cumsum(1)
    t = np.zeros(n + 1)
    np.cumsum(np.diag(rank), out=t[1:])
    b = np.arange(1, n)
    lo, hi = np.maximum(b - k, 0), np.minimum(b + k, n)

    def box(r0, r1, c0, c1):
        return P[r1, c1] - P[r0, c1] - P[r1, c0] + P[r0, c0]

    na, nb = (b - lo).astype(np.float64), (hi - b).astype(np.float64)
    inside = box(lo, b, lo, b) - (t[b] - t[lo]) + box(b, hi, b, hi) - (t[hi] - t[b])
    area = na * na - na + nb * nb - nb
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(area > 0, inside / np.where(area > 0, area, 1.0), np.nan) - box(lo, b, b, hi) / (na * nb)


def _tt_depth(sentences: Sequence[Sequence[str]]) -> np.ndarray:
    """TextTiling's depth score at each sentence edge b = 1..n-1: the larger of the two pseudo-sentence gaps
    that bracket the edge's word offset."""
    n = len(sentences)
    tt = TextTiling()
    out = np.zeros(n - 1)
    wps = np.fromiter((sum(len(token_words(t)) for t in s) for s in sentences), dtype=np.int64, count=n)
    if wps.sum() < 2 * tt.w:
        return out
    depth = tt.fit(sentences).depth_scores_
    if depth.size == 0:
        return out
    edge = np.cumsum(wps)[:-1]                      # words before sentence b
    g0 = np.clip(edge // tt.w - 1, 0, depth.size - 1)  # the gap after pseudo-sentence g sits at word (g+1)*w
    g1 = np.clip(edge // tt.w, 0, depth.size - 1)
    return np.maximum(depth[g0], depth[g1])


def peer_values(sentences: Sequence[Sequence[str]], groups: Sequence[int] | None = None
                ) -> dict[tuple[str, int], np.ndarray]:
    """The peer signals for the n-1 events of the stream, keyed by (signal, window parameter).

    ``groups``: sentence counts of consecutive documents (e.g. Choi files) the peers run on separately; None
    = the whole stream is one group.  Events between two groups are NaN.
    """
    n = len(sentences)
    g = [n] if groups is None else [int(x) for x in groups]
    if any(x < 1 for x in g) or sum(g) != n:
        raise SegvizError(f"groups must be positive sentence counts summing to {n} (got {len(g)} groups "
                          f"summing to {sum(g)})")
    keys = [("c99_contrast", k) for k in PEER_CONTRAST_WINDOWS] + [("c99_near", 0), ("c99_order", 0),
                                                                   ("tt_depth", 0)]
    vals = {key: np.full(max(n - 1, 0), np.nan) for key in keys}
    start = 0
    for size in _chunks(g):
        stop = start + size
        if size >= 3:
            part = sentences[start:stop]
            sl = slice(start, stop - 1)   # events b = start+1 .. stop-1 (row r = b - 1)
            c = C99().fit(part)
            for k in PEER_CONTRAST_WINDOWS:
                vals[("c99_contrast", k)][sl] = rank_contrast(c.rank_, k)
            pos = np.arange(1, size)
            bnd = np.asarray(c.boundaries_, dtype=np.int64)
            vals[("c99_near", 0)][sl] = (np.abs(pos[:, None] - bnd[None, :]).min(axis=1) if bnd.size
                                         else np.inf)
            order = np.empty(size - 1)
            order[np.asarray(c.splits_, dtype=np.int64) - 1] = np.arange(1, len(c.splits_) + 1)
            vals[("c99_order", 0)][sl] = order / max(int(c.n_splits_), 1)
            vals[("tt_depth", 0)][sl] = _tt_depth(part)
        start = stop
    return vals


def _peer_signal(name: str, parameter, symbol: str, subject, tag, **extra) -> Signal:
    """A peer signal: its values are one entry of the context's (cached) :func:`peer_values`."""

    def compute(context, window: Window) -> np.ndarray:
        vals = context.memo(("peer", "values"), lambda: peer_values(context.sentences, context.groups))
        return vals[(name, parameter(window))]

    return register_signal(Signal(name=name, kind="peer", symbol=symbol, subject=subject, tag=tag,
                                  compute=compute, **extra))


def _near_wording(low: float, high: float, window: Window) -> str | None:
    if low != -math.inf:
        return None
    d = int(high)
    return ("does C99 place a boundary at this gap?" if d == 0 else
            f"does C99 place a boundary within {d} sentence{'s' if d != 1 else ''} of this gap?")


C99_CONTRAST = _peer_signal(
    "c99_contrast", lambda w: w.end, "K",
    lambda w: (f"the C99 rank-matrix contrast (inside the previous {w.end} / next {w.end} sentences "
               f"minus across the gap)"),
    lambda w: f"K±{w.end}")
C99_NEAR = _peer_signal(
    "c99_near", lambda w: 0, "d", lambda w: "the distance to C99's nearest boundary", lambda w: "C99 dist",
    wording=_near_wording,
    label=lambda low, high, w: f"C99 within {int(high)}" if low == -math.inf else None)
C99_ORDER = _peer_signal(
    "c99_order", lambda w: 0, "O", lambda w: "the C99 split step at this gap relative to the splits C99 keeps",
    lambda w: "C99 step")
TT_DEPTH = _peer_signal(
    "tt_depth", lambda w: 0, "D", lambda w: "the TextTiling depth score at this gap", lambda w: "TT depth")


def peer_questions() -> list[IntervalQuestion]:
    """The peer-evidence candidate questions."""
    out = [IntervalQuestion(C99_CONTRAST.name, Window("sentence", -k, k), lo, hi)
           for k in PEER_CONTRAST_WINDOWS for lo, hi in interval_grid(PEER_CONTRAST_EDGES)]
    out += [IntervalQuestion(C99_NEAR.name, Window("sentence", -d, d), -math.inf, float(d))
            for d in PEER_NEAR_DISTANCES]
    out += [IntervalQuestion(C99_ORDER.name, Window("sentence", 0, 0), lo, hi)
            for lo, hi in interval_grid(PEER_ORDER_EDGES)]
    out += [IntervalQuestion(TT_DEPTH.name, Window("sentence", -PEER_DEPTH_WINDOW, PEER_DEPTH_WINDOW), lo, hi)
            for lo, hi in interval_grid(PEER_DEPTH_EDGES)]
    return out


FAMILY = IntervalFamily(
    "peer", lambda settings: peer_questions(),
    summary="evidence of the unsupervised peers C99 and TextTiling at the gap, per source group")
