"""The dialogue family (beyond the paper): does the text move between dialogue and narration at the gap?

Scenes in fiction often open in narration and drift into dialogue; reports quote people in some sections and
not in others.  A sentence counts as *quoting* when its text holds a double quotation mark (``"``, typographic
quotes, guillemets, or the Brown corpus's doubled backquotes and apostrophes).  The questions ask about the share
of quoting sentences among the previous k and the next k sentences, and its change across the gap (next minus
previous), windows clipped to the document; gaps between two documents get no value.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal

__all__ = ["DIALOGUE_WINDOWS", "quoting_sentences", "context_quoting", "dialogue_questions", "FAMILY"]

DIALOGUE_WINDOWS: tuple[int, ...] = (3, 10, 25)
SHARE_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.2, 0.4, 0.6, 0.8, math.inf)
SHIFT_EDGES: tuple[float, ...] = (-math.inf, -0.6, -0.3, -0.1, 0.1, 0.3, 0.6, math.inf)

_QUOTE = re.compile("[\"\u201c\u201d\u201e\u00ab\u00bb]|``|''")


def quoting_sentences(texts: Sequence[str]) -> np.ndarray:
    """1.0 for every sentence whose text holds a double quotation mark, else 0.0."""
    return np.fromiter((1.0 if _QUOTE.search(t) else 0.0 for t in texts), dtype=np.float64, count=len(texts))


def context_quoting(context) -> np.ndarray:
    """:func:`quoting_sentences` of the context's texts, computed once per context (the dialogue family and the
    paragraph measurements both read it)."""
    return context.memo(("dialogue", "quoting"), lambda: quoting_sentences(context.texts))


def _share(context, window: Window) -> np.ndarray:
    return context.inside_groups(context.window_mean(context_quoting(context), window))


def _shift(context, window: Window) -> np.ndarray:
    k = window.end
    after = context.window_mean(context_quoting(context), Window("sentence", 0, k))
    before = context.window_mean(context_quoting(context), Window("sentence", -k, 0))
    return context.inside_groups(after - before)


QUOTES = register_signal(Signal(
    name="quotes", kind="dialogue", symbol="Q",
    subject=lambda w: f"the share of quoting sentences among {w.phrase()}", tag=lambda w: f"Q{w.end:+d}" if w.start == 0 else f"Q{w.start:+d}",
    compute=_share))
QUOTE_SHIFT = register_signal(Signal(
    name="quote_shift", kind="dialogue", symbol="dQ",
    subject=lambda w: (f"the change in the share of quoting sentences from the previous {w.end} to the next "
                       f"{w.end} sentences"),
    tag=lambda w: f"dQ±{w.end}", compute=_shift))


def dialogue_questions(windows: Sequence[int] = DIALOGUE_WINDOWS) -> list[IntervalQuestion]:
    out = []
    for k in windows:
        for window in (Window("sentence", -k, 0), Window("sentence", 0, k)):
            out += [IntervalQuestion(QUOTES.name, window, lo, hi) for lo, hi in interval_grid(SHARE_EDGES)]
        out += [IntervalQuestion(QUOTE_SHIFT.name, Window("sentence", -k, k), lo, hi)
                for lo, hi in interval_grid(SHIFT_EDGES)]
    return out


FAMILY = IntervalFamily(
    "dialogue", lambda settings: dialogue_questions(),
    summary="share of quoting sentences before/after the gap and its change (dialogue vs narration)")
