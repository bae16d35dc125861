"""Trigger pairs and the trigger exponential language model over the trigram prior (Section 3.2).

    p_exp(w | H) = exp(sum_i lambda_i f_i(H, w)) p_tri(w | w-2, w-1) / Z(H),   f_i(H, w) = [s_i in H and w = t_i]

``H`` is the last ``window`` (= 500) *words* of the stream -- across sentence and document boundaries; ``</s>``
takes no window slot.  Because only triggered targets change the prior,

    Z(H) = 1 + sum over triggered t of p_tri(t | h) (exp(Lambda(t)) - 1),

computed without touching the vocabulary (see :mod:`segviz.lm._scan` for the Katz decomposition that makes it
cost O(continuations of the history)).

Pair selection (average mutual information, residual and gain rankings) is :mod:`segviz.lm.pairs`;
Improved Iterative Scaling with a Gaussian prior, over-relaxation and the stopping rule is
:mod:`segviz.lm.iis`.
"""
from __future__ import annotations

import os
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import SegvizError
from ..events import Progress
from ..limits import MAX_TRIGGER_WINDOW
from ..params import Choice, Integer, Number, check_plain_numbers, checked_fields
from ._scan import frequent_histories, trigger_scan
from .iis import IISIteration, _cross_fit_priors, fold_spans, iis_buckets, run_iis
from .pairs import rank_by_gain, top_pairs_by_ami
from .training_text import SentenceText, TrainingText
from .trigram import _BITS, TokenStream, TrigramLM, _lookup, _validate_sentences

_FIRST_WORD = 3  # ids 0..2 are <unk>, <s>, </s>; words follow in frequency order


def _csr(keys: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n_rows), out=ptr[1:])
    return ptr, order.astype(np.int64)


_COUNT = Integer(1, 10 ** 9)
#: the fields of a saved trigger model's description, each checked before use (the window by the shared limit)
_SAVED_FIELDS = {
    "window": Integer(1, MAX_TRIGGER_WINDOW), "n_triggers": _COUNT, "trigger_vocab": _COUNT,
    "ranking": Choice(("gain", "residual", "mi")), "min_cooccurrence": Number(0.0, 1e12),
    "prior_variance": Number(0.0, 1e12, open_low=True), "max_iter": _COUNT, "tol": Number(0.0, 1.0),
    "cv_folds": Integer(1, 1000), "gain_candidates": _COUNT, "acceleration": Choice(("overrelaxed", "none")),
    "relax_growth": Number(1.0, 1e6), "relax_max": Number(1.0, 1e6),
}
#: what a description written before these fields existed stands for
_SAVED_DEFAULTS = {"cv_folds": 1, "gain_candidates": 4, "acceleration": "none", "relax_growth": 1.5,
                   "relax_max": 8.0}


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
        How candidate pairs are ranked (see :mod:`segviz.lm.pairs`).
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
        Adaptive over-relaxation of the IIS step (see :mod:`segviz.lm.iis`) or plain IIS.
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
        # the same bound the CLI and a saved model's loader keep (segviz.limits): the history is a window of words
        if self.window > MAX_TRIGGER_WINDOW:
            raise SegvizError(f"window must be at most {MAX_TRIGGER_WINDOW:,} words, got {self.window!r}")
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
        c2_t = tvmap[bw[keep]][order2].astype(np.int32)
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
        c3_t = tvmap[tw[keep]][order3].astype(np.int32)
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
        c2row = stream.h1.astype(np.int64)
        freq = frequent_histories(c2row, tables["c2_ptr"], tables["c2_t"], tables["c2_c"], tables["n_tv"])
        return dict(
            wt=tvmap[stream.w],
            push=np.where(stream.is_word, tvmap[stream.w], -2).astype(np.int64),
            lb3=lb3, lb2=lb2,
            c3row=np.where(rfound, rpos, -1).astype(np.int64),
            c2row=c2row,
            freq=freq,
        )

    def _pair_arrays(self, n_tv: int, tvmap: np.ndarray, lam: np.ndarray):
        """The pairs in the scan's order (by source, see :func:`segviz.lm._scan.trigger_scan`); ``order[i]`` is
        the pair of ``sources_``/``targets_`` at scan position i."""
        src = tvmap[self.sources_]
        out_ptr, order = _csr(src, n_tv)
        tgt = tvmap[self.targets_][order]
        # the largest number of sources into one target bounds f#, the number of features active at once
        max_in = int(np.bincount(tgt, minlength=1).max()) if tgt.size else 1
        return dict(lam=np.ascontiguousarray(np.asarray(lam, dtype=np.float64)[order]), src=src[order], tgt=tgt,
                    out_ptr=out_ptr, order=order, max_in=max_in)

    def _run(self, prior, stream, lam, *, accumulate: bool, inputs=None):
        tables = self._tables(prior)
        if inputs is None:
            inputs = self._stream_inputs(prior, stream, tables)
        pairs = self._pair_arrays(tables["n_tv"], tables["tvmap"], lam)
        values, bucket = iis_buckets(pairs["max_in"])
        self._bucket_values = values
        logZ, lam_w, E, obs = trigger_scan(
            inputs["wt"], inputs["push"], inputs["lb3"], inputs["lb2"], inputs["c3row"], inputs["c2row"],
            pairs["lam"], pairs["src"], pairs["tgt"], pairs["out_ptr"], tables["puni"],
            tables["c3_ptr"], tables["c3_t"], tables["c3_c"], tables["c2_ptr"], tables["c2_t"], tables["c2_c"],
            int(self.window), accumulate, bucket, values.size, *inputs["freq"],
        )
        if accumulate:   # back to the model's pair order
            E_model = np.empty_like(E)
            E_model[pairs["order"]] = E
            obs_model = np.empty_like(obs)
            obs_model[pairs["order"]] = obs
            E, obs = E_model, obs_model
        return logZ, lam_w, E, obs

    # ------------------------------------------------------------------ selection
    def select_pairs(self, prior: TrigramLM, stream: TokenStream, lp_tri: np.ndarray | None = None,
                     n_pairs: int | None = None, mapper=None) -> None:
        """Choose the top ``n_pairs`` (default ``n_triggers``) pairs by (residual) average MI.

        Sets ``sources_``/``targets_``/``scores_`` (and zero ``weights_``).  ``mapper``: where the co-occurrence
        counts are taken (:func:`segviz.lm.pairs.top_pairs_by_ami`; default: here).
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
        k = int(self.n_triggers if n_pairs is None else n_pairs)
        ss, tt, vv = top_pairs_by_ami(x, r, self.window, n_tv, k, self.min_cooccurrence, map_ordered=mapper)
        self.sources_ = (ss + _FIRST_WORD).astype(np.int64)
        self.targets_ = (tt + _FIRST_WORD).astype(np.int64)
        self.scores_ = vv.astype(np.float64)
        self.weights_ = np.zeros(self.sources_.size)

    # ------------------------------------------------------------------ training
    def fit(self, sentences, *, prior: TrigramLM, heldout=None) -> TriggerLM:
        """Select pairs and fit the weights (consumes :meth:`fit_iter`)."""
        gen = self.fit_iter(sentences, prior=prior, heldout=heldout)
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                return stop.value

    def fit_iter(self, sentences, *, prior: TrigramLM, heldout=None) -> Generator[object, None, TriggerLM]:
        """Generator form of :meth:`fit`: yields :class:`Progress` and :class:`IISIteration`; returns self."""
        sentences = _validate_sentences(sentences)
        held = _validate_sentences(heldout) if heldout is not None else []
        return (yield from self.fit_text_iter(SentenceText(sentences + held), len(sentences), prior=prior))

    def fit_text_iter(self, text: TrainingText, train_stop: int, *, prior: TrigramLM
                      ) -> Generator[object, None, TriggerLM]:
        """:meth:`fit_iter` on the sentences ``0:train_stop`` of ``text`` (:mod:`segviz.lm.training_text`), the rest
        held out; the cross-fitted priors' counts and the pairs' co-occurrence counts are taken where the text's
        work runs."""
        self._check_params()
        prior._check_fitted()
        self.prior_ = prior
        self._tables_cache = None
        yield Progress("triggers: encode", 0, 1)
        stream = prior.encode(text.sentences(0, train_stop))
        if not stream.is_word.any():
            raise SegvizError("cannot train a trigger model on an empty corpus")
        folds = []
        n_folds = int(min(self.cv_folds, max(1, stream.n_sentences // 2)))
        fold_counts = text.ngram_counts(fold_spans(train_stop, n_folds), prior.word_index_, stream) \
            if n_folds > 1 else None
        for f, (sub, fold_prior) in enumerate(_cross_fit_priors(prior, stream, n_folds, fold_counts)):
            folds.append((sub, fold_prior))
            yield Progress("triggers: cross-fit priors", f + 1, n_folds)
        lp_folds = [fp.logprob_stream(sub) for sub, fp in folds]
        yield Progress("triggers: select pairs", 0, 1)
        n_cand = int(self.n_triggers) * (self.gain_candidates if self.ranking == "gain" else 1)
        self.select_pairs(prior, stream, np.concatenate(lp_folds), n_pairs=n_cand, mapper=text.mapper)
        yield Progress("triggers: select pairs", 1, 1)
        fold_inputs = [self._stream_inputs(fp, sub, self._tables(fp)) for sub, fp in folds]
        if self.ranking == "gain":
            E, obs, _ = self._fold_pass(folds, fold_inputs, lp_folds, np.zeros(self.sources_.size))
            self._keep_by_gain(E.sum(axis=1), obs)
            yield Progress("triggers: rank by gain", 1, 1)
        n_train = len(stream)
        held = held_in = held_lp = None
        if text.n_sentences > train_stop:
            held = prior.encode(text.sentences(train_stop, text.n_sentences))
            if len(held) == 0:
                held = None
            else:
                held_in = self._stream_inputs(prior, held, self._tables(prior))
                held_lp = prior.logprob_stream(held)
        yield from run_iis(self, prior, folds, fold_inputs, lp_folds, n_train, held, held_in, held_lp)
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
        """Keep the ``n_triggers`` candidates with the largest single-feature likelihood gain over the prior
        (:func:`segviz.lm.pairs.rank_by_gain`)."""
        order, gain = rank_by_gain(expected, observed, int(self.n_triggers))
        self.sources_, self.targets_ = self.sources_[order], self.targets_[order]
        self.scores_ = gain
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
                   source: str = "model") -> TriggerLM:
        # types before values, every number range-checked after conversion (segviz.params): a string or a
        # 4,000-digit integer where a number belongs is refused, never converted
        fields = checked_fields(meta, _SAVED_FIELDS, source=f"{source}: trigger model", optional=_SAVED_DEFAULTS)
        history = meta.get("history", [])
        if not isinstance(history, list) or len(history) > 1_000_000 or not all(isinstance(h, dict)
                                                                                for h in history):
            raise SegvizError(f"{source}: trigger model field history must be a list of objects")
        check_plain_numbers(history, "history", source=f"{source}: trigger model")
        try:
            lm = cls(**fields)
            lm.history_ = [IISIteration(**h) for h in history]
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
        for name in ("weights", "scores"):
            if arrays[name].dtype.kind != "f" or not np.all(np.isfinite(arrays[name])):
                raise SegvizError(f"{source}: trigger array {name!r} holds values that are not finite numbers")
        if arrays["weights"].size and np.abs(arrays["weights"]).max() > 100:
            raise SegvizError(f"{source}: trigger weights beyond |lambda| = 100 (a damaged file?)")
        if lm.window < 1 or lm.window > MAX_TRIGGER_WINDOW:
            raise SegvizError(f"{source}: trigger window {lm.window} is outside 1..{MAX_TRIGGER_WINDOW}")
        lm.sources_, lm.targets_ = src.astype(np.int64), tgt.astype(np.int64)
        lm.weights_, lm.scores_ = arrays["weights"].astype(np.float64), arrays["scores"].astype(np.float64)
        lm.prior_ = prior
        return lm
