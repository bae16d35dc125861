"""The Segmenter estimator and its CLI: training on the bundled sample, save/load, step-by-step induction."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from segviz import metrics
from segviz.bundle import read_bundle, write_bundle
from segviz.cli import main
from segviz.corpus import Corpus, read_corpus
from segviz.errors import SegvizError
from segviz.induction import FeatureAdded, InductionFinished
from segviz.model_protocol import AppliedDocument, SegmentationModel, stream_masses
from segviz.rules import LengthPriorRule, SegmentCountRule, ThresholdRule
from segviz.segmenter import Segmenter

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_corpora" / "reuters_sample.sgm"


@pytest.fixture(scope="module")
def sample():
    if not SAMPLE.exists():
        pytest.skip("bundled sample corpus absent")
    corpus = read_corpus(SAMPLE)
    n = len(corpus)
    return corpus[: n * 2 // 3], corpus[n * 2 // 3:]


@pytest.fixture(scope="module")
def trained(sample):
    train, held = sample
    seg = Segmenter(n_features=8, vocabulary=2000)
    events = list(seg.fit_iter(train, held))
    return seg, events


def test_train_events_and_model(trained, sample):
    seg, events = trained
    added = [e for e in events if isinstance(e, FeatureAdded)]
    assert [e.round for e in added] == list(range(1, 9))
    assert all(len(e.weights) == e.round for e in added)
    assert all(e.heldout_p_mu is not None for e in added)
    assert isinstance([e for e in events if isinstance(e, InductionFinished)][0], InductionFinished)
    assert len(seg.features_) == 8 and seg.weights_.shape == (8,)
    np.testing.assert_allclose(seg.weights_, added[-1].weights)
    assert isinstance(seg, SegmentationModel)
    rule = seg.rule_
    assert isinstance(rule, ThresholdRule) and 0 < rule.alpha < 1 and rule.epsilon >= 1
    assert rule.alpha in rule.alphas and rule.epsilon in rule.epsilons
    assert seg.mean_length_ == pytest.approx(1.0 / seg.mu_)
    assert seg.info_["tuning"] == "p_mu, stream" and seg.info_["rule"] == rule.describe()
    train, held = sample
    assert seg.prior_ == pytest.approx((len(train) - 1) / (train.n_sentences - 1))
    # the segmentation respects the rule, and beats "none" on the held-out stream
    probs = seg.boundary_probabilities(held)
    assert probs.shape == (held.n_sentences - 1,)
    per_document = seg.predict(held)
    assert len(per_document) == len(held.by_file()) == 1       # one tuple per document (source unit)
    masses = stream_masses(per_document)
    assert sum(masses) == held.n_sentences
    b = np.cumsum(masses)[:-1]
    assert np.all(probs[b - 1] > rule.alpha)
    assert np.all(np.diff(b) >= rule.epsilon)
    assert b.tolist() == seg.decide(probs).tolist() == rule.decide(probs).tolist()
    applied = seg.apply(held)
    assert isinstance(applied, AppliedDocument) and applied.expert == "model" == seg.expert_for(held)
    assert applied.route is None and applied.reason() == "the model expert"
    assert applied.segmenter is seg and applied.rule is rule and seg.rule_for(held) is rule
    np.testing.assert_allclose(applied.probabilities, probs)
    assert applied.masses() == per_document[0]
    assert seg.segmenters() == {"model": seg}
    assert metrics.p_mu(held.masses(), masses) > metrics.p_mu(held.masses(), (held.n_sentences,))
    # truncation restores an earlier round's weights (the held-out stopping rule), the rule re-tuned on held-out
    t = seg.truncated(3, heldout=held)
    assert len(t.features_) == 3
    np.testing.assert_allclose(t.weights_, added[2].weights)
    assert isinstance(t.rule_, ThresholdRule) and t.rule_.to_dict() == added[2].heldout_rule.to_dict()
    assert seg.truncated(3).rule_ is seg.rule_
    with pytest.raises(SegvizError, match="rounds"):
        seg.truncated(0)


def test_active_features_consistent_with_probability(trained, sample):
    seg, _ = trained
    _, held = sample
    probs = seg.boundary_probabilities(held)
    for pos in (1, 5, len(probs)):
        act = seg.active_features(held, pos)
        s = seg.offset_ + sum(np.log(w) for _, w in act)
        assert probs[pos - 1] == pytest.approx(1 / (1 + np.exp(-s)))
    with pytest.raises(SegvizError, match="position"):
        seg.active_features(held, 0)


def test_save_load_roundtrip(trained, sample, tmp_path):
    seg, _ = trained
    _, held = sample
    path = tmp_path / "m.segviz"
    seg.save(path)
    d = read_bundle(path, kind="segmenter").document("segmenter")
    assert d["format"] == "segviz-segmenter" and d["version"] == 2
    assert d["lm_sha256"] is None and len(d["features"]) == 8
    assert d["rule"] == seg.rule_.to_dict() and d["rule"]["kind"] == "threshold"
    assert not {"alpha", "epsilon", "length_shape", "length_bias"} & set(d)
    back = Segmenter.load(path)
    assert back.predict(held) == seg.predict(held)
    assert back.rule_.to_dict() == seg.rule_.to_dict()
    np.testing.assert_allclose(back.boundary_probabilities(held), seg.boundary_probabilities(held))
    # the earlier one-JSON layout is refused, with one error naming the file
    path = tmp_path / "m.json"
    path.write_text(json.dumps(d))
    with pytest.raises(SegvizError, match=r"m\.json: not a segviz model archive"):
        Segmenter.load(path)
    # so is a version-1 document (alpha/epsilon fields, no rule) inside a bundle
    old = {k: v for k, v in d.items() if k != "rule"}
    old.update(version=1, alpha=seg.rule_.alpha, epsilon=seg.rule_.epsilon)
    write_bundle(tmp_path / "old.segviz", "segmenter", {"segmenter": old}, {})
    with pytest.raises(SegvizError, match="version 1 is not supported.*train the model again"):
        Segmenter.load(tmp_path / "old.segviz")
    write_bundle(tmp_path / "v99.segviz", "segmenter", {"segmenter": dict(d, version=99)}, {})
    with pytest.raises(SegvizError, match="version"):
        Segmenter.load(tmp_path / "v99.segviz")
    write_bundle(tmp_path / "norule.segviz", "segmenter", {"segmenter": old | {"version": 2}}, {})
    with pytest.raises(SegvizError, match="field 'rule'"):
        Segmenter.load(tmp_path / "norule.segviz")
    write_bundle(tmp_path / "badrule.segviz", "segmenter",
                 {"segmenter": dict(d, rule=dict(d["rule"], alpha=1.5))}, {})
    with pytest.raises(SegvizError, match="alpha"):
        Segmenter.load(tmp_path / "badrule.segviz")


def test_fit_iter_leaves_a_usable_model_after_every_feature(sample):
    train, held = sample
    seg = Segmenter(n_features=50, vocabulary=500)
    assert not seg.is_fitted
    with pytest.raises(SegvizError, match="not fitted"):
        seg.predict(held)
    rounds = []
    gen = seg.fit_iter(train, held)
    for event in gen:
        if isinstance(event, FeatureAdded):
            rounds.append(event.round)
            assert len(seg.features_) == event.round
            np.testing.assert_allclose(seg.weights_, event.weights)
            assert isinstance(event.heldout_rule, ThresholdRule) and seg.rule_ is event.heldout_rule
            assert sum(stream_masses(seg.predict(held))) == held.n_sentences
            if event.round == 2:
                break          # the caller stops pulling: the model of round 2 stays
    gen.close()
    assert rounds == [1, 2] and len(seg.features_) == 2


def test_parameters_are_stored_verbatim_and_validated_at_fit(sample):
    train, held = sample
    seg = Segmenter(n_features=0, vocabulary="abc", stopping="never")
    assert seg.get_params()["n_features"] == 0 and seg.vocabulary == "abc"
    with pytest.raises(SegvizError, match="n_features"):
        seg.fit(train, held)
    with pytest.raises(SegvizError, match="stopping"):
        Segmenter(stopping="never").fit(train, held)
    with pytest.raises(SegvizError, match="templates"):
        Segmenter(templates="nope").fit(train, held)
    with pytest.raises(SegvizError, match="no parameter"):
        Segmenter().set_params(n_feature=3)
    with pytest.raises(SegvizError, match="decision rule"):
        Segmenter(rule="length_prior").fit(train, held)
    # the settings that became rules and families are no parameters any more
    for gone in ("use_relevance", "cohesion", "peer_evidence", "alphas", "epsilons", "decision_rule",
                 "length_shapes", "length_biases"):
        with pytest.raises(SegvizError, match="no parameter"):
            Segmenter().set_params(**{gone: None})
        with pytest.raises(TypeError):
            Segmenter(**{gone: None})
    # a rule is a nested estimator: deep parameters, set_params through it, repr of the non-defaults
    seg = Segmenter(n_features=3, rule=ThresholdRule(alpha=0.3, epsilons=(1, 2)))
    params = seg.get_params(deep=True)
    assert params["rule__alpha"] == 0.3 and params["rule__epsilons"] == (1, 2) and params["n_features"] == 3
    assert "rule__alpha" not in seg.get_params(deep=False)
    seg.set_params(rule__alpha=0.6, families=("vocabulary",))
    assert seg.rule.alpha == 0.6 and seg.families == ("vocabulary",)
    assert repr(seg) == ("Segmenter(families=('vocabulary',), n_features=3, "
                         "rule=ThresholdRule(alpha=0.6, epsilons=(1, 2)))")
    with pytest.raises(SegvizError, match="not an estimator"):
        Segmenter().set_params(mu__x=1)


def test_predict_proba_score_and_heldout_stopping(sample, trained):
    seg, _ = trained
    train, held = sample
    proba = seg.predict_proba(held)
    assert proba.shape == (held.n_sentences,) and proba[0] == 1.0
    np.testing.assert_allclose(proba[1:], seg.boundary_probabilities(held))
    scores = seg.score(held)
    assert set(scores) == {"p_mu", "p_k", "window_diff", "precision", "recall", "f1"}
    assert scores["p_mu"] == pytest.approx(metrics.p_mu(held.masses(), stream_masses(seg.predict(held))))
    assert scores["p_k"] == pytest.approx(metrics.p_k(held.masses(), stream_masses(seg.predict(held))))
    # two documents (source units) are each segmented on their own: 1.0 at each first sentence, the masses of
    # each as the model gives them for that document alone, and no segment across the edge
    n = len(train)
    first, second = train[:n // 2], held
    both = Corpus(list(first) + list(second), name="two files",
                  files=["a.sgm"] * len(first) + ["b.sgm"] * len(second))
    assert len(both.by_file()) == 2
    proba = seg.predict_proba(both)
    assert proba.shape == (both.n_sentences,)
    assert proba[0] == 1.0 and proba[first.n_sentences] == 1.0
    np.testing.assert_allclose(proba[1:first.n_sentences], seg.boundary_probabilities(first))
    np.testing.assert_allclose(proba[first.n_sentences + 1:], seg.boundary_probabilities(second))
    assert seg.predict(both) == seg.predict(first) + seg.predict(second)
    stopped = Segmenter(n_features=8, vocabulary=2000, stopping="heldout").fit(train, held)
    best = int(np.argmax([h["heldout_p_mu"] for h in stopped.history_])) + 1
    assert len(stopped.features_) == best and stopped.info_["rounds_kept"] == best


def test_relevance_model_needs_lms(sample):
    train, held = sample
    rng = np.random.default_rng(0)
    # hand-build a model asking a relevance question, without LMs
    from segviz.features import IntervalQuestion, Window
    f = IntervalQuestion("relevance", Window("sentence", 0, 1), low=-1.0, high=0.0)
    bad = Segmenter.from_weights([f], [1.0], prior=0.2, mu=0.1, rule=ThresholdRule(alpha=0.5, epsilon=1))
    with pytest.raises(SegvizError, match="language models"):
        bad.predict(held)
    rel = rng.normal(size=held.n_sentences)
    applied = bad.apply(held, relevance=rel)
    assert sum(applied.masses()) == held.n_sentences
    assert (applied.rule.alpha, applied.rule.epsilon) == (0.5, 1)
    # from_weights: the threshold rule at 0.5/1 by default; an open length prior takes 1/mu as its mean
    plain = Segmenter.from_weights([f], [1.0], prior=0.2, mu=0.1)
    assert (plain.rule_.alpha, plain.rule_.epsilon) == (0.5, 1)
    lp = Segmenter.from_weights([f], [1.0], prior=0.2, mu=0.1, rule=LengthPriorRule())
    assert lp.rule_.mean_length == pytest.approx(10.0) and lp.mean_length_ == pytest.approx(10.0)
    with pytest.raises(SegvizError, match="alpha"):
        Segmenter.from_weights([f], [1.0], prior=0.2, mu=0.1, rule=ThresholdRule(alpha=2.0))


@pytest.mark.slow
def test_cli_train_segment_evaluate(sample, tmp_path, capsys):
    model = tmp_path / "model.segviz"
    rc = main(["train", str(SAMPLE), "--heldout", str(SAMPLE), "--families", "vocabulary,cohesion", "--features",
               "3", "--vocabulary", "300", "--out", str(model), "--quiet"])
    assert rc == 0 and model.exists()
    trained = Segmenter.load(model)
    assert trained.info_["families"] == ["vocabulary", "cohesion"] and isinstance(trained.rule_, ThresholdRule)
    out = tmp_path / "seg.ref"
    assert main(["segment", "--model", str(model), str(SAMPLE), "-o", str(out), "--quiet"]) == 0
    text = out.read_text()
    assert text.startswith("==========") and text.rstrip().endswith("==========")
    assert text.count("==========") == len(stream_masses(trained.predict(read_corpus(SAMPLE)))) + 1
    capsys.readouterr()
    assert main(["evaluate", "--model", str(model), str(SAMPLE), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for row in ("model", "random", "all", "none", "even"):
        assert {"p_mu", "p_k", "precision", "recall", "f1"} <= set(payload[row])
    assert payload["model"]["p_mu"] == pytest.approx(trained.score(read_corpus(SAMPLE))["p_mu"])
    assert main(["segment", "--model", str(tmp_path / "missing.segviz"), str(SAMPLE)]) == 2
    assert "segviz: error:" in capsys.readouterr().err
    # the removed forms: a model given as the first corpus, and the dropped training switches
    assert main(["segment", str(model), str(SAMPLE), "--quiet"]) == 2
    assert "model.segviz: looks like a binary file, not a text corpus" in capsys.readouterr().err
    assert main(["train", str(SAMPLE), "--no-relevance", "--out", str(tmp_path / "x.segviz")]) == 2
    assert "unrecognized arguments: --no-relevance" in capsys.readouterr().err


def test_cli_reproduce_smoke(tmp_path, capsys):
    """The Reuters protocol end to end on a fake data directory made of the bundled sample."""
    if not SAMPLE.exists():
        pytest.skip("bundled sample corpus absent")
    data = tmp_path / "data" / "reuters21578"
    data.mkdir(parents=True)
    raw = SAMPLE.read_bytes()
    small = data / "small.sgm"
    cut = raw.index(b"</REUTERS>", len(raw) // 5) + len(b"</REUTERS>")  # ~60 stories keep the test fast
    small.write_bytes(raw[:cut] + b"\n")
    for i in range(22):
        (data / f"reut2-{i:03d}.sgm").symlink_to(small)
    out = tmp_path / "out"
    rc = main(["reproduce", "reuters", "--data", str(tmp_path / "data"), "--families", "vocabulary,cohesion",
               "--features", "2", "--vocabulary", "200", "--out", str(out), "--json"])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)["reuters"]
    assert {"model", "random", "all", "none", "even"} <= set(res["table"])
    assert len(res["features"]) == 2 and (out / "reuters-model.segviz").is_file()
    stopped = any(k.startswith("model@") for k in res["table"])
    assert (out / "reuters-model-heldout-stop.segviz").is_file() == stopped
    if stopped:
        assert len(Segmenter.load(out / "reuters-model-heldout-stop.segviz").features_) < 2
    assert (out / "reproduce.txt").read_text().count("e^lambda") == 2
    assert main(["reproduce", "choi", "--data", str(tmp_path / "data")]) == 2  # no choi2000 there
    assert "choi2000" in capsys.readouterr().err


def test_both_decision_rules_are_tuned_saved_and_selectable(trained, sample, tmp_path):
    seg, _ = trained
    _, held = sample
    assert seg.rule is None and isinstance(seg.rule_, ThresholdRule)    # None: the paper's rule
    reference = held.masses()
    assert seg.info_["tuned_score"] == pytest.approx(
        metrics.p_mu(reference, stream_masses(seg.predict(held)), seg.mu_))
    # the length-prior rule tuned on the same held-out data (its mean length: the training mean)
    lp = seg.with_tuned_rule(LengthPriorRule(shapes=(1.0, 4.0), biases=(-1.0, 0.0, 1.0)), held)
    assert isinstance(lp.rule_, LengthPriorRule) and lp.rule_.mean_length == pytest.approx(seg.mean_length_)
    assert lp.info_["tuning"] == "p_mu, stream" and lp.info_["rule"] == lp.rule_.describe()
    assert lp.info_["tuned_score"] == pytest.approx(
        metrics.p_mu(reference, stream_masses(lp.predict(held)), seg.mu_))
    brute = max(metrics.p_mu(reference, stream_masses(seg.with_rule(LengthPriorRule(shape=k, bias=b)).predict(held)),
                             seg.mu_) for k in (1.0, 4.0) for b in (-1.0, 0.0, 1.0))
    assert lp.info_["tuned_score"] == pytest.approx(brute)
    assert isinstance(seg.rule_, ThresholdRule) and seg.info_["rule"].startswith("threshold")   # seg untouched
    np.testing.assert_allclose(lp.boundary_probabilities(held), seg.boundary_probabilities(held))
    # saved and read back with its rule
    path = tmp_path / "m.segviz"
    lp.save(path)
    back = Segmenter.load(path)
    assert back.rule_.to_dict() == lp.rule_.to_dict()
    assert back.predict(held) == lp.predict(held)
    # selectable on any fitted segmenter: with_rule replaces the rule and leaves the model
    assert seg.with_rule(lp.rule_).predict(held) == lp.predict(held)
    assert back.with_rule(seg.rule_).predict(held) == seg.predict(held)
    count = seg.with_rule(SegmentCountRule(segments=7))
    assert [len(m) for m in count.predict(held)] == [7]
    with pytest.raises(SegvizError, match="decision rule"):
        seg.with_rule("magic")
    with pytest.raises(SegvizError, match="no expert"):
        seg.with_rule(ThresholdRule(), expert="excerpts")


def test_fit_tunes_the_rule_it_is_given(sample):
    train, held = sample
    seg = Segmenter(n_features=3, vocabulary=500, families=("vocabulary",),
                    rule=LengthPriorRule(shapes=(2.0,), biases=(0.0, 1.0)))
    events = list(seg.fit_iter(train, held))
    added = [e for e in events if isinstance(e, FeatureAdded)]
    assert all(e.heldout_p_mu is not None for e in added)       # each round still scored by the threshold grid
    assert isinstance(seg.rule_, LengthPriorRule) and seg.rule_.mean_length == pytest.approx(seg.mean_length_)
    assert seg.rule_.shape == 2.0 and seg.rule_.bias in (0.0, 1.0)
    assert seg.rule.mean_length is None                         # the parameter is stored verbatim
    assert seg.info_["families"] == ["vocabulary"]


def test_a_fit_records_its_words_per_sentence_for_a_rule_in_words(tmp_path):
    """fit measures the training corpus's mean words per sentence; a length prior in words takes it (and the
    mean length) where left open, keeps it through a save, and a rule given later gets it too."""
    from segviz import load_model
    from segviz.rules import document_sizes

    choi = sorted((ROOT / "sample_corpora" / "choi").glob("*.ref"))
    train, held = read_corpus(choi[:3]), read_corpus(choi[3:])
    words = LengthPriorRule(unit="words", shapes=(2.0, 4.0), biases=(0.0, 2.0, 4.0))
    seg = Segmenter(families=("cohesion", "shape"), n_features=3, rule=words, tuning_units="per-document",
                    tuning_metric="p_k").fit(train, held)
    wps = float(document_sizes(train.sentences()).sum()) / train.n_sentences
    assert seg.words_per_sentence_ == pytest.approx(wps)
    assert seg.rule_.unit == "words" and seg.rule_.words_per_sentence == pytest.approx(wps)
    assert seg.rule_.mean_length == pytest.approx(seg.mean_length_)
    path = tmp_path / "w.segviz"
    seg.save(path)
    back = load_model(path)
    assert back.rule_.to_dict() == seg.rule_.to_dict() and back.words_per_sentence_ == pytest.approx(wps)
    assert back.predict(held) == seg.predict(held)
    # a rule in words given to a fitted model takes the training means
    other = back.with_rule(LengthPriorRule(unit="words", shape=2.0, bias=1.0))
    assert other.rule_.words_per_sentence == pytest.approx(wps)
    # a model that records no training words per sentence cannot take one: said when the rule is given
    bare = Segmenter.from_weights([], [], prior=0.1, mu=0.1)
    with pytest.raises(SegvizError, match="words per sentence"):
        bare.with_rule(LengthPriorRule(unit="words"))
    with pytest.raises(SegvizError, match="words per sentence"):
        Segmenter.from_weights([], [], prior=0.1, mu=0.1, rule=LengthPriorRule(unit="words"))
    for unit in held.by_file():
        q = other.boundary_probabilities(unit)
        want = other.rule_.decide(q, document_sizes(unit.sentences()))
        np.testing.assert_array_equal(other.decide(q, unit), want)
