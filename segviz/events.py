"""Small typed events yielded by the engine's long-running generators.

The CLI turns them into a progress bar, the app's worker into Qt signals, and tests read them directly.
Modules with richer events (e.g. :class:`segviz.induction.FeatureAdded`) define their own frozen dataclasses.
"""
from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Progress:
    """``done`` of ``total`` units of work finished in ``stage`` (``total`` 0 means unknown)."""

    stage: str
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total > 0 else 0.0


def run_to_end(work: Generator[Any, Any, T]) -> T:
    """Drive one of the engine's generators to its end, dropping its events; returns its value."""
    while True:
        try:
            next(work)
        except StopIteration as done:
            return done.value
