"""Segmentations written out (Choi, JSONL, CSV, plain text) and parsed back; segmenting unit by unit."""
from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest

from segviz.corpus import read_corpus, tokenize, write_choi
from segviz.decode import decode
from segviz.errors import SegvizError
from segviz.model_protocol import AppliedDocument
from segviz.rules import ThresholdRule
from segviz.segmentation import boundaries_to_masses
from segviz.segmented import SegmentedDocument, segment_documents
from segviz.writers import output_format_for, render_csv, render_jsonl, render_text, write_segmentation
from tests.stub_models import OneRuleModel


class GapModel(OneRuleModel):
    """A stand-in model: q(yes) is high before every sentence that starts with a capitalised 'Then'; the paper's
    threshold rule at alpha 0.5, epsilon 1 decides."""

    def apply(self, document, *, n_jobs=1):
        texts = document.sentence_texts()
        probabilities = np.array([0.9 if t.startswith("Then") else 0.1 for t in texts[1:]])
        return AppliedDocument(probabilities, self.rule_for(document), "model", self)


PROSE = ("It rained all day. The river rose.\n\nThen the town was quiet. People slept.\n\n"
         "Nobody came. Then the sun rose over the hills. Birds sang.\n")


@pytest.fixture
def documents(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text(PROSE)
    b = tmp_path / "b.txt"
    b.write_text("Then one sentence alone.\n")
    corpus = read_corpus([a, b])
    return corpus, segment_documents(GapModel(), corpus)


def test_each_unit_is_segmented_on_its_own(documents):
    corpus, docs = documents
    assert [d.name for d in docs] == [corpus.files[0], corpus.files[-1]]
    first, second = docs
    assert first.masses == (2, 3, 2) and second.masses == (1,)
    assert first.probabilities[1] == pytest.approx(0.9) and second.probabilities == ()
    assert first.paragraph_starts == (True, False, True, False, True, False, False)
    assert first.gap_probability(0) is None and first.gap_probability(2) == pytest.approx(0.9)
    probs = GapModel().boundary_probabilities(corpus.by_file()[0])
    assert first.masses == boundaries_to_masses(decode(probs, 0.5, 1), 7)
    # which segmenter answered and the rule that placed the boundaries (a one-sentence unit too)
    assert [(d.expert, d.rule) for d in docs] == [("model", "threshold rule: α = 0.5, ε = 1")] * 2
    assert [d.masses for d in docs] == GapModel().predict(corpus)


def test_a_rule_given_replaces_the_models_own_in_every_unit(documents):
    from segviz.rules import SegmentCountRule
    from segviz.segmenter import Segmenter

    corpus, _ = documents
    flat = Segmenter.from_weights([], [], prior=0.3, mu=0.2)          # q(yes) = 0.3 at every gap
    own = segment_documents(flat, corpus)
    assert [d.masses for d in own] == [(7,), (1,)] and own[0].rule == "threshold rule: α = 0.5, ε = 1"
    counted = segment_documents(flat, corpus, rule=SegmentCountRule(segments=3))
    assert [len(d.masses) for d in counted] == [3, 1] and sum(counted[0].masses) == 7
    assert {d.rule for d in counted} == {"segment-count rule: 3 segments per document"}
    assert flat.rule_.kind == "threshold"                             # the model itself is left as it was
    low = segment_documents(flat, corpus, rule=ThresholdRule(alpha=0.2, epsilon=3))
    assert low[0].masses == boundaries_to_masses(decode(np.full(6, 0.3), 0.2, 3), 7) and low[1].masses == (1,)


def test_jsonl_one_object_per_segment_and_read_back(documents, tmp_path):
    corpus, docs = documents
    text = render_jsonl(docs)
    rows = [json.loads(line) for line in text.splitlines()]
    assert [(r["segment"], r["start"], r["end"]) for r in rows] == [(0, 0, 2), (1, 2, 5), (2, 5, 7), (0, 0, 1)]
    assert {"document", "segment", "start", "end", "text", "boundary_probability"} <= set(rows[0])
    assert rows[0]["boundary_probability"] is None and rows[1]["boundary_probability"] == pytest.approx(0.9)
    assert rows[1]["text"] == "Then the town was quiet. People slept.\n\nNobody came."
    out = tmp_path / "seg.jsonl"
    out.write_text(text)
    again = read_corpus(out)
    assert again.formats == ("jsonl",) and again.has_reference
    assert again.masses() == (2, 3, 2, 1) and again.sentences() == corpus.sentences()
    assert again.readings[0].documents == 2


def test_csv_one_row_per_sentence(documents):
    corpus, docs = documents
    rows = list(csv.DictReader(io.StringIO(render_csv(docs))))
    assert len(rows) == corpus.n_sentences
    assert list(rows[0]) == ["document", "sentence", "probability", "boundary", "text"]
    first = [r for r in rows if r["document"] == docs[0].name]
    assert [int(r["sentence"]) for r in first] == list(range(7))
    assert [int(r["boundary"]) for r in first] == [0, 0, 1, 0, 0, 1, 0]
    assert first[0]["probability"] == "" and float(first[2]["probability"]) == pytest.approx(0.9)
    starts = [i for i, r in enumerate(first) if r["boundary"] == "1"]
    assert boundaries_to_masses(starts, 7) == docs[0].masses
    assert [r["text"] for r in rows] == corpus.sentence_texts()


def test_plain_text_with_separator_lines(documents):
    corpus, docs = documents
    text = render_text(docs)
    assert text.count("======== ") == 2
    parts = re.split(r"(?m)^-------- segment \d+.*--------$", text.split("======== ", 2)[1])
    segments = [p.strip() for p in parts[1:]]
    assert len(segments) == 3
    assert [len(tokenize(s)) for s in segments] == [
        sum(len(s) for s in corpus.sentences()[i:j]) for i, j in ((0, 2), (2, 5), (5, 7))]
    assert "(boundary probability 0.90)" in text
    assert "Then the town was quiet. People slept.\n\nNobody came." in text


def test_choi_round_trip_read_write_read(documents, tmp_path, sample_dir):
    corpus, docs = documents
    out = tmp_path / "seg.ref"
    write_segmentation(out, docs, "choi")
    again = read_corpus(out)
    assert again.formats == ("choi",) and again.masses() == (2, 3, 2, 1)
    assert again.sentences() == corpus.sentences()
    labelled = read_corpus(sample_dir / "choi" / "3-11_0.ref")
    (tmp_path / "ref.ref").write_text(write_choi(labelled.masses(), labelled.sentence_texts()))
    assert read_corpus(tmp_path / "ref.ref").masses() == labelled.masses()


def test_round_trip_of_real_prose(shared_corpora, tmp_path):
    """Hard-wrapped wiki300 prose -> text reader -> Choi -> read back: the same sentences."""
    from tests.realtext import choi_segments, hard_wrapped

    segments = choi_segments(shared_corpora / "wiki300_badjatiya" / "wiki_test_5.ref")[1:]
    book = tmp_path / "article.txt"
    book.write_text(hard_wrapped(segments))
    corpus = read_corpus(book)
    docs = [SegmentedDocument("article", tuple(corpus.sentence_texts()), (corpus.n_sentences,), (),
                              corpus.paragraph_starts())]
    for fmt, name in (("choi", "x.ref"), ("jsonl", "x.jsonl")):
        write_segmentation(tmp_path / name, docs, fmt)
        assert read_corpus(tmp_path / name).sentences() == corpus.sentences()


def test_output_format_by_extension_or_name(tmp_path):
    assert output_format_for("out.ref") == "choi" and output_format_for("out.JSONL") == "jsonl"
    assert output_format_for("out.csv") == "csv" and output_format_for("out.txt") == "text"
    assert output_format_for(None) == "choi" and output_format_for("-") == "choi"
    assert output_format_for("out.dat", "csv") == "csv"
    with pytest.raises(SegvizError, match="--output-format"):
        output_format_for("out.dat")
    with pytest.raises(SegvizError, match="unknown output format"):
        output_format_for("out.ref", "xml")


def test_segmented_document_validates():
    with pytest.raises(ValueError, match="cover"):
        SegmentedDocument("d", ("a", "b"), (1,), (0.5,))
    with pytest.raises(ValueError, match="gap probabilities"):
        SegmentedDocument("d", ("a", "b"), (2,), (0.5, 0.5))


def test_chapter_titles_reach_every_output(tmp_path):
    """A book read with headings: each output carries the title of the chapter a segment starts in."""
    book = tmp_path / "book.txt"
    book.write_text("A TITLE PAGE\n\nCHAPTER I.\n\nThe Widow and her Child.\n\nIt rained all day. The river rose.\n\n"
                    "Then the town was quiet. People slept.\n\nCHAPTER II\n\nNobody came. Then the sun rose over the "
                    "hills. Birds sang.\n")
    corpus = read_corpus(book, headings=True)
    assert [d.title for d in corpus] == ["CHAPTER I. The Widow and her Child.", "CHAPTER II"]
    [doc] = segment_documents(GapModel(), corpus)
    assert doc.masses == (2, 3, 2)   # the model's segments, not the chapters
    rows = [json.loads(line) for line in render_jsonl([doc]).splitlines()]
    assert [r["title"] for r in rows] == ["CHAPTER I. The Widow and her Child.", "CHAPTER I. The Widow and her Child.",
                                          "CHAPTER II"]
    out = tmp_path / "seg.jsonl"
    out.write_text(render_jsonl([doc]))
    assert read_corpus(out).sentences() == corpus.sentences()   # the jsonl reader reads it back
    table = list(csv.DictReader(io.StringIO(render_csv([doc]))))
    assert list(table[0])[-1] == "title"
    assert [r["title"] for r in table] == ["CHAPTER I. The Widow and her Child."] * 4 + ["CHAPTER II"] * 3
    text = render_text([doc])
    assert text.count("title: CHAPTER I. The Widow and her Child.") == 2 and text.count("title: CHAPTER II") == 1
    # an untitled corpus keeps the outputs as they were
    plain = segment_documents(GapModel(), read_corpus(book))
    assert "title" not in json.loads(render_jsonl(plain).splitlines()[0])
    assert "title" not in render_csv(plain).splitlines()[0] and "title: " not in render_text(plain)
