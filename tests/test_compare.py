"""The comparison harness and ``segviz compare``."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from segviz.baselines import BASELINES
from segviz.cli import main
from segviz.corpus import Corpus, Document, read_corpus
from segviz.errors import SegvizError
from segviz.evaluation import compare_segmenters
from segviz.events import Progress
from segviz.metrics import p_k
from segviz.model_protocol import AppliedDocument, SegmentationModel, stream_masses
from segviz.peers.c99 import C99
from segviz.rules import SegmentCountRule, ThresholdRule
from segviz.segmenter import Segmenter
from tests.drive import events_and_value
from tests.stub_models import OneRuleModel

SAMPLE = Path(__file__).resolve().parents[1] / "sample_corpora" / "choi"


def _corpus(n_files=3, seed=0):
    rng = np.random.default_rng(seed)
    docs, files = [], []
    for f in range(n_files):
        for t in range(4):
            vocab = [f"f{f}t{t}w{i}" for i in range(10)]
            sents = tuple(tuple(rng.choice(vocab, 7)) for _ in range(int(rng.integers(4, 8))))
            docs.append(Document(name=f"file{f}#seg{t}", sentences=sents, texts=tuple(" ".join(s) for s in sents)))
            files.append(f"file{f}")
    return Corpus(docs, name="synthetic", files=files)




def test_per_document_rows_are_means_over_files():
    corpus = _corpus()
    events, cmp = events_and_value(compare_segmenters(corpus))
    assert events == [Progress("compare", i, 3) for i in range(4)]
    assert cmp.evaluation == "per-document" and len(cmp.units) == 3
    assert cmp.segmenters == ["texttiling", "c99", *BASELINES]
    rows = cmp.rows
    expected = np.mean([p_k(part.masses(), C99().segment(part.sentences())) for part in corpus.by_file()])
    assert rows["c99"]["p_k"] == pytest.approx(expected)
    assert rows["all"]["hypothesis_segments"] == corpus.n_sentences
    assert rows["none"]["hypothesis_segments"] == 3
    for row in rows.values():
        assert row["units"] == 3 and row["skipped"] == 0
        assert row["seconds_per_1000_sentences"] >= 0


def test_stream_evaluation_is_one_unit():
    corpus = _corpus()
    _, cmp = events_and_value(compare_segmenters(corpus, evaluation="stream", peers=["c99"], baselines=["none"]))
    assert cmp.units == ["synthetic"] and cmp.segmenters == ["c99", "none"]
    assert cmp.rows["none"]["hypothesis_segments"] == 1
    assert cmp.rows["c99"]["p_k"] == pytest.approx(p_k(corpus.masses(), C99().segment(corpus.sentences())))


def test_a_segmenter_that_cannot_run_is_reported_as_skipped():
    corpus = _corpus()
    _, cmp = events_and_value(compare_segmenters(corpus, evaluation="stream", peers=["c99"], baselines=[],
                                     peer_params={"c99": {"max_sentences": 10}}))
    row = cmp.rows["c99"]
    assert row["skipped"] == 1 and row["p_k"] is None and "max_sentences" in row["errors"][0]
    payload = cmp.to_json()
    json.dumps(payload, allow_nan=False)
    assert payload["format"] == "segviz-compare" and payload["version"] == 1


class Oracle(OneRuleModel):
    """A model (the model protocol) that knows the reference: q(yes) = 1 at its boundaries, 0 elsewhere."""

    def apply(self, document, *, n_jobs=1):
        probabilities = np.zeros(document.n_sentences - 1)
        probabilities[np.cumsum(document.masses())[:-1] - 1] = 1.0
        return AppliedDocument(probabilities, self.rule_for(document), self.expert_for(document), self)


def test_model_is_run_like_any_segmenter():
    assert isinstance(Oracle(), SegmentationModel)
    _, cmp = events_and_value(compare_segmenters(_corpus(), model=Oracle(), peers=[], baselines=["none"]))
    assert cmp.segmenters == ["model", "none"]
    assert cmp.rows["model"]["p_k"] == 0.0 and cmp.rows["model"]["f1"] == 1.0
    _, cmp = events_and_value(compare_segmenters(_corpus(), model=Oracle(), model_name="oracle", baselines=[]))
    assert cmp.segmenters == ["oracle", "texttiling", "c99"]
    with pytest.raises(SegvizError, match="clashes"):
        next(compare_segmenters(_corpus(), model=Oracle(), model_name="c99"))
    # a plain function of a corpus part is a model too
    _, cmp = events_and_value(compare_segmenters(_corpus(), model=lambda part: part.masses(), peers=[],
                                                 baselines=[]))
    assert cmp.rows["model"]["p_k"] == 0.0


def test_a_model_segments_each_document_of_a_stream_on_its_own():
    """Scored as one stream, a model still segments each document (source unit) on its own: a document edge is
    always a boundary, so a model that proposes none inside documents gets exactly the documents."""
    corpus = _corpus()
    never = Segmenter.from_weights([], [], prior=0.01, mu=0.2)          # q(yes) = 0.01: no boundary inside
    _, cmp = events_and_value(compare_segmenters(corpus, model=never, evaluation="stream", peers=[], baselines=[]))
    assert cmp.rows["model"]["hypothesis_segments"] == len(corpus.by_file()) == 3
    assert stream_masses(never.predict(corpus)) == tuple(u.n_sentences for u in corpus.by_file())


def test_bad_arguments():
    with pytest.raises(SegvizError, match="evaluation"):
        next(compare_segmenters(_corpus(), evaluation="bogus"))
    with pytest.raises(SegvizError, match="unknown peer"):
        next(compare_segmenters(_corpus(), peers=["nope"]))
    with pytest.raises(SegvizError, match="nothing to compare"):
        next(compare_segmenters(_corpus(), peers=[], baselines=[]))
    tiny = Corpus([Document("d", (("a",), ("b",)), ("a", "b"))], name="tiny")
    with pytest.raises(SegvizError, match="more than 2 sentences"):
        next(compare_segmenters(tiny))


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="needs sample_corpora/choi")
def test_cli_json_and_table(capsys):
    path = str(SAMPLE / "3-11_0.ref")
    assert main(["compare", path, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["evaluation"] == "per-document" and payload["units"] == 1
    assert set(payload["rows"]) == {"default model", "texttiling", "c99", *BASELINES}   # the bundled model's row
    # P_k agrees with segeval's on the same masses (sanity check of the whole path)
    segeval = pytest.importorskip("segeval")
    corpus = read_corpus(path)
    hyp = C99().segment(corpus.sentences())
    assert payload["rows"]["c99"]["p_k"] == pytest.approx(float(segeval.pk(hyp, corpus.masses())))
    assert main(["compare", path, "--stream", "--peers", "texttiling", "--baselines", "none,even"]) == 0
    out = capsys.readouterr().out
    assert "stream" in out and "texttiling" in out and "even" in out and "c99" not in out
    assert "s / 1k sent." in out


def test_cli_errors_are_one_line(capsys, tmp_path):
    assert main(["compare", str(tmp_path / "missing.ref")]) == 2
    assert main(["compare", str(SAMPLE), "--peers", "bogus"]) == 2
    assert main(["compare", str(SAMPLE), "--model", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert "segviz: error:" in err and "Traceback" not in err and "unknown peer bogus" in err and "model file not found" in err


# ------------------------------------------------------------------ score tables (segviz.evaluation)

def test_macro_average_is_equal_weight_per_unit_and_sums_segments():
    from segviz.evaluation import RATE_KEYS, average_rows, macro_average
    from segviz.metrics import score_row

    a = score_row((3, 3), (6,))
    b = score_row((2, 2, 2, 2), (2, 2, 2, 2))
    avg = macro_average([a, b])
    for key in RATE_KEYS:
        assert avg[key] == pytest.approx((a[key] + b[key]) / 2)
    assert avg["hypothesis_segments"] == 5
    assert average_rows([{"x": a}, {"x": b}]) == {"x": avg}
    with pytest.raises(SegvizError, match="nothing to average"):
        macro_average([])


def test_comparison_rows_use_the_same_average_as_tables():
    from segviz.evaluation import average_rows, score_segmenters
    from segviz.metrics import score_row

    corpus = _corpus()
    cmp = score_segmenters(corpus, peers=["c99"], baselines=["even"])
    by_hand = average_rows([{"c99": score_row(u.masses(), C99().segment(u.sentences()))} for u in corpus.by_file()])
    assert cmp.score_rows["c99"] == pytest.approx(by_hand["c99"])
    assert set(cmp.score_rows["c99"]) == {"hypothesis_segments", "p_mu", "p_k", "window_diff", "precision",
                                          "recall", "f1"}


def test_model_rows_is_the_papers_table():
    from segviz.evaluation import baseline_rows, model_rows
    from segviz.metrics import score_row

    halves = Segmenter.from_weights([], [], prior=0.3, mu=0.2, rule=SegmentCountRule(segments=2))
    corpus = _corpus(n_files=1)
    rows = model_rows(halves, corpus)
    ref = corpus.masses()
    assert list(rows) == ["model", *BASELINES]
    [masses] = halves.predict(corpus)
    assert len(masses) == 2 and rows["model"]["hypothesis_segments"] == 2
    assert rows["model"] == pytest.approx(score_row(ref, masses))
    for name, row in baseline_rows(ref).items():
        assert rows[name] == pytest.approx(row)
    # another rule: the model with that rule (alpha 1: no boundary)
    assert model_rows(halves.with_rule(ThresholdRule(alpha=1.0)), corpus)["model"]["hypothesis_segments"] == 1


def test_several_models_side_by_side_and_name_clashes():
    from segviz.evaluation import score_segmenters

    corpus = _corpus()
    cmp = score_segmenters(corpus, models={"oracle": lambda part: part.masses(), "one": lambda p: (p.n_sentences,)},
                           peers=[], baselines=["none"])
    assert cmp.segmenters == ["oracle", "one", "none"]
    assert cmp.rows["one"]["p_k"] == pytest.approx(cmp.rows["none"]["p_k"])
    with pytest.raises(SegvizError, match="two models"):
        score_segmenters(corpus, model=lambda p: p.masses(), models={"model": lambda p: p.masses()})


# ------------------------------------------------------------------------ segviz evaluate --model

@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    out = tmp_path_factory.mktemp("model") / "tiny.seg"   # no .segviz suffix: content decides, not the name
    assert main(["train", str(SAMPLE), "--heldout", str(SAMPLE), "--families", "vocabulary,cohesion", "--features",
                 "2", "--vocabulary", "200", "--out", str(out), "--quiet", "--show", "0"]) == 0
    return out


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="needs sample_corpora/choi")
def test_evaluate_model_and_the_removed_model_first_form(tiny_model, capsys):
    assert main(["evaluate", "--model", str(tiny_model), str(SAMPLE), "--json"]) == 0
    out = capsys.readouterr()
    explicit = json.loads(out.out)
    assert "deprecated" not in out.err
    assert list(k for k, v in explicit.items() if isinstance(v, dict)) == ["model", *BASELINES]
    model = Segmenter.load(tiny_model)
    corpus = read_corpus(SAMPLE)
    assert explicit["model"]["p_k"] == pytest.approx(model.score(corpus)["p_k"])
    assert [d["rule"] for d in explicit["documents"]] == [model.rule_.describe()] * len(corpus.by_file())
    # `evaluate MODEL CORPUS` is gone: two paths are a reference and a hypothesis, and a model is no corpus
    assert main(["evaluate", str(tiny_model), str(SAMPLE), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip().endswith(f"{tiny_model}: looks like a binary file, not a text corpus")
    # alpha 1: no boundary inside any document; each of the 5 files is still one segment of its own
    assert main(["evaluate", "--model", str(tiny_model), str(SAMPLE), "--alpha", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model"]["hypothesis_segments"] == len(corpus.by_file()) == 5


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="needs sample_corpora/choi")
def test_evaluate_does_not_decide_by_suffix(tmp_path, capsys):
    ref = SAMPLE / "3-11_1.ref"
    renamed = tmp_path / "reference.json"       # a corpus that happens to be called .json
    renamed.write_bytes(ref.read_bytes())
    assert main(["evaluate", str(renamed), str(ref), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hypothesis"]["p_mu"] == pytest.approx(1.0)
    assert main(["evaluate", str(ref)]) == 2
    assert "REF_CORPUS HYP_CORPUS" in capsys.readouterr().err
    assert main(["evaluate", str(ref), str(ref), "--alpha", "0.5"]) == 2
    assert "apply to a model" in capsys.readouterr().err
