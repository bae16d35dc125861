"""Decision rule and tuning: brute force on tiny inputs, and P_mu against the metric."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from segviz import metrics
from segviz.decode import check_probabilities, decode
from segviz.errors import SegvizError
from segviz.rules import ThresholdRule
from segviz.segmentation import boundaries_to_masses as positions_to_masses


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
    def lab(m):
        return np.repeat(np.arange(len(m)), m)

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
    scores = {}
    for e in eps:
        for a in alphas:
            # a grid of one point: the tuner's score of that point
            rule, score = ThresholdRule(alphas=(a,), epsilons=(e,)).tune(p, ref, mu=1.0 / inv_mu)
            assert (rule.alpha, rule.epsilon) == (a, e)
            hyp = positions_to_masses(decode(p, a, e), n)
            assert score == pytest.approx(metrics.p_mu(ref, hyp, 1.0 / inv_mu), abs=1e-12)
            assert 0 <= score <= 1
            scores[(a, e)] = score
    # the whole grid at once: the first best point in grid order (epsilon, then alpha)
    rule, best = ThresholdRule(alphas=alphas, epsilons=eps).tune(p, ref, mu=1.0 / inv_mu)
    order = [(a, e) for e in eps for a in alphas]
    first = max(order, key=lambda key: (scores[key], -order.index(key)))
    assert best == pytest.approx(scores[first], abs=1e-12)
    assert (rule.alpha, rule.epsilon) == first


def test_tune_picks_grid_maximum():
    rng = np.random.default_rng(3)
    ref = (5, 7, 3, 9, 6)
    n = sum(ref)
    truth = np.zeros(n - 1)
    truth[np.cumsum(ref)[:-1] - 1] = 1
    p = np.clip(0.6 * truth + 0.3 * rng.random(n - 1), 0, 1)
    alphas, eps = (0.1, 0.3, 0.5, 0.7), (1, 2, 3)
    rule, best = ThresholdRule(alphas=alphas, epsilons=eps).tune(p, ref)
    assert isinstance(rule, ThresholdRule)
    assert (tuple(rule.alphas), tuple(rule.epsilons)) == (alphas, eps)   # the tuned rule keeps its grid
    hyp = positions_to_masses(rule.decide(p), n)
    assert rule.decide(p).tolist() == decode(p, rule.alpha, rule.epsilon).tolist()
    assert metrics.p_mu(ref, hyp) == pytest.approx(best, abs=1e-12)
    # brute force over the grid with the metric: the best score, reached first in grid order
    grid = [(al, ep) for ep in eps for al in alphas]
    table = [metrics.p_mu(ref, positions_to_masses(decode(p, al, ep), n)) for al, ep in grid]
    assert best == pytest.approx(max(table), abs=1e-12)
    assert (rule.alpha, rule.epsilon) == grid[int(np.argmax(table))]


def test_errors():
    with pytest.raises(SegvizError, match="epsilon"):
        decode([0.5, 0.2], 0.3, 0)
    with pytest.raises(SegvizError, match=r"\[0, 1\]"):
        decode([1.5], 0.3, 1)
    with pytest.raises(SegvizError, match=r"\[0, 1\]"):
        check_probabilities([0.5, -0.1])
    with pytest.raises(SegvizError, match="1-D"):
        check_probabilities([[0.5]])
    with pytest.raises(SegvizError, match="reference covers"):
        ThresholdRule().tune([0.5, 0.2], (2, 2))
    with pytest.raises(SegvizError, match="alpha"):
        ThresholdRule(alpha=1.5).check()
    with pytest.raises(SegvizError, match="epsilon"):
        ThresholdRule(epsilons=(1, 0)).check()


def test_compiled_greedy_pass_matches_the_python_reference():
    from segviz.decode import _greedy_keep, _greedy_keep_python

    rng = np.random.default_rng(11)
    for n in (1, 2, 7, 300, 5000):
        for eps in (2, 3, 5, 9):
            p = rng.random(n)
            p[rng.random(n) < 0.3] = 0.5          # ties: the earlier position first
            order = np.argsort(-p, kind="stable")
            np.testing.assert_array_equal(_greedy_keep(order, n, eps), _greedy_keep_python(order, n, eps))


def test_the_greedy_pass_from_a_kept_order_is_the_greedy_pass():
    from segviz.decode import greedy_keep_in_order, greedy_order, greedy_order_keep

    rng = np.random.default_rng(3)
    for _ in range(20):
        p = np.round(rng.random(rng.integers(2, 300)), 1)   # ties
        order = greedy_order(p)
        for eps in (1, 2, 3, 7, 40):
            np.testing.assert_array_equal(greedy_keep_in_order(order, eps), greedy_order_keep(p, eps))
