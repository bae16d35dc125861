"""Metrics against brute force, segeval and NLTK, and the paper's sanity checks (Section 6)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segviz.baselines import all_masses, none_masses
from segviz.errors import SegvizError
from segviz.metrics import boundary_prf, default_k, default_mu, p_k, p_mu, score_row, window_diff
from segviz.segmentation import boundaries_to_masses, masses_to_boundaries

# ------------------------------------------------------------------ brute-force O(n^2) references


def labels(masses):
    return np.repeat(np.arange(len(masses)), masses)


def brute_p_mu(ref, hyp, mu=None):
    if mu is None:
        mu = len(ref) / sum(ref)
    r, h = labels(ref), labels(hyp)
    n = len(r)
    num = den = 0.0
    for i in range(n):
        for j in range(i, n):
            w = math.exp(-mu * (j - i))
            den += w
            if (r[i] == r[j]) == (h[i] == h[j]):
                num += w
    return num / den


def brute_p_k(ref, hyp, k):
    r, h = labels(ref), labels(hyp)
    n = len(r)
    errs = [(r[i] == r[i + k]) != (h[i] == h[i + k]) for i in range(n - k)]
    return sum(errs) / len(errs)


def brute_window_diff(ref, hyp, k):
    r, h = labels(ref), labels(hyp)
    n = len(r)
    errs = [(r[i + k] - r[i]) != (h[i + k] - h[i]) for i in range(n - k)]
    return sum(errs) / len(errs)


def masses_strategy(n):
    return st.sets(st.integers(1, n - 1), max_size=n - 1).map(lambda b: boundaries_to_masses(sorted(b), n))


pair = st.integers(3, 40).flatmap(lambda n: st.tuples(masses_strategy(n), masses_strategy(n)))


@settings(max_examples=200, deadline=None)
@given(pair, st.floats(0.0, 2.0))
def test_p_mu_equals_brute_force(rh, mu):
    ref, hyp = rh
    assert p_mu(ref, hyp, mu) == pytest.approx(brute_p_mu(ref, hyp, mu), abs=1e-12)
    assert p_mu(ref, hyp) == pytest.approx(brute_p_mu(ref, hyp), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(pair, st.integers(1, 10))
def test_p_k_and_window_diff_equal_brute_force(rh, k):
    ref, hyp = rh
    n = sum(ref)
    if k >= n:
        return
    assert p_k(ref, hyp, k) == pytest.approx(brute_p_k(ref, hyp, k))
    assert window_diff(ref, hyp, k) == pytest.approx(brute_window_diff(ref, hyp, k))


# ------------------------------------------------------------------ segeval / NLTK cross-checks

segeval = pytest.importorskip("segeval")
nltk_seg = pytest.importorskip("nltk.metrics.segmentation")


def nltk_string(masses):
    g = np.zeros(sum(masses) - 1, dtype=int)
    g[masses_to_boundaries(masses) - 1] = 1
    return "".join(map(str, g))


@settings(max_examples=150, deadline=None)
@given(st.integers(6, 60).flatmap(lambda n: st.tuples(masses_strategy(n), masses_strategy(n))).filter(lambda rh: len(rh[0]) < 200))
def test_p_k_matches_segeval_and_nltk(rh):
    ref, hyp = rh
    k = default_k(ref)
    if k >= sum(ref):
        return
    ours = p_k(ref, hyp, k)
    # segeval takes (hypothesis, reference); its default window is our default_k
    assert ours == pytest.approx(float(segeval.pk(hyp, ref)), abs=1e-12)
    assert ours == pytest.approx(float(segeval.pk(hyp, ref, window_size=k)), abs=1e-12)
    # NLTK takes (reference, hypothesis) as boundary strings over the n-1 gaps; same k gives the same value
    assert ours == pytest.approx(nltk_seg.pk(nltk_string(ref), nltk_string(hyp), k), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.integers(6, 60).flatmap(lambda n: st.tuples(masses_strategy(n), masses_strategy(n))))
def test_window_diff_matches_segeval_and_nltk(rh):
    ref, hyp = rh
    k = default_k(ref)
    if k >= sum(ref):
        return
    ours = window_diff(ref, hyp, k)
    assert ours == pytest.approx(float(segeval.window_diff(hyp, ref, window_size=k)), abs=1e-12)
    # NLTK normalises by N - k + 1 over N = n - 1 gap characters, i.e. the same n - k windows
    assert ours == pytest.approx(nltk_seg.windowdiff(nltk_string(ref), nltk_string(hyp), k), abs=1e-12)


def test_nltk_issue_3102_example():
    """NLTK issue 3102: ref '000001001000' vs hyp '000100010000' (13 units).  With k=2 all agree on 6/11; NLTK's
    default k differs (3, from 12 gaps / (2 * 2 boundaries)) and gives 0.4, while ours (and segeval's) default is 2."""
    ref, hyp = (6, 3, 4), (4, 4, 5)
    assert nltk_string(ref) == "000001001000" and nltk_string(hyp) == "000100010000"
    assert default_k(ref) == 2
    assert p_k(ref, hyp) == pytest.approx(6 / 11)
    assert p_k(ref, hyp) == pytest.approx(float(segeval.pk(hyp, ref)))
    assert nltk_seg.pk(nltk_string(ref), nltk_string(hyp), 2) == pytest.approx(6 / 11)
    assert nltk_seg.pk(nltk_string(ref), nltk_string(hyp)) == pytest.approx(0.4)
    assert p_k(ref, hyp, k=3) == pytest.approx(0.4)


def test_default_k_rounding_is_half_even_with_floor_two():
    assert default_k((7, 7)) == 4  # 3.5 -> 4
    assert default_k((5, 5)) == 2  # 2.5 -> 2 (half to even, like segeval's round)
    assert default_k((9, 9)) == 4  # 4.5 -> 4
    assert default_k((1, 1, 1, 1)) == 2  # floor of 2
    assert default_k((3, 4, 4)) == int(segeval.window.compute_window_size((3, 4, 4)))


# ------------------------------------------------------------------ the paper's sanity checks


@settings(max_examples=200, deadline=None)
@given(pair)
def test_p_mu_is_one_iff_identical(rh):
    ref, hyp = rh
    value = p_mu(ref, hyp)
    assert 0.0 <= value <= 1.0 + 1e-12
    if ref == hyp:
        assert value == pytest.approx(1.0, abs=1e-12)
    else:
        assert value < 1.0 - 1e-9


def test_trivial_segmenters_cannot_cheat():
    ref = (18,) * 40
    assert p_mu(ref, none_masses(ref)) < 0.75
    assert p_mu(ref, all_masses(ref)) < 0.75
    off_by_one = boundaries_to_masses(masses_to_boundaries(ref) + 1, sum(ref))
    # close counts for something: off by one sentence beats both trivial answers
    assert p_mu(ref, off_by_one) > max(p_mu(ref, none_masses(ref)), p_mu(ref, all_masses(ref)))
    p, r, f = boundary_prf(ref, off_by_one)
    assert (p, r, f) == (0.0, 0.0, 0.0)  # ... which exact-match P/R cannot see


def test_p_mu_large_scale_is_stable_and_fast():
    rng = np.random.default_rng(0)
    n = 1_000_000
    ref = boundaries_to_masses(np.sort(rng.choice(np.arange(1, n), 40_000, replace=False)), n)
    assert p_mu(ref, ref) == pytest.approx(1.0, abs=1e-9)
    hyp = boundaries_to_masses(np.sort(rng.choice(np.arange(1, n), 40_000, replace=False)), n)
    v = p_mu(ref, hyp)
    assert 0.3 < v < 0.9


def test_boundary_prf_exact_matches():
    assert boundary_prf((2, 2, 2), (2, 4)) == pytest.approx((1.0, 0.5, 2 / 3))
    assert boundary_prf((2, 2, 2), (6,)) == (0.0, 0.0, 0.0)
    assert boundary_prf((6,), (6,)) == (0.0, 1.0, 0.0)


def test_score_row_keys():
    row = score_row((3, 3, 4), (3, 7))
    assert set(row) == {"hypothesis_segments", "p_mu", "p_k", "window_diff", "precision", "recall", "f1"}
    assert row["hypothesis_segments"] == 2


@pytest.mark.parametrize(
    "ref,hyp,match",
    [((3, 3), (5,), "covers"), ((), (1,), "empty"), ((0, 3), (3,), "positive"), ((3, 3), (3, 3, 1), "covers")],
)
def test_bad_input_raises_clear_error(ref, hyp, match):
    with pytest.raises(SegvizError, match=match):
        p_mu(ref, hyp)


def test_bad_parameters():
    with pytest.raises(SegvizError, match="mu"):
        p_mu((3, 3), (3, 3), mu=-1)
    with pytest.raises(SegvizError, match="window size"):
        p_k((3, 3), (3, 3), k=6)
    with pytest.raises(SegvizError, match="window size"):
        window_diff((3, 3), (3, 3), k=0)


def test_default_mu_is_inverse_mean_length():
    assert default_mu((10, 20, 30)) == pytest.approx(3 / 60)
