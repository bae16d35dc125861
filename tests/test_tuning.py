"""Decision-rule tuning on held-out data: the paper's stream P_mu, and per-document / P_k tuning, against brute force."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from segviz import Segmenter
from segviz.corpus import Corpus, Document
from segviz.decode import decode, tune
from segviz.errors import SegvizError
from segviz.length_prior import decode_length_prior, tune_length_prior
from segviz.metrics import p_k, p_mu
from segviz.model_schema import validate_model_document
from segviz.segmentation import boundaries_to_masses
from segviz.tuning import held_out_units, tune_length_prior_rule, tune_threshold_rule

ALPHAS = (0.1, 0.3, 0.5, 0.7, 0.9)
EPSILONS = (1, 2, 4)


def _stream(seed: int = 0):
    """Three documents (source groups) of random segments with noisy boundary probabilities."""
    rng = np.random.default_rng(seed)
    groups, refs = [], []
    for _ in range(3):
        masses = [int(x) for x in rng.integers(3, 9, size=int(rng.integers(2, 5)))]
        refs.extend(masses)
        groups.append(sum(masses))
    n = sum(refs)
    truth = np.zeros(n - 1)
    truth[np.cumsum(refs)[:-1] - 1] = 1.0
    probs = np.clip(0.6 * truth + rng.uniform(0, 0.5, n - 1), 0, 1)
    return probs, tuple(refs), groups


def _brute_threshold(probs, refs, groups, metric):
    units = held_out_units(probs, refs, groups)
    best = None
    for eps, alpha in itertools.product(EPSILONS, ALPHAS):
        scores = []
        for p, ref in units:
            hyp = boundaries_to_masses(decode(p, alpha, eps), sum(ref))
            scores.append(p_mu(ref, hyp) if metric == "p_mu" else 1 - p_k(ref, hyp))
        score = float(np.mean(scores))
        if best is None or score > best[2] + 1e-15:
            best = (alpha, eps, score)
    return best


def test_units_cut_the_stream_at_source_groups():
    probs, refs, groups = _stream()
    units = held_out_units(probs, refs, groups)
    assert [sum(ref) for _, ref in units] == groups
    assert [p.size for p, _ in units] == [g - 1 for g in groups]
    start = 0
    for (p, _), g in zip(units, groups):
        assert np.array_equal(p, probs[start:start + g - 1])   # the gap between two groups is never a candidate
        start += g


def test_a_segment_across_two_groups_is_refused():
    with pytest.raises(SegvizError, match="spans the edge"):
        held_out_units(np.full(7, 0.5), (4, 4), (3, 5))


@pytest.mark.parametrize("metric", ["p_mu", "p_k"])
def test_per_document_threshold_tuning_is_the_brute_force_optimum(metric):
    probs, refs, groups = _stream(1)
    alpha, eps, score = tune_threshold_rule(probs, refs, groups=groups, metric=metric, units="per-document",
                                            alphas=ALPHAS, epsilons=EPSILONS)
    assert (alpha, eps) == pytest.approx(_brute_threshold(probs, refs, groups, metric)[:2])
    assert score == pytest.approx(_brute_threshold(probs, refs, groups, metric)[2])


def test_stream_p_mu_tuning_is_the_papers():
    probs, refs, groups = _stream(2)
    assert tune_threshold_rule(probs, refs, groups=groups, mu=0.2, alphas=ALPHAS, epsilons=EPSILONS) == \
        tune(probs, refs, mu=0.2, alphas=ALPHAS, epsilons=EPSILONS)
    assert tune_length_prior_rule(probs, refs, groups=groups, mean_length=5.0, shapes=(1.0, 4.0),
                                  biases=(-1.0, 0.0, 1.0), mu=0.2) == \
        tune_length_prior(probs, refs, mean_length=5.0, shapes=(1.0, 4.0), biases=(-1.0, 0.0, 1.0), mu=0.2)


def test_stream_p_k_tuning_minimises_p_k_of_the_stream():
    probs, refs, _ = _stream(3)
    alpha, eps, score = tune_threshold_rule(probs, refs, metric="p_k", alphas=ALPHAS, epsilons=EPSILONS)
    n = sum(refs)
    best = min(p_k(refs, boundaries_to_masses(decode(probs, a, e), n)) for e in EPSILONS for a in ALPHAS)
    assert 1 - score == pytest.approx(best)
    assert p_k(refs, boundaries_to_masses(decode(probs, alpha, eps), n)) == pytest.approx(best)


def test_per_document_length_prior_tuning_is_the_brute_force_optimum():
    probs, refs, groups = _stream(4)
    shapes, biases = (1.0, 2.0), (-2.0, 0.0, 2.0)
    shape, bias, score = tune_length_prior_rule(probs, refs, groups=groups, metric="p_k", units="per-document",
                                                mean_length=5.0, shapes=shapes, biases=biases)
    units = held_out_units(probs, refs, groups)
    table = {(k, b): np.mean([1 - p_k(ref, boundaries_to_masses(
        decode_length_prior(p, mean_length=5.0, shape=k, bias=b), sum(ref))) for p, ref in units])
        for k in shapes for b in biases}
    assert score == pytest.approx(max(table.values()))
    assert table[(shape, bias)] == pytest.approx(max(table.values()))


def _corpus(seed: int, files: int = 4) -> Corpus:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(40)]
    docs, names = [], []
    for f in range(files):
        for s in range(int(rng.integers(2, 5))):
            topic = vocab[(8 * (s + f)) % 40:(8 * (s + f)) % 40 + 8]
            sents = tuple(tuple(rng.choice(topic, size=6)) for _ in range(int(rng.integers(3, 8))))
            docs.append(Document(f"f{f}s{s}", sents, tuple(" ".join(x) for x in sents)))
            names.append(f"file{f}")
    return Corpus(docs, name=f"synthetic {seed}", files=names)


def test_segmenter_tunes_per_document_p_k_and_saves_it(tmp_path):
    train, held = _corpus(0, 6), _corpus(1)
    seg = Segmenter(n_features=5, vocabulary=50, use_relevance=False, families=["vocabulary", "cohesion"],
                    tuning_metric="p_k", tuning_units="per-document", alphas=ALPHAS, epsilons=EPSILONS).fit(train, held)
    probs = seg.boundary_probabilities(held)
    want = tune_threshold_rule(probs, held.masses(), groups=held.source_groups(), metric="p_k",
                               units="per-document", alphas=ALPHAS, epsilons=EPSILONS)
    assert (seg.alpha_, seg.epsilon_) == (want[0], want[1])
    assert seg.info_["tuning"] == "p_k, per-document" and "tuned_p_mu" not in seg.info_
    assert seg.info_["tuned_score"] == pytest.approx(want[2])
    path = seg.save(tmp_path / "m.segviz")
    again = Segmenter.load(path)
    assert (again.tuning_metric, again.tuning_units) == ("p_k", "per-document")
    assert again.truncated(len(again.features_), heldout=held).alpha_ == seg.alpha_


def test_bad_tuning_settings_are_refused():
    with pytest.raises(SegvizError, match="tuning metric"):
        Segmenter(tuning_metric="f1").fit(_corpus(0), _corpus(1))
    with pytest.raises(SegvizError, match="tuning units"):
        Segmenter(tuning_units="sentences").fit(_corpus(0), _corpus(1))
    seg = Segmenter(n_features=2, vocabulary=20, use_relevance=False).fit(_corpus(0), _corpus(1))
    doc = seg.to_dict()
    doc["params"]["tuning_metric"] = "f1"
    with pytest.raises(SegvizError, match="params.tuning_metric"):
        validate_model_document(doc, source="m", known_params=Segmenter._PARAMS)
