"""The engine's reading of several files on two cores (segviz.service.parallel_reading): the corpus is exactly the one
a single reader makes, whatever the forked reader does -- sends everything, dies, sends what does not decode,
refuses a file, or never answers."""
from __future__ import annotations

import os
import sys
import threading

import pytest

from segviz.errors import SegvizError
from segviz.events import run_to_end
from segviz.service import forked_worker, parallel_reading
from segviz.service.tasks import read_corpus_task
from tests.conftest import ROOT

CHOI_DIR = ROOT / "sample_corpora" / "choi"

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here: files are read one by one")


def book(n: int) -> str:
    chapters = []
    for c in range(1, 4):
        chapters.append(f"\n\n\nCHAPTER {'I' * c}. Part {c} of book {n}\n\n"
                        + "\n\n".join(f"Paragraph {p} of chapter {c} in book {n} is here. It says little."
                                      for p in range(6)))
    return f"Book {n}\n" + "".join(chapters) + "\n"


def single(paths, **options):
    """The corpus one reader makes (the forked reader switched off)."""
    saved = parallel_reading.MIN_BYTES
    parallel_reading.MIN_BYTES = 1 << 62
    try:
        return run_to_end(read_corpus_task(paths, **options))
    finally:
        parallel_reading.MIN_BYTES = saved


def same(a, b) -> None:
    assert a.documents == b.documents and a.files == b.files and a.name == b.name
    assert a.readings == b.readings and [r.headings for r in a.readings] == [r.headings for r in b.readings]
    assert [r.book_headings for r in a.readings] == [r.book_headings for r in b.readings]
    # tokens decoded from the pipe are interned as the readers intern them (one string per distinct word)
    assert all(w is sys.intern(w) for d in a.documents for s in d.sentences for w in s)


@pytest.fixture
def books(tmp_path):
    paths = []
    for n in range(4):
        path = tmp_path / f"book{n}.txt"
        path.write_text(book(n))
        paths.append(str(path))
    return paths


@pytest.fixture
def forked(monkeypatch, fork_allowed):
    monkeypatch.setattr(parallel_reading, "MIN_BYTES", 0)   # the sample files are small: fork for them too


def test_two_readers_make_the_corpus_one_makes(forked, books):
    same(run_to_end(read_corpus_task([str(CHOI_DIR)])), single([str(CHOI_DIR)]))
    with_headings = run_to_end(read_corpus_task(books, headings=True))
    same(with_headings, single(books, headings=True))
    assert [d.title for d in with_headings.documents][-1] == "CHAPTER III. Part 3 of book 3"
    # read as plain prose, each book says how many chapter headings it has, through the pipe as well
    plain = run_to_end(read_corpus_task(books, headings=False))
    same(plain, single(books, headings=False))
    assert [r.book_headings for r in plain.readings] == [3, 3, 3, 3]
    # nothing asked, each is read as the book it looks like, and says so through the pipe as well
    auto = run_to_end(read_corpus_task(books))
    same(auto, single(books))
    assert auto.documents == with_headings.documents
    assert [r.headings_decision for r in auto.readings] == ["book"] * 4


def test_the_forked_reader_is_used(forked, books, monkeypatch):
    """The files of its share come from the pipe (decoded here), not from a reading here."""
    decoded = []
    real = parallel_reading.decode
    monkeypatch.setattr(parallel_reading, "decode", lambda d: decoded.append(d["name"]) or real(d))
    run_to_end(read_corpus_task(books))
    assert decoded == ["book2.txt", "book3.txt"]   # the last half of the bytes


@pytest.mark.parametrize("failure", ["dies", "sends garbage"])
def test_a_forked_reader_that_fails_leaves_its_files_to_the_engine(forked, books, monkeypatch, failure):
    if failure == "dies":
        monkeypatch.setattr(parallel_reading, "encode", lambda corpus: os._exit(3))
    else:
        monkeypatch.setattr(parallel_reading, "encode", lambda corpus: {"documents": "not a list"})
    same(run_to_end(read_corpus_task(books)), single(books))


def test_a_forked_reader_that_never_answers_is_ended(forked, books, monkeypatch):
    """A reader stuck for good (it waits on an event nobody sets) is ended once the engine has waited for it; the
    outcome does not depend on how long that is."""
    monkeypatch.setattr(forked_worker, "MIN_WAIT_S", 0.2)
    monkeypatch.setattr(forked_worker, "PATIENCE", 0.0)
    monkeypatch.setattr(parallel_reading, "encode", lambda corpus: threading.Event().wait())
    same(run_to_end(read_corpus_task(books)), single(books))


def test_a_file_the_forked_reader_gets_refuses_with_the_single_readers_error(forked, books, tmp_path):
    bad = tmp_path / "zz-binary.txt"
    bad.write_bytes(b"\x00\x01binary\x00" * 100)
    with pytest.raises(SegvizError) as two:
        run_to_end(read_corpus_task(books + [str(bad)]))
    with pytest.raises(SegvizError) as one:
        single(books + [str(bad)])
    assert str(two.value) == str(one.value)


def test_a_parsed_file_crosses_the_pipe_whole_whatever_its_tokens():
    """Tokens go one string a sentence, which needs tokens without spaces; others (from a reader that keeps a
    JSONL file's own tokens) go as lists."""
    import json

    from segviz.documents import Corpus, Document, FileReading, HeadingLine

    documents = [Document("d1", (("a", "b"), ("a b", "c"), (), ("",), ("x", "")), ("a b", "a b c", "", "-", "x"),
                          (True, False, True, False, False), "Chapter 1"),
                 Document("d2", (("z",),), ("z",))]
    reading = FileReading("f.txt", "text", True, 2, 6, 1, ("a note",), (HeadingLine(3, "CHAPTER I", "Chapter 1"),))
    corpus = Corpus(documents, name="f.txt", files=["f.txt", "f.txt"], readings=[reading])
    back = parallel_reading.decode(json.loads(json.dumps(parallel_reading.encode(corpus))))
    same(back, corpus)
