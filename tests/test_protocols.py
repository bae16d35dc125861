"""The evaluation protocols (segviz.protocols): splits, the title convention, disjoint long-form texts, the
held-out stop, the LM cache, and a whole protocol run end to end on small fake corpora."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from segviz import protocols
from segviz.baselines import BASELINES
from segviz.corpus import read_corpus
from segviz.errors import SegvizError
from segviz.evaluation import score_segmenters
from segviz.events import Progress
from segviz.peers import PEERS
from segviz.rules import LengthPriorRule, ThresholdRule
from tests.drive import events_and_value


def _fake_wiki(root: Path, n: int = 300, seed: int = 0) -> Path:
    """wiki_test_1..n.ref: a title line, then 3 sections of 6-9 sentences with their own vocabulary."""
    rng = np.random.default_rng(seed)
    folder = root / "wiki300_badjatiya"
    folder.mkdir(parents=True)
    for i in range(1, n + 1):
        lines = []
        for s in range(3):
            lines.append("==========")
            if s == 0:
                lines.append(f"Title of article {i}")
            vocab = [f"a{i}s{s}w{k}" for k in range(12)] + ["the", "and", "of"]
            for _ in range(int(rng.integers(6, 10))):
                lines.append(" ".join(rng.choice(vocab, 8)) + " .")
        lines.append("==========")
        (folder / f"wiki_test_{i}.ref").write_text("\n".join(lines) + "\n")
    return root


def _fake_brown(root: Path, per_category: int = 10, seed: int = 0) -> Path:
    """A brown.zip with two categories of texts of 100-130 tagged sentences."""
    rng = np.random.default_rng(seed)
    folder = root / "brown_nltk"
    folder.mkdir(parents=True)
    cats = []
    with zipfile.ZipFile(folder / "brown.zip", "w") as z:
        for c, (category, prefix) in enumerate((("news", "ca"), ("fiction", "ck"))):
            for j in range(1, per_category + 1):
                text_id = f"{prefix}{j:02d}"
                cats.append(f"{text_id} {category}")
                vocab = [f"{text_id}w{k}" for k in range(15)] + ["the", "he"]
                lines = [" ".join(f"{w}/nn" for w in rng.choice(vocab, 7)) + " ./."
                         for _ in range(int(rng.integers(100, 131)))]
                if j == 1:
                    lines.insert(0, "``/`` Hello/uh ''/'' ,/, he/pps said/vbd ./.")
                # a paragraph (blank line, then a tab) every 5 sentences, as Brown lays them out
                raw = "".join(("\n\n\t" if i % 5 == 0 else "\n") + line for i, line in enumerate(lines))
                z.writestr(f"brown/{text_id}", raw + "\n")
        z.writestr("brown/cats.txt", "\n".join(cats) + "\n")
    return root


# ---------------------------------------------------------------------------------------------- wiki

def test_wiki_split_is_by_the_number_in_the_file_name_and_drops_titles(tmp_path):
    data = _fake_wiki(tmp_path)
    split = protocols.wiki_data(data)
    test = split.tests["test"]
    assert sorted({f.name for f in map(Path, test.files)}, key=lambda s: int(s.split("_")[-1][:-4])) == \
        [f"wiki_test_{i}.ref" for i in range(251, 301)]
    assert len(split.train.by_file()) == 200 and len(split.heldout.by_file()) == 50
    assert {Path(f).name for f in split.heldout.files} == {f"wiki_test_{i}.ref" for i in range(201, 251)}
    assert not any(t.startswith("Title of article") for t in test.sentence_texts())
    kept = protocols.wiki_data(data, keep_titles=True).tests["test"]
    assert kept.n_sentences == test.n_sentences + 50
    assert kept.sentence_texts()[0] == "Title of article 251"
    # every segmenter sees the same text: the split is made before anything runs
    assert split.evaluation == "per-document" and split.notes["titles"] == "dropped"


def test_drop_titles_removes_a_first_segment_that_was_only_the_title(tmp_path):
    path = tmp_path / "a.ref"
    path.write_text("==========\nJust a title\n==========\none two three .\nfour five six .\n==========\n")
    corpus = protocols.drop_titles(read_corpus(path))
    assert corpus.masses() == (2,)


def test_wiki_split_reports_a_missing_file(tmp_path):
    data = _fake_wiki(tmp_path, n=260)
    with pytest.raises(SegvizError, match="wiki_test_261.ref missing"):
        protocols.wiki_data(data)


# ----------------------------------------------------------------------------------------- long-form

def test_longform_texts_are_disjoint_whole_and_long(tmp_path):
    data = _fake_brown(tmp_path)
    split = protocols.longform_data(data)
    ids = {name: {d.name for d in corpus} for name, corpus in
           (("train", split.train), ("heldout", split.heldout), ("test", split.tests["test"]))}
    assert not ids["train"] & ids["heldout"] and not ids["train"] & ids["test"] and not ids["heldout"] & ids["test"]
    assert len(ids["train"] | ids["heldout"] | ids["test"]) == 20
    for corpus in (split.train, split.heldout, split.tests["test"]):
        assert min(corpus.masses()) >= protocols.LONGFORM_MIN_SENTENCES
        for stream in corpus.by_file():
            assert len(stream) >= 2   # a stream holds several whole texts
    assert split.notes["texts"]["test"] == sorted(ids["test"])
    # the tags are stripped and the tagset's quotes become '"'
    opening = next(d for d in split.train.documents + split.heldout.documents + split.tests["test"].documents
                   if d.name == "ca01")
    assert opening.texts[0] == '" Hello " , he said .'
    assert opening.paragraph_starts[:6] == (True, False, False, False, False, True)
    # one category: only its texts
    fiction = protocols.longform_data(data, category="fiction")
    assert all(d.name.startswith("ck") for d in fiction.train)


def test_brown_text_opening_mid_paragraph_is_not_marked_as_a_paragraph_start(tmp_path):
    """Only the file's layout marks paragraphs: a sample that begins mid-paragraph (no blank line, no tab) gets no
    mark on its first line, or every text boundary would carry one (the reference itself)."""
    folder = tmp_path / "brown_nltk"
    folder.mkdir()
    with zipfile.ZipFile(folder / "brown.zip", "w") as z:
        z.writestr("brown/cn05", "She/pps ran/vbd ./.\nHe/pps sat/vbd ./.\n\n\tThey/ppss left/vbd ./.\n")
        z.writestr("brown/ca01", "\n\n\tThe/at jury/nn said/vbd ./.\nIt/pps ended/vbd ./.\n")
        z.writestr("brown/cats.txt", "cn05 adventure\nca01 news\n")
    texts = protocols.read_brown_texts(folder / "brown.zip")
    assert texts["cn05"].paragraph_starts == (False, False, True)
    assert texts["ca01"].paragraph_starts == (True, False)


def test_longform_split_seed_changes_the_assignment_and_is_reproducible(tmp_path):
    data = _fake_brown(tmp_path, per_category=15)
    a = protocols.longform_data(data, split_seed=0).notes["texts"]
    b = protocols.longform_data(data, split_seed=0).notes["texts"]
    c = protocols.longform_data(data, split_seed=1).notes["texts"]
    assert a == b and a != c


def test_longform_category_is_checked_before_reading(tmp_path):
    with pytest.raises(SegvizError, match="unknown Brown category 'poetry'"):
        protocols.longform_data(tmp_path / "nothing here", category="poetry")
    assert protocols.check_category("all-fiction") == protocols.BROWN_FICTION


def test_real_wiki_split_none_baseline(shared_corpora):
    """The split's 'none' P_k over test articles (titles dropped) is the 0.337 the calibration quotes."""
    split = protocols.wiki_data(shared_corpora)
    assert [len(c.by_file()) for c in (split.train, split.heldout, split.tests["test"])] == [200, 50, 50]
    rows = score_segmenters(split.tests["test"], peers=(), baselines=("none",), evaluation="per-document").score_rows
    assert rows["none"]["p_k"] == pytest.approx(0.337, abs=0.001)


def test_real_longform_split_is_disjoint(shared_corpora):
    split = protocols.longform_data(shared_corpora, category="all-fiction")
    names = [{d.name for d in c} for c in (split.train, split.heldout, split.tests["test"])]
    assert not (names[0] & names[1] or names[0] & names[2] or names[1] & names[2])
    assert min(min(c.masses()) for c in (split.train, split.heldout, split.tests["test"])) >= 100


# ------------------------------------------------------------------------------------- running one

@pytest.mark.slow
def test_run_protocol_end_to_end_scores_model_peers_and_baselines(tmp_path, capsys):
    data = _fake_wiki(tmp_path / "data")
    out = tmp_path / "out"
    out.mkdir()
    events, result = events_and_value(protocols.reproduce(
        "wiki", data, segmenter_params={"n_features": 2, "vocabulary": 50}, out=out))
    assert any(isinstance(e, Progress) and e.stage.startswith("scoring") for e in events)
    rows = {k for k, v in result.table.items() if isinstance(v, dict)}
    assert {"model", "model, length prior rule", *PEERS, *BASELINES} <= rows   # both decision rules reported
    assert result.table["evaluation"] == "mean over 50 files"
    payload = result.to_json()
    json.dumps(payload, allow_nan=False)
    assert payload["segmenter_params"]["n_features"] == 2 and payload["titles"] == "dropped"
    assert (out / "wiki-model.segviz").is_file()
    seg = result.segmenter
    assert len(seg.features_) == 2 and seg.info_["families"] == list(protocols.NATURAL_SEGMENTER["families"])
    # the model's own rule: the wiki protocol's threshold rule, tuned on its wide grid; saved with the model
    assert seg.rule is protocols.NATURAL_THRESHOLD and isinstance(seg.rule_, ThresholdRule)
    assert seg.rule_.alpha in protocols.NATURAL_THRESHOLD.alphas
    assert seg.rule_.epsilon in protocols.NATURAL_THRESHOLD.epsilons
    assert seg.info_["tuning"] == "p_k, per-document"
    assert payload["rule"] == seg.rule_.to_dict()
    # the other rule's row: the length-prior rule tuned on the held-out portion, each file segmented on its own
    other = seg.with_tuned_rule(protocols.NATURAL_LENGTH_PRIOR, protocols.wiki_data(data).heldout)
    assert isinstance(other.rule_, LengthPriorRule) and other.rule_.mean_length == pytest.approx(seg.mean_length_)
    test = protocols.wiki_data(data).tests["test"]
    alone = score_segmenters(test, models={"x": other}, peers=(), baselines=(),
                             evaluation="per-document").score_rows["x"]
    assert alone["p_k"] == pytest.approx(result.table["model, length prior rule"]["p_k"])

    # the saved model scored on the same test portion without training (a cross-domain cell) gives the same row
    from segviz.cli import main

    capsys.readouterr()
    assert main(["reproduce", "wiki", "--data", str(data), "--score", f"saved={out / 'wiki-model.segviz'}",
                 "--peers", "", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["wiki"]["tables"]["test"]
    assert table["saved"] == pytest.approx(result.table["model"])
    assert set(k for k, v in table.items() if isinstance(v, dict)) == {"saved", *BASELINES, "even-words"}


def test_unknown_segmenter_parameter_fails_before_reading(tmp_path):
    with pytest.raises(SegvizError, match="no parameter 'n_featurs'"):
        next(protocols.reproduce("wiki", tmp_path / "absent", segmenter_params={"n_featurs": 3}))
    with pytest.raises(SegvizError, match="unknown protocol"):
        next(protocols.reproduce("wsj", tmp_path))


class _FakeModel:
    """Just enough of a fitted Segmenter for heldout_stop: a history and truncation."""

    def __init__(self, scores):
        self.history_ = [{"heldout_p_mu": s} for s in scores]
        self.features_ = list(range(len(scores)))

    def truncated(self, rounds, *, heldout=None):
        return ("truncated", rounds, heldout)


def test_heldout_stop_is_the_best_round_or_none():
    assert protocols.heldout_stop(_FakeModel([0.5, 0.7, 0.6]), "held") == ("truncated", 2, "held")
    assert protocols.heldout_stop(_FakeModel([0.5, 0.6, 0.7]), "held") is None
    assert protocols.heldout_stop(_FakeModel([0.5, None]), "held") is None
    assert protocols.heldout_stop(_FakeModel([]), "held") is None


def test_language_model_cache_is_reused_and_checked(tmp_path, sample_dir):
    sentences = read_corpus(sample_dir / "choi").sentences()
    params = {"vocab_size": 300, "n_triggers": 200, "trigger_vocab": 200, "max_iter": 2}
    _, (lms, where) = events_and_value(protocols.language_models("tiny", lambda: sentences, out=tmp_path,
                                                                 lm_params=params))
    assert Path(where) == (tmp_path / "lm-tiny").resolve() and (tmp_path / "lm-tiny").exists()

    events, (again, where2) = events_and_value(protocols.language_models("tiny", lambda: sentences, out=tmp_path,
                                                                         lm_params=params))
    assert events == [] and where2 == where and again.vocab_ == lms.vocab_   # loaded, no training events
    with pytest.raises(SegvizError, match="vocab_size"):
        events_and_value(protocols.language_models("tiny", lambda: sentences, out=tmp_path,
                                                   lm_params={**params, "vocab_size": 400}))
    # a cache made from another split's text is refused: the LMs might have seen this split's test text
    with pytest.raises(SegvizError, match="delete the cache"):
        events_and_value(protocols.language_models("tiny", lambda: sentences[:-10], out=tmp_path, lm_params=params))


def test_cache_names_follow_the_split(tmp_path):
    data = _fake_brown(_fake_wiki(tmp_path))
    assert protocols.wiki_data(data).lm_name != protocols.wiki_data(data, keep_titles=True).lm_name
    names = {protocols.longform_data(data, split_seed=s).lm_name for s in (0, 1)}
    assert len(names) == 2


def test_natural_protocols_default_to_the_natural_boundary_settings_and_the_papers_keep_theirs(tmp_path):
    wiki = protocols.wiki_data(_fake_wiki(tmp_path / "w"))
    longform = protocols.longform_data(_fake_brown(tmp_path / "b"))
    for split, rule in ((wiki, protocols.NATURAL_THRESHOLD), (longform, protocols.NATURAL_LENGTH_PRIOR)):
        params = split.segmenter_defaults
        assert params["rule"] is rule is protocols.NATURAL_RULES[split.protocol]
        assert params["tuning_metric"] == "p_k"
        assert params["tuning_units"] == "per-document" and "vocabulary" not in params["families"]
        assert "relevance" not in params["families"]
        seg = protocols.new_segmenter(params)   # valid Segmenter parameters
        assert seg.base_rule() is rule
        # both rules are scored side by side, on the natural grids
        assert split.rules == protocols.NATURAL_RULE_PAIR
    # the natural defaults hold no grids of their own any more: the grids live in the rules
    assert not {"alphas", "epsilons", "length_shapes", "length_biases", "use_relevance", "decision_rule"} & \
        set(protocols.NATURAL_SEGMENTER)
    threshold, length_prior = protocols.NATURAL_RULE_PAIR
    assert isinstance(threshold, ThresholdRule) and isinstance(length_prior, LengthPriorRule)
    assert min(threshold.alphas) == 0.005 and max(threshold.epsilons) == 128 and length_prior.mean_length is None
    assert max(length_prior.shapes) == 32.0 and max(length_prior.biases) == 10.0
    for rule in protocols.NATURAL_RULE_PAIR:
        rule.check()
    # the caller's options win over the protocol's defaults
    seg = protocols.new_segmenter({**wiki.segmenter_defaults, "tuning_metric": "p_mu"})
    assert seg.tuning_metric == "p_mu" and seg.l2 == 1.0
    seg = protocols.new_segmenter({**longform.segmenter_defaults, "rule": ThresholdRule(alphas=(0.5,))})
    assert isinstance(seg.base_rule(), ThresholdRule)
    with pytest.raises(SegvizError, match="no parameter 'alphas'"):
        protocols.new_segmenter({**wiki.segmenter_defaults, "alphas": (0.5,)})
    assert not hasattr(protocols, "EVALUATIONS_BY_PROTOCOL") and not hasattr(protocols, "PROTOCOL_OPTIONS")


def test_the_papers_protocols_keep_the_papers_rule(tmp_path):
    """Reuters and Choi: no rule of their own (the paper's threshold rule, default grid); the length-prior rule
    with its default grid scored beside it."""
    from segviz.decode import DEFAULT_ALPHAS, DEFAULT_EPSILONS

    assert protocols.ProtocolData.__dataclass_fields__["rules"].default is protocols.PAPER_RULES
    threshold, length_prior = protocols.PAPER_RULES
    assert (tuple(threshold.alphas), tuple(threshold.epsilons)) == (DEFAULT_ALPHAS, DEFAULT_EPSILONS)
    assert isinstance(length_prior, LengthPriorRule) and length_prior.mean_length is None
    for defaults in ({}, {"families": ("vocabulary", "relevance", "cohesion", "peer")}):
        seg = protocols.new_segmenter(defaults)
        assert seg.rule is None and isinstance(seg.base_rule(), ThresholdRule)
