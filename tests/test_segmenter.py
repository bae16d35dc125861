"""The Segmenter estimator and its CLI: training on the bundled sample, save/load, step-by-step induction."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from segviz import metrics
from segviz.cli import main
from segviz.corpus import read_corpus
from segviz.errors import SegvizError
from segviz.induction import FeatureAdded, InductionFinished
from segviz.bundle import read_bundle
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
    assert 0 < seg.alpha_ < 1 and seg.epsilon_ >= 1
    train, held = sample
    assert seg.prior_ == pytest.approx((len(train) - 1) / (train.n_sentences - 1))
    # the segmentation respects the rule, and beats "none" on the held-out stream
    probs = seg.boundary_probabilities(held)
    assert probs.shape == (held.n_sentences - 1,)
    masses = seg.predict(held)
    assert sum(masses) == held.n_sentences
    b = np.cumsum(masses)[:-1]
    assert np.all(probs[b - 1] > seg.alpha_)
    assert np.all(np.diff(b) >= seg.epsilon_)
    assert metrics.p_mu(held.masses(), masses) > metrics.p_mu(held.masses(), (held.n_sentences,))
    # truncation restores an earlier round's weights (the held-out stopping rule)
    t = seg.truncated(3, heldout=held)
    assert len(t.features_) == 3
    np.testing.assert_allclose(t.weights_, added[2].weights)
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
    assert d["format"] == "segviz-segmenter" and d["version"] == 1
    assert d["lm_sha256"] is None and len(d["features"]) == 8
    back = Segmenter.load(path)
    assert back.predict(held) == seg.predict(held)
    np.testing.assert_allclose(back.boundary_probabilities(held), seg.boundary_probabilities(held))
    # the earlier one-JSON layout still loads
    path = tmp_path / "m.json"
    path.write_text(json.dumps(d))
    assert Segmenter.load(path).predict(held) == seg.predict(held)
    d["version"] = 99
    path.write_text(json.dumps(d))
    with pytest.raises(SegvizError, match="version"):
        Segmenter.load(path)
    path.write_text('{"format": "something-else"}')
    with pytest.raises(SegvizError, match="not a segviz-segmenter"):
        Segmenter.load(path)


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
            assert (seg.alpha_, seg.epsilon_) == (event.heldout_alpha, event.heldout_epsilon)
            assert sum(seg.predict(held)) == held.n_sentences
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


def test_predict_proba_score_and_heldout_stopping(sample, trained):
    seg, _ = trained
    train, held = sample
    proba = seg.predict_proba(held)
    assert proba.shape == (held.n_sentences,) and proba[0] == 1.0
    np.testing.assert_allclose(proba[1:], seg.boundary_probabilities(held))
    scores = seg.score(held)
    assert set(scores) == {"p_mu", "p_k", "window_diff", "precision", "recall", "f1"}
    assert scores["p_mu"] == pytest.approx(metrics.p_mu(held.masses(), seg.predict(held)))
    stopped = Segmenter(n_features=8, vocabulary=2000, stopping="heldout").fit(train, held)
    best = int(np.argmax([h["heldout_p_mu"] for h in stopped.history_])) + 1
    assert len(stopped.features_) == best and stopped.info_["rounds_kept"] == best


def test_relevance_model_needs_lms(sample):
    train, held = sample
    rng = np.random.default_rng(0)
    # hand-build a model asking a relevance question, without LMs
    from segviz.features import IntervalQuestion, Window
    f = IntervalQuestion("relevance", Window("sentence", 0, 1), low=-1.0, high=0.0)
    bad = Segmenter.from_weights([f], [1.0], prior=0.2, alpha=0.5, epsilon=1, mu=0.1)
    with pytest.raises(SegvizError, match="language models"):
        bad.predict(held)
    rel = rng.normal(size=held.n_sentences)
    assert sum(bad.predict(held, relevance=rel)) == held.n_sentences


def test_cli_train_segment_evaluate(sample, tmp_path, capsys):
    model = tmp_path / "model.json"
    rc = main(["train", str(SAMPLE), "--heldout", str(SAMPLE), "--no-relevance", "--features", "3",
               "--vocabulary", "300", "--out", str(model), "--quiet"])
    assert rc == 0 and model.exists()
    out = tmp_path / "seg.ref"
    assert main(["segment", str(model), str(SAMPLE), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("==========") and text.rstrip().endswith("==========")
    capsys.readouterr()
    assert main(["evaluate", str(model), str(SAMPLE), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for row in ("model", "random", "all", "none", "even"):
        assert {"p_mu", "p_k", "precision", "recall", "f1"} <= set(payload[row])
    assert main(["segment", str(tmp_path / "missing.json"), str(SAMPLE)]) == 2
    assert "segviz: error:" in capsys.readouterr().err


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
    rc = main(["reproduce", "reuters", "--data", str(tmp_path / "data"), "--no-relevance", "--features", "2",
               "--vocabulary", "200", "--out", str(out), "--json"])
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
    assert seg.decision_rule == "threshold" and seg.length_shape_ > 0
    assert seg.info_["tuned_p_mu_length_prior"] == pytest.approx(
        metrics.p_mu(held.masses(), seg.predict(held, rule="length_prior"), seg.mu_))
    assert seg.info_["tuned_p_mu"] == pytest.approx(metrics.p_mu(held.masses(), seg.predict(held), seg.mu_))
    path = tmp_path / "m.segviz"
    seg.save(path)
    back = Segmenter.load(path)
    assert (back.length_shape_, back.length_bias_) == (seg.length_shape_, seg.length_bias_)
    assert back.predict(held, rule="length_prior") == seg.predict(held, rule="length_prior")
    back.set_params(decision_rule="length_prior")
    assert back.predict(held) == seg.predict(held, rule="length_prior")
    with pytest.raises(SegvizError, match="decision rule"):
        seg.predict(held, rule="magic")
