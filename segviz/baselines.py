"""The paper's baseline segmenters (Section 7, Tables 5 and 6): random, all, none, even.

Each returns masses over the same ``n`` sentences as the reference, so any metric in :mod:`segviz.metrics` can
score them.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .segmentation import boundaries_to_masses, default_mu, validate_masses
from .errors import SegvizError

BASELINES = ("random", "all", "none", "even")


def random_masses(reference: Sequence[int], *, seed: int = 0) -> tuple[int, ...]:
    """As many boundaries as the reference, placed uniformly at random among the ``n - 1`` gaps (seeded)."""
    ref = validate_masses(reference, what="reference")
    n = sum(ref)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(np.arange(1, n), size=min(len(ref) - 1, n - 1), replace=False) if n > 1 else []
    return boundaries_to_masses(chosen, n)


def all_masses(reference: Sequence[int]) -> tuple[int, ...]:
    """A boundary at every gap: every sentence is its own segment."""
    return (1,) * sum(validate_masses(reference, what="reference"))


def none_masses(reference: Sequence[int]) -> tuple[int, ...]:
    """No boundary at all: one segment."""
    return (sum(validate_masses(reference, what="reference")),)


def even_masses(reference: Sequence[int], *, mu: float | None = None) -> tuple[int, ...]:
    """A boundary every ``round(1/mu)`` sentences, ``1/mu`` defaulting to the mean reference segment length."""
    ref = validate_masses(reference, what="reference")
    n = sum(ref)
    if mu is None:
        mu = default_mu(ref)
    if not np.isfinite(mu) or mu <= 0:
        raise SegvizError(f"mu must be a positive number, got {mu}")
    step = max(1, int(round(1.0 / mu)))
    return boundaries_to_masses(range(step, n, step), n)


def baseline_masses(name: str, reference: Sequence[int], *, mu: float | None = None, seed: int = 0) -> tuple[int, ...]:
    """Masses of the named baseline (one of :data:`BASELINES`)."""
    if name == "random":
        return random_masses(reference, seed=seed)
    if name == "all":
        return all_masses(reference)
    if name == "none":
        return none_masses(reference)
    if name == "even":
        return even_masses(reference, mu=mu)
    raise SegvizError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}")
