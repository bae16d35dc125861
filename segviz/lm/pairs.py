"""Trigger-pair selection for the long-range model of Section 3.2: co-occurrence within the N-word window,
average mutual information (plain or residual) and likelihood-gain rankings, the top K pairs.

The model that uses the pairs is :class:`segviz.lm.triggers.TriggerLM`.

Pair selection
    Sources and targets are the ``trigger_vocab`` most frequent words.  Each candidate pair (s, t) gets the
    *average mutual information* between the events "s occurred in the last N words" and "the next word is t"
    (Rosenfeld's AMI, computed from a 2 x 2 table over all word positions), self-triggers included; only
    positively associated pairs qualify.  With ``ranking="residual"`` (the default) each occurrence of t counts
    with weight ``1 - p_tri(t | h)``: the part of the occurrence the trigram did *not* already predict.  Plain
    MI fills the top slots with newswire boilerplate that the trigram predicts locally ("shr" -> "vs",
    "cts" -> "net"), pairs that cost parameters and buy nothing; the residual weighting demotes them
    (measured in docs/language_models.md).

Gain ranking
    With ``ranking="gain"`` the top candidates by residual AMI are re-ranked by their single-feature
    likelihood gain over the trigram prior (:func:`rank_by_gain`).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ._scan import cooccurrence_scan

#: the pairs scored at once by one thread (a block of targets x every source)
BLOCK_ENTRIES = 2_000_000
#: the most memory the co-occurrence counts of trigger selection take at once (a band of targets at a time)
BAND_BYTES = 128 << 20


def average_mutual_information(c_st, c_s, c_t, n):
    """Average MI (nats) between [s in history] and [next word = t] from the 2x2 table's margins."""
    c_st = np.asarray(c_st, dtype=float)
    cells = (
        (c_st, c_s, c_t),
        (c_s - c_st, c_s, n - c_t),
        (c_t - c_st, n - c_s, c_t),
        (n - c_s - c_t + c_st, n - c_s, n - c_t),
    )
    total = np.zeros(np.broadcast(c_st, c_s, c_t).shape)
    for joint, a, b in cells:
        joint = np.maximum(joint, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = joint / n * np.log(joint * n / (a * b))
        total += np.where(joint > 0, term, 0.0)
    return total


@njit(cache=True, nogil=True)
def _ami_term(joint, a, b, n):
    # one cell of the 2x2 table, as average_mutual_information takes it (an empty cell adds exactly 0)
    return joint / n * np.log(joint * n / (a * b)) if joint > 0 else 0.0


@njit(cache=True, nogil=True)
def _ami_block(C, t0, t1, hist, target, n, min_cooccurrence):
    """Scores of the targets ``t0:t1`` against every source: :func:`average_mutual_information` of each pair
    with enough positive co-occurrence, ``-inf`` for the others.

    The same arithmetic as the numpy function, cell by cell and in the same order, in one pass over the block
    (numpy needed some thirty passes over a 2-million-entry block, most of the selection's time).
    """
    n_s = C.shape[1]
    score = np.empty((t1 - t0, n_s))
    for i in range(t1 - t0):
        c_t = target[t0 + i]
        for s in range(n_s):
            c_st = np.float64(C[t0 + i, s])
            c_s = hist[s]
            if not (c_st * n > c_t * c_s and c_st >= min_cooccurrence):
                score[i, s] = -np.inf
                continue
            total = 0.0
            total += _ami_term(c_st, c_s, c_t, n)
            total += _ami_term(c_s - c_st, c_s, n - c_t, n)
            total += _ami_term(c_t - c_st, n - c_s, c_t, n)
            total += _ami_term(n - c_s - c_t + c_st, n - c_s, n - c_t, n)
            score[i, s] = total
    return score


def selection_bands(n_tv: int) -> tuple[list[int], int, int]:
    """How the co-occurrence counts of a trigger vocabulary of ``n_tv`` words are taken: the first target of
    each band, the band's size and the block size (targets scored at once).

    A band is a whole number of blocks, so the blocks (and each block's best pairs) are the same however the
    bands are cut."""
    chunk = max(1, BLOCK_ENTRIES // max(n_tv, 1))
    # the co-occurrence counts a band of targets at a time: 10,000 x 10,000 float32 counts are 400 MB at once
    band = chunk * max(1, BAND_BYTES // (4 * max(n_tv, 1) * chunk))
    return list(range(0, max(n_tv, 1), band)), band, chunk


def band_best(b0: int, x: np.ndarray, r: np.ndarray, window: int, n_tv: int, k: int, min_cooccurrence: float,
              band: int, chunk: int, pool: ThreadPoolExecutor | None = None
              ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The best pairs of each block of the band of targets starting at ``b0``: ``(source, target, score)`` of
    the block's own top ``k`` (finite scores only), block by block.

    The band's co-occurrence counts are taken in one pass over the whole stream per target row, in stream order,
    so each count (and score) is the same whether the rows are split across the threads of ``pool`` (one
    machine) or the band is one task of a cluster (no pool)."""
    n = float(x.size)
    C = np.zeros((min(band, n_tv - b0), n_tv), dtype=np.float32)
    n_parts = (os.cpu_count() or 1) if pool is not None else 1
    scan = lambda part: cooccurrence_scan(x, r, int(window), C, b0, part, n_parts)   # noqa: E731
    counts = list(pool.map(scan, range(n_parts))) if pool is not None else [scan(0)]
    hist, target = counts[0]

    def best_of_block(t0):
        # the block's own top k (scores are computed without the GIL, so blocks run on all cores)
        flat = _ami_block(C, t0 - b0, min(t0 + chunk, b0 + C.shape[0]) - b0, hist, target[b0:], n,
                          float(min_cooccurrence)).ravel()
        take = min(k, flat.size)
        idx = np.argpartition(-flat, take - 1)[:take]
        idx = idx[np.isfinite(flat[idx])]
        tt, ss = np.divmod(idx, n_tv)
        return ss, tt + t0, flat[idx]

    blocks = range(b0, b0 + C.shape[0], chunk)
    return list(pool.map(best_of_block, blocks)) if pool is not None else [best_of_block(t0) for t0 in blocks]


def merge_best(blocks, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` best of the blocks' best pairs (:func:`band_best`), merged in block order, as one after the
    other, so that ties keep their order; best first."""
    best_s = np.empty(0, dtype=np.int64)
    best_t = np.empty(0, dtype=np.int64)
    best_v = np.empty(0)
    for ss, tt, vv in blocks:
        best_s = np.concatenate([best_s, ss])
        best_t = np.concatenate([best_t, tt])
        best_v = np.concatenate([best_v, vv])
        if best_v.size > 4 * k:
            keep = np.argpartition(-best_v, k - 1)[:k]
            best_s, best_t, best_v = best_s[keep], best_t[keep], best_v[keep]
    order = np.argsort(-best_v, kind="stable")[:k]
    return best_s[order], best_t[order], best_v[order]


def top_pairs_by_ami(x: np.ndarray, r: np.ndarray, window: int, n_tv: int, k: int,
                     min_cooccurrence: float, map_ordered=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` positively associated (s, t) pairs with the largest (weighted) average MI.

    ``x`` is the word stream in trigger-vocabulary indices (0..n_tv-1, -1 outside it), ``r`` the weight of each
    occurrence (1, or ``1 - p_tri`` for the residual ranking).  Returns (source, target, score) arrays in
    trigger-vocabulary indices, best first.

    ``map_ordered(func, items, *shared)`` (a :class:`segviz.lm.training_text.TrainingText`'s ``mapper``), when given, takes
    the bands elsewhere (one task each, on a cluster); by default they are taken here on every core.  The
    blocks' best pairs and their merge are the same either way."""
    x = x.astype(np.int64)
    r = r.astype(np.float64)
    starts, band, chunk = selection_bands(n_tv)
    if map_ordered is not None:
        per_band = map_ordered(band_best, starts, x, r, int(window), n_tv, k, float(min_cooccurrence), band,
                               chunk)
        return merge_best((block for blocks in per_band for block in blocks), k)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        # one band at a time: its counts are freed before the next band's are taken
        return merge_best((block for b0 in starts
                           for block in band_best(b0, x, r, window, n_tv, k, min_cooccurrence, band, chunk, pool)),
                          k)


def rank_by_gain(expected: np.ndarray, observed: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the ``k`` candidates with the largest single-feature likelihood gain over the prior, and their gains.

    For one feature alone, max over lambda of the log-likelihood gain is, for small probabilities, the Poisson
    divergence ``obs log(obs / E) - (obs - E)`` with ``E`` the prior's expected count of the feature (the
    IIS statistic at lambda = 0).  A pair the trigram already predicts (E ~ obs) gains nothing, however
    high its mutual information.  Only positive associations (obs > E) are kept.
    """
    e = np.maximum(expected, 1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(observed > e, observed * np.log(observed / e) - (observed - e), 0.0)
    order = np.argsort(-gain, kind="stable")[: int(k)]
    order = order[gain[order] > 0]
    return order, gain[order]
