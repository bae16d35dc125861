"""Tuning on held-out data: a decision rule on one stream or document by document, by P_mu, P_k or both; settings
chosen on a grid.

The paper tunes its decision rule (Section 7: threshold alpha, separation epsilon) to maximise P_mu on the
held-out stream.  :func:`tune_rule` is the one tuning implementation of every decision rule
(:mod:`segviz.rules`): it decodes each held-out unit with every candidate of the rule's grid and keeps the best
mean score (:func:`best_on_grid`).  The thresholds of a router's decision list (:mod:`segviz.routing`) are tuned
the same way, several settings together on one grid (:func:`coordinate_search`), by the same choice of the best
candidate.  A model that is evaluated *document by document* -- a
wiki article, a stream of long texts, each segmented on its own and the rates averaged over documents -- and
judged by P_k is better tuned the way it is judged:

``units="per-document"``
    the held-out stream is cut at its source groups (:meth:`segviz.corpus.Corpus.source_groups`: one file, one
    article); each group is decoded on its own and the rates are averaged over groups with equal weight, as
    :func:`segviz.evaluation.macro_average` averages test documents.  Groups of fewer than 3 sentences are left
    out, as the evaluation leaves them out.  Gaps between two groups are never candidates.
``metric="p_k"``
    the setting minimises P_k (k = half the mean reference segment length of each unit, as it is scored)
    instead of maximising P_mu.  Scores are returned as ``1 - P_k`` so that higher is better for both metrics.
``metric="p_mu-p_k"``
    the setting maximises P_mu - P_k: P_mu rewards placing about as many boundaries as there are, P_k forgives a
    missing boundary more than a misplaced one, so a rule tuned for P_k alone places too few (half the chapters of
    a book) and one tuned for P_mu alone may place them anywhere.  The balance of the two is also what
    :mod:`segviz.selection` judges configurations by.

P_mu per document uses each document's own mu (1 / its mean reference segment length), as the evaluation
scores it; on one stream it uses the given ``mu`` (the paper's tuning mu; default 1 / the mean reference segment
length).  Grid ties go to the first candidate in grid order (smallest epsilon, then smallest alpha; smallest
shape, then smallest bias).  A search given a ``tolerance`` (the router's) counts every score within it of the
best as tied, and with ``plateau`` keeps the middle of the longest run of tied neighbours (:func:`best_on_grid`).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np

from .errors import SegvizError
from .metrics import p_k, p_mu
from .segmentation import boundaries_to_masses, default_mu, validate_masses

__all__ = ["TUNING_METRICS", "TUNING_UNITS", "check_tuning", "held_out_units", "tune_rule", "unit_score",
           "best_on_grid", "coordinate_search", "ROUNDING"]

TUNING_METRICS = ("p_mu", "p_k", "p_mu-p_k")
TUNING_UNITS = ("stream", "per-document")


def check_tuning(metric: str, units: str) -> None:
    if metric not in TUNING_METRICS:
        raise SegvizError(f"tuning metric must be one of {', '.join(TUNING_METRICS)}, not {metric!r}")
    if units not in TUNING_UNITS:
        raise SegvizError(f"tuning units must be one of {', '.join(TUNING_UNITS)}, not {units!r}")


def held_out_units(probs, ref_masses: Sequence[int], groups: Sequence[int] | None
                   ) -> list[tuple[np.ndarray, tuple[int, ...]]]:
    """``(gap probabilities, reference masses)`` of each source group of a stream (groups of 3+ sentences).

    ``probs`` are the n-1 gap probabilities of the whole stream, ``ref_masses`` its reference segments and
    ``groups`` the sentence counts of its source groups (None: one group).  A reference segment never spans two
    groups (a group is a run of whole documents)."""
    p = np.asarray(probs, dtype=np.float64)
    ref = validate_masses(ref_masses, what="reference")
    n = p.size + 1
    if sum(ref) != n:
        raise SegvizError(f"reference covers {sum(ref)} sentences, probabilities {n}")
    sizes = [n] if groups is None else [int(g) for g in groups]
    if any(g < 1 for g in sizes) or sum(sizes) != n:
        raise SegvizError(f"groups must be positive sentence counts summing to {n}")
    ends = np.cumsum(ref)
    units, start = [], 0
    for size in sizes:
        stop = start + size
        inside = ends[(ends > start) & (ends <= stop)]
        masses = tuple(int(x) for x in np.diff(np.concatenate([[start], inside])))
        if sum(masses) != size:
            raise SegvizError(f"a reference segment spans the edge between two source groups (at sentence {stop})")
        if size > 2:
            units.append((p[start:stop - 1], masses))
        start = stop
    if not units:
        raise SegvizError("no held-out document has more than 2 sentences to tune on")
    return units


def unit_score(reference: Sequence[int], boundaries, metric: str, mu: float | None = None) -> float:
    """The tuning score of ``boundaries`` on one unit: P_mu (with ``mu``, default the unit's own), 1 - P_k, or
    P_mu - P_k (higher is better for all three)."""
    ref = tuple(int(m) for m in reference)
    n = sum(ref)
    hyp = boundaries_to_masses(boundaries, n)
    if metric == "p_mu":
        return p_mu(ref, hyp, mu)
    agreement = 1.0 - p_k(ref, hyp) if n > 2 else 1.0
    if metric == "p_mu-p_k":
        return p_mu(ref, hyp, mu) + agreement - 1.0
    return agreement


def _unit_sizes(sizes, probs, groups) -> list:
    """Each tuning unit's slice of ``sizes`` (one per sentence of the stream), as :func:`held_out_units` cuts the
    stream (None per unit without sizes)."""
    n = np.asarray(probs).size + 1
    counts = [n] if groups is None else [int(g) for g in groups]
    if sizes is None:
        return [None] * sum(1 for c in counts if c > 2)
    s = np.asarray(sizes, dtype=np.float64)
    if s.shape != (n,):
        raise SegvizError(f"sentence sizes must be one number per sentence ({n}), got shape {s.shape}")
    starts = np.concatenate([[0], np.cumsum(counts)])
    return [s[starts[i]:starts[i + 1]] for i, c in enumerate(counts) if c > 2]


def tune_rule(rule, probs, ref_masses: Sequence[int], *, groups: Sequence[int] | None = None,
              metric: str = "p_mu", units: str = "stream", mu: float | None = None, sizes=None):
    """``(best candidate, its score)`` of ``rule``'s tuning grid on held-out gap probabilities ``probs`` of a
    stream with reference ``ref_masses`` (module docstring); ``sizes`` (one per sentence: its word count) are
    passed on to rules that measure segments in words.

    ``rule`` is any decision rule (:mod:`segviz.rules`): :meth:`~segviz.rules.DecisionRule.decisions` gives
    each candidate of its grid with the boundaries it places on one unit.  On one stream the score uses ``mu``
    (default: 1 / the reference's mean segment length); per document, each unit's own."""
    check_tuning(metric, units)
    parts = held_out_units(probs, ref_masses, groups if units == "per-document" else None)
    stream_mu = None
    if units == "stream":
        stream_mu = default_mu(validate_masses(ref_masses, what="reference")) if mu is None else float(mu)
    unit_sizes = _unit_sizes(sizes, probs, groups if units == "per-document" else None)
    totals: list[float] = []
    candidates: list = []
    for k, (unit_probs, ref) in enumerate(parts):
        for i, (candidate, boundaries) in enumerate(rule.decisions(unit_probs, sizes=unit_sizes[k])):
            score = unit_score(ref, boundaries, metric, stream_mu)
            if k == 0:
                candidates.append(candidate)
                totals.append(score)
            else:
                totals[i] += score
    if not candidates:
        raise SegvizError("the decision rule has an empty tuning grid")
    means = np.asarray(totals) / len(parts)
    best = best_on_grid(means)   # the first best in grid order
    return candidates[best], float(means[best])


#: scores closer than this differ by rounding only: a search given a tolerance counts them as tied
ROUNDING = 1e-12


def best_on_grid(scores, *, minimise: bool = False, tolerance: float | None = None, plateau: bool = False) -> int:
    """Index of the candidate to keep, ``scores`` holding one score per candidate in grid order (higher is better,
    lower with ``minimise``).

    Without a ``tolerance`` the best score wins, the first in grid order on a tie.  With one, every score within
    ``tolerance`` (and :data:`ROUNDING`) of the best counts as tied: the first of them wins, or with ``plateau`` the
    middle of the longest run of neighbouring tied candidates (the first such run on a tie) -- a threshold then
    sits inside a plateau of equally good values rather than at its edge, where one held-out document near it
    would set it."""
    signed = np.asarray(scores, dtype=np.float64) * (1.0 if minimise else -1.0)
    if tolerance is None:
        return int(np.argmin(signed))
    winners = np.flatnonzero(signed <= signed.min() + tolerance + ROUNDING)
    if not plateau:
        return int(winners[0])
    runs = np.split(winners, np.flatnonzero(np.diff(winners) > 1) + 1)
    run = max(runs, key=len)
    return int(run[len(run) // 2])


def coordinate_search(score: Callable[[np.ndarray], float], grid, n_settings: int, *, minimise: bool = False,
                      tolerance: float = 0.0, max_start: int = 100_000, max_passes: int = 10
                      ) -> tuple[list[int], list[list[float]]]:
    """``n_settings`` settings tuned together on one ``grid`` (ascending values): ``score(values)`` is the held-out
    score of one setting of all of them (an array of ``n_settings`` grid values; higher is better, lower with
    ``minimise``).

    The start is the best setting of all of them together on a coarse grid (every k-th grid value, k as small as
    keeps the settings tried to ``max_start``; the first best in grid order).  Then each setting in turn is set,
    on the whole grid, to the value best with the others held (:func:`best_on_grid` with ``tolerance``, keeping
    the middle of a plateau), until a pass moves none or ``max_passes`` have run.  (One setting at a time from a
    poor start stalls when the settings interact, as a router's thresholds do: an expert claiming little cannot
    show what it would gain while the one before it claims its documents.)

    Returns the grid indices of the settings and, per setting, the scores of its last pass over the grid."""
    grid = np.asarray(grid, dtype=np.float64)
    step = 1
    while math.ceil(grid.size / step) ** n_settings > max_start:
        step += 1
    coarse = np.arange(0, grid.size, step)
    settings = list(itertools.product(coarse, repeat=n_settings))
    start = best_on_grid([score(grid[list(setting)]) for setting in settings], minimise=minimise, tolerance=0.0)
    chosen = [int(i) for i in settings[start]]
    curves: list[list[float]] = [[] for _ in range(n_settings)]
    for _ in range(max_passes):
        moved = False
        for k in range(n_settings):
            curve = []
            for value in grid:
                trial = [grid[c] for c in chosen]
                trial[k] = value
                curve.append(score(np.asarray(trial)))
            best = best_on_grid(curve, minimise=minimise, tolerance=tolerance, plateau=True)
            curves[k] = [float(x) for x in curve]
            if best != chosen[k]:
                chosen[k], moved = best, True
        if not moved:
            break
    return chosen, curves
