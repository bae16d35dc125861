"""The bundled general-English language models (segviz.general_lm, Section 3.3): the pruning keeps every history's
distribution normalised, the bundled file loads and is small, `segviz relevance` without --lm shows the paper's dip
on the Reuters sample, and `segviz train` on little text uses them and says so."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from segviz import read_corpus
from segviz.cli import main
from segviz.errors import SegvizError
from segviz.general_lm import (
    GENERAL_LM_LABEL,
    MODEL_LM_LABEL,
    general_language_models,
    general_lm_path,
    language_models_for,
)
from segviz.general_lm_recipe import prune_trigram
from segviz.lm import LanguageModels, TrigramLM

ROOT = Path(__file__).resolve().parents[1]
CHOI = sorted((ROOT / "sample_corpora" / "choi").glob("*.ref"))
SAMPLE = ROOT / "sample_corpora" / "reuters_sample.sgm"
DATA = ROOT.parent / "shared" / "corpora"


@pytest.fixture(scope="module")
def choi_sentences():
    return read_corpus([str(p) for p in CHOI]).sentences()


def test_pruning_keeps_every_history_normalised(choi_sentences):
    full = TrigramLM(vocab_size=3000).fit(choi_sentences)
    pruned = prune_trigram(full, choi_sentences, min_count=2)
    assert 0 < pruned.tri_keys_.size < full.tri_keys_.size and pruned.bi_keys_.size < full.bi_keys_.size
    # kept n-grams keep their Katz probabilities
    kept = np.isin(full.tri_keys_, pruned.tri_keys_)
    np.testing.assert_array_equal(full.tri_logp_[kept], pruned.tri_logp_)
    # every distribution sums to one: histories with kept trigrams, with pruned ones only, unseen, sentence start
    rng = np.random.default_rng(0)
    histories = [s[i:i + 2] for s in (choi_sentences[j] for j in rng.integers(len(choi_sentences), size=40))
                 for i in range(0, max(len(s) - 2, 0), 5)][:60]
    histories += [("<s>",), ("the", "of"), ("zzz-unseen", "the")]
    for history in histories:
        p = pruned.prob_vector(tuple(history))
        assert p.min() >= 0 and abs(p.sum() - 1.0) < 1e-9, history
    # on new text the pruned model stays close to the full one (count cut-offs lose little)
    new = read_corpus(str(SAMPLE)).sentences()[:300]
    assert pruned.perplexity(new) < 1.2 * full.perplexity(new)


def test_pruning_needs_the_training_sentences(choi_sentences):
    full = TrigramLM(vocab_size=500).fit(choi_sentences[:200])
    with pytest.raises(SegvizError, match="fitted on"):
        prune_trigram(full, choi_sentences[200:400])
    with pytest.raises(SegvizError, match="min_count"):
        prune_trigram(full, choi_sentences[:200], min_count=0)


def test_the_bundled_general_models_load_and_are_small():
    path = general_lm_path()
    assert path.is_file() and path.stat().st_size <= 15 * 1024 ** 2
    lms = general_language_models()
    assert isinstance(lms, LanguageModels) and general_language_models() is lms   # loaded once
    assert len(lms.vocab_) > 10000 and lms.trigger_.sources_.size > 1000
    perplexity = lms.info_["perplexity"]
    assert set(perplexity) == {"brown", "gutenberg", "wiki"}
    for row in perplexity.values():   # the trigger model beats the trigram alone on held-out text of each domain
        assert row["trigger_perplexity"] < row["trigram_perplexity"]


def test_a_models_own_language_models_win():
    own = general_language_models()
    assert language_models_for(None) == (own, GENERAL_LM_LABEL)
    other = LanguageModels().fit([["a", "b"], ["c"], ["a"]])
    assert language_models_for(other) == (other, MODEL_LM_LABEL)


def test_missing_general_models_are_one_error(tmp_path):
    with pytest.raises(SegvizError, match="missing"):
        general_language_models(tmp_path / "nope.segviz-lm")


def _weighted(profile, offsets):
    index = {o: i for i, o in enumerate(profile["offsets"])}
    means = np.array([profile["mean"][index[o]] for o in offsets])
    counts = np.array([profile["count"][index[o]] for o in offsets])
    return float((means * counts).sum() / counts.sum())


def test_relevance_without_lm_dips_at_story_starts(capsys):
    """The paper's relevance figure on the Reuters sample with the general LMs: the first sentence of a story is
    less relevant than sentences 5-10."""
    assert main(["relevance", str(SAMPLE), "--json"]) == 0
    captured = capsys.readouterr()
    profile = json.loads(captured.out)
    assert profile["language_models"] == "bundled general-English"
    assert "general-English" in captured.err
    first = _weighted(profile, [0])
    later = _weighted(profile, range(4, 10))   # sentences 5-10 of each story
    assert first < later


def test_train_on_little_text_uses_the_general_models(tmp_path, capsys):
    out = tmp_path / "m.segviz"
    assert main(["train", str(CHOI[0]), str(CHOI[1]), "--heldout", str(CHOI[2]), "--preset", "paper",
                 "--features", "3", "--vocabulary", "500", "--out", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "general-English language models" in err and "training tokens" in err
    from segviz import load_model

    model = load_model(out)
    (segmenter,) = model.segmenters().values()
    assert segmenter.lms_ is not None and segmenter.lms_.vocab_ == general_language_models().vocab_


@pytest.mark.slow
@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/corpora (the recipe's training text)")
def test_the_recipe_keeps_test_text_out():
    from segviz.general_lm_recipe import general_lm_data

    domains = general_lm_data(DATA)
    assert set(domains) == {"brown", "gutenberg", "wiki"}
    for train, test in domains.values():
        seen = {tuple(s) for s in train.sentences() if len(s) > 8}
        held = [tuple(s) for s in test.sentences() if len(s) > 8]
        assert sum(s in seen for s in held) < 0.01 * len(held)


@pytest.mark.parametrize("param, message", [
    ("vocab_sise=5", "no parameter 'vocab_sise'"), ("vocab_size=2.5", "whole number"), ("tol=NaN", "tol must be"),
    ("window=[[[1]]]", "window must be"), ("seed=-1", "seed must be"), ("min_count", "min_count must be"),
    ("tol={", "must be a number"), ("heldout_fraction=true", "heldout_fraction must be")])
def test_the_recipe_refuses_a_bad_param_in_one_line_before_reading_anything(tmp_path, capsys, param, message):
    from segviz.general_lm_recipe import main as recipe_main

    assert recipe_main(["--out", str(tmp_path / "x.segviz-lm"), "--data", str(tmp_path / "absent"),
                        "--param", param]) == 2
    err = capsys.readouterr().err
    assert err.startswith("segviz: error: python -m segviz.general_lm_recipe: ") and message in err
    assert err.count("\n") == 1 and not (tmp_path / "x.segviz-lm").exists()


def test_the_recipe_params_are_checked_at_the_boundary():
    from segviz.general_lm_recipe import PARAMS, checked_params

    assert checked_params({"tol": 1e-3, "max_iter": 3}) == {**PARAMS, "tol": 1e-3, "max_iter": 3}
    with pytest.raises(SegvizError, match="max_iter must be a whole number"):
        checked_params({"max_iter": True})
