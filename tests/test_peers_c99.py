"""C99: each vectorised step against a brute-force version on tiny inputs, plus behaviour on clear topics."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segviz.errors import SegvizError
from segviz.peers import PEERS, segment_with
from segviz.peers.c99 import (C99, choose_splits, cosine_matrix, divisive_clustering, rank_transform,
                              smooth_choi)


def _rank_bruteforce(sim, mask):
    n = sim.shape[0]
    r = mask // 2
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            lower = examined = 0
            for a in range(max(0, i - r), min(n, i + r + 1)):
                for b in range(max(0, j - r), min(n, j + r + 1)):
                    if (a, b) == (i, j):
                        continue
                    examined += 1
                    lower += sim[a, b] < sim[i, j]
            out[i, j] = lower / max(examined, 1)
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 14), st.sampled_from([1, 3, 5, 11]), st.integers(0, 2**31))
def test_rank_transform_equals_bruteforce(n, mask, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (n, n)) / 4.0          # coarse values: plenty of ties
    sim = (x + x.T) / 2
    np.testing.assert_allclose(rank_transform(sim, mask), _rank_bruteforce(sim, mask))


def _density(rank, boundaries):
    edges = [0, *sorted(boundaries), rank.shape[0]]
    s = sum(rank[a:b, a:b].sum() for a, b in zip(edges[:-1], edges[1:]))
    a = sum((b - a) ** 2 for a, b in zip(edges[:-1], edges[1:]))
    return s / a


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**31))
def test_global_divisive_clustering_takes_the_best_split_each_step(n, seed):
    rng = np.random.default_rng(seed)
    rank = rng.random((n, n))
    rank = (rank + rank.T) / 2
    splits, density = divisive_clustering(rank, split="global")
    assert sorted(splits.tolist()) == list(range(1, n))          # every gap is split eventually
    chosen: list[int] = []
    assert density[0] == pytest.approx(_density(rank, []))
    for step, p in enumerate(splits.tolist()):
        options = {q: _density(rank, chosen + [q]) for q in range(1, n) if q not in chosen}
        best = max(options.values())
        assert options[p] == pytest.approx(best)
        chosen.append(p)
        assert density[step + 1] == pytest.approx(_density(rank, chosen))


def _choi_release_clustering(rank):
    """Choi's C99 release (Region.bestBoundary_max + boundaries), transcribed with plain loops."""
    n = rank.shape[0]

    def ssum(a, b):                       # inclusive [a, b]
        return rank[a:b + 1, a:b + 1].sum()

    def best_split(a, b):                 # inclusive region; returns the first index of the right part
        best, d_max = a, 0.0
        for i in range(b - 1, a - 1, -1):
            d = (ssum(a, i) + ssum(i + 1, b)) / ((i - a + 1) ** 2 + (b - i) ** 2)
            if d > d_max:
                d_max, best = d, i
        return best + 1

    regions = [(0, n - 1, best_split(0, n - 1) if n > 1 else None)]
    tot_s, tot_a = ssum(0, n - 1), n * n
    splits, density = [], [tot_s / tot_a]
    for _ in range(n - 1):
        max_d, index = -1.0, None
        for j in range(len(regions) - 1, -1, -1):
            a, b, q = regions[j]
            if a < b:
                d = (tot_s - ssum(a, b) + ssum(a, q - 1) + ssum(q, b)) / (
                    tot_a - (b - a + 1) ** 2 + (q - a) ** 2 + (b - q + 1) ** 2)
                if d > max_d:
                    max_d, index = d, j
        a, b, q = regions[index]
        tot_s += ssum(a, q - 1) + ssum(q, b) - ssum(a, b)
        tot_a += (q - a) ** 2 + (b - q + 1) ** 2 - (b - a + 1) ** 2
        left = (a, q - 1, best_split(a, q - 1) if q - 1 > a else None)
        right = (q, b, best_split(q, b) if b > q else None)
        regions[index:index + 1] = [left, right]
        splits.append(q)
        density.append(tot_s / tot_a)
    return splits, density


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**31), st.booleans())
def test_choi_divisive_clustering_equals_the_release_algorithm(n, seed, coarse):
    rng = np.random.default_rng(seed)
    rank = rng.integers(0, 3, (n, n)) / 2.0 if coarse else rng.random((n, n))   # coarse: ties
    rank = (rank + rank.T) / 2
    splits, density = divisive_clustering(rank, split="choi")
    ref_splits, ref_density = _choi_release_clustering(rank)
    assert splits.tolist() == ref_splits
    np.testing.assert_allclose(density, ref_density, rtol=1e-12)


def test_cosine_matrix_equals_direct_formula():
    words = [["a", "b", "a"], ["b", "c"], [], ["a"], ["c", "c", "d"]]
    vocab = sorted({w for s in words for w in s})
    vec = np.array([[s.count(v) for v in vocab] for s in words], dtype=float)
    expected = np.zeros((5, 5))
    for i, j in itertools.product(range(5), repeat=2):
        ni, nj = np.linalg.norm(vec[i]), np.linalg.norm(vec[j])
        expected[i, j] = vec[i] @ vec[j] / (ni * nj) if ni and nj else 0.0
    np.testing.assert_allclose(cosine_matrix(words), expected, atol=1e-12)


def test_choose_splits_rules():
    density = np.array([0.1, 0.5, 0.9, 0.91, 0.92, 0.925, 0.93, 0.931, 0.932])
    n_splits, grad, thr = choose_splits(density, c=1.2, smooth=False, stop="last")
    np.testing.assert_allclose(grad, np.diff(density))
    assert thr == pytest.approx(grad.mean() + 1.2 * grad.std())
    assert n_splits == 2
    assert choose_splits(density, c=1.2, smooth=False, stop="leading")[0] == 2
    # leading: stop at the first step not above the threshold, even if a later one is above it again
    bumpy = np.cumsum([0, 5, 1, 5, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1])
    assert choose_splits(bumpy, c=0.5, smooth=False, stop="leading")[0] == 1
    assert choose_splits(bumpy, c=0.5, smooth=False, stop="last")[0] == 3
    assert choose_splits(np.array([0.3]))[0] == 0
    with pytest.raises(SegvizError, match="stop"):
        choose_splits(density, stop="x")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=0, max_size=20))
def test_smoothing_equals_renormalised_convolution(values):
    v = np.array(values)
    kernel = [1, 2, 4, 8, 4, 2, 1]
    expected = []
    for i in range(len(v)):
        num = den = 0.0
        for j, w in enumerate(kernel):
            k = i - 3 + j
            if 0 <= k < len(v):
                num += v[k] * w
                den += w
        expected.append(num / den)
    np.testing.assert_allclose(smooth_choi(v), expected, atol=1e-12)


def _topics(n_topics=5, per_topic=8, seed=0):
    """Sentences whose content words come from one vocabulary per topic, with shared stopwords."""
    rng = np.random.default_rng(seed)
    sents, ref = [], []
    for t in range(n_topics):
        vocab = [f"topic{t}word{i}" for i in range(12)]
        for _ in range(per_topic):
            words = list(rng.choice(vocab, 6)) + ["the", "of", "and"]
            rng.shuffle(words)
            sents.append(tuple(words))
        ref.append(per_topic)
    return sents, tuple(ref)


def test_recovers_clear_topics_automatically_and_with_known_count():
    sents, ref = _topics()
    assert C99(stem=False).segment(sents) == ref
    assert C99(stem=False, n_segments=5).segment(sents) == ref
    assert C99(n_segments=1).segment(sents) == (len(sents),)
    assert segment_with("c99", sents, stem=False) == ref
    assert "c99" in PEERS


def test_stemming_merges_inflections():
    sents = [("running", "dogs"), ("runs", "dog"), ("cats", "sleeping")]
    with_stem, without = C99(stem=True).fit(sents), C99(stem=False).fit(sents)
    assert with_stem.sim_[0, 1] == pytest.approx(1.0)
    assert without.sim_[0, 1] == 0.0


def test_fitted_attributes_and_masses():
    sents, ref = _topics(seed=4)
    est = C99(stem=False).fit(sents)
    n = len(sents)
    assert est.sim_.shape == est.rank_.shape == (n, n)
    assert len(est.density_) == n and len(est.splits_) == n - 1
    assert sum(est.masses_) == n
    assert est.boundaries_.tolist() == sorted(est.splits_[:est.n_splits_].tolist())


def test_tiny_inputs():
    assert C99().segment([("alone",)]) == (1,)
    assert C99().segment([(",",), (".",)]) in {(2,), (1, 1)}


@pytest.mark.parametrize("params, match", [
    (dict(n_segments=0), "n_segments"), (dict(n_segments=99), "n_segments"), (dict(mask=4), "mask"),
    (dict(max_sentences=3), "max_sentences"), (dict(split="x"), "split"), (dict(stop="x"), "stop"),
])
def test_bad_parameters_raise_clear_errors(params, match):
    with pytest.raises(SegvizError, match=match):
        C99(**params).fit([("a", "b")] * 5)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(SegvizError, match="no sentences"):
        C99().fit([])
    with pytest.raises(SegvizError, match="string"):
        C99().fit("text")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["cat", "dog", "the", ",", ".", "runs", "ran", "1990", "u.s.", "bird"]),
                         min_size=0, max_size=8), min_size=1, max_size=40))
def test_both_peers_always_return_a_partition(sentences):
    from segviz.peers.texttiling import TextTiling

    for est in (C99(), C99(split="global", stop="last", smooth_gradient=False), TextTiling(w=3, k=2)):
        masses = est.segment(sentences)
        assert sum(masses) == len(sentences) and all(m > 0 for m in masses)
