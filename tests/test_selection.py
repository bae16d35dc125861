"""segviz train chooses its own configuration on held-out data (segviz.selection)."""
from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from segviz import Segmenter, load_model, read_corpus
from segviz.baselines import even_masses, none_masses
from segviz.commands.train import PRESET_NAMES
from segviz.documents import Corpus
from segviz.errors import SegvizError
from segviz.evaluation import macro_average, model_segmenter
from segviz.events import run_to_end
from segviz.induction import FeatureAdded
from segviz.metrics import score_row
from segviz.selection import AUTO_PRESETS, PRESETS, Selection, crossfit_scores, heldout_scores, select_iter

ROOT = Path(__file__).resolve().parents[1]
CHOI = sorted((ROOT / "sample_corpora" / "choi").glob("*.ref"))


def test_the_command_line_names_every_preset():
    assert PRESET_NAMES == tuple(PRESETS) and set(AUTO_PRESETS) <= set(PRESETS)


def test_the_configuration_best_on_both_metrics_is_kept():
    train, held = read_corpus(CHOI[:3]), read_corpus(CHOI[3:])
    selection = run_to_end(select_iter(train, held, presets=("paper", "natural"),
                                       params={"n_features": 3, "vocabulary": 300}))
    scores = selection.scores
    assert set(scores) == {"paper", "natural"}
    best = min(scores, key=lambda n: (scores[n]["p_k"] - scores[n]["p_mu"], scores[n]["p_k"]))
    assert selection.chosen == best
    # the scores are the chosen model's on each held-out document, each decided by the rule tuned on the others
    assert scores[best]["cross_fitted"] is True
    assert crossfit_scores(selection.model, held)["p_k"] == pytest.approx(scores[best]["p_k"])
    assert heldout_scores(selection.model, held)["p_k"] == pytest.approx(scores[best]["tuned_here_p_k"])
    assert selection.model.info_["selection"]["chosen"] == best
    assert len(selection.table()) == 4 and selection.table()[[*scores].index(best)].startswith("*")
    # beside them, the trivial baselines on the same documents, scored the same way
    assert set(selection.baselines) == {"none", "even"} and selection.table()[2].lstrip().startswith("none")
    assert selection.model.info_["selection"]["baselines"] == selection.baselines
    # where the kept model loses to a baseline, it is said in words
    row, even = selection.scores[selection.chosen], selection.baselines["even"]
    assert any('"even"' in line and "P_mu" in line for line in selection.shortfalls()) == (row["p_mu"] <= even["p_mu"])
    losing = Selection(selection.model, "x", {"x": {**row, "p_k": 0.9, "p_mu": 0.1}}, selection.baselines)
    assert len(losing.shortfalls()) == 4 and all("no better than" in line for line in losing.shortfalls())
    for unit_name, masses in (("none", none_masses), ("even", even_masses)):
        rows = [score_row(u.masses(), masses(u.masses())) for u in held.by_file() if u.n_sentences >= 3]
        assert selection.baselines[unit_name]["p_k"] == pytest.approx(macro_average(rows)["p_k"])


@pytest.mark.slow
@pytest.mark.parametrize("other", ["natural-pmu", "natural-words", "natural-words-pmu"])
def test_configurations_that_differ_only_in_tuning_share_one_fit(other):
    """natural and natural-pmu (or a length-prior rule in words, which induction never sees) induce the same
    features and stop at the same round: the second is the first's model with its rule tuned for P_mu (or in
    words), the same as fitting it afresh, and it is not trained twice."""
    train, held = read_corpus(CHOI[:3]), read_corpus(CHOI[3:])
    params = {"n_features": 4}
    events = []

    def recorded(work):
        while True:
            try:
                events.append(next(work))
            except StopIteration as done:
                return done.value

    selection = recorded(select_iter(train, held, presets=("natural", other), params=params))
    assert isinstance(selection, Selection)
    rounds = [e for e in events if isinstance(e, FeatureAdded)]
    fresh = Segmenter(**{**PRESETS[other], **params}).fit(train, held)
    natural_rounds = Segmenter(**{**PRESETS["natural"], **params}).fit(train, held).info_["rounds_induced"]
    assert len(rounds) == natural_rounds   # one induction for the two
    shared = selection.model if selection.chosen == other else \
        run_to_end(select_iter(train, held, presets=(other,), params=params)).model
    assert shared.rule_.to_dict() == fresh.rule_.to_dict()
    assert shared.base_rule().to_dict() == PRESETS[other]["rule"].to_dict()   # a re-tuning starts from its rule
    assert selection.scores[other]["rule"] == fresh.rule_.describe()
    assert crossfit_scores(fresh, held)["p_mu"] == pytest.approx(selection.scores[other]["p_mu"])
    assert crossfit_scores(fresh, held)["p_k"] == pytest.approx(selection.scores[other]["p_k"])


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["natural", "natural-pmu", "natural-words-pmu"])
def test_crossfit_scores_are_those_of_rules_tuned_without_the_document(preset, tmp_path):
    """Leave-one-out (as many folds as documents), each document's rule tuned by the model itself on a corpus of
    the other documents: the same scores, row by row averaged."""
    train, held = read_corpus(CHOI[:2]), read_corpus(CHOI[2:])
    model = Segmenter(**{**PRESETS[preset], "n_features": 4}).fit(train, held)
    units = held.by_file()
    assert len(units) >= 3
    rows = []
    for i, unit in enumerate(units):
        others = Corpus.concatenate([u for j, u in enumerate(units) if j != i])
        rows.append(score_row(unit.masses(), heldout_masses(model.with_tuned_rule(model.base_rule(), others), unit)))
    expected = macro_average(rows)
    got = crossfit_scores(model, held, folds=len(units))
    assert got["cross_fitted"] == 1.0
    assert got["p_k"] == pytest.approx(expected["p_k"]) and got["p_mu"] == pytest.approx(expected["p_mu"])
    # a held-out file too short to score is never left out, and breaks nothing
    (tmp_path / "tiny.txt").write_text("A single short line.\n")
    tiny = read_corpus([tmp_path / "tiny.txt"], kind="lines")
    assert tiny.n_sentences < 3
    with_tiny = Corpus.concatenate([tiny, *units])
    assert crossfit_scores(model, with_tiny, folds=len(units))["p_k"] == pytest.approx(got["p_k"])
    # one held-out document: nothing to cross-fit with, the rule's own scores, said so
    own = heldout_scores(model, held)
    assert got["tuned_here_p_k"] == pytest.approx(own["p_k"]) and got["tuned_here_p_mu"] == pytest.approx(own["p_mu"])
    single = crossfit_scores(model, units[0])
    assert single["cross_fitted"] == 0.0 and single["p_k"] == pytest.approx(heldout_scores(model, units[0])["p_k"])


def heldout_masses(model, unit):
    return model_segmenter(model)(unit)


def test_a_reference_model_is_a_candidate_and_kept_when_it_is_best():
    """Training is kept only when it beats what the user already has: a reference enters the search with its rule
    tuned on the held-out documents, scored as every candidate is."""
    train, held = read_corpus(CHOI[:2]), read_corpus(CHOI[3:])
    # a reference that saw the held-out documents themselves: flattered, so it must win against one feature
    reference = Segmenter(families=("cohesion", "tfidf"), n_features=6, l2=1.0,
                          tuning_metric="p_k", tuning_units="per-document").fit(held)
    selection = run_to_end(select_iter(train, held, presets=("natural",), params={"n_features": 1},
                                       references={"reference": reference}))
    assert set(selection.scores) == {"natural", "reference"}
    assert selection.chosen == "reference" and selection.model is not reference
    assert selection.model.features_ == reference.features_
    assert selection.scores["reference"]["cross_fitted"] and "tuned_score" in selection.model.info_
    assert selection.model.info_["selection"]["chosen"] == "reference"


def test_selection_needs_heldout_data_and_known_presets():
    train = read_corpus(CHOI[:2])
    with pytest.raises(SegvizError, match="held-out"):
        run_to_end(select_iter(train, None))
    with pytest.raises(SegvizError, match="unknown configuration"):
        run_to_end(select_iter(train, train, presets=("nonsense",)))


@pytest.mark.slow
def test_train_chooses_prints_and_stores_its_choice(tmp_path):
    out = tmp_path / "m.segviz"
    proc = subprocess.run([sys.executable, "-m", "segviz", "train", *map(str, CHOI[:3]), "--heldout",
                           *map(str, CHOI[3:]), "--out", str(out), "--features", "3", "--vocabulary", "300",
                           "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "held-out P_k" in line and "warning" not in line]
    # every configuration, the bundled default model's expert for such text, the two baselines
    assert len(lines) == len(AUTO_PRESETS) + 3 and sum(line.split("segviz:")[1].strip().startswith("*")
                                                   for line in lines) == 1
    model = load_model(out)
    chosen = model.info_["selection"]["chosen"]
    tried = set(model.info_["selection"]["heldout"])
    bundled = tried - set(AUTO_PRESETS)
    assert tried >= set(AUTO_PRESETS) and len(bundled) == 1 and next(iter(bundled)).startswith("bundled-")
    assert chosen in tried
    # the document inside the file says the same
    with zipfile.ZipFile(out) as archive:
        document = json.loads(archive.read("segmenter.json"))
    assert document["info"]["selection"]["chosen"] == chosen
    # a named preset or a configuration option trains that one configuration
    proc = subprocess.run([sys.executable, "-m", "segviz", "train", *map(str, CHOI[:3]), "--heldout",
                           *map(str, CHOI[3:]), "--out", str(out), "--features", "2", "--vocabulary", "300",
                           "--families", "cohesion,shape", "--quiet"], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert "no search" in proc.stderr and load_model(out).info_["selection"]["chosen"] == "given"
    # the one configuration is scored as the search scores candidates, beside the baselines
    lines = [line for line in proc.stderr.splitlines() if "held-out P_k" in line and "warning" not in line]
    assert [line.split("segviz:")[1].replace("*", "").split()[0] for line in lines] == ["given", "none", "even"]
    stored = load_model(out).info_["selection"]
    assert set(stored["heldout"]) == {"given"} and set(stored["baselines"]) == {"none", "even"}


def test_train_measures_the_length_prior_in_words_when_asked(tmp_path):
    from segviz.cli import main

    out = tmp_path / "words.segviz"
    code = main(["train", *map(str, CHOI[:3]), "--heldout", *map(str, CHOI[3:]), "--out", str(out),
                 "--features", "2", "--families", "cohesion,shape", "--rule", "length_prior",
                 "--length-unit", "words", "--quiet"])
    assert code == 0
    model = load_model(out)
    train_words = sum(len(s) for s in read_corpus(CHOI[:3]).sentences())
    assert model.rule_.unit == "words"
    assert model.words_per_sentence_ == pytest.approx(train_words / read_corpus(CHOI[:3]).n_sentences)
    assert model.rule_.words_per_sentence == pytest.approx(model.words_per_sentence_)
    # in sentences unless asked, and the unit without the rule that has one is refused, not ignored
    code = main(["train", *map(str, CHOI[:3]), "--heldout", *map(str, CHOI[3:]), "--out", str(out),
                 "--features", "2", "--families", "cohesion,shape", "--rule", "length_prior", "--quiet"])
    assert code == 0 and load_model(out).rule_.unit == "sentences"
    assert main(["train", *map(str, CHOI[:3]), "--out", str(tmp_path / "t.segviz"), "--rule", "threshold",
                 "--length-unit", "words"]) == 2
    assert not (tmp_path / "t.segviz").exists()
