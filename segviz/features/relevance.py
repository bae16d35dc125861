"""The relevance family: Section 3.3's questions about the language models' relevance near the gap.

The relevance of a sentence is how much better the adaptive (trigger) model predicts it than the static trigram
model (:mod:`segviz.relevance`), length-normalised; a topic change makes the next sentence *less* predictable
from the recent past.  The questions ask whether the mean relevance of the sentences in a window lies in an
interval ``low < R <= high`` of a fixed grid (``low = -inf`` gives ``R <= high``); the paper's windows are the
next sentence and the next two.  The ``relevance_horizons`` family asks the same questions over longer horizons
(the next and the previous 5 and 10 sentences): a long segment's opening stays poorly predicted for a while, and
the sentences just before a boundary are predicted well by the segment they close.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal

__all__ = [
    "RELEVANCE_EDGES",
    "RELEVANCE_WINDOWS",
    "RELEVANCE",
    "relevance_intervals",
    "relevance_questions",
    "window_mean",
    "FAMILY",
    "HORIZONS_FAMILY",
]

#: Edges of the relevance interval grid; every pair ``lo < hi`` of edges gives
#: one interval ``lo < R <= hi`` (the paper's -0.5 < R < 0, 0 < R < 0.05, R <= 0 are all in it).
RELEVANCE_EDGES: tuple[float, ...] = (
    -math.inf, -2.0, -1.0, -0.5, -0.25, -0.1, -0.05, 0.0, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, math.inf)

#: Relevance windows: the next sentence and the next two sentences.
RELEVANCE_WINDOWS: tuple[Window, ...] = (Window("sentence", 0, 1), Window("sentence", 0, 2))
#: Longer horizons: the next and the previous 5 and 10 sentences.
HORIZON_WINDOWS: tuple[Window, ...] = tuple(Window("sentence", a, b) for a, b in ((0, 5), (0, 10), (-5, 0), (-10, 0)))


def relevance_intervals(edges: Sequence[float] = RELEVANCE_EDGES) -> list[tuple[float, float]]:
    """All intervals ``(lo, hi]`` between grid edges, except the trivial (-inf, inf)."""
    return interval_grid(edges)


def window_mean(per_sentence: np.ndarray, window: Window) -> np.ndarray:
    """Mean of a per-sentence quantity over sentences b+start..b+end-1 (clipped to the stream) for b=1..n-1.

    NaN where the window holds no sentence (every interval question then answers "no")."""
    n = per_sentence.shape[0]
    c = np.zeros(n + 1)
    np.cumsum(per_sentence, out=c[1:])
    b = np.arange(1, n)
    lo = np.clip(b + window.start, 0, n)
    hi = np.clip(b + window.end, 0, n)
    cnt = hi - lo
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (c[hi] - c[lo]) / cnt
    out[cnt == 0] = np.nan
    return out


def _subject(w: Window) -> str:
    if w.size == 1 and w.start in (0, -1):
        return f"the {'next' if w.start == 0 else 'previous'} sentence's relevance"
    return f"the mean relevance of {w.phrase()}"


RELEVANCE = register_signal(Signal(
    name="relevance", kind="relevance", symbol="R", subject=_subject,
    tag=lambda w: f"R[{w.start},{w.end})",
    compute=lambda context, window: window_mean(context.relevance, window),
    needs=frozenset({"relevance"})))


def relevance_questions(edges: Sequence[float] = RELEVANCE_EDGES,
                        windows: Sequence[Window] = RELEVANCE_WINDOWS) -> list[IntervalQuestion]:
    return [IntervalQuestion(RELEVANCE.name, w, lo, hi) for w in windows for lo, hi in interval_grid(edges)]


FAMILY = IntervalFamily(
    "relevance",
    lambda settings: relevance_questions(settings.relevance_edges if settings.relevance_edges is not None
                                         else RELEVANCE_EDGES),
    summary="is the mean relevance of the next 1 / 2 sentences in an interval (Section 3.3)",
    needs=frozenset({"relevance"}))

HORIZONS_FAMILY = IntervalFamily(
    "relevance_horizons",
    lambda settings: relevance_questions(settings.relevance_edges if settings.relevance_edges is not None
                                         else RELEVANCE_EDGES, HORIZON_WINDOWS),
    summary="is the mean relevance of the next / previous 5 or 10 sentences in an interval",
    needs=frozenset({"relevance"}))
