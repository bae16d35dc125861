"""The wiki (Wiki-727K), JSONL, Choi and lines readers, format detection, and the input limits."""
from __future__ import annotations

import json
import os
import time

import pytest

from segviz.cli import main
from segviz.corpus import FORMATS, NoReferenceError, detect_format, read_corpus, tokenize
from segviz.errors import SegvizError
from segviz.readers import source
from segviz.readers.sentences import MAX_SENTENCE_CHARS, cut_long
from tests.realtext import choi_segments, wiki727k_from_wiki300

WIKI = """\
========,1,preface.
Ada Lovelace was an English mathematician.
She is known for her work on the Analytical Engine.
========,1,Early life.
========,2,Childhood.
She was born in London in 1815.
***LIST***.
Her mother raised her.
========,2,Education.
She was tutored in mathematics.
========,1,Work.
She wrote the first published algorithm.
========,3,Notes.
Her notes were long.
"""


def test_wiki_every_section_start_is_a_boundary(tmp_path):
    f = tmp_path / "ada"
    f.write_text(WIKI)
    corpus = read_corpus(f)
    assert corpus.formats == ("wiki",) and corpus.has_reference
    assert corpus.masses() == (2, 2, 1, 1, 1)  # "Early life" holds no sentence of its own: no segment
    assert [d.title for d in corpus] == ["preface", "Childhood", "Education", "Work", "Notes"]
    assert "***LIST***." not in corpus.sentence_texts()
    assert any("placeholder" in n for n in corpus.readings[0].notes)
    assert corpus.readings[0].documents == 1 and corpus.readings[0].reference_boundaries == 4


def test_wiki_levels_merge_deeper_sections(tmp_path):
    f = tmp_path / "ada"
    f.write_text(WIKI)
    assert read_corpus(f, wiki_level=2).masses() == (2, 2, 1, 2)  # "Notes" (level 3) joins "Work"
    assert read_corpus(f, wiki_level=1).masses() == (2, 3, 2)
    with pytest.raises(SegvizError, match="level"):
        read_corpus(f, wiki_level=0)


def test_wiki300_article_in_wiki727k_format(shared_corpora, tmp_path):
    """Every wiki300 article rewritten in the Wiki-727K format reads with its sections and sentences."""
    for i in (1, 7, 42, 150, 300):
        text, segments = wiki727k_from_wiki300(shared_corpora / "wiki300_badjatiya" / f"wiki_test_{i}.ref")
        f = tmp_path / f"wiki_{i}"
        f.write_text(text)
        corpus = read_corpus(f)
        assert corpus.formats == ("wiki",)
        expected = tuple(len(s) for s in segments if s)
        assert corpus.masses() == expected, i
        assert corpus.sentences() == [tuple(tokenize(s)) for seg in segments for s in seg]
        coarse = read_corpus(f, wiki_level=2)
        assert len(coarse) == sum(1 for k, s in enumerate(segments) if s and (k == 0 or k % 3 != 0))


def test_jsonl_documents_with_segments_boundaries_or_none(tmp_path):
    f = tmp_path / "docs.jsonl"
    f.write_text(
        json.dumps({"id": "a", "sentences": ["One here.", "Two here.", "Three here."], "segments": [1, 2]}) + "\n"
        + json.dumps({"id": "b", "sentences": ["Four.", "Five.", "Six.", "Seven."], "boundaries": [2]}) + "\n")
    corpus = read_corpus(f)
    assert corpus.formats == ("jsonl",) and corpus.masses() == (1, 2, 2, 2)
    assert corpus.source_groups() == [3, 4]  # each JSONL document is a unit of its own
    assert corpus.readings[0].documents == 2 and corpus.readings[0].reference_boundaries == 2
    unlabelled = tmp_path / "plain.jsonl"
    unlabelled.write_text(json.dumps({"sentences": ["A b.", "C d."], "paragraph_starts": [True, False]}) + "\n")
    plain = read_corpus(unlabelled)
    assert not plain.has_reference and plain.document_masses() == (2,)
    assert plain.paragraph_starts() == (True, False)
    with pytest.raises(NoReferenceError):
        plain.masses()


@pytest.mark.parametrize("lines,match", [
    ([{"sentences": "not a list"}], "list of strings"),
    ([{"sentences": ["a", "b"], "segments": [1, 2]}], "sum to the 2"),
    ([{"sentences": ["a", "b"], "segments": [0, 2]}], "positive"),
    ([{"sentences": ["a", "b", "c"], "boundaries": [0]}], "1..2"),
    ([{"sentences": ["a", "b", "c"], "boundaries": [2, 1]}], "increase"),
    ([{"sentences": ["a", "b", "c"], "segments": [1, 2], "boundaries": [2]}], "disagree"),
    ([{"sentences": ["a"], "segments": [1]}, {"sentences": ["b"]}], "every document or for none"),
    ([{"id": "x", "sentences": ["a"]}, {"id": "x", "sentences": ["b"]}], "used twice"),
    ([["a list"]], "JSON object"),
])
def test_jsonl_errors_name_the_line(tmp_path, lines, match):
    f = tmp_path / "bad.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    with pytest.raises(SegvizError, match=match) as err:
        read_corpus(f, format="jsonl")
    assert "line" in str(err.value)


def test_a_pretty_printed_json_file_is_named_not_parsed(tmp_path):
    f = tmp_path / "model.json"
    f.write_text(json.dumps({"format": "segviz-segmenter", "version": 1}, indent=1))
    assert detect_format(f.read_bytes()) == "jsonl"
    with pytest.raises(SegvizError, match="segviz-segmenter"):
        read_corpus(f)


def test_choi_with_bom_and_crlf(tmp_path):
    f = tmp_path / "x.ref"
    f.write_bytes(b"\xef\xbb\xbf==========\r\nA first sentence .\r\n==========\r\nSecond one .\r\n==========\r\n")
    corpus = read_corpus(f)
    assert corpus.formats == ("choi",) and corpus.masses() == (1, 1)
    assert corpus.sentences()[0] == ("a", "first", "sentence", ".")


def test_lines_reader_and_no_old_alias(tmp_path):
    f = tmp_path / "lines.txt"
    f.write_text("first sentence\nsecond sentence\n\n\nthird\n")
    assert read_corpus(f, format="lines").masses() == (2, 1)
    with pytest.raises(SegvizError, match="unknown corpus format 'plain'"):
        read_corpus(f, format="plain")


def test_bom_is_never_a_token():
    assert tokenize("\ufeffHello wo\u00adrld\u200bnow") == ["hello", "world", "now"]


@pytest.mark.parametrize("content,expected", [
    (b'<REUTERS NEWID="1"><BODY>x</BODY></REUTERS>', "reuters"),
    (b"========,1,preface.\nText.\n", "wiki"),
    (b"==========\nA .\n==========\n", "choi"),
    (b'{"sentences": ["A."]}\n', "jsonl"),
])
def test_detection_by_content(content, expected):
    assert detect_format(content) == expected
    assert expected in FORMATS


# ----------------------------------------------------------------------------------------------- limits

def test_devices_and_fifos_are_refused_at_once(tmp_path):
    started = time.perf_counter()
    with pytest.raises(SegvizError, match="device"):
        read_corpus("/dev/zero")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(SegvizError, match="FIFO"):
        read_corpus(fifo)
    assert time.perf_counter() - started < 2


def test_files_above_the_limit_are_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "MAX_FILE_BYTES", 1000)
    f = tmp_path / "big.txt"
    f.write_text("A sentence here.\n" * 100)
    with pytest.raises(SegvizError, match="more than the 1,000"):
        read_corpus(f)


def test_overlong_sentences_are_cut_with_a_note(tmp_path):
    f = tmp_path / "long.txt"
    f.write_text("word " * 200_000 + "\n")  # one line of 10^6 characters
    corpus = read_corpus(f)
    assert corpus.n_sentences == pytest.approx(1_000_000 / MAX_SENTENCE_CHARS, rel=0.01)
    assert max(len(t) for t in corpus.sentence_texts()) <= MAX_SENTENCE_CHARS
    assert corpus.n_tokens == 200_000
    assert any("cut" in n for n in corpus.readings[0].notes)
    assert main(["baselines", str(f)]) == 0  # the same sentences in every command
    assert cut_long("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]
    assert cut_long("aaa bbb ccc", 7) == ["aaa bbb", "ccc"]


def test_summary_line(tmp_path, sample_dir):
    corpus = read_corpus(sample_dir / "choi" / "3-11_0.ref")
    assert corpus.summary() == (f"read {sample_dir / 'choi' / '3-11_0.ref'} as choi (detected): 1 document, "
                                f"{corpus.n_sentences} sentences, 9 reference boundaries")
    prose = tmp_path / "p.txt"
    prose.write_text("One sentence here. And another one here.\n")
    assert read_corpus(prose).summary().endswith("no reference boundaries (unlabelled)")
    assert read_corpus(prose, format="text").readings[0].detected is False


def test_choi_segments_helper_matches_the_reader(shared_corpora):
    path = shared_corpora / "wiki300_badjatiya" / "wiki_test_3.ref"
    assert tuple(len(s) for s in choi_segments(path)) == read_corpus(path).masses()
