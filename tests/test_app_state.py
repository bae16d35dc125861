"""The Qt-free session model: every derived number equals what the engine computes."""
from __future__ import annotations

import numpy as np
import pytest

from segviz.app.state import MODEL_ROW, SessionState
from segviz.corpus import Corpus, Document
from segviz.decode import decode
from segviz.metrics import score_row
from segviz.segmentation import boundaries_to_masses
from segviz.service.corpus_outline import outline_of


def tiny_corpus(masses=(3, 5, 2, 4, 6)):
    """The outline (what the window holds) of a corpus of documents of ``masses`` sentences."""
    docs = []
    for d, m in enumerate(masses):
        sents = tuple(tuple(f"w{d}_{i}".split()) for i in range(m))
        docs.append(Document(f"doc{d}", sents, tuple(" ".join(s) for s in sents)))
    return outline_of(Corpus(docs, name="tiny"))


def test_corpus_sets_reference_and_baselines():
    state = SessionState()
    topics = []
    state.subscribe(topics.append)
    state.set_corpus(tiny_corpus())
    assert state.reference_masses == (3, 5, 2, 4, 6)
    assert list(state.reference_boundaries) == [3, 8, 10, 14]
    assert set(state.baseline_masses) == {"random", "all", "none", "even"}
    for name, masses in state.baseline_masses.items():
        assert state.metrics[name] == score_row(state.reference_masses, masses)
    assert MODEL_ROW not in state.metrics
    assert topics[0] == "corpus"
    assert state.visible_rows() == ["random", "all", "none", "even"]


@pytest.mark.parametrize("alpha,epsilon", [(0.1, 1), (0.5, 2), (0.8, 3), (0.0, 5), (1.0, 1)])
def test_alpha_epsilon_give_engine_decoding_and_metrics(alpha, epsilon):
    rng = np.random.default_rng(3)
    state = SessionState()
    state.set_corpus(tiny_corpus())
    probs = rng.random(state.n_sentences - 1)
    state.set_probabilities(probs)
    state.set_decision(alpha, epsilon)
    expected = decode(probs, alpha, epsilon)
    np.testing.assert_array_equal(state.hypothesis_boundaries, expected)
    hyp = boundaries_to_masses(expected, state.n_sentences)
    assert state.hypothesis_masses == tuple(hyp)
    assert state.metrics[MODEL_ROW] == score_row(state.reference_masses, hyp)
    assert state.visible_rows()[0] == MODEL_ROW


def test_set_alpha_notifies_once_and_clamps():
    state = SessionState(alpha=0.5)
    state.set_corpus(tiny_corpus())
    state.set_probabilities(np.linspace(0, 1, state.n_sentences - 1))
    topics = []
    state.subscribe(topics.append)
    state.set_alpha(0.5)          # unchanged: no notification
    state.set_alpha(1.7)          # clamped
    assert state.alpha == 1.0 and topics == ["hypothesis"]
    assert len(state.hypothesis_boundaries) == 0


def test_bad_probability_shape_is_rejected():
    state = SessionState()
    state.set_corpus(tiny_corpus())
    with pytest.raises(ValueError, match="expected 19 probabilities"):
        state.set_probabilities(np.zeros(5))


def test_peers_and_rounds():
    state = SessionState()
    state.set_corpus(tiny_corpus())
    state.set_peer("c99", (10, 10))
    assert state.metrics["c99"] == score_row(state.reference_masses, (10, 10))
    assert "c99" in state.visible_rows()
    state.show_peer("c99", False)
    assert "c99" not in state.visible_rows()
    with pytest.raises(ValueError, match="masses cover"):
        state.set_peer("c99", (3, 3))

    from segviz.features import Window, WordQuestion
    from segviz.induction import FeatureAdded

    spec = WordQuestion("sentences", "mr.", Window("sentence", 0, 1))
    state.add_round(FeatureAdded(1, spec, 0.5, (0.07,), -100.0, 0.8))
    assert state.rounds[0].weight == pytest.approx(0.07)   # weights are already e^lambda
    assert state.current_weights() == (0.07,)
    assert state.rounds[0].heldout_p_mu == 0.8


def test_document_lookup():
    state = SessionState()
    state.set_corpus(tiny_corpus())
    assert [state.document_of(i) for i in (0, 2, 3, 7, 8, 19)] == [0, 0, 1, 1, 2, 4]
    assert list(state.document_starts()) == [0, 3, 8, 10, 14]


def test_peer_masses_run_each_source_file_on_its_own():
    from pathlib import Path

    from segviz.corpus import read_corpus
    from segviz.peers import segment_with
    from segviz.service.tasks import peers_task

    corpus = read_corpus(Path(__file__).resolve().parents[1] / "sample_corpora" / "choi")
    files = corpus.by_file()
    got = drive(peers_task(["texttiling"], corpus.sentences(), groups=[f.n_sentences for f in files]))
    want = tuple(m for f in files for m in segment_with("texttiling", f.sentences()))
    assert got["texttiling"] == want and sum(want) == corpus.n_sentences
    # without groups, a long stream is cut into pieces whose edges are boundaries
    chunked = drive(peers_task(["texttiling"], corpus.sentences(), chunk=100))["texttiling"]
    assert sum(chunked) == corpus.n_sentences
    assert set(np.cumsum(chunked)) >= {100, 200, 300}


def drive(gen):
    """Run a task generator to its end without threads; its return value."""
    from segviz.events import Progress

    while True:
        try:
            assert isinstance(next(gen), Progress)
        except StopIteration as stop:
            return stop.value


def test_alpha_reuses_the_greedy_pass_of_its_epsilon():
    """Moving alpha recomputes no greedy pass: the kept boundaries at alpha are the threshold-0 ones above it
    (the threshold rule's preparation, segviz.rules.ThresholdRule.prepare, is kept per epsilon); a new epsilon
    is one pass and no new sort (the visiting order is kept in the rule's scratch while the probabilities stay)."""
    import segviz.rules as rules

    rng = np.random.default_rng(7)
    state = SessionState(alpha=0.5, epsilon=3)
    state.set_corpus(tiny_corpus((40, 60, 25, 75)))
    probs = rng.random(state.n_sentences - 1)
    state.set_probabilities(probs)
    passes, sorts = [], []
    real_pass, real_sort = rules.greedy_keep_in_order, rules.greedy_order
    rules.greedy_keep_in_order = lambda order, e: passes.append(e) or real_pass(order, e)
    rules.greedy_order = lambda p: sorts.append(p.size) or real_sort(p)
    try:
        for alpha in np.linspace(0, 1, 21):
            state.set_alpha(alpha)
            np.testing.assert_array_equal(state.hypothesis_boundaries, decode(probs, state.alpha, 3))
        assert passes == [] and sorts == []
        state.set_epsilon(5)
        state.set_epsilon(3)
        state.set_epsilon(5)
        state.set_epsilon(7)
        assert passes == [5, 7] and sorts == []   # the sort made for epsilon 3 serves the new epsilons
        np.testing.assert_array_equal(state.hypothesis_boundaries, decode(probs, state.alpha, 7))
        # new probabilities: the kept passes and order belong to the old ones
        state.set_probabilities(probs[::-1].copy())
        assert passes == [5, 7, 7] and len(sorts) == 1
        np.testing.assert_array_equal(state.hypothesis_boundaries, decode(probs[::-1], state.alpha, 7))
    finally:
        rules.greedy_keep_in_order, rules.greedy_order = real_pass, real_sort


@pytest.mark.parametrize("alpha,epsilon", [(float("nan"), 2), (5.0, 2), (-0.1, 2), (0.3, 0), (0.3, -3),
                                           (0.3, 2.5)])
def test_a_model_with_unusable_decision_parameters_is_refused_whole(alpha, epsilon):
    from segviz import Segmenter, ThresholdRule
    from segviz.app.state import check_decision

    state = SessionState(alpha=0.4, epsilon=2)
    state.set_corpus(tiny_corpus())
    model = Segmenter.from_weights([], [], prior=0.2, mu=0.1)
    model.rule_ = ThresholdRule(alpha=alpha, epsilon=epsilon)   # as a damaged file would hold it, unchecked
    with pytest.raises(ValueError):
        check_decision(alpha, epsilon)
    with pytest.raises(ValueError):
        state.set_segmenter(model)
    assert (state.alpha, state.epsilon, state.segmenter, state.opened_model) == (0.4, 2, None, None)


def test_each_document_is_decided_by_the_rule_of_the_segmenter_that_answers_for_it():
    """A plan of three documents, two segmenters with rules of different kinds: each document's boundaries are
    its segmenter's rule on its own probabilities, a document edge is always a boundary, and moving the shown
    rule decides again only the documents of that segmenter."""
    from segviz import LengthPriorRule, Segmenter, ThresholdRule
    from segviz.routing import ExpertRouter
    from segviz.segmentation import boundaries_to_masses
    from segviz.service.plan import PlanUnit

    state = SessionState()
    state.set_corpus(tiny_corpus((10, 10, 10, 10, 10, 10)))
    n = state.n_sentences
    short = Segmenter.from_weights([], [], prior=0.3, mu=0.2, rule=ThresholdRule(alpha=0.5, epsilon=2))
    long = Segmenter.from_weights([], [], prior=0.05, mu=0.05, rule=LengthPriorRule(shape=2.0, bias=0.0))
    router = ExpertRouter(experts=[("short", short), ("long", long)], gauges=["short"])
    router.thresholds_, router.tuning_, router.info_ = [5.0], {}, {}
    units = (PlanUnit(0, 20, "short"), PlanUnit(20, 45, "long"), PlanUnit(45, n, "short"))
    probs = np.random.default_rng(3).random(n - 1)
    state.set_model(router, shown="short")
    state.set_probabilities(probs, units=units)

    def expected():
        out = []
        for unit in units:
            if unit.start:
                out.append(unit.start)
            rule = state.rules[unit.expert]
            out.extend((rule.decide(probs[unit.start:unit.end - 1]) + unit.start).tolist())
        return out

    assert state.hypothesis_boundaries.tolist() == expected()
    assert 20 in state.hypothesis_boundaries and 45 in state.hypothesis_boundaries
    long_part = state.hypothesis_boundaries[(state.hypothesis_boundaries > 20) & (state.hypothesis_boundaries < 45)]
    state.set_alpha(0.05)    # the shown rule is the short expert's: the long expert's document is untouched
    assert state.rules["short"].alpha == 0.05 and isinstance(state.rules["long"], LengthPriorRule)
    assert state.hypothesis_boundaries.tolist() == expected()
    np.testing.assert_array_equal(
        state.hypothesis_boundaries[(state.hypothesis_boundaries > 20) & (state.hypothesis_boundaries < 45)],
        long_part)
    state.show_expert("long")
    assert state.rule_setting("alpha") is None and state.rule_setting("mean_length") == pytest.approx(20.0)
    state.set_rule_setting("mean_length", 5.0)
    assert state.hypothesis_boundaries.tolist() == expected()
    assert boundaries_to_masses(state.hypothesis_boundaries, n) == state.hypothesis_masses
    # what "Save model" writes decides as shown
    saved = state.model_with_rules()
    assert saved.segmenters()["long"].rule_.mean_length == 5.0 and saved.segmenters()["short"].rule_.alpha == 0.05


def test_unlabelled_text_has_no_reference_metrics():
    state = SessionState()
    state.set_corpus(tiny_corpus(), has_reference=False)
    assert state.metrics == {} and state.visible_rows() == [] and len(state.reference_boundaries) == 0
    probs = np.linspace(0, 1, state.n_sentences - 1)
    state.set_probabilities(probs)
    np.testing.assert_array_equal(state.hypothesis_boundaries, decode(probs, state.alpha, state.epsilon))
    assert MODEL_ROW not in state.metrics


def test_non_finite_probabilities_are_refused():
    state = SessionState()
    state.set_corpus(tiny_corpus())
    bad = np.full(state.n_sentences - 1, 0.5)
    bad[3] = np.nan
    with pytest.raises(ValueError, match="finite"):
        state.set_probabilities(bad)
    assert state.probabilities is None


def test_on_the_longest_streams_a_moved_rules_metrics_follow_the_hypothesis(monkeypatch):
    """From state.DEFER_METRICS_FROM sentences (lowered here) and with a scheduler, a new α shows its hypothesis
    at once and scores it when the scheduler calls back; a later inline score makes the pending one moot."""
    import segviz.app.state as st

    monkeypatch.setattr(st, "DEFER_METRICS_FROM", 100)
    state = SessionState(alpha=0.5, epsilon=3)
    state.set_corpus(tiny_corpus((40, 60, 25, 75)))
    probs = np.random.default_rng(2).random(state.n_sentences - 1)
    state.set_probabilities(probs)
    before = dict(state.metrics[MODEL_ROW])
    pending = []
    state.metrics_scheduler = pending.append
    topics = []
    state.subscribe(topics.append)
    state.set_alpha(0.9)
    np.testing.assert_array_equal(state.hypothesis_boundaries, decode(probs, 0.9, 3))
    assert state.metrics[MODEL_ROW] == before and len(pending) == 1 and "metrics" not in topics
    pending.pop()()
    assert state.metrics[MODEL_ROW] == score_row(state.reference_masses, state.hypothesis_masses)
    assert topics[-1] == "metrics"
    # below the threshold, or without a scheduler: scored at once
    monkeypatch.setattr(st, "DEFER_METRICS_FROM", 10**9)
    state.set_alpha(0.2)
    assert not pending and state.metrics[MODEL_ROW] == score_row(state.reference_masses, state.hypothesis_masses)


def test_decisions_prepared_in_the_background_give_the_same_hypothesis_and_no_sort_on_the_gui_thread(monkeypatch):
    """prepare_decisions (run on a worker thread) hands set_probabilities each segmenter's rule prepared on its
    documents: the hypothesis is the one the state would compute, and neither the sort of the stream nor the
    greedy pass runs again when the probabilities are set (on 10^6 sentences they held the window 150 ms)."""
    from segviz import LengthPriorRule, Segmenter, ThresholdRule, rules
    from segviz.app.state import prepare_decisions
    from segviz.routing import ExpertRouter
    from segviz.service.plan import PlanUnit

    short = Segmenter.from_weights([], [], prior=0.3, mu=0.2, rule=ThresholdRule(alpha=0.4, epsilon=3))
    long = Segmenter.from_weights([], [], prior=0.05, mu=0.05, rule=LengthPriorRule(shape=2.0, bias=0.0))
    router = ExpertRouter(experts=[("short", short), ("long", long)], gauges=["short"])
    router.thresholds_, router.tuning_, router.info_ = [5.0], {}, {}
    expected = SessionState()
    expected.set_corpus(tiny_corpus((10, 10, 10, 10, 10, 10)))
    n = expected.n_sentences
    units = (PlanUnit(0, 20, "short"), PlanUnit(20, 45, "long"), PlanUnit(45, n, "short"))
    probs = np.random.default_rng(5).random(n - 1)
    expected.set_model(router, shown="short")
    expected.set_probabilities(probs, units=units)

    state = SessionState()
    state.set_corpus(tiny_corpus((10, 10, 10, 10, 10, 10)))
    state.set_model(router, shown="short")
    decisions = prepare_decisions(router, probs, units)

    def refuse(*args, **kwargs):
        raise AssertionError("the rule was prepared again")

    monkeypatch.setattr(rules, "greedy_order", refuse)
    monkeypatch.setattr(rules, "greedy_keep_in_order", refuse)
    monkeypatch.setattr(LengthPriorRule, "prepare_documents", refuse)
    state.set_probabilities(probs, units=units, decisions=decisions)
    np.testing.assert_array_equal(state.hypothesis_boundaries, expected.hypothesis_boundaries)
    assert state.metrics["model"] == expected.metrics["model"]
    # other probabilities (or another plan) do not take a preparation made for these
    monkeypatch.undo()
    other = probs[::-1].copy()
    state.set_probabilities(other, units=units, decisions=decisions)
    expected.set_probabilities(other, units=units)
    np.testing.assert_array_equal(state.hypothesis_boundaries, expected.hypothesis_boundaries)


def test_a_rule_in_words_decides_by_the_sizes_the_outline_carries():
    """The window holds no tokens; a length prior in words decides by the sentence sizes of the outline, as the
    engine decides the same document, and a setting moved on it (the bias) is decided the same way."""
    from segviz import LengthPriorRule, Segmenter
    from segviz.rules import document_sizes

    rng = np.random.default_rng(8)
    docs = []
    for d, m in enumerate((30, 40)):
        sents = tuple(tuple(f"w{d}_{i}_{j}" for j in range(int(rng.integers(1, 40)))) for i in range(m))
        docs.append(Document(f"doc{d}", sents, tuple(" ".join(s) for s in sents)))
    corpus = Corpus(docs, name="sized")
    outline = outline_of(corpus)
    assert outline.sentence_sizes.tolist() == document_sizes(corpus.sentences()).tolist()
    rule = LengthPriorRule(shape=4.0, bias=0.5, unit="words", words_per_sentence=10.0)
    model = Segmenter.from_weights([], [], prior=0.05, mu=1 / 8, rule=rule)
    state = SessionState()
    state.set_corpus(outline)
    state.set_model(model)
    probs = rng.random(corpus.n_sentences - 1) ** 3
    probs[29] = 1.0   # the edge between the two documents
    state.set_probabilities(probs)
    sizes = outline.sentence_sizes
    for bias in (0.5, -2.0, 3.0):
        state.set_rule(model.rule_.with_setting("bias", bias))
        want = [model.rule_.with_setting("bias", bias).decide(probs[a:b - 1], sizes[a:b]) + a
                for a, b in ((0, 30), (30, 70))]
        np.testing.assert_array_equal(state.hypothesis_boundaries, np.sort(np.concatenate([*want, [30]])))
