"""C99: each vectorised step against a brute-force version on tiny inputs, plus behaviour on clear topics."""
from __future__ import annotations

import gzip
import hashlib
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segviz.errors import SegvizError
from segviz.peers import PEERS, segment_with
from segviz.peers.c99 import C99, choose_splits, cosine_matrix, divisive_clustering, rank_transform, smooth_choi


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


# -- the long-input implementation (band-wise similarity and rank, compiled clustering) against the dense one --

def _dense_cosine(sentences_words):
    """cosine_matrix as it was (git d5df8b3): the whole sparse product, then dense."""
    import scipy.sparse as sp

    vocab, rows, cols = {}, [], []
    for i, ws in enumerate(sentences_words):
        for w in ws:
            rows.append(i)
            cols.append(vocab.setdefault(w, len(vocab)))
    n = len(sentences_words)
    x = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, max(len(vocab), 1)))
    x.sum_duplicates()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    xn = sp.diags(inv) @ x
    return np.asarray((xn @ xn.T).todense())


def _dense_rank(sim, mask):
    """rank_transform as it was (git d5df8b3): shifted whole-band comparisons on a NaN-padded copy."""
    s = np.asarray(sim, dtype=np.float64)
    n, r = s.shape[0], mask // 2
    padded = np.full((n + 2 * r, n + 2 * r), np.nan)
    padded[r:r + n, r:r + n] = s
    lower = np.zeros((n, n), dtype=np.int16)
    for di in range(mask):
        for dj in range(mask):
            if di != r or dj != r:
                lower += padded[di:di + n, dj:dj + n] < s
    inside = np.minimum(np.arange(n), r) + np.minimum(np.arange(n)[::-1], r) + 1
    return lower / np.maximum(np.outer(inside, inside) - 1, 1)


def _dense_clustering(rank, max_splits=None, split="choi"):
    """divisive_clustering as it was (git d5df8b3): numpy prefix sums and a numpy argmax per step."""
    import bisect

    rk = np.asarray(rank, dtype=np.float64)
    n = rk.shape[0]
    P = np.zeros((n + 1, n + 1))
    P[1:, 1:] = rk.cumsum(0).cumsum(1)

    def square(lo, hi):
        return P[hi, hi] - P[lo, hi] - P[hi, lo] + P[lo, lo]

    n_steps = n - 1 if max_splits is None else min(max_splits, n - 1)
    pos = np.arange(1, n)
    total_s, total_a = square(0, n), float(n * n)
    gain_s = square(0, pos) + square(pos, n) - total_s
    gain_a = (pos.astype(np.float64) ** 2 + (n - pos) ** 2 - n * n)
    eligible = np.ones(n - 1, dtype=bool) if split == "global" else np.zeros(n - 1, dtype=bool)

    def propose(a, b):
        if b - a < 2:
            return
        q = pos[a:b - 1]
        local = (gain_s[a:b - 1] + square(a, b)) / ((q - a) ** 2 + (b - q) ** 2)
        best = local.size - 1 - int(np.argmax(local[::-1]))
        if not local[best] > 0:
            best = 0
        eligible[a + best] = True

    if split == "choi":
        propose(0, n)
    boundaries, density, splits = [0, n], [total_s / total_a], []
    for _ in range(n_steps):
        d = np.where(eligible, (total_s + gain_s) / (total_a + gain_a), -np.inf)
        j = d.size - 1 - int(np.argmax(d[::-1])) if split == "choi" else int(np.argmax(d))
        p = int(pos[j])
        total_s += gain_s[j]
        total_a += gain_a[j]
        density.append(total_s / total_a)
        splits.append(p)
        k = bisect.bisect(boundaries, p)
        lo, hi = boundaries[k - 1], boundaries[k]
        boundaries.insert(k, p)
        for a, b in ((lo, p), (p, hi)):
            q = pos[a:b - 1]
            gain_s[a:b - 1] = square(a, q) + square(q, b) - square(a, b)
            gain_a[a:b - 1] = (q - a) ** 2 + (b - q) ** 2 - (b - a) ** 2
            if split == "choi":
                eligible[a:b - 1] = False
                propose(a, b)
        gain_s[j], gain_a[j] = -np.inf, 0.0
        eligible[j] = False
    return np.asarray(splits, dtype=np.int64), np.asarray(density)


def _random_words(rng, n, vocab):
    return [[f"w{int(v)}" for v in rng.integers(0, vocab, rng.integers(0, 7))] for _ in range(n)]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 90), st.integers(2, 30), st.sampled_from([1, 3, 11]), st.integers(0, 2**31))
def test_similarity_and_rank_are_bit_identical_to_the_dense_implementation(n, vocab, mask, seed):
    words = _random_words(np.random.default_rng(seed), n, vocab)    # small vocabularies: many equal values
    sim = cosine_matrix(words)
    assert sim.tobytes() == _dense_cosine(words).tobytes()
    assert rank_transform(sim, mask).tobytes() == _dense_rank(sim, mask).tobytes()
    est = C99(mask=mask, stem=False, stopwords=()).fit([tuple(w) or (".",) for w in words])
    # the fit's symmetric shortcut (count right of the diagonal, mirror the rest) gives the full count's rank
    assert est.rank_.tobytes() == _dense_rank(est.sim_, mask).tobytes()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**31), st.sampled_from(["choi", "global"]),
       st.sampled_from(["real", "coarse", "text"]), st.one_of(st.none(), st.integers(0, 70)))
def test_clustering_is_bit_identical_to_the_dense_implementation(n, seed, split, kind, max_splits):
    rng = np.random.default_rng(seed)
    if kind == "text":        # a rank matrix as C99 makes it: exact ties from equal counts
        rank = rank_transform(cosine_matrix(_random_words(rng, n, 8)), 11)
    else:
        rank = rng.integers(0, 3, (n, n)) / 2.0 if kind == "coarse" else rng.random((n, n))
        rank = (rank + rank.T) / 2
    splits, density = divisive_clustering(rank, max_splits, split=split)
    ref_splits, ref_density = _dense_clustering(rank, max_splits, split)
    assert splits.tolist() == ref_splits.tolist()
    assert density.tobytes() == ref_density.tobytes()


def test_asymmetric_term_order_takes_the_full_count():
    # vectors storing their terms in different orders make the cosine matrix only approximately symmetric; the
    # shortcut must not be taken then, and the rank must still be the dense one's
    import scipy.sparse as sp

    from segviz.peers.c99 import _CosineRows, _DenseRows, _rank_counts, _rank_from_counts

    rng = np.random.default_rng(3)
    dense = rng.random((40, 9)) * (rng.random((40, 9)) < 0.5)
    unit = sp.csr_matrix(dense / np.maximum(np.linalg.norm(dense, axis=1, keepdims=True), 1e-300))
    unit.indices[unit.indptr[0]:unit.indptr[1]] = unit.indices[unit.indptr[0]:unit.indptr[1]][::-1].copy()
    unit.data[unit.indptr[0]:unit.indptr[1]] = unit.data[unit.indptr[0]:unit.indptr[1]][::-1].copy()
    rows = _CosineRows(unit)
    assert not rows.symmetric
    assert _CosineRows(sp.csr_matrix(dense)).symmetric
    sim = rows.dense()
    assert sim.tobytes() == np.asarray((unit @ unit.T).todense()).tobytes()
    assert _rank_from_counts(_rank_counts(rows, 11), 11).tobytes() == _dense_rank(sim, 11).tobytes()
    assert _rank_from_counts(_rank_counts(_DenseRows(sim), 11), 11).tobytes() == _dense_rank(sim, 11).tobytes()


# -- frozen outputs of the dense implementation (git d5df8b3) on real text --

DATA = Path(__file__).parent / "data"


def _frozen_inputs():
    """name -> tokenised sentences: the content words of each sentence as the readers gave them when the outputs
    were recorded (frozen too, so that a change of reader cannot pass for a change of C99)."""
    inputs = json.loads(gzip.decompress((DATA / "c99_frozen_inputs.json.gz").read_bytes()))["inputs"]
    inputs["choi/all"] = [s for name in sorted(inputs) if name.startswith("choi/") for s in inputs[name]]
    return {name: [tuple(s.split()) for s in sentences] for name, sentences in inputs.items()}


def _digest(a, dtype):
    return hashlib.sha256(np.ascontiguousarray(a, dtype=dtype).tobytes()).hexdigest()[:16]


FROZEN = json.loads((DATA / "c99_frozen_d5df8b3.json").read_text())["inputs"]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FROZEN))
def test_outputs_equal_the_frozen_dense_implementation(name):
    """Every variant (Choi's rules, global split, the uts rules, no stemming, known count) on the five Choi
    samples, the five as one stream, the Reuters sample stream and two books (The Prince, 1,348 sentences; Sense
    and Sensibility, 4,835): the same boundaries, and the same split order and density curve to the last bit."""
    record = FROZEN[name]
    sentences = _frozen_inputs()[name]
    assert len(sentences) == record["n_sentences"]
    for variant, run in record["runs"].items():
        est = C99(**run["params"]).fit(sentences)
        got = {"boundaries": est.boundaries_.tolist(), "n_splits": int(est.n_splits_),
               "splits_sha256": _digest(est.splits_, "<i8"), "density_sha256": _digest(est.density_, "<f8")}
        if "sim_sha256" in run:
            got.update(sim_sha256=_digest(est.sim_, "<f8"), rank_sha256=_digest(est.rank_, "<f8"))
        assert got == {k: run[k] for k in got}, f"{name} {variant}"
        if run["threshold"] is not None:
            assert est.threshold_ == run["threshold"]


# -- long inputs: no fixed cap, an honest refusal when memory is short --

def test_no_sentence_cap_by_default():
    sents, ref = _topics(n_topics=65, per_topic=80, seed=1)        # 5,200 sentences: above the old 5,000 cap
    assert C99().max_sentences is None
    assert C99(stem=False, n_segments=65).segment(sents) == ref
    with pytest.raises(SegvizError, match="max_sentences=5000"):
        C99(stem=False, max_sentences=5000).fit(sents)


def test_refuses_what_does_not_fit_in_memory(monkeypatch):
    from segviz.peers import c99

    sents, _ = _topics()
    need = c99.memory_needed(len(sents))
    assert need >= 8 * (len(sents) + 1) ** 2 + len(sents) ** 2       # the float64 prefix sums and uint8 counts
    monkeypatch.setattr(c99, "_memory_available", lambda: need - 1)
    with pytest.raises(SegvizError, match=r"^C99: 40 sentences need .* GiB .* available; segment the text in parts$"):
        C99(stem=False).fit(sents)
    monkeypatch.setattr(c99, "_memory_available", lambda: None)      # unknown: no refusal
    assert sum(C99(stem=False).segment(sents)) == len(sents)


def test_parameters_are_checked_before_any_quadratic_work(monkeypatch):
    from segviz.peers import c99

    def never(*args, **kwargs):
        raise AssertionError("the rank was computed before the parameters were checked")

    monkeypatch.setattr(c99, "_rank_counts", never)
    for params, match in [(dict(split="x"), "split"), (dict(stop="x"), "stop"), (dict(max_sentences=0), "max_sentences"),
                          (dict(max_sentences=True), "max_sentences"), (dict(n_segments=True), "n_segments")]:
        with pytest.raises(SegvizError, match=match):
            C99(**params).fit([("a", "b")] * 5)


def test_matrices_are_there_after_fit_only():
    with pytest.raises(AttributeError, match="before fit"):
        C99().rank_
    with pytest.raises(AttributeError, match="before fit"):
        C99().sim_
