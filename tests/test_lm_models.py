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


def _write_directory_layout(lms, d):
    """The earlier three-file layout (a directory), which load() still reads."""
    d.mkdir()
    documents, arrays = lms.bundle_parts("lm")
    np.savez_compressed(d / "trigram.npz", **{k.split("/")[-1]: v for k, v in arrays.items() if "/trigram/" in k})
    np.savez_compressed(d / "triggers.npz", **{k.split("/")[-1]: v for k, v in arrays.items() if "/triggers/" in k})
    (d / "models.json").write_text(json.dumps(documents["lm/models"]))


def test_save_load_round_trip(lms, tmp_path):
    path = lms.save(tmp_path / "lm.segviz-lm")
    assert path.is_file() and [p.name for p in tmp_path.iterdir()] == ["lm.segviz-lm"]   # one file, no temp left
    again = LanguageModels.load(path)
    test = sentences(seed=2, n=60)
    a, b = lms.score(test), again.score(test)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert again.trigger_.history_ == lms.trigger_.history_
    assert again.get_params() == lms.get_params()
    _write_directory_layout(lms, tmp_path / "old")
    old = LanguageModels.load(tmp_path / "old")
    assert np.array_equal(old.score(test)[0], a[0])


def test_load_rejects_corrupt_and_foreign(lms, tmp_path):
    d = tmp_path / "lm"
    _write_directory_layout(lms, d)
    meta = json.loads((d / "models.json").read_text())
    (d / "models.json").write_text(json.dumps({**meta, "version": 99}))
    with pytest.raises(SegvizError, match="version"):
        LanguageModels.load(d)
    (d / "models.json").write_text(json.dumps({**meta, "format": "something-else"}))
    with pytest.raises(SegvizError, match="not a segviz-language-models"):
        LanguageModels.load(d)
    (d / "models.json").write_text("{ not json")
    with pytest.raises(SegvizError, match="corrupt"):
        LanguageModels.load(d)
    (d / "models.json").write_text(json.dumps(meta))
    good_triggers = (d / "triggers.npz").read_bytes()
    (d / "triggers.npz").write_bytes(b"garbage")
    with pytest.raises(SegvizError, match="corrupt"):
        LanguageModels.load(d)
    (d / "triggers.npz").write_bytes(good_triggers)
    arrays = dict(np.load(d / "trigram.npz"))
    arrays["uni_logp"] = arrays["uni_logp"][:-1]
    np.savez(d / "trigram.npz", **arrays)
    with pytest.raises(SegvizError, match="wrong shape"):
        LanguageModels.load(d)
    arrays["uni_logp"] = np.full(len(meta["trigram"]["vocab"]), np.nan)
    np.savez(d / "trigram.npz", **arrays)
    with pytest.raises(SegvizError, match="not finite"):
        LanguageModels.load(d)
    with pytest.raises(SegvizError, match="no such language-model file"):
        LanguageModels.load(tmp_path / "missing")
    (tmp_path / "text").write_text("hello")
    with pytest.raises(SegvizError, match="not a language-model file"):
        LanguageModels.load(tmp_path / "text")


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
