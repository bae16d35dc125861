"""One model, one rule: a segmenter and a router answer the same protocol, and the command line, Python and the
app segment the same text identically (the bundled default model on a Choi document, the Reuters sample and a
raw novel)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from segviz import ExpertRouter, LengthPriorRule, SegmentationModel, Segmenter, ThresholdRule, load_model, read_corpus
from segviz.model_protocol import stream_masses
from segviz.segmented import segment_documents

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
SAMPLE = ROOT / "sample_corpora" / "reuters_sample.sgm"
NOVEL = ROOT.parent / "shared" / "corpora" / "gutenberg_novels" / "35_the-time-machine.txt"


def _router():
    short = Segmenter.from_weights([], [], prior=0.3, mu=0.2, rule=ThresholdRule(alpha=0.2, epsilon=2))
    long = Segmenter.from_weights([], [], prior=0.01, mu=0.02, rule=LengthPriorRule(shape=2.0, bias=0.0))
    router = ExpertRouter(experts=[("short", short), ("long", long)], gauges=["short"])
    router.thresholds_, router.tuning_, router.info_ = [4.0], {}, {}
    return router


def test_both_kinds_answer_the_protocol():
    router = _router()
    segmenter = router.experts_["short"]
    for model in (segmenter, router):
        assert isinstance(model, SegmentationModel)
    corpus = read_corpus([CHOI, SAMPLE])
    for model in (segmenter, router):
        per_document = model.predict(corpus)
        units = corpus.by_file()
        assert len(per_document) == len(units) == 2
        assert [sum(m) for m in per_document] == [u.n_sentences for u in units]
        for unit, masses in zip(units, per_document):
            applied = model.apply(unit)
            assert applied.masses() == masses
            np.testing.assert_array_equal(model.decide(applied.probabilities, unit), applied.boundaries())
        proba = model.predict_proba(corpus)
        assert proba.shape == (corpus.n_sentences,) and proba[0] == 1.0 and proba[units[0].n_sentences] == 1.0
        assert set(model.score(corpus)) >= {"p_mu", "p_k", "window_diff"}


def test_the_accessors_answer_by_segmenter_name_for_both_kinds():
    """What a caller may know of the segmenters inside a model -- rules, language models, features, training
    lengths, provenance -- by name, the same from a lone segmenter and from a router of it."""
    router = _router()
    short = router.segmenters()["short"]
    accessors = ("rules", "language_models", "features", "training_lengths", "provenance")
    for accessor in accessors:
        mine, routed = getattr(short, accessor)(), getattr(router, accessor)()
        assert list(mine) == ["model"] and list(routed) == ["short", "long"]
        assert accessor == "features" or routed["short"] == mine["model"]   # (features hold arrays)
    assert router.features()["short"].specs == short.features()["model"].specs
    choi = read_corpus(CHOI)
    assert router.rules()[router.expert_for(choi)] is router.rule_for(choi) is router.apply(choi).rule
    assert short.training_lengths()["model"].mean_length == pytest.approx(5.0)     # 1 / mu
    induced = router.features()["short"]
    assert len(induced) == 0 and induced.weights.shape == (0,) and induced.lambda_max == short.lambda_max
    assert short.expert_for() == "model" and router.decision_list() == [("short", "short", 4.0)]
    with pytest.raises(TypeError):   # an abstract base: a model implements the accessors, or is not one
        type("Half", (SegmentationModel,), {"apply": lambda self, d, n_jobs=1: None})()


def test_a_router_routes_each_document_and_keeps_each_experts_rule():
    router = _router()
    corpus = read_corpus([CHOI, SAMPLE])
    choi, reuters = corpus.by_file()
    routes = [router.route(u).expert for u in (choi, reuters)]
    # the short expert expects a segment every 1 / 0.3 sentences everywhere: it claims both (threshold 4)
    assert routes == ["short", "short"]
    router.thresholds_ = [1.0]
    assert router.route(choi).expert == "long"
    applied = router.apply(choi)
    assert isinstance(applied.rule, LengthPriorRule) and applied.segmenter is router.experts_["long"]
    # with_rule replaces one expert's rule, or every expert's
    one = router.with_rule(ThresholdRule(alpha=0.001, epsilon=1), expert="long")
    assert isinstance(one.experts_["short"].rule_, ThresholdRule) and one.experts_["long"].rule_.alpha == 0.001
    assert isinstance(router.experts_["long"].rule_, LengthPriorRule)   # the original is untouched
    every = router.with_rule(ThresholdRule(alpha=0.9))
    assert all(seg.rule_.alpha == 0.9 for seg in every.segmenters().values())


def test_a_router_saved_and_loaded_stays_a_router(tmp_path):
    router = _router()
    path = router.save(tmp_path / "r.segviz")
    back = load_model(path)
    assert list(back.segmenters()) == ["short", "long"] and back.thresholds_ == router.thresholds_
    corpus = read_corpus([CHOI, SAMPLE])
    assert back.predict(corpus) == router.predict(corpus)


def _segment_cli(paths, out):
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "segviz", "segment", *map(str, paths), "-o", str(out), "--quiet"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in Path(out).read_text().splitlines()]


def _spans(rows):
    return [(r["document"], r["start"], r["end"]) for r in rows]


@pytest.mark.slow
@pytest.mark.skipif(not NOVEL.is_file(), reason="needs ../shared/corpora/gutenberg_novels (a raw novel)")
def test_cli_python_and_app_segment_alike(tmp_path):
    """segment -o x.jsonl, load_model().predict(read_corpus(...)) and gui --export-segments: the same segments
    on a Choi document, the Reuters sample and a raw novel; the app shows the novel's boundaries."""
    paths = [CHOI, SAMPLE, NOVEL]
    cli = _segment_cli(paths, tmp_path / "cli.jsonl")
    model = load_model()
    corpus = read_corpus(paths)
    predicted = model.predict(corpus)
    starts = []
    for unit, masses in zip(corpus.by_file(), predicted):
        at = 0
        for m in masses:
            starts.append((unit.name, at, at + m))
            at += m
    assert _spans(cli) == starts
    documents = segment_documents(model, corpus)
    assert [d.masses for d in documents] == predicted
    novel = documents[-1]
    assert novel.expert == "chapters" and len(novel.masses) > 1   # the novel's boundaries, not zero
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = tmp_path / "gui.jsonl"
    proc = subprocess.run([sys.executable, "-m", "segviz", "gui", *map(str, paths), "--export-segments", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    gui = [json.loads(line) for line in out.read_text().splitlines()]
    assert gui == cli


@pytest.mark.slow
def test_a_rule_that_measures_segments_in_words_segments_alike_everywhere(tmp_path):
    """A model whose length prior measures segments in words decides by each sentence's size: the command line,
    Python and the app (whose window holds no tokens, only the sizes its engine sends) give the same segments,
    and they are not those of the same prior in sentences."""
    words = LengthPriorRule(shape=4.0, bias=0.0, unit="words", words_per_sentence=25.0)
    model = Segmenter.from_weights([], [], prior=0.02, mu=1 / 12, rule=words)
    assert model.rule_.mean_length == 12.0 and model.rule_.words_per_sentence == 25.0
    path = tmp_path / "words.segviz"
    model.save(path)
    paths = [CHOI, SAMPLE]
    corpus = read_corpus(paths)
    predicted = load_model(path).predict(corpus)
    assert predicted == model.predict(corpus)
    in_sentences = model.with_rule(LengthPriorRule(shape=4.0, bias=0.0)).predict(corpus)
    assert predicted != in_sentences
    proc = subprocess.run([sys.executable, "-m", "segviz", "segment", *map(str, paths), "--model", str(path), "-o",
                           str(tmp_path / "cli.jsonl"), "--quiet"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    cli = [json.loads(line) for line in (tmp_path / "cli.jsonl").read_text().splitlines()]
    assert [r["end"] - r["start"] for r in cli] == [m for masses in predicted for m in masses]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = tmp_path / "gui.jsonl"
    proc = subprocess.run([sys.executable, "-m", "segviz", "gui", *map(str, paths), "--model", str(path),
                           "--export-segments", str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in out.read_text().splitlines()] == cli


@pytest.mark.slow
def test_the_rule_options_replace_the_models_rule_and_say_so(tmp_path):
    out = tmp_path / "x.jsonl"
    proc = subprocess.run([sys.executable, "-m", "segviz", "segment", str(CHOI), str(SAMPLE), "-o", str(out),
                           "--segments", "4", "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [sum(1 for r in rows if r["document"] == name) for name in dict.fromkeys(r["document"] for r in rows)] \
        == [4, 4]
    notes = [line for line in proc.stderr.splitlines() if "replace the model's own decision rule" in line]
    assert len(notes) == 1 and "segment-count rule" in notes[0]
    proc = subprocess.run([sys.executable, "-m", "segviz", "segment", str(CHOI), "-o", str(out), "--alpha", "0.3",
                           "--segments", "3"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and proc.stderr.startswith("segviz: error:") and "one" in proc.stderr


#: the three ways a caller could test a model's kind
_KIND_TESTS = re.compile(r"\.experts_\b|isinstance\([^)]*ExpertRouter|hasattr\([^)]*[\"']route[\"']")


def test_no_caller_outside_the_model_layer_asks_which_kind_of_model_it_holds():
    model_layer = {"routing.py", "models.py", "model_protocol.py", "segmenter.py"}
    offenders = []
    for path in sorted((ROOT / "segviz").rglob("*.py")):
        if path.parent == ROOT / "segviz" and path.name in model_layer:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if _KIND_TESTS.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_stream_masses_lays_documents_end_to_end():
    assert stream_masses([(3, 2), (4,), (1, 1)]) == (3, 2, 4, 1, 1)
