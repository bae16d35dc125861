"""The paragraph-score family (beyond the paper): questions about a learned score of the gap.

:class:`segviz.gap_scorer.GapScorer` scores every paragraph start from paragraph-level measurements with boosted
trees (:mod:`segviz.features.paragraph_measures`); this family asks whether that score is above a threshold, so
feature induction (Section 4) decides whether and how much to trust it, beside every other question.  One-sided
questions ("is the score above t?") let a few features build a rising step function of the score.  The score is
NaN where no paragraph starts (every question answers "no" there).  Without a scorer (a model trained without the
family, or text without paragraphs) the family asks nothing.
"""
from __future__ import annotations

import math

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, register_signal

__all__ = ["PARAGRAPH_SCORE", "SCORE_THRESHOLDS", "paragraph_score_questions", "FAMILY"]

#: the score's thresholds: chapter starts are about 1 paragraph start in 60 of a book, so the grid is fine low down
SCORE_THRESHOLDS: tuple[float, ...] = (0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7,
                                       0.8, 0.9)


def _score(context, window: Window) -> np.ndarray:
    return context.inside_groups(np.asarray(context.gap_score, dtype=np.float64))


def _wording(low: float, high: float, window: Window) -> str | None:
    if high == math.inf:
        return f"does the learned paragraph score exceed {low:g}?"
    return None


PARAGRAPH_SCORE = register_signal(Signal(
    name="paragraph_score", kind="paragraph-score", symbol="S",
    subject=lambda w: "the learned paragraph score at this gap (boosted trees over paragraph-level measurements)",
    tag=lambda w: "¶score", compute=_score, needs=frozenset({"gap_score"}), wording=_wording))


def paragraph_score_questions(thresholds=SCORE_THRESHOLDS) -> list[IntervalQuestion]:
    window = Window("sentence", 0, 0)
    return [IntervalQuestion(PARAGRAPH_SCORE.name, window, t, math.inf) for t in thresholds]


FAMILY = IntervalFamily(
    "paragraph-score", lambda settings: paragraph_score_questions(),
    summary="is a learned score of the paragraph start (boosted trees over paragraph-level measurements) above t",
    needs=frozenset({"gap_score"}))
