"""The plan of a shown stream (Qt-free): each document, decided on its own, and the segmenter that answers for it.

The engine sends it with a model's probabilities (:mod:`segviz.service.apply_job`); the window's
:class:`~segviz.app.state.SessionState` decides each unit with its segmenter's rule, as ``segviz segment`` does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PlanUnit:
    """One document of the shown stream, decided on its own: sentences ``start .. end - 1``, the segmenter that
    answers for it (``expert``; ``model`` for a lone segmenter) and why (``route``, a
    :class:`segviz.model_protocol.Route`, when a router chose)."""

    start: int
    end: int
    expert: str | None = None
    route: Any = None


def check_units(units, n: int) -> None:
    """ValueError unless ``units`` cover sentences 0..n-1 in order, each at least one sentence long."""
    at = 0
    for unit in units:
        if unit.start != at or unit.end <= unit.start:
            raise ValueError(f"the documents of the plan do not cover the stream in order (at sentence {at})")
        at = unit.end
    if at != n:
        raise ValueError(f"the documents of the plan cover {at} sentences, the stream has {n}")
