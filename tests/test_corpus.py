"""Corpus readers, tokenisation, masses and their errors."""
from __future__ import annotations

import numpy as np
import pytest

from segviz.corpus import Corpus, detect_format, read_corpus, tokenize, write_choi
from segviz.errors import SegvizError
from segviz.segmentation import boundaries_to_masses, masses_to_boundaries
from segviz.segmentation import masses_to_indicator as boundary_indicator


def test_tokenize_lowercases_and_splits_punctuation():
    assert tokenize("Mr. Smith said: \"It's 3.5 pct, up 1,000!\"") == [
        "mr", ".", "smith", "said", ":", '"', "it's", "3.5", "pct", ",", "up", "1,000", "!", '"',
    ]
    assert tokenize("The U.S. economy") == ["the", "u.s", ".", "economy"]


def test_masses_boundaries_roundtrip():
    assert list(masses_to_boundaries((2, 3, 1))) == [2, 5]
    assert boundaries_to_masses([2, 5], 6) == (2, 3, 1)
    assert boundaries_to_masses([], 4) == (4,)
    assert list(boundary_indicator((2, 3, 1))) == [False, True, False, False, True]
    with pytest.raises(SegvizError):
        boundaries_to_masses([0], 4)


def test_choi_reader_skips_empty_segments(tmp_path):
    f = tmp_path / "doc.ref"
    f.write_text("==========\nA first sentence .\nAnother one .\n==========\n==========\nThird here .\n==========\n")
    corpus = read_corpus(f)
    assert corpus.masses() == (2, 1)
    assert corpus.sentences()[0] == ("a", "first", "sentence", ".")
    assert corpus.sentence_texts()[2] == "Third here ."
    assert detect_format(f.read_bytes()) == "choi"


def test_choi_directory_and_glob_natural_order(sample_dir):
    by_dir = read_corpus(sample_dir / "choi")
    by_glob = read_corpus(str(sample_dir / "choi" / "*.ref"))
    assert by_dir.masses() == by_glob.masses()
    assert len(by_dir.by_file()) == 5
    assert all(len(c) == 10 for c in by_dir.by_file())  # ten segments per Choi document


def test_plain_reader(tmp_path):
    f = tmp_path / "plain.txt"
    f.write_text("one sentence here\nand another\n\n\nsecond doc\n")
    corpus = read_corpus(f)
    assert corpus.masses() == (2, 1)


def test_reuters_sample_has_no_signoff_or_dateline(sample_dir):
    corpus = read_corpus(sample_dir / "reuters_sample.sgm")
    assert len(corpus) == 300
    for doc in corpus:
        last = doc.sentences[-1]
        assert "reuter" not in last[-3:], doc.name
        assert doc.texts[-1].lower() not in {"more", "reuter"}
        assert not doc.texts[0].startswith(("NEW YORK, ", "WASHINGTON, "))


def test_reuters_cleaning_of_variants(tmp_path):
    f = tmp_path / "reut2-x.sgm"
    f.write_text(
        '<REUTERS NEWID="1"><TEXT><BODY>NEW YORK, March 3 - Shares rose. Traders were glad.\n REUTER...\n&#3;</BODY></TEXT></REUTERS>\n'
        '<REUTERS NEWID="2"><TEXT><TITLE>NO BODY</TITLE></TEXT></REUTERS>\n'
        '<REUTERS NEWID="3"><TEXT><BODY>Oil fell &lt;sharply&gt; today.\n    More\n</BODY></TEXT></REUTERS>\n',
        encoding="latin-1",
    )
    corpus = read_corpus(f)
    assert [d.name for d in corpus] == ["reut2-x.sgm#NEWID=1", "reut2-x.sgm#NEWID=3"]
    assert corpus[0].texts == ("Shares rose.", "Traders were glad.")
    assert corpus[1].texts == ("Oil fell <sharply> today.",)


def test_reuters_keeps_the_breaks_its_published_tables_were_made_with(tmp_path):
    # prose joins "Gov." to the name after it; Reuters keeps syntok's break, as every committed Reuters result read it
    f = tmp_path / "reut2-y.sgm"
    f.write_text('<REUTERS NEWID="1"><TEXT><BODY>ALBANY, March 3 - Gov. Mario Cuomo spoke. MR. SMITH left.\n'
                 '</BODY></TEXT></REUTERS>\n', encoding="latin-1")
    assert read_corpus(f)[0].texts == ("Gov.", "Mario Cuomo spoke.", "MR. SMITH left.")
    prose = tmp_path / "p.txt"
    prose.write_text("Gov. Mario Cuomo spoke at length. MR. SMITH left the hall.\n")
    assert read_corpus(prose).sentence_texts() == ["Gov. Mario Cuomo spoke at length.", "MR. SMITH left the hall."]


def test_reuters_real_file_counts(shared_corpora):
    corpus = read_corpus(shared_corpora / "reuters21578" / "reut2-018.sgm")
    assert 850 < len(corpus) <= 1000
    tails = [d.sentences[-1][-1] for d in corpus]
    assert sum(t in {"reuter", "reuters"} for t in tails) == 0


def test_choi_real_counts(shared_corpora):
    corpus = read_corpus(shared_corpora / "choi2000" / "1" / "3-11")
    assert len(corpus) == 500 and len(corpus.by_file()) == 50
    assert corpus.n_sentences == 3577  # the README's count
    quirky = read_corpus(shared_corpora / "choi2000" / "4" / "3-5")
    assert len(quirky) == 296  # four documents hold an empty segment, which is dropped


@pytest.mark.parametrize(
    "content,match",
    [
        (b"", "empty"),
        (b"   \n\n", "empty"),
        (b"\x00\x01\x02binary\x00", "binary"),
        (b"caf\xe9 au lait\n", "UTF-8"),
        (b"==========\n==========\n", "no sentences"),
        (b"<REUTERS NEWID=\"1\"><TEXT><TITLE>x</TITLE></TEXT></REUTERS>", "BODY"),
    ],
)
def test_bad_files_give_clear_errors(tmp_path, content, match):
    f = tmp_path / "bad.txt"
    f.write_bytes(content)
    with pytest.raises(SegvizError, match=match):
        read_corpus(f)


def test_missing_paths(tmp_path):
    with pytest.raises(SegvizError, match="no such file"):
        read_corpus(tmp_path / "nope.ref")
    with pytest.raises(SegvizError, match="no files match"):
        read_corpus(str(tmp_path / "*.ref"))
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(SegvizError, match="no corpus files"):
        read_corpus(tmp_path / "empty_dir")
    with pytest.raises(SegvizError, match="unknown corpus format"):
        read_corpus(tmp_path, kind="xml")


def test_write_choi_roundtrip(tmp_path, sample_dir):
    corpus = read_corpus(sample_dir / "choi" / "3-11_0.ref")
    text = write_choi(corpus.masses(), corpus.sentence_texts())
    out = tmp_path / "out.ref"
    out.write_text(text)
    again = read_corpus(out)
    assert again.masses() == corpus.masses()
    assert again.sentences() == corpus.sentences()
    with pytest.raises(SegvizError, match="covers"):
        write_choi((3,), ["a", "b"])


def test_corpus_helpers():
    corpus = read_corpus.__globals__["Document"]
    docs = [corpus("a", (("x",), ("y",)), ("x", "y")), corpus("b", (("z",),), ("z",))]
    c = Corpus(docs, name="t", files=["f1", "f2"])
    assert c.n_sentences == 3 and c.tokens() == ["x", "y", "z"] and c.n_tokens == 3
    assert list(c.document_starts()) == [0, 2]
    assert [len(p) for p in c.by_file()] == [1, 1]
    assert Corpus.concatenate([c, c]).masses() == (2, 1, 2, 1)
    assert isinstance(c[0:1], Corpus)
    assert np.array_equal(c.document_starts(), np.array([0, 2]))


def test_unlabelled_corpus_says_so():
    Document = read_corpus.__globals__["Document"]
    docs = [Document("a", (("x",), ("y",)), ("x", "y"), (True, False)), Document("b", (("z",),), ("z",), (True,))]
    c = Corpus(docs, name="prose", files=["f1", "f2"], has_reference=False)
    assert c.reference_masses() is None and c.document_masses() == (2, 1)
    with pytest.raises(SegvizError, match="no reference"):
        c.masses()
    assert c.paragraph_starts() == (True, False, True)
    assert all(not part.has_reference for part in c.by_file()) and not c[0:1].has_reference
    labelled = Corpus(docs, name="ref")
    assert not Corpus.concatenate([c, labelled]).has_reference
    assert Corpus.concatenate([labelled, labelled]).masses() == (2, 1, 2, 1)
    assert labelled.paragraph_starts() == (True, False, True)
    no_marks = Corpus([Document("c", (("w",),), ("w",))])
    assert Corpus.concatenate([labelled, no_marks]).paragraph_starts() == ()
    with pytest.raises(ValueError, match="paragraph marks"):
        Document("d", (("x",),), ("x",), (True, False))


BOOK_PARAGRAPH = ("The morning came grey over the hills and the people went out to the fields. They talked of the "
                  "weather and the price of corn.")
BOOK_BODY = "\n\n".join([BOOK_PARAGRAPH] * 3)


def test_a_book_is_read_as_a_book_unless_asked_otherwise(tmp_path):
    """``read_corpus`` reads a text that looks like a book with its headings by default, and records per file what
    was decided; a plain prose file beside it, and the other formats, are read as ever."""
    book = tmp_path / "book.txt"
    book.write_text("My Book\n\n" + "\n\n".join(f"CHAPTER {n}\n\n{BOOK_BODY}" for n in ("I", "II", "III")))
    prose = tmp_path / "prose.txt"
    prose.write_text(BOOK_BODY)
    auto = read_corpus(book)
    assert auto.has_reference and len(auto) == 3 and auto.readings[0].read_as_book
    assert auto.readings[0].headings_decision == "book"
    assert auto.summary() == f"read {book} as a book (detected): 1 document, 18 sentences, 2 reference boundaries"
    assert auto.documents == read_corpus(book, headings=True).documents
    assert read_corpus(book, headings=True).summary().startswith(f"read {book} as a book (as asked): ")
    plain = read_corpus(book, headings=False)
    assert not plain.has_reference and plain.readings[0].headings_decision == "refused"
    assert plain.readings[0].book_headings == 3 and plain.summary().startswith(f"read {book} as text (detected): ")
    assert "CHAPTER II" in plain.sentence_texts()
    # plain prose is not affected; a corpus of both has a reference only if both do
    alone = read_corpus(prose)
    assert alone.readings[0].headings_decision == "" and not alone.has_reference
    assert alone.documents == read_corpus(prose, headings=False).documents
    both = read_corpus([book, prose])
    assert [r.headings_decision for r in both.readings] == ["book", ""] and not both.has_reference
    assert read_corpus(book, format="lines").readings[0].headings_decision == ""   # headings are prose's alone
