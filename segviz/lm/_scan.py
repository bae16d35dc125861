"""numba kernels for the trigger model's sequential cache scans (Section 3.2).

The trigger cache (which words occurred in the last ``N`` words) changes by at most one entry and one exit per
word, and the normaliser Z(H) depends on the whole cache: a sequential scan with incremental state is the
natural algorithm, and numpy cannot express it without materialising a (positions x vocabulary) array.  numba
compiles these loops; on the Reuters protocol the scan runs at ~40-100 ns per token instead of the tens of
microseconds a Python loop would take (see docs/language_models.md).

Notation (per predicted token j): ``a3 = alpha(w-2, w-1)``, ``a2 = alpha(w-1)`` are the Katz backoff weights of the
token's history; ``c3(t) = p3(t | w-2 w-1) - a3 p2(t | w-1)`` for the trigram continuations of the history and
``c2(t) = p2(t | w-1) - a2 p1(t)`` for the bigram continuations, so that for every word

    p_tri(t | h) = a3 a2 p1(t) + a3 c2(t) [t in cont2] + c3(t) [t in cont3].

With ``G(t) = exp(Lambda(t)) - 1`` (``Lambda(t)`` = sum of the weights of the active pairs (s, t), 0 for an
untriggered t) the paper's normaliser becomes

    Z(H) - 1 = sum_t p_tri(t | h) G(t) = sum_cont3 c3 G + a3 (sum_cont2 c2 G + a2 S),   S = sum_t p1(t) G(t),

where ``S`` is maintained incrementally as the cache changes: the cost per token is the number of
continuations of its history that are trigger targets, never the vocabulary.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def cooccurrence_scan(x, r, window, C, t0, part, n_parts):
    """Counts for trigger selection over the word stream ``x`` (trigger-vocabulary index or -1).

    Adds to ``C[t - t0, s]`` (float32, a band of targets ``t0 .. t0 + len(C) - 1`` x the vocabulary) the sum of
    ``r[i]`` over positions i with ``x[i] = t`` and ``s`` among the previous ``window`` words, for the band's
    targets with ``t % n_parts == part`` only: the scans of the parts write disjoint rows, so they can run at once
    on one matrix (the rows are most of the work; each part slides the window itself).  Returns ``hist[s]`` =
    number of positions whose history contains s, and ``target[t]`` = sum of ``r[i]`` over positions with
    ``x[i] = t`` (the same for every part and band).
    """
    n = x.shape[0]
    n_vocab = C.shape[1]
    t1 = t0 + C.shape[0]
    cnt = np.zeros(n_vocab, dtype=np.int32)
    active = np.empty(n_vocab, dtype=np.int32)
    where = np.full(n_vocab, -1, dtype=np.int32)
    enter = np.zeros(n_vocab, dtype=np.int64)
    hist = np.zeros(n_vocab, dtype=np.float64)
    target = np.zeros(n_vocab, dtype=np.float64)
    n_active = 0
    for i in range(n):
        t = x[i]
        if t >= 0:
            ri = r[i]
            target[t] += ri
            if t0 <= t < t1 and t % n_parts == part:
                row = C[t - t0]
                for a in range(n_active):
                    row[active[a]] += ri
        # slide the window for position i + 1 (history i + 1 - window .. i): x[i] enters, x[i - window] leaves
        if t >= 0:
            cnt[t] += 1
            if cnt[t] == 1:
                where[t] = n_active
                active[n_active] = t
                n_active += 1
                enter[t] = i + 1
        if i - window >= 0:
            old = x[i - window]
            if old >= 0:
                cnt[old] -= 1
                if cnt[old] == 0:
                    hist[old] += i + 1 - enter[old]
                    k = where[old]
                    last = active[n_active - 1]
                    active[k] = last
                    where[last] = k
                    where[old] = -1
                    n_active -= 1
    for a in range(n_active):
        s = active[a]
        hist[s] += n - enter[s]
    return hist, target


@njit(cache=True, nogil=True)
def _flush(t, B, acc, G, nact, puni, bucket, fc_ptr, fc_h, fc_c, Wf, snap, cum, cum_obs, span):
    # Between two changes of t's state (Lambda(t), f#(t) and the set of active features into t are all
    # constant) every active feature into t receives the same expected count: the main term
    # (B - B_last) p1(t) e^Lambda plus the pending continuation corrections, times e^Lambda.  That share is
    # added once, to t's running totals per f# bucket (``cum[t]``, ``cum_obs[t]``); a feature's count is what
    # those totals gained while it was active (:func:`_settle`), so a change of t's state costs O(1) whatever
    # t's in-degree ("pct" has hundreds of sources, toggling all the time).
    # The bigram corrections of the frequent histories were summed per history (Wf); t's share of each since
    # its last flush is c2(h, t) (Wf[h] - Wf[h] then).
    for q in range(fc_ptr[t], fc_ptr[t + 1]):
        h = fc_h[q]
        acc[1, t] += fc_c[q] * (Wf[h] - snap[q])
        snap[q] = Wf[h]
    dB = B - acc[0, t]
    acc[0, t] = B
    if nact[t] > 0:
        m = bucket[nact[t]]
        cum[t, m] += (dB * puni[t] + acc[1, t]) * (G[t] + 1.0)
        cum_obs[t] += acc[2, t]
        # the buckets t's totals used since they were last zeroed: the only ones a start or settle must read
        span[0, t] = min(span[0, t], m)
        span[1, t] = max(span[1, t], m)
    acc[1, t] = 0.0
    acc[2, t] = 0.0


@njit(cache=True, nogil=True)
def _settle(k, t, cum, cum_obs, start, start_obs, E, obs, span):
    # Feature k (into t) goes inactive: it earned what t's totals gained since it went active.  t's totals were
    # not zeroed while k was active (f#(t) >= 1), so the buckets used then are within today's span, and k's
    # start is zero outside it (it is zeroed here, ready for the next activation).
    for m in range(span[0, t], span[1, t] + 1):
        E[k, m] += cum[t, m] - start[k, m]
        start[k, m] = 0.0
    obs[k] += cum_obs[t] - start_obs[k]


@njit(cache=True, nogil=True)
def _toggle(s, sign, lam, tgt, out_ptr, puni, Lam, G, nact, S_box, accumulate, B, acc, E, obs, bucket,
            fc_ptr, fc_h, fc_c, Wf, snap, z2f, cum, cum_obs, start, start_obs, span):
    # Source s enters (sign=+1, called while cnt[s] == 0) or leaves (sign=-1, called while cnt[s] > 0).
    for k in range(out_ptr[s], out_ptr[s + 1]):   # the pairs are numbered by source
        t = tgt[k]
        if accumulate:
            _flush(t, B, acc, G, nact, puni, bucket, fc_ptr, fc_h, fc_c, Wf, snap, cum, cum_obs, span)
            if sign > 0:
                for m in range(span[0, t], span[1, t] + 1):
                    start[k, m] = cum[t, m]
                start_obs[k] = cum_obs[t]
            else:
                _settle(k, t, cum, cum_obs, start, start_obs, E, obs, span)
        old_g = G[t]
        nact[t] += sign
        if nact[t] == 0:
            Lam[t] = 0.0  # exact reset: no drift accumulates in untriggered words
            G[t] = 0.0
            if accumulate:
                # no feature into t is active, so no start refers to t's totals: restart them at zero to keep
                # the differences _settle takes small (their rounding is relative to the totals)
                for m in range(span[0, t], span[1, t] + 1):
                    cum[t, m] = 0.0
                cum_obs[t] = 0.0
                span[0, t] = cum.shape[1]
                span[1, t] = -1
        else:
            Lam[t] += sign * lam[k]
            G[t] = np.expm1(Lam[t])
        S_box[0] += puni[t] * (G[t] - old_g)
        dg = G[t] - old_g
        for q in range(fc_ptr[t], fc_ptr[t + 1]):   # the frequent histories' bigram sums follow G
            z2f[fc_h[q]] += fc_c[q] * dg
        # track the largest magnitude seen since S was last recomputed (cancellation guard)
        S_box[1] = max(S_box[1], abs(S_box[0]), abs(puni[t] * old_g))


@njit(cache=True, nogil=True)
def trigger_scan(wt, push, lb3, lb2, c3row, c2row,
                 lam, src, tgt, out_ptr, puni,
                 c3_ptr, c3_t, c3_c, c2_ptr, c2_t, c2_c,
                 window, accumulate, bucket, M, freq_rank, freq_rows, fc_ptr, fc_h, fc_c):
    """One pass of the trigger model over an encoded stream.

    Per predicted token j: ``wt[j]`` trigger index of the predicted word (-1 if none), ``push[j]`` what enters
    the cache after it (trigger index, -1 for a non-trigger word that still takes a window slot, -2 for
    ``</s>``, which takes none), ``lb3``/``lb2`` natural-log backoff weights, ``c3row`` the history's row in the
    trigram-continuation table (-1 if none), ``c2row`` its row in the bigram-continuation table.  The pairs
    (``lam``, ``src``, ``tgt``) are numbered by source: those of source s are ``out_ptr[s]:out_ptr[s + 1]``, so
    that a change of the cache reads its pairs' weights and statistics in one run of memory.

    Returns ``logZ[j]``, ``lam_w[j]`` (= Lambda of the predicted word), and when ``accumulate`` the IIS
    statistics: ``E[k, b]`` expected count of feature k at events whose number of active features f# falls in
    bucket ``b = bucket[f#]`` (see :func:`segviz.lm.iis.iis_buckets`), and ``obs[k]`` its observed count.

    Frequent histories (:func:`frequent_histories`): the bigram rows of a few words (``freq_rows``; history
    row r has rank ``freq_rank[r]`` or -1) carry most of the stream's continuation work (on Reuters the mean
    bigram row is 1,300 targets per token, and the 10 busiest of 20,000 rows are 79 % of that work).  For them
    ``sum_cont2 c2 G`` is kept per history and updated when G(t) changes (``fc_*``: for each target t its
    entries (rank, c2) in those rows), and the expected-count corrections are summed per history and handed
    to each target at its flush, so a token with such a history costs O(1) instead of O(row), and a change
    of G(t) or a flush costs the number of those rows t is in.  24 rows was the fastest of 4-256 on Reuters
    (more make every change of the cache dearer).  The sums are recomputed exactly every 4,096 tokens.
    """
    n = wt.shape[0]
    n_vocab = puni.shape[0]
    K = lam.shape[0]
    cnt = np.zeros(n_vocab, dtype=np.int32)
    Lam = np.zeros(n_vocab)
    G = np.zeros(n_vocab)
    nact = np.zeros(n_vocab, dtype=np.int32)
    ring = np.full(max(window, 1), -1, dtype=np.int32)
    nw = 0
    S_box = np.zeros(2)  # [S, largest |term| since the last exact recomputation]
    acc = np.zeros((3, n_vocab))  # per target: B at last flush, pending corrections, pending observations
    if accumulate:
        E = np.zeros((K, M))
        obs = np.zeros(K)
        cum = np.zeros((n_vocab, M))       # per target and f# bucket: expected count handed to its active features
        cum_obs = np.zeros(n_vocab)
        start = np.zeros((K, M))           # per feature: its target's totals when it went active
        start_obs = np.zeros(K)
    else:
        E = np.zeros((1, M))
        obs = np.zeros(1)
        cum = np.zeros((1, M))
        cum_obs = np.zeros(1)
        start = np.zeros((1, M))
        start_obs = np.zeros(1)
    span = np.empty((2, n_vocab), dtype=np.int64)  # per target: lowest and highest bucket in its totals (empty)
    span[0] = M
    span[1] = -1
    logZ = np.empty(n)
    lam_w = np.zeros(n)
    B = 0.0
    nf = freq_rows.shape[0]
    z2f = np.zeros(nf)   # sum_cont2(h) c2 G per frequent history
    Wf = np.zeros(nf)    # sum of a3 / Z over the tokens with history h so far
    snap = np.zeros(fc_h.shape[0])
    for j in range(n):
        if nf > 0 and (j & 4095) == 0:
            # exact recomputation: the incremental updates' rounding never accumulates over more than 4,096 tokens
            for f in range(nf):
                r = freq_rows[f]
                tot = 0.0
                for q in range(c2_ptr[r], c2_ptr[r + 1]):
                    tot += c2_c[q] * G[c2_t[q]]
                z2f[f] = tot
        if S_box[1] > 1e3 and S_box[1] > 1e6 * abs(S_box[0]):
            # Incremental updates have absolute error ~1e-16 x the largest term seen; once that could reach
            # ~1e-13 of Z (terms above 1e3 that cancelled), recompute S exactly (O(vocabulary), rare).
            tot = 0.0
            for t in range(n_vocab):
                tot += puni[t] * G[t]
            S_box[0] = tot
            S_box[1] = abs(tot)
        a3 = np.exp(lb3[j])
        a2 = np.exp(lb2[j])
        r2 = c2row[j]
        fr = freq_rank[r2]
        z2 = 0.0
        if fr >= 0:
            z2 = z2f[fr]
        else:
            for q in range(c2_ptr[r2], c2_ptr[r2 + 1]):
                z2 += c2_c[q] * G[c2_t[q]]
        z3 = 0.0
        r3 = c3row[j]
        if r3 >= 0:
            for q in range(c3_ptr[r3], c3_ptr[r3 + 1]):
                z3 += c3_c[q] * G[c3_t[q]]
        zm1 = z3 + a3 * (z2 + a2 * S_box[0])
        Z = 1.0 + zm1
        logZ[j] = np.log1p(zm1)
        t = wt[j]
        if t >= 0 and nact[t] > 0:
            lam_w[j] = Lam[t]
            if accumulate:
                acc[2, t] += 1.0
        if accumulate:
            B += a3 * a2 / Z
            inv = 1.0 / Z
            # Unconditional (branch-free) updates: pending corrections of an untriggered target are discarded by
            # the flush that activates it, so they never reach a feature.
            pend = acc[1]
            if r3 >= 0:
                for q in range(c3_ptr[r3], c3_ptr[r3 + 1]):
                    pend[c3_t[q]] += c3_c[q] * inv
            f2 = a3 * inv
            if fr >= 0:
                Wf[fr] += f2
            else:
                for q in range(c2_ptr[r2], c2_ptr[r2 + 1]):
                    pend[c2_t[q]] += c2_c[q] * f2
        p = push[j]
        if p != -2 and window > 0:
            pos = nw % window
            old = ring[pos] if nw >= window else -1
            ring[pos] = p
            nw += 1
            # enter before leaving, so a word that re-enters as it leaves never toggles its pairs
            if p >= 0:
                if cnt[p] == 0:
                    _toggle(p, 1, lam, tgt, out_ptr, puni, Lam, G, nact, S_box, accumulate, B, acc, E,
                            obs, bucket, fc_ptr, fc_h, fc_c, Wf, snap, z2f, cum, cum_obs, start, start_obs, span)
                cnt[p] += 1
            if old >= 0:
                if cnt[old] == 1:
                    _toggle(old, -1, lam, tgt, out_ptr, puni, Lam, G, nact, S_box, accumulate, B, acc, E,
                            obs, bucket, fc_ptr, fc_h, fc_c, Wf, snap, z2f, cum, cum_obs, start, start_obs, span)
                cnt[old] -= 1
    if accumulate:
        for t in range(n_vocab):
            _flush(t, B, acc, G, nact, puni, bucket, fc_ptr, fc_h, fc_c, Wf, snap, cum, cum_obs, span)
        for k in range(K):
            if cnt[src[k]] > 0:
                _settle(k, tgt[k], cum, cum_obs, start, start_obs, E, obs, span)
    return logZ, lam_w, E, obs


def frequent_histories(c2row: np.ndarray, c2_ptr: np.ndarray, c2_t: np.ndarray, c2_c: np.ndarray, n_tv: int,
                       n_frequent: int = 24):
    """The bigram histories :func:`trigger_scan` keeps running sums for: the ``n_frequent`` rows with the most
    continuation work in this stream (tokens x row length), and for each target its entries in them.

    Returns ``freq_rank`` (per row: rank or -1), ``freq_rows``, and ``fc_ptr``, ``fc_h``, ``fc_c`` (CSR by
    target: the ranks of the frequent rows it continues and its c2 there).
    """
    n_rows = c2_ptr.shape[0] - 1
    lengths = np.diff(c2_ptr)
    work = np.bincount(c2row, minlength=n_rows)[:n_rows] * lengths
    k = int(min(n_frequent, np.count_nonzero(work)))
    freq_rows = np.sort(np.argsort(-work, kind="stable")[:k]).astype(np.int64)
    freq_rank = np.full(n_rows, -1, dtype=np.int64)
    freq_rank[freq_rows] = np.arange(k)
    if k:
        sel = np.concatenate([np.arange(c2_ptr[r], c2_ptr[r + 1]) for r in freq_rows])
        ranks = np.repeat(np.arange(k), lengths[freq_rows])
    else:
        sel = np.zeros(0, dtype=np.int64)
        ranks = np.zeros(0, dtype=np.int64)
    t = c2_t[sel]
    order = np.argsort(t, kind="stable")
    fc_ptr = np.zeros(n_tv + 1, dtype=np.int64)
    np.cumsum(np.bincount(t, minlength=n_tv), out=fc_ptr[1:])
    return (freq_rank, freq_rows, fc_ptr, ranks[order].astype(np.int64),
            np.ascontiguousarray(c2_c[sel][order], dtype=np.float64))
