"""Improved Iterative Scaling for the trigger exponential model of Section 3.2: the cross-fitted trigram priors
the IIS statistics are computed with, the f# buckets, the per-feature step, the iteration record and the
training loop (:func:`run_iis`).

The model itself (pair selection, the trigger scan, scoring, persistence) is :class:`segviz.lm.triggers.TriggerLM`.

Training
    Improved Iterative Scaling (Della Pietra, Della Pietra & Lafferty 1997) with a Gaussian prior on the weights
    (Chen & Rosenfeld 2000): for each feature k solve
    ``sum_m E[k, m] exp(m delta) + (lambda_k + delta) / sigma^2 = observed_k`` by Newton's method, where
    ``E[k, m]`` is the model's expected count of f_k at events with m active features (the IIS f#).  Without the
    prior, pairs never observed in training run off to -inf.

    Acceleration (``acceleration="overrelaxed"``, the default): the IIS step is only a lower-bound step, very
    short for targets with many sources (f# in the hundreds), so plain IIS creeps.  Each iteration tries the
    over-relaxed step ``lam + eta * delta`` (adaptive over-relaxation of bound optimisers, Salakhutdinov &
    Roweis, ICML 2003) and keeps it only if the penalised training objective (cross-fitted log-likelihood +
    Gaussian log-prior) did not decrease; otherwise it takes the plain IIS step ``lam + delta``, whose
    improvement the IIS auxiliary function guarantees, and the next try restarts at eta / relax_growth^2
    (S&R restart at 1).  After every accepted step eta grows by ``relax_growth`` up to ``relax_max``.  The objective is therefore
    monotone, exactly as in plain IIS, and the fixed point is the same (the direction is always the IIS delta).

    Stopping: when the held-out log-likelihood improves by less than ``tol`` (relative) or gets worse, in which
    case the better weights are kept; a step that does not improve the held-out likelihood is first retried at
    1/2, 1/4 and 1/8 of its size (points between two weights with the training objective >= the first one's
    keep it >= by concavity).  ``max_iter`` is only a safety cap.  Without held-out text, iterations stop when
    the training objective improves by less than ``tol`` (relative).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..events import Progress
from .ngram_counts import count_stream, merge_ngram_counts
from .training_text import slice_stream
from .trigram import BOS_ID, TokenStream, TrigramLM


def fold_spans(n_sentences: int, n_folds: int) -> list[tuple[int, int]]:
    """The contiguous blocks of sentences the cross-fitted priors leave out in turn: ``(start, stop)`` each."""
    cuts = np.linspace(0, n_sentences, n_folds + 1).round().astype(int)
    return [(int(cuts[i]), int(cuts[i + 1])) for i in range(n_folds)]


def _cross_fit_priors(prior: TrigramLM, stream: TokenStream, n_folds: int, fold_counts=None):
    """Yield (block, trigram trained on the other blocks with the prior's vocabulary) for contiguous blocks.

    ``fold_counts``: the n-gram counts of each block (:func:`fold_spans`) when they were counted elsewhere (on a
    cluster); by default each block's part of ``stream`` is counted here.  Either way a block's prior is built
    from the merged counts of the other blocks: the same counts as the other blocks' text counted at once."""
    if n_folds <= 1:
        yield stream, prior
        return
    spans = fold_spans(stream.n_sentences, n_folds)
    blocks = [slice_stream(stream, a, b) for a, b in spans]
    if fold_counts is None:
        fold_counts = [count_stream(block, len(prior.vocab_), BOS_ID) for block in blocks]
    for i, block in enumerate(blocks):
        fp = TrigramLM(vocab_size=prior.vocab_size, discount_cutoff=prior.discount_cutoff,
                       min_leftover=prior.min_leftover)
        fp.vocab_, fp.word_index_ = prior.vocab_, prior.word_index_
        fp.fit_counts(merge_ngram_counts([c for j, c in enumerate(fold_counts) if j != i]))
        yield block, fp


def iis_buckets(max_active: int) -> tuple[np.ndarray, np.ndarray]:
    """IIS f# buckets: ``values[b]`` and ``bucket[f]`` for f = 0..max_active.

    f# up to 16 is exact; larger f# (frequent targets such as "pct" have hundreds of sources) is rounded *up*
    to the next of 24, 32, 48, 64, ...  Rounding up keeps the IIS auxiliary function a lower bound (a more
    conservative, GIS-like step); rounding down would not, and made IIS diverge on Reuters.
    """
    vals = list(range(1, 17))
    v = 16
    while vals[-1] < max_active:
        v = int(v * 1.5)
        vals.append(v)
    values = np.array(vals, dtype=float)
    f = np.arange(max(max_active, 1) + 1)
    bucket = np.searchsorted(values, f).astype(np.int64)
    bucket[0] = 0  # unused: a feature with an inactive target never accumulates
    return values, bucket


@dataclass(frozen=True)
class IISIteration:
    """One finished IIS iteration: perplexities per predicted token on the training and held-out streams."""

    iteration: int
    train_perplexity: float | None  # cross-fitted (see TriggerLM.cv_folds)
    heldout_perplexity: float | None
    mean_abs_weight: float
    seconds: float = 0.0  # wall time of the iteration (accumulating passes over the folds + held-out passes)
    train_objective: float | None = None  # cross-fitted log-likelihood + Gaussian log-prior (what IIS raises)
    step: float = 1.0  # multiple of the IIS step taken (> 1: over-relaxed; < 1: damped on held-out text)
    passes: int = 1  # accumulating passes over the training text this iteration took


def _iis_deltas(E: np.ndarray, obs: np.ndarray, lam: np.ndarray, sigma2: float, values: np.ndarray,
                n_bisect: int = 64) -> np.ndarray:
    """Solve sum_b E[k,b] e^{values[b] d} + (lam_k + d) / sigma2 = obs_k for every k (vectorised bisection).

    The left side is increasing in d, so bisection on [-20, 20] is safe.  (Newton is not: with f# buckets of
    tens or hundreds, e^{f# d} makes Newton crawl from the right, ~1/f# per step, and stopping it early left
    weights far too large.)
    """
    E = np.maximum(E, 0.0)
    v = np.asarray(values, dtype=float)
    lo = np.full(lam.shape, -20.0)
    hi = np.full(lam.shape, 20.0)
    for _ in range(n_bisect):
        d = 0.5 * (lo + hi)
        with np.errstate(over="ignore", invalid="ignore"):
            f = (E * np.exp(np.minimum(np.outer(d, v), 700.0))).sum(axis=1) + (lam + d) / sigma2 - obs
        pos = f > 0
        hi = np.where(pos, d, hi)
        lo = np.where(pos, lo, d)
    return 0.5 * (lo + hi)


def run_iis(model, prior, folds, fold_inputs, lp_folds, n_train: int, held, held_in, held_lp):
    """The IIS loop of :meth:`TriggerLM.fit_iter <segviz.lm.triggers.TriggerLM.fit_iter>` (module docstring).

    ``model`` is the :class:`~segviz.lm.triggers.TriggerLM` being fitted (pairs selected); ``folds`` its
    cross-fitted (stream, prior) blocks with their scan inputs and trigram log-probabilities; ``held``,
    ``held_in``, ``held_lp`` the held-out stream, its scan inputs and trigram log-probabilities (or None).
    Yields :class:`Progress` and :class:`IISIteration`; sets ``model.history_`` and ``model.weights_``.
    """
    sigma2 = float(model.prior_variance)

    def penalised(train_ll, lam):
        # the objective IIS maximises: cross-fitted log-likelihood plus the Gaussian log-prior
        return train_ll - 0.5 * float(lam @ lam) / sigma2

    def heldout_ll(lam):
        hz, hl, _, _ = model._run(prior, held, lam, accumulate=False, inputs=held_in)
        return float((held_lp + hl - hz).sum())

    def ppl(ll, n):
        return float(np.exp(-ll / n))

    lam = np.zeros(model.sources_.size)
    n_iter = int(model.max_iter) if model.sources_.size else 0  # no qualifying pair: the trigram itself
    t_start = time.perf_counter()
    best_ll = float(held_lp.sum()) if held is not None else None  # lambda = 0 is the trigram itself
    if n_iter:
        E, obs, train_ll = model._fold_pass(folds, fold_inputs, lp_folds, lam)
        obj = penalised(train_ll, lam)
    else:
        train_ll = float(sum(lp.sum() for lp in lp_folds))
        obj = train_ll
    # history_[i] describes the weights after i accepted iterations (0 = the trigram alone)
    model.history_ = [IISIteration(0, ppl(train_ll, n_train), ppl(best_ll, len(held)) if held is not None else None,
                                  0.0, round(time.perf_counter() - t_start, 3), train_objective=obj, step=0.0,
                                  passes=1)]
    eta = 1.0
    growth, eta_max = float(model.relax_growth), float(model.relax_max)
    accelerate = model.acceleration == "overrelaxed"
    for it in range(1, n_iter + 1):
        # iterations done so far, of a number nobody knows: IIS stops on the held-out likelihood long before
        # the max_iter cap (30 of 200 on Reuters), so a bar to max_iter would stop at a sixth and jump
        yield Progress("triggers: IIS", it - 1, 0)
        t_start = time.perf_counter()
        delta = _iis_deltas(E, obs, lam, sigma2, model._bucket_values)
        # Adaptive over-relaxation (Salakhutdinov & Roweis 2003) of the IIS step: try lam + eta * delta; keep
        # it only if the penalised training objective did not decrease, otherwise fall back to the plain IIS
        # step (eta = 1), whose improvement the IIS bound guarantees.  After a rejection the next try restarts
        # at eta / growth^2 rather than at 1 (S&R restart at 1): on Reuters the useful eta stays at 3-5, and
        # climbing back from 1 wasted iterations.
        passes = 0
        for step in ((eta, 1.0) if eta > 1.0 else (1.0,)):
            cand = lam + step * delta
            E_c, obs_c, ll_c = model._fold_pass(folds, fold_inputs, lp_folds, cand)
            obj_c = penalised(ll_c, cand)
            passes += 1
            if step == 1.0 or obj_c >= obj:
                break
        if not accelerate:
            eta = 1.0
        elif step == eta:
            eta = min(eta * growth, eta_max)
        else:
            eta = max(1.0, eta / growth ** 2)
        gain_train = obj_c - obj
        stop = False
        held_ppl = None
        if held is not None:
            ll = heldout_ll(cand)
            if ll <= best_ll:
                # Held-out likelihood got worse.  On small corpora the cross-fitted priors are much weaker
                # than the final one and a full step overshoots: try the step at 1/2, 1/4, 1/8.  Points between
                # lam and cand keep the training objective >= obj(lam) (it is concave), so monotonicity holds.
                for frac in (0.5, 0.25, 0.125):
                    cand_h = lam + frac * (cand - lam)
                    ll = heldout_ll(cand_h)
                    if ll > best_ll:
                        cand = cand_h
                        E_c, obs_c, ll_c = model._fold_pass(folds, fold_inputs, lp_folds, cand)
                        obj_c = penalised(ll_c, cand)
                        passes += 1
                        eta = 1.0
                        break
            held_ppl = ppl(ll, len(held))
            if ll <= best_ll:
                # keep the previous, better weights; record the rejected step for inspection only
                yield IISIteration(it, ppl(ll_c, n_train), held_ppl, float(np.abs(cand).mean()),
                                   round(time.perf_counter() - t_start, 3), train_objective=obj_c, step=step,
                                   passes=passes)
                break
            stop = (ll - best_ll) / abs(best_ll) < model.tol
            best_ll = ll
        else:
            stop = gain_train <= model.tol * abs(obj)
        lam, E, obs, obj = cand, E_c, obs_c, obj_c
        model.history_.append(IISIteration(it, ppl(ll_c, n_train), held_ppl, float(np.abs(lam).mean()),
                                          round(time.perf_counter() - t_start, 3), train_objective=obj,
                                          step=step, passes=passes))
        yield model.history_[-1]
        if stop:
            break
    model.weights_ = lam
    done = max(len(model.history_) - 1, 1)   # the accepted iterations (a model without pairs: one step, done)
    yield Progress("triggers: IIS", done, done)
