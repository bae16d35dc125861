"""Decision rule and tuning: brute force on tiny inputs, and P_mu against the metric."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from segviz import metrics
from segviz.decode import decode, tune, tune_table
from segviz.segmentation import boundaries_to_masses as positions_to_masses
from segviz.errors import SegvizError


def _slow_decode(p, alpha, eps):
    """Literal greedy rule: visit by descending probability (ties: earlier first), keep if far from kept."""
    kept = []
    for r in sorted(range(len(p)), key=lambda r: (-p[r], r)):
        if p[r] > alpha and all(abs(r - k) >= eps for k in kept):
            kept.append(r)
    return sorted(k + 1 for k in kept)


@pytest.mark.parametrize("seed", range(5))
def test_decode_matches_literal_rule(seed):
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(40), 1)  # rounding creates ties
    for alpha, eps in itertools.product([0.0, 0.3, 0.7], [1, 2, 3, 5]):
        assert decode(p, alpha, eps).tolist() == _slow_decode(p, alpha, eps)


def test_tie_rule_keeps_higher_peak():
    p = np.array([0.1, 0.6, 0.9, 0.5, 0.1, 0.1, 0.8])
    assert decode(p, 0.4, 3).tolist() == [3, 7]        # 0.9 suppresses its neighbours 0.6 and 0.5
    assert decode(np.array([0.5, 0.5]), 0.1, 2).tolist() == [1]  # exact tie: earlier position


def _slow_p_mu(ref_masses, hyp_masses, mu):
    n = sum(ref_masses)
    lab = lambda m: np.repeat(np.arange(len(m)), m)
    r, h = lab(ref_masses), lab(hyp_masses)
    num = den = 0.0
    for i in range(n):
        for j in range(i, n):
            w = np.exp(-mu * (j - i))
            den += w
            num += w * ((r[i] == r[j]) == (h[i] == h[j]))
    return num / den


def test_boundary_kernel_matches_brute_force_and_metrics():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(2, 30))
        ref = np.flatnonzero(rng.random(n - 1) < 0.3) + 1
        hyp = np.flatnonzero(rng.random(n - 1) < 0.3) + 1
        rm, hm = positions_to_masses(ref, n), positions_to_masses(hyp, n)
        mu = float(rng.uniform(0.05, 1.0))
        kernel = metrics.p_mu_from_boundaries(ref, hyp, n, mu)
        assert kernel == pytest.approx(_slow_p_mu(rm, hm, mu), abs=1e-10)
        assert kernel == metrics.p_mu(rm, hm, mu)


@pytest.mark.parametrize("inv_mu", [1, 3, 10, 100, 1000, 10_000])
@pytest.mark.parametrize("n", [50, 2_000, 100_000])
def test_tuning_uses_the_metric_p_mu_for_small_mu_and_long_streams(inv_mu, n):
    """The tuner's P_mu equals metrics.p_mu (stable for tiny mu) at every grid point, 1/mu up to 10^4."""
    rng = np.random.default_rng(inv_mu + n)
    ref = positions_to_masses(np.flatnonzero(rng.random(n - 1) < 1.0 / max(inv_mu, 2)) + 1, n)
    p = rng.random(n - 1)
    alphas, eps = (0.5, 0.9, 0.99), (1, 3)
    table = tune_table(p, ref, mu=1.0 / inv_mu, alphas=alphas, epsilons=eps)
    for i, e in enumerate(eps):
        for j, a in enumerate(alphas):
            hyp = positions_to_masses(decode(p, a, e), n)
            assert table[i, j] == pytest.approx(metrics.p_mu(ref, hyp, 1.0 / inv_mu), abs=1e-12)
    assert np.all((table >= 0) & (table <= 1))


def test_tune_picks_grid_maximum():
    rng = np.random.default_rng(3)
    ref = (5, 7, 3, 9, 6)
    n = sum(ref)
    truth = np.zeros(n - 1)
    truth[np.cumsum(ref)[:-1] - 1] = 1
    p = np.clip(0.6 * truth + 0.3 * rng.random(n - 1), 0, 1)
    alphas, eps = (0.1, 0.3, 0.5, 0.7), (1, 2, 3)
    a, e, best = tune(p, ref, alphas=alphas, epsilons=eps)
    table = tune_table(p, ref, alphas=alphas, epsilons=eps)
    assert best == table.max()
    hyp = positions_to_masses(decode(p, a, e), n)
    assert metrics.p_mu(ref, hyp) == pytest.approx(best, abs=1e-12)
    # brute force over the grid with the metric
    brute = max(metrics.p_mu(ref, positions_to_masses(decode(p, al, ep), n)) for al in alphas for ep in eps)
    assert best == pytest.approx(brute, abs=1e-12)


def test_errors():
    with pytest.raises(SegvizError, match="epsilon"):
        decode([0.5, 0.2], 0.3, 0)
    with pytest.raises(SegvizError, match=r"\[0, 1\]"):
        decode([1.5], 0.3, 1)
    with pytest.raises(SegvizError, match="reference covers"):
        tune([0.5, 0.2], (2, 2))


def test_compiled_greedy_pass_matches_the_python_reference():
    from segviz.decode import _greedy_keep, _greedy_keep_python

    rng = np.random.default_rng(11)
    for n in (1, 2, 7, 300, 5000):
        for eps in (2, 3, 5, 9):
            p = rng.random(n)
            p[rng.random(n) < 0.3] = 0.5          # ties: the earlier position first
            order = np.argsort(-p, kind="stable")
            np.testing.assert_array_equal(_greedy_keep(order, n, eps), _greedy_keep_python(order, n, eps))
