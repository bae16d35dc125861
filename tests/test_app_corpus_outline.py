"""What the window holds of a corpus (segviz.service.corpus_outline): the texts behave as a list of strings, and an
outline survives its trip through the pipe's messages whole -- names, lengths, units, paragraph starts, titles."""
from __future__ import annotations

import json
import random

import pytest

from segviz import read_corpus
from segviz.segmented import reference_titles
from segviz.service.corpus_outline import CHUNK, OutlineReceiver, SentenceTexts, outline_messages, outline_of
from tests.conftest import ROOT

BOOK = """The Book of Tests


CHAPTER I

The first chapter opens here. It has two sentences.

A second paragraph follows. It ends the chapter.


CHAPTER II. The Second One

Another chapter begins. Its words differ.

And it ends with a short paragraph.
"""


def test_the_texts_slice_and_index_as_a_list_does():
    texts = [f"sentence {i} · é 漢 {'x' * (i % 7)}" for i in range(3 * CHUNK + 17)]
    stored = SentenceTexts.of(texts)
    assert len(stored) == len(texts) and list(stored) == texts
    rng = random.Random(0)
    for _ in range(500):
        a, b = rng.randint(-len(texts) - 3, len(texts) + 3), rng.randint(-len(texts) - 3, len(texts) + 3)
        step = rng.choice([None, 1, 2, -1, 5])
        assert stored[a:b:step] == texts[a:b:step], (a, b, step)
    assert stored[-1] == texts[-1] and stored[CHUNK] == texts[CHUNK] and stored[CHUNK - 1] == texts[CHUNK - 1]
    with pytest.raises(IndexError):
        stored[len(texts)]


def _through_the_pipe(outline):
    receiver = OutlineReceiver("a test")
    for message in outline_messages(outline):
        assert receiver.accept(json.loads(json.dumps(message)))
    return receiver.outline()


@pytest.mark.parametrize("source", ["choi", "reuters", "book"])
def test_an_outline_survives_the_pipe_whole(source, tmp_path):
    if source == "book":
        path = tmp_path / "book.txt"
        path.write_text(BOOK)
        corpus = read_corpus(path, headings=True)
    elif source == "choi":
        corpus = read_corpus(ROOT / "sample_corpora" / "choi")
    else:
        corpus = read_corpus(ROOT / "sample_corpora" / "reuters_sample.sgm")
    outline = outline_of(corpus)
    back = _through_the_pipe(outline)
    assert back.masses == corpus.document_masses() and back.document_names == tuple(d.name for d in corpus)
    assert list(back.texts) == corpus.sentence_texts() and back.n_sentences == corpus.n_sentences
    assert back.source_groups() == corpus.source_groups() and back.has_reference == corpus.has_reference
    assert back.summary == outline.summary and back.readings_summary == outline.readings_summary
    assert back.book_headings == outline.book_headings == 0   # read with its headings, or no book at all
    for unit, part in zip(back.units, corpus.by_file()):
        assert unit.paragraph_flags() == (part.paragraph_starts() or ())
        assert unit.titles == reference_titles(part)
    if source == "book":   # the chapter titles the heading reader took out of the text, and the paragraphs
        assert back.units[0].titles == ((0, "CHAPTER I"), (4, "CHAPTER II. The Second One"))
        assert back.units[0].paragraph_starts == (0, 2, 4, 6) and back.masses == (4, 3)


def test_a_receiver_refuses_parts_before_the_head_and_what_is_not_an_outline():
    receiver = OutlineReceiver("a test")
    assert receiver.accept({"type": "progress"}) is False
    with pytest.raises(Exception, match="before its head"):
        receiver.accept({"type": "texts", "texts": ["a"]})
