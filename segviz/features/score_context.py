"""Where a learned paragraph score stands among its neighbours (beyond the paper): the second look of
:class:`segviz.gap_scorer.GapScorer`.

The first trees score each paragraph start from what lies around it (:mod:`segviz.features.paragraph_measures`),
one start at a time.  A chapter start is also placed among the others: a book's chapters run to some thousands of
words, so a start that scores well a few hundred words after a stronger one is likelier a scene inside a chapter,
and a start that is the best of its stretch of text likelier a chapter's.  Per paragraph start, along its own
source unit (a book), with positions counted in words (tokens holding a letter or digit, as the measurements
count them):

* ``words_since_t`` / ``words_until_t`` -- the words back to the previous paragraph start scoring above t, and on
  to the next one, as log(1 + words), t = 0.3, 0.5, 0.7 (NaN where the unit has none on that side);
* ``below_best_w`` -- the score less the highest score of the paragraph starts within w words either side, and
  ``outranked_w`` -- how many of them score higher, w = 1,500 and 4,000;
* ``score`` -- the score itself.

The columns read nothing but the first scores and the word counts of one unit, so a book's columns do not depend on
the books beside it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from segviz.features.context import FeatureContext
from segviz.features.paragraph_measures import sentence_words

__all__ = ["CONTEXT_THRESHOLDS", "CONTEXT_SPANS", "SCORE_CONTEXT", "score_context", "unit_score_context",
           "unit_word_offsets"]

CONTEXT_THRESHOLDS: tuple[float, ...] = (0.3, 0.5, 0.7)
CONTEXT_SPANS: tuple[int, ...] = (1500, 4000)
#: the columns of :func:`score_context`, in order
SCORE_CONTEXT: tuple[str, ...] = (
    *(f"words_{side}_{t}" for t in CONTEXT_THRESHOLDS for side in ("since", "until")),
    *(f"{what}_{w}" for w in CONTEXT_SPANS for what in ("below_best", "outranked")),
    "score",
)


def unit_word_offsets(context: FeatureContext) -> np.ndarray:
    """Per sentence (n,): the words before it within its source unit."""
    words = sentence_words(context)
    offsets = np.empty(context.n_sentences)
    for start, size in zip(context.group_starts, context.groups):
        end = int(start + size)
        offsets[start:end] = np.concatenate([[0.0], np.cumsum(words[start:end - 1])])
    return offsets


@njit(cache=True)
def _window_ranks(position: np.ndarray, score: np.ndarray, span: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row of one unit (positions sorted): the score less the window's best, and how many in it score higher
    (the window: rows within ``span`` of the row's position, itself included)."""
    n = position.size
    below = np.empty(n)
    outranked = np.empty(n)
    lo = 0
    hi = 0
    for i in range(n):
        while position[lo] < position[i] - span:
            lo += 1
        while hi < n and position[hi] <= position[i] + span:
            hi += 1
        best = score[i]
        higher = 0
        for j in range(lo, hi):
            if score[j] > best:
                best = score[j]
            if score[j] > score[i]:
                higher += 1
        below[i] = score[i] - best
        outranked[i] = higher
    return below, outranked


def _strong_distances(position: np.ndarray, score: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row of one unit: log(1 + words) back to the previous row scoring above ``threshold`` and on to the next
    (NaN where there is none)."""
    strong = np.flatnonzero(score > threshold)
    rows = np.arange(score.size)
    since = np.full(score.size, np.nan)
    until = np.full(score.size, np.nan)
    before = np.searchsorted(strong, rows, side="left") - 1
    after = np.searchsorted(strong, rows, side="right")
    has = before >= 0
    since[has] = np.log1p(position[has] - position[strong[before[has]]])
    has = after < strong.size
    until[has] = np.log1p(position[strong[after[has]]] - position[has])
    return since, until


def score_context(context: FeatureContext, gaps: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """len(gaps) x len(:data:`SCORE_CONTEXT`): the columns at paragraph-start gaps ``gaps`` (sorted event indices,
    none between two units) given their first scores ``scores``."""
    gaps = np.asarray(gaps, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    out = np.empty((gaps.size, len(SCORE_CONTEXT)))
    if not gaps.size:
        return out
    position = unit_word_offsets(context)[gaps + 1]
    unit = context.group_of_sentence()[gaps + 1]
    for u in np.unique(unit):
        rows = np.flatnonzero(unit == u)
        out[rows] = unit_score_context(position[rows], scores[rows])
    return out


def unit_score_context(position: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The columns of :data:`SCORE_CONTEXT` for the paragraph starts of one unit, given their positions in words
    (sorted; any origin, only differences are read) and their first scores."""
    x = np.asarray(position, dtype=np.float64)
    p = np.asarray(scores, dtype=np.float64)
    columns = []
    for t in CONTEXT_THRESHOLDS:
        columns.extend(_strong_distances(x, p, t))
    for span in CONTEXT_SPANS:
        columns.extend(_window_ranks(x, p, float(span)))
    columns.append(p)
    return np.column_stack(columns)
