"""The paragraph family (beyond the paper): paragraph starts, where the reader knows them.

Readers of running prose record which sentences open a paragraph (``Document.paragraph_starts``); formats with
one sentence per line do not, and then these questions are not asked (and a model that asks them answers "no"
on such text).  A topic boundary almost always falls at a
paragraph start, so "the gap falls inside a paragraph" is strong evidence against one, and "a paragraph starts
here" evidence for one.  Marks that coincide exactly with the reference boundaries are dropped by
:meth:`~segviz.features.context.FeatureContext.from_corpus` (they would be the labels themselves); gaps between
two documents get no value.
"""
from __future__ import annotations

import math

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, register_signal

__all__ = ["PARAGRAPH_START", "paragraph_questions", "FAMILY"]


def _starts(context, window: Window) -> np.ndarray:
    marks = context.paragraph_starts
    if marks is None:
        return np.full(context.n_events, np.nan)
    return context.inside_groups(marks[1:])


def _wording(low: float, high: float, window: Window) -> str | None:
    if low == 0.5 and high == math.inf:
        return "does a paragraph start at this gap?"
    if low == -math.inf and high == 0.5:
        return "does the gap fall inside a paragraph?"
    return None


def _label(low: float, high: float, window: Window) -> str | None:
    return {(0.5, math.inf): "¶ starts", (-math.inf, 0.5): "inside ¶"}.get((low, high))


PARAGRAPH_START = register_signal(Signal(
    name="paragraph_start", kind="paragraphs", symbol="P", subject=lambda w: "the paragraph-start mark at this gap",
    tag=lambda w: "¶", compute=_starts, wording=_wording, label=_label))


def paragraph_questions() -> list[IntervalQuestion]:
    window = Window("sentence", 0, 0)
    return [IntervalQuestion(PARAGRAPH_START.name, window, 0.5, math.inf),
            IntervalQuestion(PARAGRAPH_START.name, window, -math.inf, 0.5)]


FAMILY = IntervalFamily(
    "paragraphs", lambda settings: paragraph_questions(),
    summary="does a paragraph start at the gap (where the reader knows paragraphs)",
    needs=frozenset({"paragraph_starts"}))
