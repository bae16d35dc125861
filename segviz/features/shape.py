"""The sentence-shape family (beyond the paper): what the sentences on either side of the gap look like.

Section openings and closings have a shape: a heading-like short line, a one-line list item, a sentence full of
figures (a table row, a date line).  Three per-sentence quantities, asked about the sentence before the gap
(``window = [-1, 0)``) and the one after it (``[0, 1)``):

* ``length`` -- its number of words (tokens holding a letter or digit);
* ``heading`` -- 1 when it looks like a heading: at most 10 words, a letter among them, and no final
  punctuation (``. ! ? : ;`` or a closing quote after one);
* ``numerals`` -- the share of its words that hold a digit.

Computed from the raw sentence texts where the reader kept them (from the tokens otherwise); gaps between two
documents get no value.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal

__all__ = ["HEADING_MAX_WORDS", "sentence_shape", "shape_questions", "FAMILY"]

HEADING_MAX_WORDS = 10
LENGTH_EDGES: tuple[float, ...] = (-math.inf, 3, 5, 8, 12, 20, 30, math.inf)
NUMERAL_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.1, 0.25, 0.5, math.inf)
SIDES: tuple[Window, ...] = (Window("sentence", -1, 0), Window("sentence", 0, 1))

_WORD = re.compile(r"\w+(?:[-'’.,]\w+)*", re.UNICODE)
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_FINAL = re.compile(r"[.!?:;…][\"'”’»)\]]*\s*$|(?:''|[\"”»])\s*$")


def sentence_shape(texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Per sentence: ``"length"`` (words), ``"heading"`` (0/1) and ``"numerals"`` (share of words with a digit)."""
    length, heading, numerals = [], [], []
    for text in texts:
        words = _WORD.findall(text)
        n = len(words)
        length.append(float(n))
        heading.append(1.0 if 0 < n <= HEADING_MAX_WORDS and _LETTER.search(text) and not _FINAL.search(text)
                       else 0.0)
        # most words are all letters, and str.isalpha() rules a digit out in one C call
        numerals.append(sum(1 for w in words if not w.isalpha() and any(c.isdigit() for c in w)) / n if n else 0.0)
    return {"length": np.array(length), "heading": np.array(heading), "numerals": np.array(numerals)}


def _side(window: Window) -> str:
    return "before" if window.end <= 0 else "after"


def _compute(part: str):
    def compute(context, window: Window) -> np.ndarray:
        shape = context.memo(("shape", "per sentence"), lambda: sentence_shape(context.texts))
        return context.inside_groups(context.window_mean(shape[part], window))

    return compute


def _heading_wording(low: float, high: float, window: Window) -> str | None:
    which = "before" if window.end <= 0 else "after"
    if (low, high) == (0.5, math.inf):
        return f"does the sentence {which} the gap look like a heading (short, no final punctuation)?"
    if (low, high) == (-math.inf, 0.5):
        return f"does the sentence {which} the gap end like a sentence (or run long)?"
    return None


def _heading_label(low: float, high: float, window: Window) -> str | None:
    tag = f"head{window.start if window.end <= 0 else window.end:+d}"
    return {(0.5, math.inf): tag, (-math.inf, 0.5): f"¬{tag}"}.get((low, high))


LENGTH = register_signal(Signal(
    name="length", kind="shape", symbol="L",
    subject=lambda w: f"the number of words of the sentence {_side(w)} the gap",
    tag=lambda w: f"len{w.start if w.end <= 0 else w.end:+d}", compute=_compute("length")))
HEADING = register_signal(Signal(
    name="heading", kind="shape", symbol="H",
    subject=lambda w: f"the heading-likeness of the sentence {_side(w)} the gap",
    tag=lambda w: f"head{w.start if w.end <= 0 else w.end:+d}", compute=_compute("heading"),
    wording=_heading_wording, label=_heading_label))
NUMERALS = register_signal(Signal(
    name="numerals", kind="shape", symbol="D",
    subject=lambda w: f"the share of words with a digit in the sentence {_side(w)} the gap",
    tag=lambda w: f"num{w.start if w.end <= 0 else w.end:+d}", compute=_compute("numerals")))


def shape_questions() -> list[IntervalQuestion]:
    out = []
    for window in SIDES:
        out += [IntervalQuestion(LENGTH.name, window, lo, hi) for lo, hi in interval_grid(LENGTH_EDGES)]
        out += [IntervalQuestion(HEADING.name, window, 0.5, math.inf),
                IntervalQuestion(HEADING.name, window, -math.inf, 0.5)]
        out += [IntervalQuestion(NUMERALS.name, window, lo, hi) for lo, hi in interval_grid(NUMERAL_EDGES)]
    return out


FAMILY = IntervalFamily(
    "shape", lambda settings: shape_questions(),
    summary="length, heading-likeness and numerals of the sentences before and after the gap")
