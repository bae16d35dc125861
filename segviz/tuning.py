"""Tuning a decision rule on held-out data: on one stream or document by document, by P_mu or by P_k.

The paper tunes its decision rule (Section 7: threshold alpha, separation epsilon) to maximise P_mu on the
held-out stream, and so does :func:`segviz.decode.tune`.  A model that is evaluated *document by document* -- a
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

P_mu per document uses each document's own mu (1 / its mean reference segment length), as the evaluation
scores it; on one stream it uses the given ``mu`` (the paper's tuning mu).  Grid ties go to the first setting
in grid order (smallest epsilon, then smallest alpha; smallest shape, then smallest bias), as in
:func:`segviz.decode.tune`.  With the defaults (stream, P_mu) both functions return exactly what
:func:`segviz.decode.tune` and :func:`segviz.length_prior.tune_length_prior` return.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .decode import greedy_order_keep, tune
from .errors import SegvizError
from .length_prior import decode_length_prior, tune_length_prior
from .metrics import p_k, p_mu
from .segmentation import boundaries_to_masses, validate_masses

__all__ = ["TUNING_METRICS", "TUNING_UNITS", "held_out_units", "tune_threshold_rule", "tune_length_prior_rule"]

TUNING_METRICS = ("p_mu", "p_k")
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


def _unit_score(ref: tuple[int, ...], bounds: np.ndarray, metric: str) -> float:
    hyp = boundaries_to_masses(bounds, sum(ref))
    return p_mu(ref, hyp) if metric == "p_mu" else 1.0 - p_k(ref, hyp)


def _stream_score(ref: tuple[int, ...], bounds: np.ndarray, metric: str, mu: float | None) -> float:
    hyp = boundaries_to_masses(bounds, sum(ref))
    return p_mu(ref, hyp, mu) if metric == "p_mu" else 1.0 - p_k(ref, hyp)


def tune_threshold_rule(probs, ref_masses: Sequence[int], *, groups: Sequence[int] | None = None,
                        metric: str = "p_mu", units: str = "stream", mu: float | None = None,
                        alphas: Sequence[float], epsilons: Sequence[int]) -> tuple[float, int, float]:
    """``(alpha, epsilon, score)`` of the threshold rule (Section 7) best on held-out data (module docstring)."""
    check_tuning(metric, units)
    if metric == "p_mu" and units == "stream":
        return tune(probs, ref_masses, mu=mu, alphas=alphas, epsilons=epsilons)
    parts = (held_out_units(probs, ref_masses, groups) if units == "per-document"
             else held_out_units(probs, ref_masses, None))
    a = np.asarray(alphas, dtype=np.float64)
    table = np.zeros((len(epsilons), a.size))
    for unit_probs, ref in parts:
        for i, eps in enumerate(epsilons):
            keep = greedy_order_keep(unit_probs, int(eps))
            kept = np.flatnonzero(keep)
            kept_p = unit_probs[kept]
            for j, alpha in enumerate(a):
                bounds = kept[kept_p > alpha] + 1
                table[i, j] += (_unit_score(ref, bounds, metric) if units == "per-document"
                                else _stream_score(ref, bounds, metric, mu))
    table /= len(parts)
    i, j = np.unravel_index(int(np.argmax(table)), table.shape)
    return float(a[j]), int(epsilons[i]), float(table[i, j])


def tune_length_prior_rule(probs, ref_masses: Sequence[int], *, groups: Sequence[int] | None = None,
                           metric: str = "p_mu", units: str = "stream", mean_length: float,
                           shapes: Sequence[float], biases: Sequence[float], mu: float | None = None
                           ) -> tuple[float, float, float]:
    """``(shape, bias, score)`` of the length-prior rule (:mod:`segviz.length_prior`) best on held-out data."""
    check_tuning(metric, units)
    if units == "stream":
        return tune_length_prior(probs, ref_masses, mean_length=mean_length, shapes=shapes, biases=biases,
                                 metric=metric, mu=mu)
    parts = held_out_units(probs, ref_masses, groups)
    best = (-np.inf, 0.0, 0.0)
    for k in shapes:
        for beta in biases:
            total = 0.0
            for unit_probs, ref in parts:
                bounds = decode_length_prior(unit_probs, mean_length=mean_length, shape=k, bias=beta)
                total += _unit_score(ref, bounds, metric)
            score = total / len(parts)
            if score > best[0]:
                best = (score, float(k), float(beta))
    return best[1], best[2], float(best[0])

