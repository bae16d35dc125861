"""The transitions family (beyond the paper): does the text move on in time or take its leave at the gap?

A chapter or scene of narrative prose often opens by moving the clock ("The next morning…", "Three days after…",
"When the evening came…") and closes by sending someone away or to rest ("…and went home.", "…she fell asleep.").
Topic words cannot carry this across books -- every book has its own names and places -- but the words of time
and of leave-taking are the same in all of them.  Two per-sentence counts over two small, closed word lists
(:data:`TIME_WORDS`, :data:`LEAVING_WORDS`):

* ``time_opening`` -- the number of time words among the first :data:`OPENING_WORDS` words of the sentence after
  the gap (``window = [0, 1)``), or their mean over the next 3 sentences (``[0, 3)``);
* ``leaving`` -- the number of leave-taking words in the sentence before the gap (``[-1, 0)``), or their mean over
  the previous 3 (``[-3, 0)``).

Measured on the training books of the ``chapters`` protocol, a time word opens 39 % of chapters against 8.5 % of
the other paragraphs, and a leave-taking word ends 29 % of them against 10 % (held-out books: 34 % / 8.8 %,
24 % / 11 %).  Gaps between two documents get no value.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal

__all__ = ["TIME_WORDS", "LEAVING_WORDS", "OPENING_WORDS", "transition_counts", "transition_questions", "FAMILY"]

#: Words that place a sentence in time: parts of the day, spans, calendar names, and the adverbs of sequence.
TIME_WORDS: frozenset[str] = frozenset("""
    morning mornings afternoon evening evenings night nights noon midnight dawn daybreak sunrise sunset dusk twilight
    day days week weeks fortnight month months year years twelvemonth season seasons hour hours minute minutes
    o'clock yesterday today to-day tomorrow to-morrow tonight to-night
    spring summer autumn winter
    january february march april june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday christmas
    next following later after afterwards meanwhile ago since presently early
""".split())

#: Words that end a scene: leaving, going home, going to rest, parting.
LEAVING_WORDS: frozenset[str] = frozenset("""
    went gone left leave leaving departed departure parted parting farewell good-bye goodbye good-night adieu
    away home bed sleep slept asleep rest
""".split())

#: How many words from the start of a sentence count as its opening.
OPENING_WORDS = 12
COUNT_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.5, 1.0, math.inf)
OPENING_WINDOWS: tuple[Window, ...] = (Window("sentence", 0, 1), Window("sentence", 0, 3))
CLOSING_WINDOWS: tuple[Window, ...] = (Window("sentence", -1, 0), Window("sentence", -3, 0))

_WORD = re.compile(r"[a-z]+(?:[-'’][a-z]+)*")


def transition_counts(texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Per sentence: ``"time_opening"`` (time words among its first words) and ``"leaving"`` (leave-taking
    words anywhere in it)."""
    opening = np.zeros(len(texts))
    leaving = np.zeros(len(texts))
    for i, text in enumerate(texts):
        words = [w.replace("’", "'") for w in _WORD.findall(text.lower())]
        opening[i] = sum(1 for w in words[:OPENING_WORDS] if w in TIME_WORDS)
        leaving[i] = sum(1 for w in words if w in LEAVING_WORDS)
    return {"time_opening": opening, "leaving": leaving}


def _compute(part: str):
    def compute(context, window: Window) -> np.ndarray:
        counts = context.memo(("transitions", "per sentence"), lambda: transition_counts(context.texts))
        return context.inside_groups(context.window_mean(counts[part], window))
    return compute


def _span(window: Window) -> str:
    if window.end <= 0:
        return "the sentence before the gap" if window.start == -1 else f"the previous {-window.start} sentences"
    return "the sentence after the gap" if window.end == 1 else f"the next {window.end} sentences"


TIME_OPENING = register_signal(Signal(
    name="time_opening", kind="transitions", symbol="T",
    subject=lambda w: f"the number of time words opening {_span(w)}" + (" (mean)" if w.end > 1 else ""),
    tag=lambda w: f"time{w.end:+d}", compute=_compute("time_opening")))
LEAVING = register_signal(Signal(
    name="leaving", kind="transitions", symbol="G",
    subject=lambda w: f"the number of leave-taking words in {_span(w)}" + (" (mean)" if w.start < -1 else ""),
    tag=lambda w: f"leave{w.start:+d}", compute=_compute("leaving")))


def transition_questions() -> list[IntervalQuestion]:
    out = []
    for window in OPENING_WINDOWS:
        out += [IntervalQuestion(TIME_OPENING.name, window, lo, hi) for lo, hi in interval_grid(COUNT_EDGES)]
    for window in CLOSING_WINDOWS:
        out += [IntervalQuestion(LEAVING.name, window, lo, hi) for lo, hi in interval_grid(COUNT_EDGES)]
    return out


FAMILY = IntervalFamily(
    "transitions", lambda settings: transition_questions(),
    summary="time words opening the sentence after the gap, leave-taking words closing the one before")
