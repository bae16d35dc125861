"""Committed results (segviz.results): result files validated when read, the docs' tables rendered from them and
pinned, a re-run compared cell by cell as printed, the "even-words" baseline, and the source-disjoint Choi
protocol's tuning documents kept apart from the test set."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from segviz import results
from segviz.baselines import even_words_masses
from segviz.cli import main
from segviz.corpus import read_corpus
from segviz.errors import SegvizError
from segviz.evaluation import score_segmenters
from segviz.segmentation import validate_masses

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
DOC = ROOT / "docs" / "reproduction.md"
#: result files the docs name that are not committed yet (their regions keep their text until the file exists)
NOT_YET: set[str] = set()


def _row(p_k: float, p_mu: float = 0.8, segments: int = 10) -> dict:
    return {"hypothesis_segments": segments, "p_mu": p_mu, "p_k": p_k, "window_diff": p_k, "precision": 0.5,
            "recall": 0.5, "f1": 0.5}


def _protocol(**rows) -> dict:
    table = {"corpus": "test", "evaluation": "mean over 2 files", "sentences": 100, "reference_segments": 10,
             "mu": 0.1, "k": 5, **rows}
    return results.protocol_document({"protocol": "wiki", "train": "a", "heldout": "b", "table": table,
                                      "tables": {"test": table}, "heldout_stop_features": None,
                                      "features": [], "row_rules": {"model": "threshold rule: α = 0.1, ε = 2"}},
                                     options={"seed": 0})


# ------------------------------------------------------------------------------------------ files

def test_a_result_round_trips_and_a_malformed_one_is_one_line(tmp_path):
    document = _protocol(model=_row(0.3), none=_row(0.35))
    path = results.write_result(tmp_path / "wiki.json", document)
    assert results.load_result(path) == json.loads(json.dumps(document))
    bad = {"not json": "{", "a list": "[]", "another format": json.dumps({**document, "format": "x"}),
           "no tables": json.dumps({**document, "tables": {}}),
           "a string rate": json.dumps({**document, "tables": {"test": {"model": {**_row(0.3), "p_k": "0.3"}}}}),
           "no kind": json.dumps({**document, "kind": "other"}),
           "rules not text": json.dumps({**document, "row_rules": {"model": 3}}),
           "a default rate as text": json.dumps(results.default_document(
               "m", [1.0], {"d": {"taken": {"a": 1}, "alone": {"a": "0.1"}, "routed": 0.1}})),
           "cross-domain without cells": json.dumps(results.cross_domain_document({"m": "m.segviz"}, {}))}
    for what, text in bad.items():
        (tmp_path / "bad.json").write_text(text)
        with pytest.raises(SegvizError) as err:
            results.load_result(tmp_path / "bad.json")
        assert "\n" not in str(err.value) and "bad.json" in str(err.value), what
    with pytest.raises(SegvizError, match="no such result file"):
        results.load_result(tmp_path / "absent.json")


def test_a_bad_check_file_fails_before_any_run_with_exit_2(tmp_path, capsys):
    (tmp_path / "x.json").write_text("{")
    assert main(["reproduce", "wiki", "--check", str(tmp_path / "x.json"), "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("segviz: error:") and len(err.strip().splitlines()) == 1
    results.write_result(tmp_path / "w.json", _protocol(model=_row(0.3)))
    assert main(["reproduce", "longform", "--check", str(tmp_path / "w.json"), "--data", str(tmp_path)]) == 2
    assert "not of `reproduce longform`" in capsys.readouterr().err
    assert main(["reproduce", "paper", "--check", str(tmp_path / "w.json")]) == 2
    capsys.readouterr()
    assert main(["reproduce", "--tables", "--results", str(tmp_path / "absent")]) == 2
    assert "no such results directory" in capsys.readouterr().err


def test_tables_rewrites_only_the_regions(tmp_path, capsys):
    results.write_result(tmp_path / "wiki.json", _protocol(model=_row(0.3), none=_row(0.35)))
    doc = tmp_path / "doc.md"
    doc.write_text("prose\n<!-- results:wiki -->\nSTALE\n<!-- /results:wiki -->\nmore prose\n")
    assert main(["reproduce", "--tables", "--results", str(tmp_path), "--docs", str(doc)]) == 0
    text = doc.read_text()
    assert text.startswith("prose\n<!-- results:wiki -->\n*Generated from") and text.endswith("more prose\n")
    assert "STALE" not in text and "| none | 10 | 80.0% | 35.0% |" in text
    assert main(["reproduce", "--tables", "--results", str(tmp_path), "--docs", str(doc)]) == 0
    assert "already match" in capsys.readouterr().out and doc.read_text() == text


# ------------------------------------------------------------------------------------------ checking

def test_the_check_compares_as_printed():
    committed = _protocol(model=_row(0.3012), none=_row(0.35))
    same_print = copy.deepcopy(committed)
    same_print["tables"]["test"]["model"]["p_k"] = 0.3004          # prints 30.0 % against the committed 30.1 %
    assert results.differing_cells(committed, copy.deepcopy(committed)) == []
    differs = results.differing_cells(committed, same_print)
    assert differs == ["wiki / model / P_k: 30.1% committed, 30.0% re-run"]
    within = copy.deepcopy(committed)
    within["tables"]["test"]["model"]["p_k"] = 0.3014               # prints 30.1 % as well
    assert results.differing_cells(committed, within) == []
    moved = copy.deepcopy(committed)
    moved["row_rules"]["model"] = "threshold rule: α = 0.2, ε = 2"
    moved["tables"]["test"]["even-words"] = _row(0.1)
    assert results.differing_cells(committed, moved) == [
        "wiki / even-words: row only in the re-run", "decision rule of model: threshold rule: α = 0.1, ε = 2 "
        "committed, threshold rule: α = 0.2, ε = 2 re-run"]


def test_regions_are_rendered_and_left_alone_without_a_file():
    text = "intro\n<!-- results:wiki -->\nSTALE\n<!-- /results:wiki -->\n<!-- results:chapters -->\nhand\n" \
           "<!-- /results:chapters -->\nend\n"
    new, missing = results.render_document(text, {"wiki": _protocol(model=_row(0.3), none=_row(0.35))})
    assert missing == ["chapters"] and "hand" in new and "STALE" not in new
    assert "| **model, 0 features**, threshold rule (α = 0.1, ε = 2) | 10 | 80.0% | 30.0% |" in new
    assert results.render_document(new, {"wiki": _protocol(model=_row(0.3), none=_row(0.35))})[0] == new


# ------------------------------------------------------------------------------------------ the docs

def _committed() -> dict[str, dict]:
    return results.load_results(RESULTS)


def test_every_committed_result_is_valid_and_named_after_its_file():
    committed = _committed()
    assert {"wiki", "longform", "choi-disjoint", "choi", "reuters"} <= set(committed)


def test_every_table_region_of_the_docs_is_rendered_from_docs_results():
    """The docs' generated tables equal what `segviz reproduce --tables` renders from docs/results."""
    text = DOC.read_text(encoding="utf-8")
    rendered, missing = results.render_document(text, _committed())
    assert set(missing) <= NOT_YET, f"regions without a result file: {missing}"
    assert rendered == text, "docs/reproduction.md differs from docs/results: run `segviz reproduce --tables`"
    assert {"wiki", "longform", "reuters", "choi", "choi-disjoint", "cross-domain"} <= set(results.regions(text))


def test_every_table_of_the_reproduction_docs_is_inside_a_generated_region():
    """No hand-written table: every Markdown table row of docs/reproduction.md lies between results markers (the
    records of earlier code live in research/README.md, outside the reproduction)."""
    text = DOC.read_text(encoding="utf-8")
    hand = [line for line in results.outside_regions(text).splitlines() if line.startswith("|")]
    assert hand == [], f"hand-written table rows in docs/reproduction.md: {hand[:3]}"


def test_runs_of_one_protocol_are_compared_row_by_row_with_the_flags_that_made_them():
    base = _protocol(model=_row(0.3), none=_row(0.35))
    variant = copy.deepcopy(base)
    variant["options"]["segmenter_params"] = {"templates": "paper", "families": ["vocabulary"], "alpha": 2}
    variant["tables"]["test"]["model"] = _row(0.4)
    variant["tables"]["test"]["none"] = _row(0.9)   # a variant's baselines are not printed: the first's are
    header, grid = results.comparison_grid(["wiki", "wiki-paper"], {"wiki": base, "wiki-paper": variant})
    assert [key for key, _, _ in grid] == ["wiki: model", "wiki-paper: model", "none"]
    assert grid[1][1].startswith("`--templates paper --families vocabulary --param alpha=2`: **model")
    assert grid[1][2][header.index("P_k") - 1] == "40.0%" and grid[2][2][header.index("P_k") - 1] == "35.0%"
    text = "<!-- results:wiki+wiki-paper -->\nSTALE\n<!-- /results:wiki+wiki-paper -->\n"
    assert results.render_document(text, {"wiki": base})[1] == ["wiki+wiki-paper"]   # a file missing: kept
    rendered, _ = results.render_document(text, {"wiki": base, "wiki-paper": variant})
    assert "`docs/results/wiki-paper.json`" in rendered and "STALE" not in rendered


def test_protocols_side_by_side_take_each_ones_model_and_the_shared_baselines():
    wiki, other = _protocol(model=_row(0.3), none=_row(0.35)), _protocol(model=_row(0.1), c99=_row(0.2))
    other["tables"]["test"]["corpus"] = "choi"
    header, grid = results.side_by_side_grid(["wiki", "choi"], {"wiki": wiki, "choi": other})
    assert header == ["segmenter", "test", "choi"]
    assert {key: cells for key, _, cells in grid} == {"model": ["30.0 (80.0)", "10.0 (80.0)"],
                                                      "c99": ["—", "20.0 (80.0)"], "none": ["35.0 (80.0)", "—"]}


def test_longform_has_an_even_words_row_and_the_wiki_and_longform_results_record_their_options():
    committed = _committed()
    assert "even-words" in committed["longform"]["tables"]["test"]
    assert committed["longform"]["options"]["category"] == "all"
    assert committed["wiki"]["options"]["keep_titles"] is False


def test_the_readme_headline_numbers_are_the_committed_ones():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    committed = _committed()

    def cell(name, row="model", key="p_k", part=None):
        tables = committed[name]["tables"]
        return results.percent((tables[part] if part else next(iter(tables.values())))[row][key])

    assert f"dropped): P_k **{cell('wiki')}**" in readme
    assert f"P_k **{cell('longform')}**, P_mu {cell('longform', key='p_mu')}" in readme
    stop = next(r for r in committed["choi-disjoint"]["tables"]["3-11"] if r.startswith("model@"))
    assert f"reaches **{cell('choi-disjoint', stop, part='3-11')} P_k**" in readme
    assert f"P_mu **{results.percent(committed['reuters']['tables']['test']['model']['p_mu'])}**" in readme
    chapters = committed["chapters"]["tables"]
    assert (f"P_k **{results.percent(chapters['test']['model']['p_k'])}**, P_mu "
            f"**{results.percent(chapters['test']['model']['p_mu'])}**") in readme
    assert (f"test_more P_k **{results.percent(chapters['test_more']['model']['p_k'])}**, P_mu "
            f"**{results.percent(chapters['test_more']['model']['p_mu'])}**") in readme
    cells = committed["cross-domain"]["cells"]
    default = {key: results.percent(cells[key]["default"]["p_k"]) for key in ("choi 3-11", "wiki", "longform")}
    assert f"2/3-11 **{default['choi 3-11']}**" in readme and f"wiki300 **{default['wiki']}**" in readme
    assert f"long-form **{default['longform']}** (P_mu {results.percent(cells['longform']['default']['p_mu'])}" \
        in readme


# ------------------------------------------------------------------------------------------ even-words

def test_even_words_cuts_at_the_sentence_end_nearest_each_multiple():
    assert even_words_masses([10] * 10, 30) == (3, 3, 3, 1)
    assert even_words_masses([10] * 10, 25) == (2, 3, 2, 3)
    assert even_words_masses([5, 50, 5, 5, 5], 20) == (1, 1, 1, 2)
    assert even_words_masses([4], 10) == (1,)
    assert even_words_masses([1, 1], 100) == (2,)
    for bad in (0, -1, float("nan")):
        with pytest.raises(SegvizError):
            even_words_masses([3, 3], bad)
    validate_masses(even_words_masses([7, 1, 30, 2, 2, 9] * 20, 33))


def test_even_words_is_scored_beside_even_when_a_mean_in_words_is_given(sample_dir):
    corpus = read_corpus(sample_dir / "choi")
    plain = score_segmenters(corpus, peers=())
    assert "even-words" not in plain.rows
    rows = score_segmenters(corpus, peers=(), words_per_segment=150.0).rows
    assert list(rows)[-1] == "even-words" and rows["even-words"]["p_k"] is not None


# ------------------------------------------------------------------------------------------ leak-free Choi

def _words(sentence) -> tuple[str, ...]:
    return tuple(t for t in sentence if t.isalnum())


def _segments(root: Path, names: list[str]) -> list:
    """The sentences of ``FILE#segN`` entries (paths relative to the corpora directory)."""
    by_file: dict[str, list[int]] = {}
    for name in names:
        path, _, seg = name.partition("#seg")
        by_file.setdefault(path, []).append(int(seg))
    sentences = []
    for path, numbers in by_file.items():
        documents = read_corpus(root / path, kind="choi").documents
        for n in numbers:
            assert documents[n - 1].name.endswith(f"#seg{n}")
            sentences += documents[n - 1].sentences
    return sentences


@pytest.mark.slow
def test_choi_disjoint_tunes_on_documents_sharing_under_1_percent_with_test_set_2(shared_corpora):
    """The committed result's tuning_files (set-4 segments, FILE#segN) share < 1 % of the distinct 5+ word
    sentences of Choi's test set 2 (Choi's tuning set 1 shares 1,279 of 1,297)."""
    names = _committed()["choi-disjoint"]["tuning_files"]
    assert names and all(re.fullmatch(r"choi2000/4/[\w-]+/\d+\.ref#seg\d+", n) for n in names)
    test = read_corpus(str(shared_corpora / "choi2000" / "2" / "*" / "*.ref"), kind="choi")
    distinct = {_words(s) for s in test.sentences() if len(_words(s)) >= 5}
    tuned = {_words(s) for s in _segments(shared_corpora, names)}
    assert len(distinct) == 1297
    assert len(distinct & tuned) < 0.01 * len(distinct)
    set1 = read_corpus(str(shared_corpora / "choi2000" / "1" / "*" / "*.ref"), kind="choi")
    assert len(distinct & {_words(s) for s in set1.sentences()}) == 1279   # what the protocol tuned on before


@pytest.mark.slow
def test_choi_disjoint_split_trains_and_tunes_on_disjoint_set_4_text(shared_corpora):
    from segviz.protocols import choi_data

    split = choi_data(shared_corpora, disjoint=True)
    assert set(split.train.sentences()).isdisjoint(split.heldout.sentences())
    banned = {s for part in ("1", "2") for s in read_corpus(
        str(shared_corpora / "choi2000" / part / "*" / "*.ref"), kind="choi").sentences()}
    assert banned.isdisjoint(split.heldout.sentences()) and banned.isdisjoint(split.train.sentences())
    assert len(set(split.heldout.files)) == 50 and split.notes["tuning_files"]
    assert sorted(split.notes["tuning_files"]) == split.notes["tuning_files"]


@pytest.mark.slow
def test_a_protocol_run_writes_its_result_file_and_a_check_finds_a_changed_cell(tmp_path, capsys):
    """`reproduce wiki --out DIR` writes DIR/wiki.json; `--check` of the same run exits 0, of an altered file 1."""
    from tests.test_protocols import _fake_wiki

    data = _fake_wiki(tmp_path / "data")
    args = ["reproduce", "wiki", "--data", str(data), "--features", "2", "--peers", ""]
    assert main([*args, "--out", str(tmp_path / "out")]) == 0
    committed = results.load_result(tmp_path / "out" / "wiki.json")
    assert committed["options"]["segmenter_params"] == {"n_features": 2}
    assert {"model", "none", "even", "even-words"} <= set(committed["tables"]["test"])
    capsys.readouterr()
    assert main([*args, "--check", str(tmp_path / "out" / "wiki.json")]) == 0
    assert "every printed cell matches" in capsys.readouterr().out
    committed["tables"]["test"]["none"]["p_k"] += 0.01
    results.write_result(tmp_path / "altered.json", committed)
    assert main([*args, "--check", str(tmp_path / "altered.json")]) == 1
    out = capsys.readouterr().out
    assert "1 cells differ" in out and "wiki / none / P_k:" in out
    assert main(["reproduce", "wiki", "--data", str(data), "--features", "3", "--peers", "",
                 "--check", str(tmp_path / "out" / "wiki.json")]) == 1   # run otherwise: the options differ
    assert "options:" in capsys.readouterr().out


def test_reproduce_prints_the_names_it_was_given_as_one_line_each(tmp_path, capsys):
    """A docs or results path holding a newline or an escape is shown escaped: no forged line on stdout."""
    results_dir = tmp_path / "res\nsegviz: error: forged"
    results_dir.mkdir()
    doc = tmp_path / "doc\x1b[31m.md"
    doc.write_text("# nothing generated here\n", encoding="utf-8")
    assert main(["reproduce", "--tables", "--results", str(results_dir), "--docs", str(doc)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "\x1b" not in out
    assert "doc\\x1b[31m.md" in out and "res\\nsegviz: error: forged" in out
