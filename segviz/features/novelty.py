"""The novelty family (beyond the paper): do the words after the gap come back from a long absence?

A chapter or a scene opens somewhere the text has left for a while: places, things and people not mentioned for
hundreds of sentences, or never.  Inside a scene the words of the next sentences were mostly used a little
earlier.  Per sentence, a word *returns* when the sentence uses it and none of the ``L`` sentences before it did
(within the document); ``L`` = "ever" counts first mentions.

* ``novelty_words_L`` -- the share of the content words (no stopword, a letter; each distinct word of a sentence
  counted once) of the next k sentences that return there after ``L``;
* ``novelty_shift_L`` -- that share for the next k sentences minus the same share for the previous k: how much
  more the text after the gap reaches back than the text before it (the level alone depends on the author's
  vocabulary);
* ``novelty_names_L`` -- the share of the names (:func:`segviz.features.names.sentence_names`) of the next k
  sentences that return there after ``L``.

Windows are clipped to the document; a window without any word (name) gets no value, nor does a gap between two
documents.  Chosen on the ``chapters`` protocol's training and held-out books (docs/reproduction.md).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.names import name_stream
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal
from segviz.features.stream import TokenStream
from segviz.features.tfidf import content_vocabulary

__all__ = ["NOVELTY_WINDOWS", "LOOKBACKS", "novelty_questions", "FAMILY"]

NOVELTY_WINDOWS: tuple[int, ...] = (10, 25, 50)
#: how far back a word must be absent to count as returning (None: never used before in the document)
LOOKBACKS: tuple[int | None, ...] = (100, 300, None)
#: the share's grid per lookback, around its quartiles on the training books (a longer absence is rarer)
WORD_EDGES: dict[int | None, tuple[float, ...]] = {
    100: (-math.inf, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, math.inf),
    300: (-math.inf, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, math.inf),
    None: (-math.inf, 0.08, 0.12, 0.16, 0.25, 0.35, 0.5, math.inf),
}
SHIFT_EDGES: tuple[float, ...] = (-math.inf, -0.1, -0.05, 0.0, 0.05, 0.1, 0.15, math.inf)
NAME_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.1, 0.25, 0.4, 0.6, 0.8, math.inf)
NAME_LOOKBACKS: tuple[int, ...] = (100, 300)   # first mentions of names: the names family's ``names_new``


def _word_stream(context) -> tuple[TokenStream, np.ndarray]:
    def build():
        return TokenStream(context.sentences, content_vocabulary(context.sentences)), context.group_of_sentence()

    return context.memo(("novelty", "words"), build)


def _returning(context, which: str, lookback: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Per sentence: its returning words (names) after ``lookback``, and all its distinct words (names)."""
    def build():
        stream, group = _word_stream(context) if which == "words" else name_stream(context)
        return stream.returns(lookback, group), stream.returns(0, group)

    return context.memo(("novelty", which, lookback), build)


def _share(context, which: str, lookback: int | None, window: Window) -> np.ndarray:
    back, every = _returning(context, which, lookback)
    returning, _ = context.window_sums(back, window)
    total, _ = context.window_sums(every, window)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, returning / np.where(total > 0, total, 1.0), np.nan)


def _lookback_phrase(lookback: int | None) -> str:
    return "never used before" if lookback is None else f"unused in the {lookback} sentences before"


def _lookback_tag(lookback: int | None) -> str:
    return "new" if lookback is None else str(lookback)


def _signals(lookback: int | None) -> tuple[Signal, Signal]:
    tag = _lookback_tag(lookback)
    words = register_signal(Signal(
        name=f"novelty_words_{tag}", kind="novelty", symbol="W",
        subject=lambda w: f"the share of the content words of the next {w.end} sentences {_lookback_phrase(lookback)}",
        tag=lambda w: f"Wret{tag}+{w.end}",
        compute=lambda context, w: context.inside_groups(_share(context, "words", lookback, w))))
    shift = register_signal(Signal(
        name=f"novelty_shift_{tag}", kind="novelty", symbol="dW",
        subject=lambda w: (f"the change, from the previous {w.end} to the next {w.end} sentences, in the share of "
                           f"content words {_lookback_phrase(lookback)}"),
        tag=lambda w: f"dWret{tag}±{w.end}",
        compute=lambda context, w: context.inside_groups(
            _share(context, "words", lookback, Window("sentence", 0, w.end))
            - _share(context, "words", lookback, Window("sentence", -w.end, 0)))))
    return words, shift


def _name_signal(lookback: int) -> Signal:
    return register_signal(Signal(
        name=f"novelty_names_{lookback}", kind="novelty", symbol="Nret",
        subject=lambda w: f"the share of the names of the next {w.end} sentences {_lookback_phrase(lookback)}",
        tag=lambda w: f"Nret{lookback}+{w.end}",
        compute=lambda context, w: context.inside_groups(_share(context, "names", lookback, w)),
        needs=frozenset({"texts"})))


WORD_SIGNALS = {lookback: _signals(lookback) for lookback in LOOKBACKS}
NAME_SIGNALS = {lookback: _name_signal(lookback) for lookback in NAME_LOOKBACKS}


def novelty_questions(windows: Sequence[int] = NOVELTY_WINDOWS) -> list[IntervalQuestion]:
    """The family's questions: the words' share and its change, the names' share, at each window."""
    out = []
    for lookback, (words, shift) in WORD_SIGNALS.items():
        for k in windows:
            out += [IntervalQuestion(words.name, Window("sentence", 0, k), lo, hi)
                    for lo, hi in interval_grid(WORD_EDGES[lookback])]
            out += [IntervalQuestion(shift.name, Window("sentence", -k, k), lo, hi)
                    for lo, hi in interval_grid(SHIFT_EDGES)]
    for signal in NAME_SIGNALS.values():
        out += [IntervalQuestion(signal.name, Window("sentence", 0, k), lo, hi)
                for k in windows for lo, hi in interval_grid(NAME_EDGES)]
    return out


FAMILY = IntervalFamily(
    "novelty", lambda settings: novelty_questions(),
    summary="share of the words and names after the gap that return from a long absence (or are new)",
    needs=frozenset({"texts"}))
