"""The mathematics of feature induction (paper Section 4): exact candidate gains and the IIS refit.

Pure functions and one search helper (:class:`CandidateSearch`, which keeps the candidates' last weights
between rounds): :class:`segviz.induction.BoundaryModel` (the estimator) coordinates them round by round.

Model
-----
The paper's linear exponential family over a prior ``q0`` (Section 4),

    q(yes | w) = e^{lambda.f(w)} q0(yes) / Z(w),   q(no | w) = q0(no) / Z(w),
    Z(w) = q0(no) + e^{lambda.f(w)} q0(yes),

with ``q0`` the training base rate of boundaries.  (The paper writes
``Z = 1 + e^{lambda.f}`` for a uniform prior.)  Dividing through, this is the
logistic form with the prior's log-odds as a fixed offset:

    q(yes | w) = sigmoid(theta0 + lambda.f(w)),   theta0 = log(q0(yes) / q0(no)).

Gain
----
The gain of a candidate ``g`` is the largest log-likelihood improvement from
adding it alone with its best weight ``a`` (the current model's weights frozen):

    G(g) = max_a  a * A_g - sum_{i: g fires} [softplus(a + l_i) - softplus(l_i)],

where ``A_g`` is the number of true boundaries among the events where ``g``
fires and ``l_i`` the current log-odds of event ``i``.  Only the events where
``g`` fires matter, so one safeguarded Newton iteration for *all* candidates is
a handful of passes over the nonzeros of the sparse event-by-candidate matrix
(CSC, grouped by candidate with ``np.add.reduceat``) -- no Python loop over
candidates.  Newton is safeguarded by a bracket (bisection when a step leaves
it) and weights are confined to ``|lambda| <= lambda_max``: a candidate that only
fires on boundaries (or never on one) has its optimum at infinity, and the cap
keeps such separable features finite (the paper applies no smoothing at all).
The production path runs the same Newton per column in a numba kernel (parallel
over candidates, warm-started from the previous round's optima, one ``exp`` per
candidate and iteration thanks to the probability form
``r = p e^a / (1 + p (e^a - 1))``); the numpy path is the reference and the
tests hold both to the slow definition.  Induction itself needs only the *best* candidate of a round:
:class:`CandidateSearch` bounds every candidate's gain in one pass and computes exact gains only where the
bound reaches the best exact gain found (the same answer as the argmax over all exact gains).

Gaussian prior
--------------
With ``l2 > 0`` both steps maximise the *penalised* log-likelihood
``L(lambda) - (l2 / 2) sum_j lambda_j^2``, a Gaussian prior of variance ``1 / l2`` on every weight (Chen &
Rosenfeld 1999; the paper uses none).  A question that fires on a handful of training events then gets a weight
near ``A_g / (N_g-ish + l2)`` instead of running to the cap: the gain becomes

    G(g) = max_a  a * A_g - sum_{i: g fires} [softplus(a + l_i) - softplus(l_i)] - (l2 / 2) a^2,

(``l2 * a`` joins the Newton derivative and ``l2`` its curvature), and IIS solves the penalised update below.
``l2 = 0`` is the paper's maximum likelihood.

Refit
-----
After adding the best candidate, all weights are refitted to the maximum
likelihood by **Improved Iterative Scaling** (Della Pietra, Della Pietra &
Lafferty 1997), not GIS: the update ``delta_j`` for feature ``j`` solves

    sum_i f_j(w_i) q(yes | w_i) e^{delta_j f#(w_i)} = sum_i f_j(w_i) y_i,

``f#(w) = sum_j f_j(w)`` the number of active features (with the prior the left side gains
``l2 (lambda_j + delta_j)``); grouping events by
``f#`` makes this a polynomial in ``e^{delta_j}`` whose coefficients come from one
bincount, solved for all ``j`` at once by vectorised Newton.  IIS runs from the
previous weights (warm start) until ``max |delta| < iis_tol`` (or the
log-likelihood stalls), with adaptive over-relaxation of the IIS step
(:func:`iis_refit`).
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from segviz.errors import SegvizError
from segviz.segmentation import logistic

__all__ = [
    "CandidateSearch",
    "MatrixColumns",
    "as_csc",
    "column_source",
    "candidate_gains",
    "iis_refit",
    "log_likelihood",
    "penalised_log_likelihood",
]


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


def log_likelihood(scores: np.ndarray, y: np.ndarray) -> float:
    """sum_i log q(y_i | w_i) for log-odds ``scores`` (natural log)."""
    s = np.asarray(scores, dtype=np.float64)
    return float(np.sum(np.where(y, s, 0.0) - _softplus(s)))


def penalised_log_likelihood(scores: np.ndarray, y: np.ndarray, lambdas: np.ndarray, l2: float) -> float:
    """The log-likelihood minus the Gaussian prior's ``(l2 / 2) ||lambda||^2`` (the offset is not penalised)."""
    lam = np.asarray(lambdas, dtype=np.float64)
    return log_likelihood(scores, y) - 0.5 * float(l2) * float(lam @ lam)


class MatrixColumns:
    """A held-out candidate matrix as induction reads it: its ``shape`` and ``columns(cols)`` (``X[:, cols]``).
    :class:`segviz.features.question_columns.QuestionColumns` answers the same two without the matrix."""

    def __init__(self, X):
        self.matrix = as_csc(X)
        self.shape = self.matrix.shape

    def columns(self, cols) -> sp.csc_matrix:
        return self.matrix[:, list(cols)]


def column_source(X):
    """``X`` when it answers ``columns`` itself, else the matrix ``X`` wrapped in :class:`MatrixColumns`."""
    return X if callable(getattr(X, "columns", None)) else MatrixColumns(X)


def as_csc(X) -> sp.csc_matrix:
    """``X`` as a CSC matrix with sorted indices (the layout the gain kernels read column by column)."""
    if not sp.issparse(X):
        X = sp.csc_matrix(np.asarray(X))
    X = X.tocsc()
    if not X.has_sorted_indices:
        X = X.sorted_indices()
    return X


def _gains_kernel_py(indptr, indices, probs, yv, cols, init, lambda_max, l2, tol, max_iter, gains, alphas):
    """Per-candidate safeguarded Newton for the columns ``cols``, one column at a time (compiled by numba when
    available); writes ``gains[c]`` and ``alphas[c]`` for each listed ``c``.

    Same mathematics as the vectorised numpy path of :func:`candidate_gains`, written with
    the event probabilities p_i instead of log-odds: with e = e^a the updated probability is
    r_i = p_i e / (1 + p_i (e - 1)), so Newton needs one exp per *candidate* and iteration,
    not one per nonzero; the gain is a A - sum_i log(1 + p_i (e - 1)) - l2 a^2 / 2.
    ``A`` (the boundaries among the column's events) is summed here, in the order of the column's events.
    """
    for ci in _prange(cols.shape[0]):
        c = cols[ci]
        s0 = indptr[c]
        s1 = indptr[c + 1]
        if s1 == s0:
            gains[c] = 0.0
            alphas[c] = 0.0
            continue
        a = min(max(init[c], -lambda_max), lambda_max)
        lo = -lambda_max
        hi = lambda_max
        Ac = 0.0
        for k in range(s0, s1):
            Ac += yv[indices[k]]
        nc = s1 - s0
        for _ in range(max_iter):
            em1 = math.expm1(a)
            e = em1 + 1.0
            sr = 0.0
            srr = 0.0
            for k in range(s0, s1):
                p = probs[indices[k]]
                r = p * e / (1.0 + p * em1)
                sr += r
                srr += r * (1.0 - r)
            d1 = Ac - sr - l2 * a
            srr += l2
            if abs(d1) < tol * max(nc, 1.0):
                break
            if d1 > 0:
                lo = a
            else:
                hi = a
            new = a + d1 / srr if srr > 0 else 0.5 * (lo + hi)
            if not (lo <= new <= hi) or new != new:
                new = 0.5 * (lo + hi)
            step = abs(new - a)
            a = new
            if step < tol or hi - lo < tol:
                break
        em1 = math.expm1(a)
        loss = 0.0
        for k in range(s0, s1):
            loss += math.log1p(probs[indices[k]] * em1)
        g = a * Ac - loss - 0.5 * l2 * a * a
        gains[c] = g if g > 0 else 0.0
        alphas[c] = a




def candidate_gains(
    X,
    y: np.ndarray,
    scores: np.ndarray,
    *,
    lambda_max: float = 10.0,
    l2: float = 0.0,
    tol: float = 1e-9,
    max_iter: int = 100,
    init: np.ndarray | None = None,
    engine: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """Exact gain and best weight of every candidate column of ``X`` (binary, events x candidates).

    ``scores`` are the current log-odds of the events.  Returns ``(gains, alphas)``;
    columns that never fire get gain 0 and weight 0.  ``init`` (one weight per
    column, e.g. last round's optima) only sets Newton's starting point.
    ``l2``: the Gaussian prior's precision (module docstring); 0 = maximum likelihood.
    ``engine``: "numpy" = vectorised over all nonzeros (reference), "numba" = the
    same Newton compiled per column (parallel over columns), "auto" = numba if
    importable.
    """
    X = as_csc(X)
    n, m = X.shape
    l2 = float(l2)
    if not (math.isfinite(l2) and l2 >= 0):
        raise SegvizError(f"l2 must be a finite number >= 0, got {l2!r}")
    if engine not in ("auto", "numba", "numpy"):
        raise SegvizError(f"engine must be 'auto', 'numba' or 'numpy', not {engine!r}")
    if engine == "numba" and _gains_kernel is None:
        raise SegvizError("numba is not available")
    if engine != "numpy" and _gains_kernel is not None and m:
        sc = np.ascontiguousarray(scores, dtype=np.float64)
        a0 = np.zeros(m) if init is None else np.ascontiguousarray(init, dtype=np.float64)
        gains = np.empty(m)
        alphas = np.empty(m)
        _gains_kernel(X.indptr, X.indices, logistic(sc), np.asarray(y, dtype=np.float64),
                      np.arange(m, dtype=np.int64), a0, float(lambda_max), l2, float(tol), int(max_iter), gains,
                      alphas)
        return gains, alphas
    counts = np.diff(X.indptr)
    gains = np.zeros(m)
    alphas = np.zeros(m)
    cols = np.flatnonzero(counts > 0)
    if cols.size == 0:
        return gains, alphas
    yv = np.asarray(y, dtype=np.float64)
    # A_g: boundaries among the events where g fires (a sufficient statistic, fixed for the round)
    A_all = np.add.reduceat(yv[X.indices], X.indptr[:-1][cols]) if X.nnz else np.zeros(cols.size)
    seg_start = X.indptr[:-1][cols]
    # event log-odds at every nonzero, laid out column by column
    sc = np.asarray(scores, dtype=np.float64)
    l_nz = sc[X.indices]
    sp_nz = _softplus(sc)[X.indices]   # softplus of the current log-odds: per event, gathered
    if cols.size != m:  # drop empty columns from the layout
        keep = np.repeat(counts > 0, counts)
        l_nz = l_nz[keep]
        sp_nz = sp_nz[keep]
        seg_start = np.concatenate([[0], np.cumsum(counts[cols])[:-1]])
    N = counts[cols].astype(np.float64)

    a = np.zeros(cols.size) if init is None else np.clip(np.asarray(init, dtype=np.float64)[cols],
                                                            -lambda_max, lambda_max)
    lo = np.full(cols.size, -lambda_max)
    hi = np.full(cols.size, lambda_max)
    active = np.arange(cols.size)
    l_act, starts_act, lens_act = l_nz, seg_start, counts[cols]
    for it in range(max_iter):
        if active.size == 0:
            break
        a_rep = np.repeat(a[active], lens_act)
        r = logistic(a_rep + l_act)
        d1 = A_all[active] - np.add.reduceat(r, starts_act) - l2 * a[active]      # f'(a)
        d2 = np.add.reduceat(r * (1.0 - r), starts_act) + l2                        # -f''(a) >= 0
        # bracket update: the function is concave, so the sign of f' tells where the optimum is
        pos = d1 > 0
        lo[active] = np.where(pos, a[active], lo[active])
        hi[active] = np.where(pos, hi[active], a[active])
        with np.errstate(divide="ignore", invalid="ignore"):
            step = d1 / d2
        new = a[active] + step
        bad = ~np.isfinite(new) | (new < lo[active]) | (new > hi[active])
        new = np.where(bad, 0.5 * (lo[active] + hi[active]), new)
        flat = np.abs(d1) < tol * np.maximum(N[active], 1.0)   # already stationary: keep a
        new = np.where(flat, a[active], new)
        done = flat | (np.abs(new - a[active]) < tol) | (hi[active] - lo[active] < tol)
        a[active] = new
        if done.any():
            still = ~done
            # compact the nonzero layout to the candidates still iterating
            keep_nz = np.repeat(still, lens_act)
            l_act = l_act[keep_nz]
            lens_act = lens_act[still]
            starts_act = np.concatenate([[0], np.cumsum(lens_act)[:-1]]) if lens_act.size else lens_act
            active = active[still]
    # gain at the final weight (one more pass over all nonzeros)
    a_rep = np.repeat(a, counts[cols])
    loss = np.add.reduceat(_softplus(a_rep + l_nz) - sp_nz, seg_start)
    g = a * A_all - loss - 0.5 * l2 * a * a
    gains[cols] = np.maximum(g, 0.0)
    alphas[cols] = a
    return gains, alphas


_EXP_OVERFLOW = 709.782712893384  # e^x is inf above this (then 0 * e^x is nan, as numpy computes it)


def _gain_bounds_py(indptr, indices, ev, A, lambda_max, out):
    """An upper bound on every column's gain from one pass over its events (numba, columns in parallel).

    ``ev[i]`` = (p_i, p_i (1 - p_i), -log p_i if y_i else 0, -log(1 - p_i) if not y_i else 0) at the current
    log-odds; ``A[c]`` = the boundaries among column c's events.  The smaller of :class:`CandidateSearch`'s
    two bounds is written to ``out[c]``.
    """
    m = indptr.shape[0] - 1
    for c in _prange(m):
        mu = 0.0
        w = 0.0
        s_pos = 0.0
        s_neg = 0.0
        for k in range(indptr[c], indptr[c + 1]):
            i = indices[k]
            mu += ev[i, 0]
            w += ev[i, 1]
            s_pos += ev[i, 2]
            s_neg += ev[i, 3]
        b = s_pos if s_pos > s_neg else s_neg
        dev = abs(A[c] - mu)
        if w > 0.0:
            if dev < w:
                x = -math.log1p(-dev / w)
                if x > lambda_max:
                    x = lambda_max
            else:
                x = lambda_max
            # the curvature bound dev x - W (x - 1 + e^-x) at its maximiser (or at the cap)
            curv = dev * x - w * (x + math.expm1(-x))
            if curv < b:
                b = curv
        out[c] = b


def numba_available() -> bool:
    """Whether the compiled kernels are there (else the numpy reference paths run)."""
    return _gains_kernel is not None


def boundaries_per_column(X: sp.csc_matrix, boundary: np.ndarray, *, chunk: int = 1 << 22) -> np.ndarray:
    """For each column of the binary CSC matrix ``X``, how many of its events are ``boundary`` (float64, exact).

    ``X.T @ y`` gives the same, but scipy first copies an int8 ``X`` to float64: eight bytes an entry, 0.4 GB
    for the Reuters candidates.  Here the columns are summed a few million entries at a time."""
    boundary = np.asarray(boundary, dtype=bool)
    indptr = X.indptr
    counts = np.zeros(X.shape[1], dtype=np.int64)
    first = 0
    while first < X.shape[1]:
        # the columns whose entries start within the next ``chunk`` entries (at least one column)
        last = max(first + 1, int(np.searchsorted(indptr, indptr[first] + chunk, side="right")) - 1)
        last = min(last, X.shape[1])
        starts = indptr[first:last + 1] - indptr[first]
        hit = np.append(boundary[X.indices[indptr[first]:indptr[last]]], False)   # the extra: empty last columns
        part = np.add.reduceat(hit, starts[:-1], dtype=np.int64)
        part[np.diff(starts) == 0] = 0   # reduceat gives an empty column the next entry, not 0
        counts[first:last] = part
        first = last
    return counts.astype(np.float64)


class CandidateSearch:
    """The best candidate of each induction round, with exact gains for only the candidates that can win.

    The round's answer is the one :func:`candidate_gains` over all candidates gives (the first column of largest
    gain), found by computing exact gains only where an upper bound on the gain reaches the best exact gain
    found so far.  Write the gain of g as ``G = max_{|a| <= lambda_max} F(a)``, ``F(a) = sum_{i: g fires}
    [log q_a(y_i | w_i) - log q(y_i | w_i)]``; two bounds, both from one pass over the events where g fires and
    both valid with or without the prior (which only lowers F):

    * **support**: ``G <= max(sum_{y_i = yes} -log q(yes | w_i), sum_{y_i = no} -log q(no | w_i))``: no weight
      makes a log-probability exceed 0, a weight ``a >= 0`` lowers every "no" and ``a <= 0`` every "yes";
    * **curvature**: ``F(0) = 0``, ``F'(0) = A_g - sum_i p_i`` and ``-F''(a) = sum_i r_i (1 - r_i) >= e^{-|a|}
      W``, ``W = sum_i p_i (1 - p_i)`` (scaling an event's odds by e^a scales its variance by at least
      e^{-|a|}), so ``F(a) <= |F'(0)| |a| - W (|a| - 1 + e^{-|a|})``, whose maximum over ``|a| <= lambda_max``
      is closed-form.  It is close to the exact gain for the questions that fire often, where the support
      bound is useless.

    Exact gains are computed first for the ``first`` columns of largest bound, then for every other column
    whose bound reaches the best of those (``>=``: a tie is settled by the column order, as ``argmax`` settles
    it).  Newton starts from the candidate's weight the last time its gain was computed (the previous round's,
    for a candidate computed every round).
    """

    def __init__(self, X, y, *, lambda_max: float = 10.0, l2: float = 0.0, tol: float = 1e-9,
                 max_iter: int = 100, first: int = 256):
        if _gains_kernel is None:  # pragma: no cover
            raise SegvizError("numba is not available")
        self.X = as_csc(X)
        self.y = np.asarray(y, dtype=np.float64)
        self.yb = self.y > 0.5
        self.A = boundaries_per_column(self.X, self.yb)     # boundaries among each column's events (exact)
        self.lambda_max, self.l2, self.tol, self.max_iter = float(lambda_max), float(l2), float(tol), int(max_iter)
        self.first = int(first)
        m = self.X.shape[1]
        self.gain = np.zeros(m)              # gain at the last exact computation
        self.alpha = np.zeros(m)             # its optimal weight (Newton's next starting point)
        self.exact_last_round = 0

    def _exact(self, cols: np.ndarray, probs: np.ndarray) -> None:
        _gains_kernel(self.X.indptr, self.X.indices, probs, self.y, cols, self.alpha, self.lambda_max, self.l2,
                      self.tol, self.max_iter, self.gain, self.alpha)

    def bounds(self, scores: np.ndarray) -> np.ndarray:
        """The upper bound on every candidate's gain at event log-odds ``scores``."""
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        p = logistic(scores)
        ev = np.empty((scores.size, 4))
        ev[:, 0] = p
        ev[:, 1] = p * (1.0 - p)
        ev[:, 2] = np.where(self.yb, _softplus(-scores), 0.0)    # -log q(yes)
        ev[:, 3] = np.where(self.yb, 0.0, _softplus(scores))     # -log q(no)
        out = np.empty(self.X.shape[1])
        _gain_bounds(self.X.indptr, self.X.indices, ev, self.A, self.lambda_max, out)
        # a margin far above the rounding of the sums and of Newton's gains, far below any gap that matters
        out += 1e-9 * (1.0 + np.abs(out))
        return out

    def best(self, scores: np.ndarray, excluded: np.ndarray) -> tuple[int, float, float]:
        """``(column, gain, weight)`` of the best candidate not ``excluded`` at event log-odds ``scores``;
        column -1 when every candidate is excluded."""
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        probs = logistic(scores)
        bound = self.bounds(scores)
        bound[excluded] = -np.inf
        m = bound.size
        live = int(m - np.count_nonzero(excluded))
        if live == 0:
            return -1, -np.inf, 0.0
        k = min(self.first, live)
        top = np.argpartition(-bound, k - 1)[:k]
        top = np.sort(top[np.isfinite(bound[top])])
        self._exact(top, probs)
        best = float(self.gain[top].max())
        over = bound >= best
        over[top] = False
        rest = np.flatnonzero(over)
        if rest.size:
            self._exact(rest, probs)
            pool = np.concatenate([top, rest])
        else:
            pool = top
        self.exact_last_round = int(pool.size)
        g = self.gain[pool]
        j = int(pool[g == g.max()].min())
        return j, float(self.gain[j]), float(self.alpha[j])


def _pairwise_leaf(a, lo, n):
    """numpy's pairwise_sum for n <= 128: a plain loop below 8, else eight interleaved partial sums."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


def _pairwise_sum(a, lo, n):
    """numpy's pairwise summation of ``a[lo:lo + n]`` (the order ``np.sum`` adds a float64 array in), so the
    compiled IIS reproduces numpy's log-likelihood to the last bit.  numpy recurses (halves rounded down to
    a multiple of 8, leaves of <= 128); this walks the same tree with an explicit stack (numba's cache does
    not take recursive functions)."""
    if n <= 128:
        return _pairwise_leaf(a, lo, n)
    los = np.empty(64, dtype=np.int64)
    ns = np.empty(64, dtype=np.int64)
    state = np.zeros(64, dtype=np.int64)
    left = np.empty(64)
    los[0] = lo
    ns[0] = n
    top = 1
    ret = 0.0
    while top > 0:
        f = top - 1
        lo_f = los[f]
        n_f = ns[f]
        if n_f <= 128:
            ret = _pairwise_leaf(a, lo_f, n_f)
            top -= 1
            continue
        n2 = n_f // 2
        n2 -= n2 % 8
        if state[f] == 0:      # first the left half
            state[f] = 1
            los[top] = lo_f
            ns[top] = n2
            state[top] = 0
            top += 1
        elif state[f] == 1:    # then the right half
            left[f] = ret
            state[f] = 2
            los[top] = lo_f + n2
            ns[top] = n_f - n2
            state[top] = 0
            top += 1
        else:
            ret = left[f] + ret
            top -= 1
    return ret


_LOG2 = math.log(2.0)


def _iis_eval_kernel_py(gptr, gcol, group, lam, offset, yb, sg, spg, pg, p, terms):
    """Log-odds ``s = offset + Xa @ lam``, ``p = sigmoid(s)`` and the log-likelihood sum_i [y_i s_i -
    softplus(s_i)] (numba).

    Events with the same active features share their log-odds: ``group[i]`` is event i's pattern, whose
    features are ``gcol[gptr[g]:gptr[g + 1]]`` (ascending: the order scipy's CSC product adds them in), and the
    exponentials and logarithms are taken once per pattern.  Every operation is the one numpy/scipy performs
    (``logaddexp(0, s)``, ``expit``, pairwise summation over the events in their order), so the result equals
    :func:`log_likelihood` bit for bit.
    """
    for g in range(gptr.shape[0] - 1):
        acc = 0.0
        for q in range(gptr[g], gptr[g + 1]):
            acc += lam[gcol[q]]
        si = offset + acc
        sg[g] = si
        if si == 0.0:
            spg[g] = _LOG2
        elif si < 0.0:
            spg[g] = math.log1p(math.exp(si))
        else:
            spg[g] = si + math.log1p(math.exp(-si))
        pg[g] = 1.0 / (1.0 + math.exp(-si))
    n = group.shape[0]
    for i in range(n):
        g = group[i]
        terms[i] = (sg[g] if yb[i] else 0.0) - spg[g]
        p[i] = pg[g]
    return _pairwise_sum(terms, 0, n)


def _iis_counts_kernel_py(cptr, cidx, fsharp, p, C):
    """``C[j, m]`` = sum of ``p_i`` over the events of column j with f#_i = m, added in event order (as
    ``np.bincount`` adds them); columns in parallel (numba)."""
    k = cptr.shape[0] - 1
    mm = C.shape[1]
    for j in _prange(k):
        for b in range(mm):
            C[j, b] = 0.0
        for q in range(cptr[j], cptr[j + 1]):
            i = cidx[q]
            C[j, fsharp[i]] += p[i]


def _iis_deltas_kernel_py(C, A, mvals, bound, l2, shift, out):
    """:func:`_iis_deltas` one feature at a time (compiled by numba when available).

    The same safeguarded Newton on the same equation; a feature stops as soon as its own step is below 1e-12
    instead of when every feature's is (after that, Newton's steps are below the last bits of ``d``), and the
    sum over f# skips the buckets where ``C`` is zero (their terms are 0, or nan where e^{d m} overflows,
    exactly as the whole-array version computes them).
    """
    k, mm = C.shape
    for j in range(k):
        d = 0.0
        dlo = -bound
        dhi = bound
        for _ in range(60):
            g = 0.0
            gp = 0.0
            for b in range(mm):
                c = C[j, b]
                x = d * mvals[b]
                if c != 0.0:
                    e = c * math.exp(x)
                elif x > _EXP_OVERFLOW:
                    e = math.nan
                else:
                    continue
                g += e
                gp += e * mvals[b]
            g = g + shift[j] + l2 * d - A[j]
            gp = gp + l2
            if g < 0:
                dlo = d
            else:
                dhi = d
            if gp != 0.0:
                nd = d - g / gp
            else:
                nd = math.nan
            if not math.isfinite(nd) or nd < dlo or nd > dhi:
                nd = 0.5 * (dlo + dhi)
            if abs(nd - d) < 1e-12:
                d = nd
                break
            d = nd
        out[j] = d


def _iis_deltas(C: np.ndarray, A: np.ndarray, mvals: np.ndarray, bound: float, l2: float = 0.0,
                lam: np.ndarray | None = None) -> np.ndarray:
    """Solve sum_m C[j,m] e^{d_j m} + l2 (lam_j + d_j) = A_j for every j (increasing in d): safeguarded Newton."""
    k = C.shape[0]
    shift = np.zeros(k) if lam is None else l2 * np.asarray(lam, dtype=np.float64)
    if _iis_deltas_kernel is not None:
        out = np.empty(k)
        _iis_deltas_kernel(np.ascontiguousarray(C, dtype=np.float64), np.ascontiguousarray(A, dtype=np.float64),
                           np.ascontiguousarray(mvals, dtype=np.float64), float(bound), float(l2),
                           np.ascontiguousarray(shift, dtype=np.float64), out)
        return out
    return _iis_deltas_numpy(C, A, mvals, bound, l2, shift)


def _iis_deltas_numpy(C, A, mvals, bound, l2, shift):
    """The whole-array form of :func:`_iis_deltas` (the reference; used without numba)."""
    k = C.shape[0]
    d = np.zeros(k)
    dlo = np.full(k, -bound)
    dhi = np.full(k, bound)
    for _ in range(60):
        e = C * np.exp(np.outer(d, mvals))
        g = e.sum(axis=1) + shift + l2 * d - A
        gp = e @ mvals + l2
        neg = g < 0
        dlo = np.where(neg, d, dlo)
        dhi = np.where(neg, dhi, d)
        with np.errstate(divide="ignore", invalid="ignore"):
            nd = d - g / gp
        bad = ~np.isfinite(nd) | (nd < dlo) | (nd > dhi)
        nd = np.where(bad, 0.5 * (dlo + dhi), nd)
        if np.max(np.abs(nd - d)) < 1e-12:
            return nd
        d = nd
    return d


def iis_refit(
    Xa,
    y: np.ndarray,
    offset: float,
    lambdas: np.ndarray,
    *,
    lambda_max: float = 10.0,
    l2: float = 0.0,
    tol: float = 1e-6,
    max_iter: int = 5000,
    overrelax: bool = True,
    ll_rtol: float = 1e-9,
) -> tuple[np.ndarray, int]:
    """Maximum-likelihood (``l2 > 0``: maximum a posteriori) weights of the active features by Improved
    Iterative Scaling.

    ``Xa`` is events x active features (binary); ``lambdas`` the starting point.
    Each iteration computes the IIS update ``delta`` (see the module docstring);
    it stops when ``max |delta| < tol``, or when 20 iterations together raised
    the log-likelihood by less than ``ll_rtol * |loglik|`` (nearly separable
    features creep towards the cap forever otherwise).

    With ``overrelax`` (default) the update is extrapolated, ``lambda + w delta``
    with ``w`` growing by 1.5x while the log-likelihood keeps rising and reset
    to the plain IIS step (``w = 1``, which never lowers the likelihood) as soon
    as it does not -- adaptive over-relaxation as for EM (Salakhutdinov & Roweis
    2003).  IIS alone slows down when many features overlap (its step shrinks
    roughly like 1 / max f#); the fixed point and the stopping rule are unchanged.
    With ``l2 > 0`` every likelihood above is the penalised one (:func:`penalised_log_likelihood`) and the
    update solves the penalised equation of the module docstring (Chen & Rosenfeld 1999).
    Returns ``(lambdas, iterations)``.
    """
    l2 = float(l2)
    if not (math.isfinite(l2) and l2 >= 0):
        raise SegvizError(f"l2 must be a finite number >= 0, got {l2!r}")
    Xa = as_csc(Xa).astype(np.float64)
    n, k = Xa.shape
    lam = np.clip(np.array(lambdas, dtype=np.float64, copy=True), -lambda_max, lambda_max)
    if k == 0:
        return lam, 0
    yv = np.asarray(y, dtype=np.float64)
    A = Xa.T @ yv                                     # empirical counts
    fsharp = np.asarray(Xa.sum(axis=1)).ravel().astype(np.int64)
    M = int(fsharp.max())
    mvals = np.arange(M + 1, dtype=np.float64)
    # C[j, m] = sum of p_i over the nonzeros (i, j) of Xa with f#_i = m: one bincount per iteration
    nz_rows = Xa.indices
    nz_cols = np.repeat(np.arange(k), np.diff(Xa.indptr))
    bucket = nz_cols * (M + 1) + fsharp[nz_rows]
    if _iis_eval_kernel is not None:
        return _iis_loop_compiled(Xa, yv, offset, lam, A, fsharp, mvals, lambda_max=lambda_max, l2=l2, tol=tol,
                                  max_iter=max_iter, overrelax=overrelax, ll_rtol=ll_rtol)
    last = {}

    def evaluate(lam):
        last["s"] = offset + Xa @ lam
        return penalised_log_likelihood(last["s"], yv > 0.5, lam, l2)

    def counts():
        p = logistic(last["s"])
        return np.bincount(bucket, weights=p[nz_rows], minlength=k * (M + 1)).reshape(k, M + 1)

    return _iis_iterate(evaluate, counts, A, mvals, lam, lambda_max=lambda_max, l2=l2, tol=tol,
                        max_iter=max_iter, overrelax=overrelax, ll_rtol=ll_rtol)


def _iis_iterate(evaluate, counts, A, mvals, lam, *, lambda_max, l2, tol, max_iter, overrelax, ll_rtol):
    """The IIS iterations of :func:`iis_refit` over two passes it is given: ``evaluate(lam)`` (the penalised
    log-likelihood at ``lam``) and ``counts()`` (the matrix ``C`` at the point evaluated last)."""
    w = 1.0
    lls: list[float] = []  # log-likelihood per iteration, for the stall test
    base_lam = None        # the point the current extrapolated step started from
    base_ll = -np.inf
    base_delta = None
    it = 0
    for it in range(1, max_iter + 1):
        ll = evaluate(lam)
        if base_lam is not None and ll < base_ll:
            # the extrapolated step lost likelihood: take the plain IIS step from the base instead
            lam = np.clip(base_lam + base_delta, -lambda_max, lambda_max)
            w = 1.0
            ll = evaluate(lam)
        lls.append(ll)
        # stall test: a feature that (nearly) separates the data drifts towards the cap with ever smaller
        # steps; once 20 iterations gain less than ll_rtol * |ll| in total, the fit is converged for any use
        if len(lls) > 20 and lls[-1] - lls[-21] < ll_rtol * max(1.0, abs(ll)):
            break
        d = _iis_deltas(counts(), A, mvals, 2 * lambda_max, l2, lam)
        # features pinned at the cap stay there (their delta points outwards)
        d = np.clip(lam + d, -lambda_max, lambda_max) - lam
        if np.max(np.abs(d)) < tol:
            break
        base_lam, base_ll, base_delta = lam, ll, d
        if overrelax:
            lam = np.clip(lam + w * d, -lambda_max, lambda_max)
            w = min(w * 1.5, 64.0)
        else:
            lam = lam + d
            base_lam = None
    return lam, it


def _patterns(Xa) -> tuple[np.ndarray, np.ndarray]:
    """Each event's pattern of active features: ``group[i]`` (an id) and ``first[g]``, an event with pattern g.

    The rows, packed into 64-bit words, are sorted with ``np.lexsort`` (much faster than ``np.unique(...,
    axis=0)`` on the rows themselves)."""
    n = Xa.shape[0]
    bits = np.packbits(Xa.toarray() != 0, axis=1)
    words = -(-bits.shape[1] // 8)
    packed = np.zeros((n, words * 8), dtype=np.uint8)
    packed[:, :bits.shape[1]] = bits
    keys = packed.view(np.uint64)
    order = np.lexsort(keys.T[::-1])
    ks = keys[order]
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = np.any(ks[1:] != ks[:-1], axis=1)
    ids = np.cumsum(new) - 1
    group = np.empty(n, dtype=np.int64)
    group[order] = ids
    return group, order[new]


def _iis_loop_compiled(Xa, yv, offset, lam, A, fsharp, mvals, *, lambda_max, l2, tol, max_iter, overrelax,
                       ll_rtol):
    """The loop of :func:`iis_refit` with its passes over the events compiled: the same iterations, the same
    decisions (every quantity is computed as numpy computes it, the IIS deltas to the last bits)."""
    n, k = Xa.shape
    # the distinct patterns of active features (most events share one: 87 patterns for 13,416 events after 10
    # Reuters features, 8,781 after 100)
    group, first = _patterns(Xa)
    gcsr = Xa.tocsr()[first]
    gcsr.sort_indices()
    gptr, gcol = gcsr.indptr, gcsr.indices
    ng = first.size
    sg, spg, pg = np.empty(ng), np.empty(ng), np.empty(ng)
    cptr, cidx = Xa.indptr, Xa.indices
    fs = np.ascontiguousarray(fsharp, dtype=np.int64)
    yb = yv > 0.5
    p = np.empty(n)
    terms = np.empty(n)
    C = np.empty((k, mvals.size))
    off = float(offset)

    def evaluate(lam):
        ll = _iis_eval_kernel(gptr, gcol, group, lam, off, yb, sg, spg, pg, p, terms)
        return ll - 0.5 * l2 * float(lam @ lam)   # penalised_log_likelihood's expression

    def counts():
        _iis_counts_kernel(cptr, cidx, fs, p, C)   # p: the probabilities of the point evaluated last
        return C

    return _iis_iterate(evaluate, counts, A, mvals, lam, lambda_max=lambda_max, l2=l2, tol=tol,
                        max_iter=max_iter, overrelax=overrelax, ll_rtol=ll_rtol)


try:  # numba is optional: the numpy paths are the reference
    import numba as _numba

    _prange = _numba.prange
    _gains_kernel = _numba.njit(parallel=True, cache=True, fastmath=False)(_gains_kernel_py)
    _iis_deltas_kernel = _numba.njit(cache=True, fastmath=False, error_model="numpy")(_iis_deltas_kernel_py)
    _gain_bounds = _numba.njit(parallel=True, cache=True, fastmath=False)(_gain_bounds_py)
    _pairwise_leaf = _numba.njit(cache=True, fastmath=False)(_pairwise_leaf)
    _pairwise_sum = _numba.njit(cache=True, fastmath=False)(_pairwise_sum)
    # one pass of IIS is ~10^4 events: serial (threads would cost more in start-ups, and spin, than they save)
    _iis_eval_kernel = _numba.njit(cache=True, fastmath=False)(_iis_eval_kernel_py)
    _iis_counts_kernel = _numba.njit(cache=True, fastmath=False)(_iis_counts_kernel_py)
except Exception:  # pragma: no cover - numba missing or broken
    _prange = range
    _gains_kernel = None
    _iis_deltas_kernel = None
    _gain_bounds = None
    _iis_eval_kernel = None
    _iis_counts_kernel = None
