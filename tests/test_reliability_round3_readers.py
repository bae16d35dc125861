"""The fault matrix, round three (issue 43): text silently lost or misread by the prose reader.  Every text is
generated here.

* two Project Gutenberg e-texts in one file are read as two source units, each with its own header, front
  matter and licence left out (it used to be the first book only, nothing said); what follows the last end
  marker is said when it is more than a licence;
* one numbered paragraph ("Episode 39: ...") no longer makes an article a book whose Markdown and named headings
  are all chapters (and everything before that paragraph front matter): a book needs numbered chapter headings
  that start paragraphs of their own.
"""
from __future__ import annotations

import random

import pytest

from segviz.corpus import read_corpus
from segviz.readers.prose import MAX_LICENCE_CHARS, read_text

WORDS = ("the old house stood at the end of a long road where travellers rested before the hills and the river "
         "ran past the mill while children played in fields of wheat under a pale sky").split()


def _sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _paragraph(rng: random.Random, sentences: int = 5) -> str:
    import textwrap

    return textwrap.fill(" ".join(_sentence(rng) for _ in range(sentences)), 70)


def _etext(title: str, chapters: int, seed: int) -> str:
    """A Gutenberg-like e-text: header, START marker, title page, contents, chapters, closing line, END marker and
    a licence."""
    rng = random.Random(seed)
    header = (f"The Project Gutenberg eBook of {title}\n\nThis eBook is for the use of anyone anywhere.\n\n"
              f"Title: {title}\n\nAuthor: A. Writer\n\nLanguage: English\n\n"
              f"*** START OF THE PROJECT GUTENBERG EBOOK {title.upper()} ***\n\n\n")
    front = f"{title.upper()}\n\nBy A. Writer\n\n\nCONTENTS\n\n" + "\n".join(
        f"CHAPTER {k}" for k in range(1, chapters + 1)) + "\n\n\n"
    body = "".join(f"CHAPTER {k}\n\n" + "\n\n".join(_paragraph(rng) for _ in range(6)) + "\n\n\n"
                   for k in range(1, chapters + 1))
    closing = (f"End of the Project Gutenberg EBook of {title}, by A. Writer\n\n"
               f"*** END OF THE PROJECT GUTENBERG EBOOK {title.upper()} ***\n\n")
    licence = "Updated editions will replace the previous one. " * 300   # a licence's length (15,000 characters)
    return header + front + body + closing + licence + "\n"


def _read(path, **kw):
    corpus = read_corpus(path, **kw)
    return corpus, corpus.readings[0]


def test_two_concatenated_etexts_are_two_units_each_read_whole(tmp_path):
    first, second = _etext("The First Book", 4, 1), _etext("A Second Story", 3, 2)
    for name, text in (("a.txt", first), ("b.txt", second), ("ab.txt", first + second)):
        (tmp_path / name).write_text(text)
    a, _ = _read(tmp_path / "a.txt")
    b, _ = _read(tmp_path / "b.txt")
    both, reading = _read(tmp_path / "ab.txt")
    assert both.n_sentences == a.n_sentences + b.n_sentences   # nothing of the second book dropped
    assert [d.texts for d in both.documents] == [d.texts for d in a.documents + b.documents]
    assert len(both.by_file()) == 2                                # two source units: the books never run together
    assert [len(h) for h in (a.readings[0].headings, b.readings[0].headings)] == [4, 3]
    assert len(reading.headings) == 7 and reading.documents == 2
    assert reading.notes[0].startswith("2 Project Gutenberg e-texts in one file")
    assert not any("Updated editions" in t for d in both.documents for t in d.texts)   # licences left out
    assert not any("START OF THE PROJECT" in t or "Title:" in t for d in both.documents for t in d.texts)
    # read as plain prose, the second book is there too
    plain = read_corpus(tmp_path / "ab.txt", headings=False)
    assert plain.n_sentences > both.n_sentences and len(plain.by_file()) == 2


def test_text_after_the_end_marker_beyond_a_licence_is_said(tmp_path):
    rng = random.Random(3)
    appended = "\n\n".join(_paragraph(rng, 8) for _ in range(80))   # an essay pasted after the licence
    assert len(appended) > MAX_LICENCE_CHARS
    (tmp_path / "book.txt").write_text(_etext("The First Book", 4, 1) + "\n" + appended + "\n")
    _, reading = _read(tmp_path / "book.txt")
    said = [note for note in reading.notes if "after the Project Gutenberg end marker" in note]
    assert len(said) == 1 and "characters" in said[0] and "left out" in said[0]
    _, reading = _read_text_only(_etext("The First Book", 4, 1))
    assert not any("end marker" in note for note in reading.notes)   # a licence alone is not worth a note


def _read_text_only(text):
    parsed = read_text(text, source="book.txt")
    return parsed, parsed


def test_an_etext_with_a_missing_end_marker_stops_at_the_next_start(tmp_path):
    first = _etext("The First Book", 4, 1)
    cut = first.index("End of the Project Gutenberg EBook")
    text = first[:cut] + _etext("A Second Story", 3, 2)
    parsed = read_text(text, source="ab.txt")
    assert parsed.n_documents == 2 and len(parsed.headings) == 7
    assert len(set(parsed.units)) == 2


@pytest.mark.parametrize("shape", ["markdown", "named"])
def test_one_numbered_paragraph_does_not_make_an_article_a_book(tmp_path, shape):
    rng = random.Random(5)
    parts = ["# A Television Series" if shape == "markdown" else "Introduction", _paragraph(rng)]
    for k in range(40):
        parts.append(f"## Reception in year {k}" if shape == "markdown" else
                     ("Conclusion" if k % 2 else "Appendix"))
        parts.append(_paragraph(rng))
        if k == 10:
            parts.append("Episode 39: " + _paragraph(rng, 3))
        if k == 20:   # a short numbered list: numerals without a series
            parts += ["1.", "A first item of the list.", "2.", "A second item of the list."]
    (tmp_path / "article.txt").write_text("\n\n".join(parts) + "\n")
    corpus, reading = _read(tmp_path / "article.txt")
    assert not reading.read_as_book and not reading.book_headings
    assert not any("looks like a book" in note for note in reading.notes)
    plain = read_corpus(tmp_path / "article.txt", headings=False)
    assert corpus.n_sentences == plain.n_sentences   # nothing taken for front matter


def test_three_numbered_chapters_each_opening_a_paragraph_still_make_a_book(tmp_path):
    rng = random.Random(6)
    text = "\n\n".join(f"CHAPTER {k}\n\n" + "\n\n".join(_paragraph(rng) for _ in range(4)) for k in (1, 2, 3))
    (tmp_path / "book.txt").write_text(text + "\n")
    _, reading = _read(tmp_path / "book.txt")
    assert reading.read_as_book and len(reading.headings) == 3


@pytest.mark.slow
def test_real_books_concatenated_read_as_both(shared_corpora, tmp_path):
    novels = shared_corpora / "gutenberg_novels"
    one, two = novels / "84_frankenstein.txt", novels / "35_the-time-machine.txt"
    (tmp_path / "both.txt").write_bytes(one.read_bytes() + two.read_bytes())
    both = read_corpus(tmp_path / "both.txt")
    assert both.n_sentences == read_corpus(one).n_sentences + read_corpus(two).n_sentences
    assert len(both.by_file()) == 2
