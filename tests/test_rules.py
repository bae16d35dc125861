"""Decision rules as strategy objects (segviz.rules): one surface for every kind, checked against brute force."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from segviz import LengthPriorRule, SegmentCountRule, ThresholdRule
from segviz.decode import decode
from segviz.errors import SegvizError
from segviz.length_prior import decode_length_prior, length_prior_gains, log_length_prior
from segviz.rules import RULES, rule_from_dict

RULE_EXAMPLES = [ThresholdRule(alpha=0.35, epsilon=3), LengthPriorRule(mean_length=9.0, shape=4.0, bias=0.5),
                 LengthPriorRule(mean_length=9.0, shape=4.0, bias=3.0, unit="words", words_per_sentence=12.0),
                 SegmentCountRule(segments=5), SegmentCountRule(mean_length=7.0, shape=2.0)]


def sizes_for(p, seed=0):
    """Sentence sizes (word counts, some zero) for the n = len(p) + 1 sentences around gaps ``p``: every rule is
    given them, as every caller gives them; only a rule that measures segments in words reads them."""
    return np.random.default_rng(seed).integers(0, 30, p.size + 1)


def _objective(p, boundaries, mean, shape):
    """The length-prior objective of a segmentation: boundary log-odds plus the log prior of each length."""
    n = p.size + 1
    gains = length_prior_gains(p)
    edges = [0, *boundaries, n]
    lengths = np.diff(edges)
    return float(sum(gains[b - 1] for b in boundaries) + log_length_prior(lengths, mean, shape).sum())


@pytest.mark.parametrize("rule", RULE_EXAMPLES, ids=lambda r: repr(r))
def test_a_rule_is_saved_and_read_back_whole(rule):
    d = json.loads(json.dumps(rule.to_dict()))
    back = rule_from_dict(d)
    assert type(back) is type(rule) and back.to_dict() == rule.to_dict()
    p = np.random.default_rng(0).random(60)
    np.testing.assert_array_equal(back.decide(p, sizes_for(p)), rule.decide(p, sizes_for(p)))


@pytest.mark.parametrize("rule", RULE_EXAMPLES, ids=lambda r: repr(r))
def test_a_prepared_decision_is_the_decision(rule):
    """What a live control reuses (prepare, per preparation key) decides exactly as decide() does, and two
    settings that share a key share the preparation."""
    rng = np.random.default_rng(1)
    p = rng.random(200) ** 3
    s = sizes_for(p)
    np.testing.assert_array_equal(rule.decide_prepared(rule.prepare(p, s), p), rule.decide(p, s))
    for control in rule.controls():
        other = rule.with_setting(control["name"], control["value"] + (1 if control["integer"] else 0.25))
        if other.preparation_key() == rule.preparation_key():
            np.testing.assert_array_equal(other.decide_prepared(rule.prepare(p, s), p), other.decide(p, s))


def test_the_threshold_rule_is_the_papers_rule_and_alpha_shares_its_pass():
    p = np.random.default_rng(2).random(300)
    rule = ThresholdRule(alpha=0.4, epsilon=5)
    np.testing.assert_array_equal(rule.decide(p), decode(p, 0.4, 5))
    moved = rule.with_setting("alpha", 0.8)
    assert moved.preparation_key() == rule.preparation_key() != rule.with_setting("epsilon", 6).preparation_key()
    np.testing.assert_array_equal(moved.decide_prepared(rule.prepare(p), p), decode(p, 0.8, 5))


def test_the_length_prior_rule_takes_the_training_mean_when_left_open():
    p = np.random.default_rng(3).random(99)
    open_rule = LengthPriorRule(shape=2.0, bias=1.0)
    with pytest.raises(SegvizError, match="expected segment length"):
        open_rule.decide(p)
    filled = open_rule.with_mean_length(12.0)
    assert filled.mean_length == 12.0 and filled.with_mean_length(3.0).mean_length == 12.0
    np.testing.assert_array_equal(filled.decide(p), decode_length_prior(p, mean_length=12.0, shape=2.0, bias=1.0))
    # in sentences, a training mean of words per sentence changes nothing
    assert open_rule.with_mean_length(12.0, 20.0).to_dict() == filled.to_dict()


def test_the_length_prior_rule_in_words_expects_the_training_mean_in_words():
    """Measured in words, the prior's mean is the training mean length in sentences times the training mean of
    words per sentence, both filled in where left open; deciding needs each sentence's size."""
    p = np.random.default_rng(4).random(150)
    s = sizes_for(p, 4)
    open_rule = LengthPriorRule(shape=4.0, bias=2.0, unit="words")
    half = open_rule.with_mean_length(10.0)
    assert half.mean_length == 10.0 and half.words_per_sentence is None
    with pytest.raises(SegvizError, match="words per sentence"):
        half.decide(p, s)
    filled = open_rule.with_mean_length(10.0, 15.0)
    assert filled.with_mean_length(3.0, 2.0).to_dict() == filled.to_dict()
    with pytest.raises(SegvizError, match="each sentence's size"):
        filled.decide(p)
    np.testing.assert_array_equal(filled.decide(p, s),
                                  decode_length_prior(p, mean_length=150.0, shape=4.0, bias=2.0, sizes=s))
    assert "150 words" in filled.describe() and "measured in words" in filled.describe()
    # the setting a user moves stays in sentences; its label says of how many words
    assert filled.controls()[0]["name"] == "mean_length" and "sentences of 15.0 words" in filled.controls()[0]["label"]
    assert filled.label() == "length prior rule in words" != LengthPriorRule().label()
    # every sentence of one word: the same decision as in sentences with the mean in words
    ones = np.ones(p.size + 1)
    np.testing.assert_array_equal(filled.decide(p, ones), decode_length_prior(p, mean_length=150.0, shape=4.0,
                                                                              bias=2.0))
    # long sentences: fewer of them to a segment than short ones, so more segments from the same probabilities
    flat = np.full(400, 0.02)
    assert filled.decide(flat, np.full(401, 30)).size > 2 * filled.decide(flat, np.full(401, 5)).size
    # tuned on sizes, per document: each document's slice of them
    ref = (40, 60, 51)
    tuned, _ = open_rule.with_mean_length(10.0, 15.0).tune(p, ref, groups=(40, 60, 51), units="per-document",
                                                           metric="p_k", sizes=s)
    assert tuned.unit == "words" and tuned.words_per_sentence == 15.0

@pytest.mark.parametrize("n,segments", [(9, 1), (9, 3), (11, 4), (12, 2), (10, 10), (12, 6)])
def test_the_segment_count_rule_gives_exactly_n_segments_at_the_best_objective(n, segments):
    """Brute force over every segmentation with that many segments: the rule's is one of the best under the
    length prior with mean n / N (the Lagrangian search finds the constrained optimum when it meets the
    count)."""
    rng = np.random.default_rng(n * 31 + segments)
    for _ in range(5):
        p = rng.random(n - 1) ** 2
        got = SegmentCountRule(segments=segments).decide(p)
        assert got.size == segments - 1 and np.all(np.diff(got) > 0) and (got.size == 0 or 1 <= got.min())
        mean = n / segments
        best = max(_objective(p, list(c), mean, 2.0)
                   for c in itertools.combinations(range(1, n), segments - 1))
        assert _objective(p, got.tolist(), mean, 2.0) == pytest.approx(best, abs=1e-9)


def test_the_segment_count_rule_by_mean_length_and_at_the_edges():
    p = np.random.default_rng(4).random(999)
    assert SegmentCountRule(mean_length=100.0).decide(p).size == 9       # 1000 sentences / 100, rounded
    assert SegmentCountRule(mean_length=5000.0).decide(p).size == 0      # at least one segment
    assert SegmentCountRule(segments=5000).decide(p).size == 999         # at most one per sentence
    for segments in (2, 17, 40, 333):
        assert SegmentCountRule(segments=segments).decide(p).size == segments - 1
    with pytest.raises(SegvizError, match="not both"):
        SegmentCountRule(segments=3, mean_length=4.0).check()
    # tuned on held-out data without a count: the held-out mean segment length
    tuned, _ = SegmentCountRule().tune(p, (100,) * 10)
    assert tuned.mean_length == 100.0


@pytest.mark.parametrize("bad,match", [
    ({"kind": "threshold", "alpha": 1.5}, "alpha"),
    ({"kind": "threshold", "epsilon": 0}, "epsilon"),
    ({"kind": "threshold", "epsilons": []}, "epsilons"),
    ({"kind": "length_prior", "shape": -1}, "shape"),
    ({"kind": "length_prior", "mean_length": float("nan")}, "mean_length"),
    ({"kind": "length_prior", "unit": "pages"}, "unit"),
    ({"kind": "length_prior", "unit": "words", "words_per_sentence": 0}, "words_per_sentence"),
    ({"kind": "length_prior", "unit": "words", "scale": 1.0}, "cannot also measure segments in words"),
    ({"kind": "segment_count", "segments": 2.5}, "segments"),
    ({"kind": "threshold", "beta": 1}, "no setting 'beta'"),
    ({"kind": "oracle"}, "unknown decision rule"),
    ([1, 2], "must be an object"),
])
def test_a_damaged_rule_is_one_error(bad, match):
    with pytest.raises(SegvizError, match=match):
        rule_from_dict(bad, source="m.segviz")


def test_every_rule_kind_is_registered_and_describes_itself():
    assert set(RULES) == {"threshold", "length_prior", "segment_count"}
    for rule in RULE_EXAMPLES:
        assert rule.describe() and RULES[rule.kind] is type(rule)
        for control in rule.controls():
            assert control["low"] <= control["value"] <= control["high"]
    with pytest.raises(SegvizError, match="no setting"):
        ThresholdRule().with_setting("shape", 2.0)
    with pytest.raises(SegvizError, match="alpha"):
        ThresholdRule().with_setting("alpha", 2.0)


@pytest.mark.parametrize("rule", RULE_EXAMPLES, ids=lambda r: repr(r))
def test_a_scratch_kept_across_settings_changes_no_decision(rule):
    """What a rule keeps in the caller's scratch (the threshold rule: its greedy visiting orders) serves every
    later setting: the decisions equal those made from nothing, setting after setting, ties included."""
    rng = np.random.default_rng(9)
    p = np.round(rng.random(500) ** 2, 2)   # rounded: many equal probabilities, so the order's ties matter
    s = sizes_for(p, 9)
    spans = [(0, 90), (91, 300), (301, 499)]
    scratch: dict = {}
    for control in rule.controls():
        if control["integer"]:
            values = [1, 2, 5, 3, 8, 2]
        else:
            values = [control["low"], (control["low"] + control["high"]) / 2, control["high"]]
        for value in values:
            moved = rule.with_setting(control["name"], min(max(value, control["low"]), control["high"]))
            got = moved.decide_documents(moved.prepare_documents(p, spans, scratch=scratch, sizes=s), p, spans)
            want = moved.decide_documents(moved.prepare_documents(p, spans, sizes=s), p, spans)
            np.testing.assert_array_equal(got, want)
            brute = np.concatenate([moved.decide(p[a:b], s[a:b + 1]) + a for a, b in spans])
            np.testing.assert_array_equal(np.sort(got), np.sort(brute))


@pytest.mark.parametrize("rule", RULE_EXAMPLES, ids=lambda r: repr(r))
def test_documents_of_one_stream_are_decided_each_on_its_own(rule):
    """prepare_documents / decide_documents (what a view uses for many documents at once) give, in stream
    positions, exactly each document's own decision."""
    rng = np.random.default_rng(5)
    p = rng.random(400) ** 2
    s = sizes_for(p, 5)
    spans = [(0, 40), (41, 199), (200, 260), (261, 399)]
    want = np.concatenate([rule.decide(p[a:b], s[a:b + 1]) + a for a, b in spans])
    got = rule.decide_documents(rule.prepare_documents(p, spans, sizes=s), p, spans)
    np.testing.assert_array_equal(np.sort(got), np.sort(want))
