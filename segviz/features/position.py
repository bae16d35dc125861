"""The position family (beyond the paper): where in its document the gap lies.

The opening of a Wikipedia article is a short summary section; a news story's first paragraphs carry the lead.
Three quantities of the gap before sentence b, counted within its source group (the document or file the
reader found):

* ``from_start`` -- sentences of the document before the gap;
* ``to_end`` -- sentences of the document after it;
* ``relative_position`` -- ``from_start`` over the document's length.

A gap between two documents gets no value: the edge of a file is not evidence the text gives (and answering there
would teach the model that training files start with a boundary).
"""
from __future__ import annotations

import math

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal

__all__ = ["position_questions", "FAMILY"]

COUNT_EDGES: tuple[float, ...] = (-math.inf, 1, 2, 3, 5, 8, 13, 20, 40, 80, math.inf)
RELATIVE_EDGES: tuple[float, ...] = (-math.inf, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95, math.inf)
_POINT = Window("sentence", 0, 0)


def _positions(context) -> dict[str, np.ndarray]:
    b = np.arange(1, context.n_sentences, dtype=np.float64)
    first, end = context.group_bounds()
    size = (end - first).astype(np.float64)
    return {"from_start": context.inside_groups(b - first), "to_end": context.inside_groups(end - b),
            "relative_position": context.inside_groups((b - first) / size)}


def _signal(name: str, symbol: str, subject: str, tag: str) -> Signal:
    return register_signal(Signal(
        name=name, kind="position", symbol=symbol, subject=lambda w: subject, tag=lambda w: tag,
        compute=lambda context, window: context.memo(("position",), lambda: _positions(context))[name]))


FROM_START = _signal("from_start", "S", "the number of sentences of the document before the gap", "start+")
TO_END = _signal("to_end", "E", "the number of sentences of the document after the gap", "end-")
RELATIVE = _signal("relative_position", "P", "the gap's position in its document (0 = start, 1 = end)", "pos")


def position_questions() -> list[IntervalQuestion]:
    out = [IntervalQuestion(signal.name, _POINT, lo, hi)
           for signal in (FROM_START, TO_END) for lo, hi in interval_grid(COUNT_EDGES)]
    out += [IntervalQuestion(RELATIVE.name, _POINT, lo, hi) for lo, hi in interval_grid(RELATIVE_EDGES)]
    return out


FAMILY = IntervalFamily(
    "position", lambda settings: position_questions(),
    summary="sentences from the start / to the end of the document, and the relative position")
