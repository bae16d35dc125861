"""Decision-rule tuning on held-out data (:func:`segviz.tuning.tune_rule`, the one implementation behind every
rule's ``tune``): the paper's stream P_mu, and per-document / P_k tuning, against brute force over each grid; the
choice on a grid and the search of several settings together that the router's thresholds use."""
from __future__ import annotations

import numpy as np
import pytest

from segviz import Segmenter
from segviz.corpus import Corpus, Document
from segviz.decode import decode
from segviz.errors import SegvizError
from segviz.length_prior import decode_length_prior
from segviz.metrics import p_k, p_mu
from segviz.model_schema import validate_model_document
from segviz.rules import LengthPriorRule, SegmentCountRule, ThresholdRule
from segviz.segmentation import boundaries_to_masses
from segviz.tuning import best_on_grid, coordinate_search, held_out_units, tune_rule

ALPHAS = (0.1, 0.3, 0.5, 0.7, 0.9)
EPSILONS = (1, 2, 4)
SHAPES = (1.0, 2.0, 4.0)
BIASES = (-2.0, 0.0, 2.0)


def _stream(seed: int = 0):
    """Three documents (source groups) of random segments with noisy boundary probabilities (noisy enough that
    no setting of the grids is perfect, so the optimum is a real choice)."""
    rng = np.random.default_rng(seed)
    groups, refs = [], []
    for _ in range(3):
        masses = [int(x) for x in rng.integers(3, 9, size=int(rng.integers(2, 5)))]
        refs.extend(masses)
        groups.append(sum(masses))
    n = sum(refs)
    truth = np.zeros(n - 1)
    truth[np.cumsum(refs)[:-1] - 1] = 1.0
    probs = np.clip(0.35 * truth + rng.uniform(0, 0.65, n - 1), 0, 1)
    return probs, tuple(refs), groups


def _pieces(probs, refs, groups):
    """The stream cut at its groups by hand (not by held_out_units): (gap probabilities, reference) of each."""
    out, start, ends = [], 0, np.cumsum(refs)
    for g in groups:
        stop = start + g
        inside = ends[(ends > start) & (ends <= stop)]
        out.append((np.asarray(probs[start:stop - 1]), tuple(int(x) for x in np.diff(np.concatenate([[start], inside])))))
        start = stop
    return out


def _threshold_grid():
    return [ThresholdRule(alpha=a, epsilon=e) for e in EPSILONS for a in ALPHAS]    # grid order: epsilon, then alpha


def _length_prior_grid(mean_length):
    return [LengthPriorRule(mean_length=mean_length, shape=k, bias=b) for k in SHAPES for b in BIASES]


def _brute(grid, probs, refs, groups, metric, mu=None):
    """The best candidate of ``grid`` (the first in grid order on a tie) and its mean score: each piece decoded
    with ``rule.decide`` and scored with the metrics (per document each its own mu; on the stream ``mu``)."""
    pieces = _pieces(probs, refs, groups) if groups is not None else [(np.asarray(probs), tuple(refs))]
    best = None
    for rule in grid:
        total = 0.0
        for p, ref in pieces:
            hyp = boundaries_to_masses(rule.decide(p), sum(ref))
            total += {"p_mu": p_mu(ref, hyp, mu), "p_k": 1.0 - p_k(ref, hyp),
                      "p_mu-p_k": p_mu(ref, hyp, mu) - p_k(ref, hyp)}[metric]
        score = total / len(pieces)
        if best is None or score > best[1]:
            best = (rule, score)
    return best


def _same(a, b) -> bool:
    """The two rules decide alike: same kind and settings (the grid a tuned rule carries aside)."""
    keep = {"threshold": ("alpha", "epsilon"), "length_prior": ("mean_length", "shape", "bias", "scale")}[a.kind]
    return a.kind == b.kind and all(getattr(a, k) == getattr(b, k) for k in keep)


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


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric", ["p_mu", "p_k", "p_mu-p_k"])
def test_per_document_threshold_tuning_is_the_brute_force_optimum(metric, seed):
    probs, refs, groups = _stream(seed + 1)
    rule, score = ThresholdRule(alphas=ALPHAS, epsilons=EPSILONS).tune(probs, refs, groups=groups, metric=metric,
                                                                      units="per-document")
    want, want_score = _brute(_threshold_grid(), probs, refs, groups, metric)
    assert _same(rule, want), (rule, want)
    assert score == pytest.approx(want_score, abs=1e-12)
    assert (tuple(rule.alphas), tuple(rule.epsilons)) == (ALPHAS, EPSILONS)   # the tuned rule keeps its grid


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mu", [None, 0.2])
def test_stream_p_mu_tuning_is_the_papers(seed, mu):
    """On one stream: P_mu with the given mu (default 1 / the mean reference length); the groups play no part."""
    probs, refs, groups = _stream(seed + 2)
    base = ThresholdRule(alphas=ALPHAS, epsilons=EPSILONS)
    rule, score = tune_rule(base, probs, refs, groups=groups, mu=mu)
    want, want_score = _brute(_threshold_grid(), probs, refs, None, "p_mu", mu=mu)
    assert _same(rule, want) and score == pytest.approx(want_score, abs=1e-12)
    again, again_score = base.tune(probs, refs, mu=mu)                         # tune is tune_rule
    assert again.to_dict() == rule.to_dict() and again_score == score
    lp, lp_score = LengthPriorRule(mean_length=5.0, shapes=SHAPES, biases=BIASES).tune(probs, refs, groups=groups,
                                                                                         mu=mu)
    want, want_score = _brute(_length_prior_grid(5.0), probs, refs, None, "p_mu", mu=mu)
    assert _same(lp, want) and lp_score == pytest.approx(want_score, abs=1e-12)


def test_stream_p_k_tuning_minimises_p_k_of_the_stream():
    probs, refs, _ = _stream(3)
    rule, score = ThresholdRule(alphas=ALPHAS, epsilons=EPSILONS).tune(probs, refs, metric="p_k")
    n = sum(refs)
    best = min(p_k(refs, boundaries_to_masses(decode(probs, a, e), n)) for e in EPSILONS for a in ALPHAS)
    assert 1 - score == pytest.approx(best)
    assert p_k(refs, boundaries_to_masses(rule.decide(probs), n)) == pytest.approx(best)
    want, _ = _brute(_threshold_grid(), probs, refs, None, "p_k")
    assert _same(rule, want)


@pytest.mark.parametrize("units", ["stream", "per-document"])
@pytest.mark.parametrize("metric", ["p_mu", "p_k", "p_mu-p_k"])
def test_length_prior_tuning_is_the_brute_force_optimum(metric, units):
    probs, refs, groups = _stream(4)
    rule, score = LengthPriorRule(mean_length=5.0, shapes=SHAPES, biases=BIASES).tune(
        probs, refs, groups=groups, metric=metric, units=units)
    want, want_score = _brute(_length_prior_grid(5.0), probs, refs, groups if units == "per-document" else None,
                              metric)
    assert _same(rule, want) and score == pytest.approx(want_score, abs=1e-12)
    # the brute force of the old module test, with decode_length_prior itself
    pieces = _pieces(probs, refs, groups) if units == "per-document" else [(probs, refs)]
    scored = {"p_mu": lambda ref, h: p_mu(ref, h), "p_k": lambda ref, h: 1 - p_k(ref, h),
              "p_mu-p_k": lambda ref, h: p_mu(ref, h) - p_k(ref, h)}[metric]
    table = {(k, b): np.mean([scored(ref, h) for p, ref in pieces
                              for h in [boundaries_to_masses(decode_length_prior(p, mean_length=5.0, shape=k, bias=b),
                                                             sum(ref))]])
             for k in SHAPES for b in BIASES}
    assert table[(rule.shape, rule.bias)] == pytest.approx(max(table.values()))


@pytest.mark.parametrize("metric", ["p_mu", "p_k"])
def test_length_prior_scale_tuning_is_the_brute_force_optimum(metric):
    """The scale grid (the expected length measured on each document) is searched before shape and bias."""
    probs, refs, groups = _stream(5)
    scales = (0.5, 1.0, 2.0)
    rule, score = LengthPriorRule(scales=scales, shapes=SHAPES, biases=BIASES).tune(
        probs, refs, groups=groups, metric=metric, units="per-document")
    grid = [LengthPriorRule(scale=c, shape=k, bias=b) for c in scales for k in SHAPES for b in BIASES]
    want, want_score = _brute(grid, probs, refs, groups, metric)
    assert _same(rule, want) and score == pytest.approx(want_score, abs=1e-12)
    assert rule.scale in scales and rule.mean_length is None


def test_segment_count_rule_takes_the_held_out_mean_length():
    probs, refs, groups = _stream(5)
    rule, score = SegmentCountRule().tune(probs, refs, groups=groups, units="per-document")
    assert rule.mean_length == pytest.approx(sum(refs) / len(refs)) and rule.segments is None
    pieces = _pieces(probs, refs, groups)
    want = np.mean([p_mu(ref, boundaries_to_masses(rule.decide(p), sum(ref))) for p, ref in pieces])
    assert score == pytest.approx(want, abs=1e-12)
    for p, ref in pieces:
        assert len(rule.decide(p)) + 1 == max(1, round(sum(ref) / rule.mean_length))
    fixed, _ = SegmentCountRule(segments=3).tune(probs, refs)
    assert (fixed.segments, fixed.mean_length) == (3, None) and len(fixed.decide(probs)) == 2


def test_ties_go_to_the_first_candidate_in_grid_order():
    probs = np.array([0.05, 0.95, 0.05, 0.05, 0.95, 0.05])       # every alpha in (0.05, 0.95) decides alike
    refs = (2, 3, 2)
    rule, score = ThresholdRule(alphas=(0.9, 0.5, 0.1), epsilons=(3, 1)).tune(probs, refs)
    assert (rule.alpha, rule.epsilon) == (0.9, 3) and score == pytest.approx(1.0)
    rule, _ = ThresholdRule(alphas=(0.1, 0.5, 0.9), epsilons=(1, 3)).tune(probs, refs, metric="p_k")
    assert (rule.alpha, rule.epsilon) == (0.1, 1)


def test_the_choice_on_a_grid_is_the_first_best_or_the_middle_of_a_plateau():
    scores = [0.2, 0.5, 0.5, 0.49995, 0.5, 0.1]
    assert best_on_grid(scores) == 1 and best_on_grid(np.asarray(scores)) == int(np.argmax(scores))
    assert best_on_grid(scores, minimise=True) == 5
    assert best_on_grid(scores, tolerance=0.001) == 1                   # the first within the tolerance
    assert best_on_grid(scores, tolerance=0.001, plateau=True) == 3     # the middle of the run 1..4
    assert best_on_grid(scores, tolerance=0.0, plateau=True) == 2       # exact ties: runs 1..2 and 4; the first
    assert best_on_grid([0.3, 0.1, 0.1, 0.3, 0.1], minimise=True, tolerance=0.0, plateau=True) == 2


def test_settings_searched_together_reach_the_brute_force_optimum():
    grid = np.arange(12.0)

    def score(t):   # one best setting (3, 8); each threshold's best value depends on the other's
        return -abs(t[0] - 3) - abs(t[1] - 8) - 0.5 * abs(t[1] - t[0] - 5)

    best = max(((a, b) for a in range(12) for b in range(12)), key=lambda ab: score(np.asarray(ab, float)))
    for max_start in (4, 100_000):
        chosen, curves = coordinate_search(score, grid, 2, max_start=max_start)
        assert tuple(chosen) == best == (3, 8)
        assert curves[1] == [score(np.asarray([3.0, b])) for b in grid]
    chosen, _ = coordinate_search(lambda t: abs(t[0] - 5), grid, 1, minimise=True)
    assert chosen == [5]


def test_tuning_input_errors():
    probs, refs, _ = _stream(0)
    rule = ThresholdRule(alphas=ALPHAS, epsilons=EPSILONS)
    with pytest.raises(SegvizError, match="tuning metric"):
        rule.tune(probs, refs, metric="f1")
    with pytest.raises(SegvizError, match="tuning units"):
        rule.tune(probs, refs, units="sentences")
    with pytest.raises(SegvizError, match="groups"):
        rule.tune(probs, refs, groups=[1, 2], units="per-document")
    with pytest.raises(SegvizError, match="reference covers"):
        rule.tune(probs[:-1], refs)
    with pytest.raises(SegvizError, match="more than 2 sentences"):
        rule.tune([0.3, 0.6, 0.2], (2, 2), groups=[2, 2], units="per-document")


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
    seg = Segmenter(n_features=5, vocabulary=50, families=["vocabulary", "cohesion"], tuning_metric="p_k",
                    tuning_units="per-document", rule=ThresholdRule(alphas=ALPHAS, epsilons=EPSILONS)).fit(train, held)
    probs = seg.boundary_probabilities(held)
    want, want_score = tune_rule(ThresholdRule(alphas=ALPHAS, epsilons=EPSILONS), probs, held.masses(),
                                 groups=held.source_groups(), metric="p_k", units="per-document")
    brute, brute_score = _brute(_threshold_grid(), probs, held.masses(), held.source_groups(), "p_k")
    assert _same(seg.rule_, want) and _same(seg.rule_, brute)
    assert seg.info_["tuning"] == "p_k, per-document" and "tuned_p_mu" not in seg.info_
    assert seg.info_["tuned_score"] == pytest.approx(want_score) == pytest.approx(brute_score)
    assert seg.info_["rule"] == seg.rule_.describe()
    path = seg.save(tmp_path / "m.segviz")
    again = Segmenter.load(path)
    assert (again.tuning_metric, again.tuning_units) == ("p_k", "per-document")
    assert again.rule_.to_dict() == seg.rule_.to_dict()
    assert again.rule.to_dict() == seg.rule.to_dict()
    retuned = again.truncated(len(again.features_), heldout=held)
    assert _same(retuned.rule_, seg.rule_)


def test_segmenter_tunes_the_length_prior_rule_per_document():
    train, held = _corpus(0, 6), _corpus(1)
    base = LengthPriorRule(shapes=(1.0, 4.0), biases=(-1.0, 0.0, 1.0))
    seg = Segmenter(n_features=4, vocabulary=50, families=["vocabulary"], tuning_units="per-document",
                    rule=base).fit(train, held)
    assert isinstance(seg.rule_, LengthPriorRule)
    assert seg.rule_.mean_length == pytest.approx(seg.mean_length_) == pytest.approx(1.0 / seg.mu_)
    probs = seg.boundary_probabilities(held)
    grid = [LengthPriorRule(mean_length=seg.mean_length_, shape=k, bias=b) for k in base.shapes for b in base.biases]
    want, want_score = _brute(grid, probs, held.masses(), held.source_groups(), "p_mu")
    assert _same(seg.rule_, want) and seg.info_["tuned_score"] == pytest.approx(want_score)
    assert base.mean_length is None                    # the estimator's parameter is left as given


def test_bad_tuning_settings_are_refused():
    with pytest.raises(SegvizError, match="tuning metric"):
        Segmenter(tuning_metric="f1").fit(_corpus(0), _corpus(1))
    with pytest.raises(SegvizError, match="tuning units"):
        Segmenter(tuning_units="sentences").fit(_corpus(0), _corpus(1))
    with pytest.raises(SegvizError, match="decision rule"):
        Segmenter(rule="threshold").check_params()
    with pytest.raises(SegvizError, match="alpha"):
        Segmenter(rule=ThresholdRule(alphas=(0.5, 2.0))).check_params()
    seg = Segmenter(n_features=2, vocabulary=20, families=["vocabulary", "cohesion"]).fit(_corpus(0), _corpus(1))
    doc = seg.to_dict()
    doc["params"]["tuning_metric"] = "f1"
    with pytest.raises(SegvizError, match="params.tuning_metric"):
        validate_model_document(doc, source="m", known_params=Segmenter._param_names())
