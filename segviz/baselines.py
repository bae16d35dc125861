"""The paper's baseline segmenters (Section 7, Tables 5 and 6): random, all, none, even; and "even-words".

Each returns masses over the same ``n`` sentences as the reference, so any metric in :mod:`segviz.metrics` can
score them.  "even" counts sentences and is told the reference's mean segment length; "even-words"
(:func:`even_words_masses`) counts words and is given a mean length from elsewhere (the protocols give it the
training portion's), so it needs each sentence's length and is not one of :data:`BASELINES`.  It exists because a
corpus whose segments are of about equal length in words (Brown's samples are ~2,000 words each) is segmented well by
counting words, and "even" in sentences hides that.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import SegvizError
from .segmentation import boundaries_to_masses, default_mu, validate_masses

BASELINES = ("random", "all", "none", "even")
#: the baseline that counts words (:func:`even_words_masses`); the protocols score it beside "even"
EVEN_WORDS = "even-words"


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


def even_words_masses(sentence_words: Sequence[int], words_per_segment: float) -> tuple[int, ...]:
    """A boundary every ``words_per_segment`` words: after the sentence whose end is nearest each multiple of it.

    ``sentence_words`` holds each sentence's length in words (tokens, as :func:`segviz.rules.document_sizes`
    counts them).  Where two multiples fall nearest the same sentence end, one boundary stands for both."""
    sizes = np.asarray(list(sentence_words), dtype=np.float64)
    n = len(sizes)
    if n == 0:
        raise SegvizError("even-words: no sentence to segment")
    if not np.isfinite(words_per_segment) or words_per_segment <= 0:
        raise SegvizError(f"even-words needs a positive mean segment length in words, got {words_per_segment}")
    if n == 1:
        return (1,)
    ends = np.cumsum(sizes)[:-1]   # words before each of the n - 1 gaps
    # the multiples short of the last word, as "even" takes the multiples short of the last sentence
    targets = np.arange(words_per_segment, float(sizes.sum()), words_per_segment)
    gaps = set()
    for target in targets:
        i = int(np.searchsorted(ends, target))
        # the nearer of the gap ends either side of the target
        if i >= len(ends) or (i > 0 and target - ends[i - 1] <= ends[i] - target):
            i -= 1
        gaps.add(i + 1)
    return boundaries_to_masses(sorted(g for g in gaps if 0 < g < n), n)


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
