"""The length-prior decision rule: the DP maximiser equals brute force on tiny streams; tuning picks the grid's best."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.length_prior import decode_length_prior, log_length_prior
from segviz.metrics import p_mu
from segviz.rules import LengthPriorRule
from segviz.segmentation import boundaries_to_masses


def _objective(p, boundaries, m, k, beta, limit):
    q = np.clip(p, 1e-6, 1 - 1e-6)
    n = p.size + 1
    lengths = np.diff(np.concatenate([[0], boundaries, [n]]))
    if lengths.max() > limit:
        return -math.inf
    gain = sum(math.log(q[b - 1] / (1 - q[b - 1])) + beta for b in boundaries)
    return gain + float(log_length_prior(lengths, m, k).sum())


@pytest.mark.parametrize("seed", range(30))
def test_dp_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 11))
    p = rng.random(n - 1) ** rng.uniform(0.3, 3)
    m, k, beta = float(rng.uniform(1, 6)), float(rng.choice([0.5, 1, 2, 4, 8])), float(rng.normal())
    limit = int(rng.integers(1, n + 1)) if seed % 3 == 0 else n   # a cap on segment length is always feasible
    got = decode_length_prior(p, mean_length=m, shape=k, bias=beta, max_length=limit)
    best = max(_objective(p, np.array(c, dtype=int), m, k, beta, limit)
               for r in range(n) for c in itertools.combinations(range(1, n), r))
    assert _objective(p, got, m, k, beta, limit) == pytest.approx(best, abs=1e-9)


def _objective_in_words(p, boundaries, sizes, m, k, beta, limit):
    q = np.clip(p, 1e-6, 1 - 1e-6)
    edges = np.concatenate([[0], boundaries, [p.size + 1]]).astype(int)
    words = np.maximum(np.asarray(sizes), 1)
    lengths = np.array([words[a:b].sum() for a, b in zip(edges, edges[1:])])
    if any(length > limit and b - a > 1 for length, a, b in zip(lengths, edges, edges[1:])):
        return -math.inf   # past the cap only as one sentence
    gain = sum(math.log(q[b - 1] / (1 - q[b - 1])) + beta for b in boundaries)
    return gain + float(log_length_prior(np.minimum(lengths, limit), m, k).sum())


@pytest.mark.parametrize("seed", range(40))
def test_dp_in_words_equals_brute_force(seed):
    """Segment lengths measured in words (sentence sizes, an empty sentence counting one): the DP's segmentation
    has the best objective of all 2^(n-1)."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 11))
    p = rng.random(n - 1) ** rng.uniform(0.3, 3)
    sizes = rng.integers(0, 15, n)
    m, k, beta = float(rng.uniform(3, 40)), float(rng.choice([0.5, 1, 2, 4, 8])), float(rng.normal())
    limit = int(rng.integers(15, 60)) if seed % 3 == 0 else int(np.maximum(sizes, 1).sum())
    got = decode_length_prior(p, mean_length=m, shape=k, bias=beta, max_length=limit, sizes=sizes)
    best = max(_objective_in_words(p, np.array(c, dtype=int), sizes, m, k, beta, limit)
               for r in range(n) for c in itertools.combinations(range(1, n), r))
    assert _objective_in_words(p, got, sizes, m, k, beta, limit) == pytest.approx(best, abs=1e-9)
    # every sentence one word long: the decision in sentences
    ones = decode_length_prior(p, mean_length=m, shape=k, bias=beta, sizes=np.ones(n))
    np.testing.assert_array_equal(ones, decode_length_prior(p, mean_length=m, shape=k, bias=beta))


def test_sentence_sizes_are_checked():
    with pytest.raises(SegvizError, match="one number per sentence"):
        decode_length_prior([0.5, 0.5], mean_length=3, sizes=[1, 2])
    with pytest.raises(SegvizError, match="whole numbers"):
        decode_length_prior([0.5], mean_length=3, sizes=[1, -2])
    with pytest.raises(SegvizError, match="whole numbers"):
        decode_length_prior([0.5], mean_length=3, sizes=[1, float("nan")])


def test_long_segments_survive_isolated_spikes():
    """A stream of 3 segments of 150 sentences with noisy spikes: the prior keeps the cuts near the truth."""
    rng = np.random.default_rng(0)
    ref = (150, 150, 150)
    n = sum(ref)
    p = rng.uniform(0, 0.2, n - 1)
    p[rng.choice(n - 1, 15, replace=False)] = 0.9       # distractors
    p[[149, 299]] = 0.97
    hyp = boundaries_to_masses(decode_length_prior(p, mean_length=150, shape=8, bias=0), n)
    assert hyp == ref
    open_rule = LengthPriorRule()
    with pytest.raises(SegvizError, match="no expected segment length"):
        open_rule.tune(p, ref)                       # the mean length is the model's to give (the training mean)
    assert open_rule.with_mean_length(150).mean_length == 150
    assert LengthPriorRule(mean_length=40).with_mean_length(150).mean_length == 40   # a given length is kept
    rule, score = open_rule.with_mean_length(150).tune(p, ref)
    assert isinstance(rule, LengthPriorRule) and rule.mean_length == 150
    assert rule.shape in rule.shapes and rule.bias in rule.biases
    assert boundaries_to_masses(rule.decide(p), n) == ref
    assert score == pytest.approx(1.0) and score == pytest.approx(
        p_mu(ref, boundaries_to_masses(decode_length_prior(p, mean_length=150, shape=rule.shape, bias=rule.bias),
                                       n)))


def test_errors():
    with pytest.raises(SegvizError, match="mean segment length"):
        decode_length_prior([0.5], mean_length=0)
    with pytest.raises(SegvizError, match="shape"):
        decode_length_prior([0.5], mean_length=3, shape=-1)
    with pytest.raises(SegvizError, match=r"\[0, 1\]"):
        decode_length_prior([1.5], mean_length=3)
    with pytest.raises(SegvizError, match="reference covers"):
        LengthPriorRule(mean_length=2.0).tune([0.5, 0.2], (2, 2))
    with pytest.raises(SegvizError, match="no expected segment length"):
        LengthPriorRule().decide([0.5, 0.2])
    with pytest.raises(SegvizError, match="shape"):
        LengthPriorRule(mean_length=3.0, shape=0).check()
    with pytest.raises(SegvizError, match="mean_length"):
        LengthPriorRule(mean_length=0.5).check()
