"""The lexical-cohesion family (an addition to the paper, in the spirit of TextTiling).

The paper's candidates (Sections 3.3-3.4) ask about single words and about the language models' relevance.
These ask instead how much the content words of the previous k and the next k sentences overlap -- the cosine
between their sets, as in TextTiling's block comparison (Hearst 1997) -- as interval questions
``low < C <= high`` over a fixed grid, like the relevance questions of Section 3.3.  Computed from the text
itself, so no training vocabulary is needed.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal
from segviz.features.stream import TokenStream
from segviz.peers import default_stopwords

__all__ = [
    "COHESION_EDGES",
    "COHESION_WINDOWS",
    "COHESION",
    "cohesion_values",
    "cohesion_questions",
    "FAMILY",
]

#: The cosine grid of the questions, and the k of the previous/next k sentences they compare.
COHESION_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, math.inf)
COHESION_WINDOWS: tuple[int, ...] = (2, 5, 10)

_CONTENT = re.compile(r"[a-z]")


def _content_stream(sentences: Sequence[Sequence[str]]) -> TokenStream:
    stop = default_stopwords()
    content = sorted(t for t in {t for s in sentences for t in s} if t not in stop and _CONTENT.search(t))
    return TokenStream(sentences, content)


def _cosine(stream: TokenStream, k: int, group: np.ndarray | None = None) -> np.ndarray:
    before, after, inter = stream.window_set_sizes(k, group)
    sizes = np.sqrt(before * after)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sizes > 0, inter / np.where(sizes > 0, sizes, 1.0), 0.0)


def cohesion_values(sentences: Sequence[Sequence[str]], k: int) -> np.ndarray:
    """Cosine of the content-word sets of sentences [b-k, b) and [b, b+k) for b = 1..n-1 (0 if one is empty).

    Content words: tokens with a letter that are not on the bundled English stopword list.  Built from the
    sentence-by-word incidence matrix of the text itself, so no training vocabulary is needed.
    """
    return _cosine(_content_stream(sentences), k)


def _compute(context, window: Window) -> np.ndarray:
    stream = context.memo(("cohesion", "content stream"), lambda: _content_stream(context.sentences))
    return context.inside_groups(_cosine(stream, window.end, context.group_of_sentence()))


COHESION = register_signal(Signal(
    name="cohesion", kind="cohesion", symbol="C",
    subject=lambda w: f"the content-word overlap (cosine) of the previous {w.end} and next {w.end} sentences",
    tag=lambda w: f"C±{w.end}", compute=_compute))


def cohesion_questions(edges: Sequence[float] = COHESION_EDGES,
                       windows: Sequence[int] = COHESION_WINDOWS) -> list[IntervalQuestion]:
    return [IntervalQuestion(COHESION.name, Window("sentence", -k, k), lo, hi)
            for k in windows for lo, hi in interval_grid(edges)]


FAMILY = IntervalFamily(
    "cohesion", lambda settings: cohesion_questions(),
    summary="content-word overlap (cosine of sets) of the previous and next 2/5/10 sentences")
