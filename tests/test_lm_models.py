"""LanguageModels: training generator, persistence (round trip, corrupt/foreign files), CLI."""
from __future__ import annotations

import json

import numpy as np
import pytest

from segviz.cli import main
from segviz.errors import SegvizError
from segviz.events import Progress
from segviz.lm import LanguageModels


def sentences(seed=0, n=400):
    """Documents of 10 sentences about one of four topics, one topic word per sentence among common words:
    only a long-range model can know the topic."""
    rng = np.random.default_rng(seed)
    topics = [[f"{c}{i}" for i in range(5)] for c in "abcd"]
    common = ["the", "of", "said", "in", "."]
    out = []
    for _ in range(n // 10):
        topic = topics[int(rng.integers(0, 4))]
        for _ in range(10):
            s = [common[i] for i in rng.integers(0, 5, size=rng.integers(2, 7))]
            s.insert(int(rng.integers(0, len(s))), topic[int(rng.integers(0, 5))])
            out.append(s)
    return out


@pytest.fixture(scope="module")
def lms():
    model = LanguageModels(vocab_size=40, window=20, n_triggers=200, trigger_vocab=30, max_iter=4,
                           heldout_fraction=0.1)
    events = list(model.fit_iter(sentences()))
    assert any(isinstance(e, Progress) for e in events)
    return model


def test_training_learns_topic_triggers(lms):
    test = sentences(seed=1, n=200)
    result = lms.evaluate(test)
    assert set(result) == {"tokens", "oov_rate", "trigram_perplexity", "trigger_perplexity"}
    assert result["tokens"] == sum(len(s) + 1 for s in test)
    assert result["trigger_perplexity"] < 0.95 * result["trigram_perplexity"]
    top = [r for r in lms.trigger_.pairs_table(20) if r["exp_lambda"] > 1.5]
    assert len(top) >= 10
    assert all(r["s"][0] == r["t"][0] for r in top)  # strong pairs are within a topic


def _write_parts(path, documents, arrays):
    from segviz.bundle import write_bundle

    return write_bundle(path, "language-models", documents, arrays)


def test_save_load_round_trip(lms, tmp_path):
    path = lms.save(tmp_path / "lm.segviz-lm")
    assert path.is_file() and [p.name for p in tmp_path.iterdir()] == ["lm.segviz-lm"]   # one file, no temp left
    again = LanguageModels.load(path)
    test = sentences(seed=2, n=60)
    a, b = lms.score(test), again.score(test)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert again.trigger_.history_ == lms.trigger_.history_
    assert again.get_params() == lms.get_params()


def test_load_rejects_corrupt_foreign_and_old_layouts(lms, tmp_path):
    documents, arrays = lms.bundle_parts("lm")
    meta = documents["lm/models"]
    bad = tmp_path / "bad.segviz-lm"

    def refused(match, docs=None, arrs=None):
        _write_parts(bad, docs or documents, arrs or arrays)
        with pytest.raises(SegvizError, match=match):
            LanguageModels.load(bad)

    refused("version", docs={**documents, "lm/models": {**meta, "version": 99}})
    refused("not a segviz-language-models", docs={**documents, "lm/models": {**meta, "format": "something-else"}})
    short = {k: (v[:-1] if k.endswith("/uni_logp") else v) for k, v in arrays.items()}
    refused("wrong shape", arrs=short)
    nan = {k: (np.full_like(v, np.nan) if k.endswith("/uni_logp") else v) for k, v in arrays.items()}
    refused("not finite", arrs=nan)
    bad.write_bytes(lms.save(tmp_path / "good.segviz-lm").read_bytes()[:200])
    with pytest.raises(SegvizError):
        LanguageModels.load(bad)
    with pytest.raises(SegvizError, match="no such language-model file"):
        LanguageModels.load(tmp_path / "missing")
    (tmp_path / "text").write_text("hello")
    with pytest.raises(SegvizError, match="not a language-model file"):
        LanguageModels.load(tmp_path / "text")
    # the earlier layout, a folder of models.json + two .npz files, is not read any more: one clear line
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "models.json").write_text(json.dumps(meta))
    with pytest.raises(SegvizError, match="is a folder, not a language-model file"):
        LanguageModels.load(folder)


def write_plain(path, sents, doc_len=10):
    lines = []
    for i, s in enumerate(sents):
        if i and i % doc_len == 0:
            lines.append("")
        lines.append(" ".join(s) if s else "x")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_train_eval_triggers_export_relevance(tmp_path, capsys):
    corpus = write_plain(tmp_path / "train.txt", sentences(n=200))
    out = tmp_path / "lm"
    assert main(["lm", "train", str(corpus), "--out", str(out), "--vocab", "40", "--window", "30",
                 "--triggers", "60", "--trigger-vocab", "30", "--max-iter", "2"]) == 0
    capsys.readouterr()
    assert main(["lm", "eval", str(out), str(corpus), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"tokens", "oov_rate", "trigram_perplexity", "trigger_perplexity"}
    assert main(["lm", "triggers", str(out), "--top", "5", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 5
    assert main(["lm", "export-arpa", str(out), str(tmp_path / "m.arpa")]) == 0
    assert (tmp_path / "m.arpa").read_text().lstrip().startswith("\\data\\")
    assert main(["relevance", str(corpus), "--lm", str(out), "--before", "3", "--after", "5", "--json"]) == 0
    prof = json.loads(capsys.readouterr().out)
    assert prof["offsets"] == list(range(-3, 5)) and len(prof["mean"]) == 8
    assert main(["lm", "eval", str(tmp_path / "nope"), str(corpus)]) == 2
    assert "no such language-model file" in capsys.readouterr().err


def test_tiny_corpus_without_trigger_pairs_trains_and_saves(tmp_path):
    lms = LanguageModels().fit([["a", "b"], ["c"], ["a"]])
    assert lms.trigger_.sources_.size == 0
    lms.save(tmp_path / "lm")
    again = LanguageModels.load(tmp_path / "lm")
    result = again.evaluate([["a", "c"]])
    assert result["trigger_perplexity"] == pytest.approx(result["trigram_perplexity"])
