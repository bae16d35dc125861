"""Trigger pairs and the trigger exponential language model over the trigram prior (Section 3.2).

    p_exp(w | H) = exp(sum_i lambda_i f_i(H, w)) p_tri(w | w-2, w-1) / Z(H),   f_i(H, w) = [s_i in H and w = t_i]

``H`` is the last ``window`` (= 500) *words* of the stream -- across sentence and document boundaries; ``</s>``
takes no window slot.  Because only triggered targets change the prior,

    Z(H) = 1 + sum over triggered t of p_tri(t | h) (exp(Lambda(t)) - 1),

computed without touching the vocabulary (see :mod:`segviz.lm._scan` for the Katz decomposition that makes it
cost O(continuations of the history)).

Pair selection
    Sources and targets are the ``trigger_vocab`` most frequent words.  Each candidate pair (s, t) gets the
    *average mutual information* between the events "s occurred in the last N words" and "the next word is t"
    (Rosenfeld's AMI, computed from a 2 x 2 table over all word positions), self-triggers included; only
    positively associated pairs qualify.  With ``ranking="residual"`` (the default) each occurrence of t counts
    with weight ``1 - p_tri(t | h)``: the part of the occurrence the trigram did *not* already predict.  Plain
    MI fills the top slots with newswire boilerplate that the trigram predicts locally ("shr" -> "vs",
    "cts" -> "net"), pairs that cost parameters and buy nothing; the residual weighting demotes them
    (measured in docs/language_models.md).

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

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generator

import numpy as np

from ..errors import SegvizError
from ..events import Progress
from ._scan import cooccurrence_scan, trigger_scan
from .trigram import TokenStream, TrigramLM, _BITS, _lookup, _validate_sentences

_FIRST_WORD = 3  # ids 0..2 are <unk>, <s>, </s>; words follow in frequency order


def _slice_stream(st: TokenStream, s0: int, s1: int) -> TokenStream:
    a, b = np.searchsorted(st.sentence, [s0, s1])
    return TokenStream(w=st.w[a:b], h1=st.h1[a:b], h2=st.h2[a:b], sentence=st.sentence[a:b] - s0,
                       is_word=st.is_word[a:b], oov=st.oov[a:b], n_sentences=s1 - s0)


def _concat_streams(parts: list[TokenStream]) -> TokenStream:
    offsets = np.cumsum([0] + [p.n_sentences for p in parts])
    return TokenStream(
        w=np.concatenate([p.w for p in parts]), h1=np.concatenate([p.h1 for p in parts]),
        h2=np.concatenate([p.h2 for p in parts]),
        sentence=np.concatenate([p.sentence + o for p, o in zip(parts, offsets)]),
        is_word=np.concatenate([p.is_word for p in parts]), oov=np.concatenate([p.oov for p in parts]),
        n_sentences=int(offsets[-1]),
    )


def _cross_fit_priors(prior: TrigramLM, stream: TokenStream, n_folds: int):
    """Yield (block, trigram trained on the other blocks with the prior's vocabulary) for contiguous blocks."""
    if n_folds <= 1:
        yield stream, prior
        return
    cuts = np.linspace(0, stream.n_sentences, n_folds + 1).round().astype(int)
    blocks = [_slice_stream(stream, cuts[i], cuts[i + 1]) for i in range(n_folds)]
    for i, block in enumerate(blocks):
        other = _concat_streams([b for j, b in enumerate(blocks) if j != i])
        fp = TrigramLM(vocab_size=prior.vocab_size, discount_cutoff=prior.discount_cutoff,
                       min_leftover=prior.min_leftover)
        fp.vocab_, fp.word_index_ = prior.vocab_, prior.word_index_
        fp._build(other)
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


def _csr(keys: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n_rows), out=ptr[1:])
    return ptr, order.astype(np.int64)


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


class TriggerLM:
    """Trigger-pair exponential language model with the Katz trigram as prior (Section 3.2).

    Parameters
    ----------
    window : int
        N, the history length in words (500 in the paper).
    n_triggers : int
        K, the number of (s, t) pairs kept.
    trigger_vocab : int
        Sources and targets are restricted to this many most frequent words.
    ranking : {"gain", "residual", "mi"}
        How candidate pairs are ranked (see the module docstring).
    gain_candidates : int
        With ``ranking="gain"``, the top ``gain_candidates * n_triggers`` pairs by residual AMI are re-ranked
        by their single-feature likelihood gain over the trigram prior.
    min_cooccurrence : float
        A pair needs at least this (weighted) co-occurrence count to qualify.
    prior_variance : float
        sigma^2 of the Gaussian prior on the weights, in count units.
    max_iter, tol : safety cap on IIS iterations and relative held-out log-likelihood tolerance for stopping
        (training objective when there is no held-out text).
    acceleration : {"overrelaxed", "none"}
        Adaptive over-relaxation of the IIS step (module docstring) or plain IIS.
    relax_growth, relax_max : growth factor of the over-relaxation eta after an accepted step, and its cap.
    cv_folds : int
        The IIS statistics (and the residual weights of the ranking) of each of ``cv_folds`` contiguous blocks of
        the training text are computed with a trigram prior trained on the *other* blocks (same vocabulary).  On
        its own training text the Katz trigram is wildly overconfident (training perplexity ~12 against ~110
        on new text), which makes every trigger look useless there; cross-fitting gives the weights the prior's
        real, out-of-sample behaviour.  1 disables it.

    Attributes (after fit)
    ----------------------
    sources_, targets_ : int64 arrays of trigram ids; weights_ : float64 lambdas; scores_ : selection scores;
    history_ : list of :class:`IISIteration`; prior_ : the :class:`TrigramLM`.
    """

    def __init__(self, *, window: int = 500, n_triggers: int = 20000, trigger_vocab: int = 10000,
                 ranking: str = "residual", min_cooccurrence: float = 2.0, prior_variance: float = 1.0,
                 max_iter: int = 200, tol: float = 1e-5, cv_folds: int = 4, gain_candidates: int = 4,
                 acceleration: str = "overrelaxed", relax_growth: float = 1.5, relax_max: float = 8.0):
        self.window = window
        self.n_triggers = n_triggers
        self.trigger_vocab = trigger_vocab
        self.ranking = ranking
        self.min_cooccurrence = min_cooccurrence
        self.prior_variance = prior_variance
        self.max_iter = max_iter
        self.tol = tol
        self.cv_folds = cv_folds
        self.gain_candidates = gain_candidates
        self.acceleration = acceleration
        self.relax_growth = relax_growth
        self.relax_max = relax_max

    def _check_params(self):
        for name in ("window", "n_triggers", "trigger_vocab", "max_iter", "cv_folds", "gain_candidates"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise SegvizError(f"{name} must be a positive integer, got {v!r}")
        if self.ranking not in ("gain", "residual", "mi"):
            raise SegvizError(f"ranking must be 'gain', 'residual' or 'mi', got {self.ranking!r}")
        if self.acceleration not in ("overrelaxed", "none"):
            raise SegvizError(f"acceleration must be 'overrelaxed' or 'none', got {self.acceleration!r}")
        try:
            growth, top = float(self.relax_growth), float(self.relax_max)
        except (TypeError, ValueError):
            raise SegvizError("relax_growth and relax_max must be numbers") from None
        if not (growth >= 1.0 and top >= 1.0):
            raise SegvizError(f"relax_growth and relax_max must be >= 1, got {self.relax_growth!r}, {self.relax_max!r}")
        if not float(self.prior_variance) > 0:
            raise SegvizError(f"prior_variance must be positive, got {self.prior_variance!r}")

    # ------------------------------------------------------------------ plumbing shared by fit and scoring
    def _n_tv(self, prior: TrigramLM) -> int:
        return int(min(self.trigger_vocab, prior.n_ids - _FIRST_WORD))

    def _tvmap(self, prior: TrigramLM) -> np.ndarray:
        n_tv = self._n_tv(prior)
        m = np.full(prior.n_ids, -1, dtype=np.int64)
        m[_FIRST_WORD:_FIRST_WORD + n_tv] = np.arange(n_tv)
        return m

    def _tables(self, prior: TrigramLM):
        """Continuation tables (c3, c2 of :mod:`segviz.lm._scan`) restricted to trigger targets; cached."""
        cache = getattr(self, "_tables_cache", None)
        if not isinstance(cache, dict):
            cache = self._tables_cache = {}
        if id(prior) in cache and cache[id(prior)][0] is prior:
            return cache[id(prior)][1]
        tvmap = self._tvmap(prior)
        n_tv = self._n_tv(prior)
        mask = (1 << _BITS) - 1
        # bigram continuations, rows = history word id
        bh = prior.bi_keys_ >> _BITS
        bw = prior.bi_keys_ & mask
        keep = tvmap[bw] >= 0
        c2 = np.exp(prior.bi_logp_[keep]) - np.exp(prior.uni_bow_[bh[keep]] + prior.uni_logp_[bw[keep]])
        ptr2, order2 = _csr(bh[keep], prior.n_ids)
        c2_t = tvmap[bw[keep]][order2].astype(np.int64)
        c2_c = c2[order2]
        # trigram continuations, rows = distinct trigram contexts
        ctx_keys, ctx = np.unique(prior.tri_keys_ >> _BITS, return_inverse=True)
        tw = prior.tri_keys_ & mask
        keep = tvmap[tw] >= 0
        v = ctx_keys[ctx[keep]] & mask
        p2pos, found = _lookup(prior.bi_keys_, (v << _BITS) | tw[keep])
        cpos, _ = _lookup(prior.bi_keys_, ctx_keys[ctx[keep]])
        c3 = np.exp(prior.tri_logp_[keep]) - np.exp(prior.bi_bow_[cpos] + prior.bi_logp_[p2pos])
        ptr3, order3 = _csr(ctx[keep], ctx_keys.size)
        c3_t = tvmap[tw[keep]][order3].astype(np.int64)
        c3_c = c3[order3]
        puni = np.exp(prior.uni_logp_[_FIRST_WORD:_FIRST_WORD + n_tv])
        tables = dict(tvmap=tvmap, n_tv=n_tv, ctx_keys=ctx_keys, puni=puni,
                      c2_ptr=ptr2, c2_t=c2_t, c2_c=c2_c, c3_ptr=ptr3, c3_t=c3_t, c3_c=c3_c)
        cache[id(prior)] = (prior, tables)
        return tables

    def _stream_inputs(self, prior: TrigramLM, stream: TokenStream, tables) -> dict:
        tvmap = tables["tvmap"]
        lb3, lb2 = prior.context_backoff(stream.h2, stream.h1)
        rpos, rfound = _lookup(tables["ctx_keys"], (stream.h2 << _BITS) | stream.h1)
        return dict(
            wt=tvmap[stream.w],
            push=np.where(stream.is_word, tvmap[stream.w], -2).astype(np.int64),
            lb3=lb3, lb2=lb2,
            c3row=np.where(rfound, rpos, -1).astype(np.int64),
            c2row=stream.h1.astype(np.int64),
        )

    def _pair_arrays(self, n_tv: int, tvmap: np.ndarray, lam: np.ndarray):
        src = tvmap[self.sources_]
        tgt = tvmap[self.targets_]
        out_ptr, out_k = _csr(src, n_tv)
        in_ptr, in_k = _csr(tgt, n_tv)
        return dict(lam=np.ascontiguousarray(lam, dtype=np.float64), src=src, tgt=tgt, out_ptr=out_ptr,
                    out_k=out_k, in_ptr=in_ptr, in_k=in_k)

    def _run(self, prior, stream, lam, *, accumulate: bool, inputs=None):
        tables = self._tables(prior)
        if inputs is None:
            inputs = self._stream_inputs(prior, stream, tables)
        pairs = self._pair_arrays(tables["n_tv"], tables["tvmap"], lam)
        max_in = int(np.diff(pairs["in_ptr"]).max()) if lam.size else 1
        values, bucket = iis_buckets(max_in)
        self._bucket_values = values
        return trigger_scan(
            inputs["wt"], inputs["push"], inputs["lb3"], inputs["lb2"], inputs["c3row"], inputs["c2row"],
            pairs["lam"], pairs["src"], pairs["tgt"], pairs["out_ptr"], pairs["out_k"], pairs["in_ptr"],
            pairs["in_k"], tables["puni"], tables["c3_ptr"], tables["c3_t"], tables["c3_c"], tables["c2_ptr"],
            tables["c2_t"], tables["c2_c"], int(self.window), accumulate, bucket, values.size,
        )

    # ------------------------------------------------------------------ selection
    def select_pairs(self, prior: TrigramLM, stream: TokenStream, lp_tri: np.ndarray | None = None,
                     n_pairs: int | None = None) -> None:
        """Choose the top ``n_pairs`` (default ``n_triggers``) pairs by (residual) average MI.

        Sets ``sources_``/``targets_``/``scores_`` (and zero ``weights_``).
        """
        tables = self._tables(prior)
        n_tv = tables["n_tv"]
        words = stream.is_word
        x = tables["tvmap"][stream.w[words]]
        if self.ranking in ("residual", "gain"):
            if lp_tri is None:
                lp_tri = prior.logprob_stream(stream)
            r = 1.0 - np.exp(lp_tri[words])
        else:
            r = np.ones(x.size)
        C, hist, target = cooccurrence_scan(x.astype(np.int64), r.astype(np.float64), int(self.window), n_tv)
        n = float(x.size)
        k = int(self.n_triggers if n_pairs is None else n_pairs)
        best_s = np.empty(0, dtype=np.int64)
        best_t = np.empty(0, dtype=np.int64)
        best_v = np.empty(0)
        chunk = max(1, 2_000_000 // max(n_tv, 1))
        for t0 in range(0, n_tv, chunk):
            block = C[t0:t0 + chunk].astype(np.float64)
            ct = target[t0:t0 + chunk, None]
            score = average_mutual_information(block, hist[None, :], ct, n)
            with np.errstate(divide="ignore", invalid="ignore"):
                positive = block * n > ct * hist[None, :]
            score = np.where(positive & (block >= self.min_cooccurrence), score, -np.inf)
            flat = score.ravel()
            take = min(k, flat.size)
            idx = np.argpartition(-flat, take - 1)[:take]
            idx = idx[np.isfinite(flat[idx])]
            tt, ss = np.divmod(idx, n_tv)
            best_s = np.concatenate([best_s, ss])
            best_t = np.concatenate([best_t, tt + t0])
            best_v = np.concatenate([best_v, flat[idx]])
            if best_v.size > 4 * k:
                keep = np.argpartition(-best_v, k - 1)[:k]
                best_s, best_t, best_v = best_s[keep], best_t[keep], best_v[keep]
        del C
        order = np.argsort(-best_v, kind="stable")[:k]
        self.sources_ = (best_s[order] + _FIRST_WORD).astype(np.int64)
        self.targets_ = (best_t[order] + _FIRST_WORD).astype(np.int64)
        self.scores_ = best_v[order].astype(np.float64)
        self.weights_ = np.zeros(self.sources_.size)

    # ------------------------------------------------------------------ training
    def fit(self, sentences, *, prior: TrigramLM, heldout=None) -> "TriggerLM":
        """Select pairs and fit the weights (consumes :meth:`fit_iter`)."""
        gen = self.fit_iter(sentences, prior=prior, heldout=heldout)
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                return stop.value

    def fit_iter(self, sentences, *, prior: TrigramLM, heldout=None) -> Generator[object, None, "TriggerLM"]:
        """Generator form of :meth:`fit`: yields :class:`Progress` and :class:`IISIteration`; returns self."""
        self._check_params()
        prior._check_fitted()
        sentences = _validate_sentences(sentences)
        self.prior_ = prior
        self._tables_cache = None
        yield Progress("triggers: encode", 0, 1)
        stream = prior.encode(sentences)
        if not stream.is_word.any():
            raise SegvizError("cannot train a trigger model on an empty corpus")
        folds = []
        n_folds = int(min(self.cv_folds, max(1, stream.n_sentences // 2)))
        for f, (sub, fold_prior) in enumerate(_cross_fit_priors(prior, stream, n_folds)):
            folds.append((sub, fold_prior))
            yield Progress("triggers: cross-fit priors", f + 1, n_folds)
        lp_folds = [fp.logprob_stream(sub) for sub, fp in folds]
        yield Progress("triggers: select pairs", 0, 1)
        n_cand = int(self.n_triggers) * (self.gain_candidates if self.ranking == "gain" else 1)
        self.select_pairs(prior, stream, np.concatenate(lp_folds), n_pairs=n_cand)
        yield Progress("triggers: select pairs", 1, 1)
        fold_inputs = [self._stream_inputs(fp, sub, self._tables(fp)) for sub, fp in folds]
        if self.ranking == "gain":
            E, obs, _ = self._fold_pass(folds, fold_inputs, lp_folds, np.zeros(self.sources_.size))
            self._keep_by_gain(E.sum(axis=1), obs)
            yield Progress("triggers: rank by gain", 1, 1)
        n_train = len(stream)
        held = held_in = None
        if heldout is not None:
            held = prior.encode(_validate_sentences(heldout))
            if len(held) == 0:
                held = None
            else:
                held_in = self._stream_inputs(prior, held, self._tables(prior))
                held_lp = prior.logprob_stream(held)
        sigma2 = float(self.prior_variance)

        def penalised(train_ll, lam):
            # the objective IIS maximises: cross-fitted log-likelihood plus the Gaussian log-prior
            return train_ll - 0.5 * float(lam @ lam) / sigma2

        def heldout_ll(lam):
            hz, hl, _, _ = self._run(prior, held, lam, accumulate=False, inputs=held_in)
            return float((held_lp + hl - hz).sum())

        def ppl(ll, n):
            return float(np.exp(-ll / n))

        lam = np.zeros(self.sources_.size)
        n_iter = int(self.max_iter) if self.sources_.size else 0  # no qualifying pair: the trigram itself
        t_start = time.perf_counter()
        best_ll = float(held_lp.sum()) if held is not None else None  # lambda = 0 is the trigram itself
        if n_iter:
            E, obs, train_ll = self._fold_pass(folds, fold_inputs, lp_folds, lam)
            obj = penalised(train_ll, lam)
        else:
            train_ll = float(sum(lp.sum() for lp in lp_folds))
            obj = train_ll
        # history_[i] describes the weights after i accepted iterations (0 = the trigram alone)
        self.history_ = [IISIteration(0, ppl(train_ll, n_train), ppl(best_ll, len(held)) if held is not None else None,
                                      0.0, round(time.perf_counter() - t_start, 3), train_objective=obj, step=0.0,
                                      passes=1)]
        eta = 1.0
        growth, eta_max = float(self.relax_growth), float(self.relax_max)
        accelerate = self.acceleration == "overrelaxed"
        for it in range(1, n_iter + 1):
            yield Progress("triggers: IIS", it - 1, n_iter)
            t_start = time.perf_counter()
            delta = _iis_deltas(E, obs, lam, sigma2, self._bucket_values)
            # Adaptive over-relaxation (Salakhutdinov & Roweis 2003) of the IIS step: try lam + eta * delta; keep
            # it only if the penalised training objective did not decrease, otherwise fall back to the plain IIS
            # step (eta = 1), whose improvement the IIS bound guarantees.  After a rejection the next try restarts
            # at eta / growth^2 rather than at 1 (S&R restart at 1): on Reuters the useful eta stays at 3-5, and
            # climbing back from 1 wasted iterations.
            passes = 0
            for step in ((eta, 1.0) if eta > 1.0 else (1.0,)):
                cand = lam + step * delta
                E_c, obs_c, ll_c = self._fold_pass(folds, fold_inputs, lp_folds, cand)
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
                            E_c, obs_c, ll_c = self._fold_pass(folds, fold_inputs, lp_folds, cand)
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
                stop = (ll - best_ll) / abs(best_ll) < self.tol
                best_ll = ll
            else:
                stop = gain_train <= self.tol * abs(obj)
            lam, E, obs, obj = cand, E_c, obs_c, obj_c
            self.history_.append(IISIteration(it, ppl(ll_c, n_train), held_ppl, float(np.abs(lam).mean()),
                                              round(time.perf_counter() - t_start, 3), train_objective=obj,
                                              step=step, passes=passes))
            yield self.history_[-1]
            if stop:
                break
        self.weights_ = lam
        yield Progress("triggers: IIS", n_iter, n_iter)
        return self

    def _fold_pass(self, folds, fold_inputs, lp_folds, lam):
        """IIS statistics summed over the cross-fitted folds, and the training log-likelihood of ``lam``."""
        # The folds are independent scans; numba releases the GIL, so they run on all cores.
        with ThreadPoolExecutor(max_workers=min(len(folds), os.cpu_count() or 1)) as pool:
            runs = list(pool.map(lambda job: self._run(job[0][1], job[0][0], lam, accumulate=True, inputs=job[1]),
                                 zip(folds, fold_inputs)))
        E = sum(r[2] for r in runs)
        obs = sum(r[3] for r in runs)
        train_ll = sum(float((lp_f + r[1] - r[0]).sum()) for r, lp_f in zip(runs, lp_folds))
        return E, obs, train_ll

    def _keep_by_gain(self, expected: np.ndarray, observed: np.ndarray) -> None:
        """Keep the ``n_triggers`` candidates with the largest single-feature likelihood gain over the prior.

        For one feature alone, max over lambda of the log-likelihood gain is, for small probabilities, the Poisson
        divergence ``obs log(obs / E) - (obs - E)`` with ``E`` the prior's expected count of the feature (the
        IIS statistic at lambda = 0).  A pair the trigram already predicts (E ~ obs) gains nothing, however
        high its mutual information.  Only positive associations (obs > E) are kept.
        """
        e = np.maximum(expected, 1e-12)
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = np.where(observed > e, observed * np.log(observed / e) - (observed - e), 0.0)
        order = np.argsort(-gain, kind="stable")[: int(self.n_triggers)]
        order = order[gain[order] > 0]
        self.sources_, self.targets_ = self.sources_[order], self.targets_[order]
        self.scores_ = gain[order]
        self.weights_ = np.zeros(order.size)

    # ------------------------------------------------------------------ scoring
    def _check_fitted(self):
        if not hasattr(self, "weights_") or not hasattr(self, "prior_"):
            raise SegvizError("this TriggerLM is not fitted yet; call fit(...) or load saved language models")

    def score_stream(self, stream: TokenStream) -> tuple[np.ndarray, np.ndarray]:
        """Natural-log ``(p_exp, p_tri)`` of every predicted token; the cache runs over the whole stream."""
        self._check_fitted()
        lp_tri = self.prior_.logprob_stream(stream)
        if len(stream) == 0:
            return lp_tri.copy(), lp_tri
        logZ, lam_w, _, _ = self._run(self.prior_, stream, self.weights_, accumulate=False)
        return lp_tri + lam_w - logZ, lp_tri

    def log_normalizers(self, stream: TokenStream) -> np.ndarray:
        """log Z(H) at every predicted token (exposed for the brute-force test)."""
        self._check_fitted()
        logZ, _, _, _ = self._run(self.prior_, stream, self.weights_, accumulate=False)
        return logZ

    def expected_counts(self, stream: TokenStream) -> tuple[np.ndarray, np.ndarray]:
        """(model-expected, observed) count of every feature over a stream (IIS statistics, summed over f#)."""
        self._check_fitted()
        _, _, E, obs = self._run(self.prior_, stream, self.weights_, accumulate=True)
        return E.sum(axis=1), obs

    def perplexity(self, sentences) -> float:
        self._check_fitted()
        lp, _ = self.score_stream(self.prior_.encode(sentences))
        if lp.size == 0:
            raise SegvizError("cannot compute perplexity of an empty corpus")
        return float(np.exp(-lp.mean()))

    def pairs_table(self, top: int | None = None, *, sort: str = "weight") -> list[dict]:
        """The trigger pairs as data (the paper's Table 1): s, t, e^lambda, selection score."""
        self._check_fitted()
        vocab = self.prior_.vocab_
        key = -self.weights_ if sort == "weight" else -self.scores_
        order = np.argsort(key, kind="stable")
        if top is not None:
            order = order[:top]
        return [
            {"s": vocab[self.sources_[i]], "t": vocab[self.targets_[i]], "exp_lambda": float(np.exp(self.weights_[i])),
             "lambda": float(self.weights_[i]), "score": float(self.scores_[i])}
            for i in order
        ]

    # ------------------------------------------------------------------ persistence helpers
    def get_arrays(self) -> dict[str, np.ndarray]:
        self._check_fitted()
        return {"sources": self.sources_, "targets": self.targets_, "weights": self.weights_, "scores": self.scores_}

    def get_meta(self) -> dict:
        self._check_fitted()
        return {
            "window": int(self.window), "n_triggers": int(self.n_triggers), "trigger_vocab": int(self.trigger_vocab),
            "ranking": self.ranking, "min_cooccurrence": float(self.min_cooccurrence),
            "prior_variance": float(self.prior_variance), "max_iter": int(self.max_iter), "tol": float(self.tol),
            "cv_folds": int(self.cv_folds), "gain_candidates": int(self.gain_candidates),
            "acceleration": self.acceleration, "relax_growth": float(self.relax_growth),
            "relax_max": float(self.relax_max),
            "history": [vars(h) for h in getattr(self, "history_", [])],
        }

    @classmethod
    def from_saved(cls, meta: dict, arrays: dict[str, np.ndarray], prior: TrigramLM, *,
                   source: str = "model") -> "TriggerLM":
        try:
            lm = cls(window=int(meta["window"]), n_triggers=int(meta["n_triggers"]),
                     trigger_vocab=int(meta["trigger_vocab"]), ranking=str(meta["ranking"]),
                     min_cooccurrence=float(meta["min_cooccurrence"]), prior_variance=float(meta["prior_variance"]),
                     max_iter=int(meta["max_iter"]), tol=float(meta["tol"]), cv_folds=int(meta.get("cv_folds", 1)),
                     gain_candidates=int(meta.get("gain_candidates", 4)),
                     acceleration=str(meta.get("acceleration", "none")),
                     relax_growth=float(meta.get("relax_growth", 1.5)), relax_max=float(meta.get("relax_max", 8.0)))
            lm.history_ = [IISIteration(**h) for h in meta.get("history", [])]
        except (KeyError, TypeError, ValueError) as exc:
            raise SegvizError(f"{source}: trigger metadata is incomplete or malformed ({exc})") from None
        names = ("sources", "targets", "weights", "scores")
        if any(arrays.get(n) is None or arrays[n].ndim != 1 for n in names) or \
                len({arrays[n].shape for n in names}) != 1:
            raise SegvizError(f"{source}: trigger arrays missing or of different lengths")
        src, tgt = arrays["sources"], arrays["targets"]
        if src.dtype.kind != "i" or tgt.dtype.kind != "i":
            raise SegvizError(f"{source}: trigger pair arrays are not integer ids")
        n_tv = lm._n_tv(prior)
        lo, hi = _FIRST_WORD, _FIRST_WORD + n_tv
        if src.size and (src.min() < lo or src.max() >= hi or tgt.min() < lo or tgt.max() >= hi):
            raise SegvizError(f"{source}: trigger pairs refer to words outside the trigger vocabulary")
        lm.sources_, lm.targets_ = src.astype(np.int64), tgt.astype(np.int64)
        lm.weights_, lm.scores_ = arrays["weights"].astype(np.float64), arrays["scores"].astype(np.float64)
        lm.prior_ = prior
        return lm


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
