"""The ``text`` reader (raw prose) and the text/lines detection, on small cases and on real hard-wrapped fiction."""
from __future__ import annotations

import zipfile

import pytest

from segviz.corpus import NoReferenceError, detect_format, read_corpus
from segviz.readers.prose import TERMINAL_RE, is_heading, paragraphs, read_text
from tests.conftest import SHARED_CORPORA
from tests.realtext import brown_paragraphs, choi_segments, hard_wrapped

WRAPPED = """\
The committee met on a grey morning in March. Nobody had expected the
chairman to resign, least of all the members who had voted for him only
a year before. He spoke for ten minutes and then left the room.

Outside, the reporters waited. One of them, a young woman from the
evening paper, had heard a rumour the night before and had not slept.
She asked the first question as the door opened.
"""


def _texts(text: str, **options) -> list[str]:
    parsed = read_text(text, source="t.txt", **options)
    return [t for d in parsed.documents for t in d.texts]


def test_wrapped_lines_are_joined_into_sentences_with_paragraph_starts():
    parsed = read_text(WRAPPED, source="t.txt")
    [doc] = parsed.documents
    assert doc.texts[0] == "The committee met on a grey morning in March."
    assert doc.texts[1] == ("Nobody had expected the chairman to resign, least of all the members who had voted for "
                            "him only a year before.")
    assert len(doc) == 6
    assert doc.paragraph_starts == (True, False, False, True, False, False)
    assert not parsed.has_reference and parsed.n_documents == 1


def test_a_title_in_capitals_does_not_end_a_sentence():
    # books set a chapter's first words in capitals: "MR." alone would be a one-word sentence at its start
    texts = _texts("MRS. SOWERBY came in. COL. Grangerford was a gentleman, you see. Mr. Brown sat.\n\n"
                   "They met at ST.\n\nHe said no. DR. JEKYLL was there.")
    assert texts == ["MRS. SOWERBY came in.", "COL. Grangerford was a gentleman, you see.", "Mr. Brown sat.",
                     "They met at ST.", "He said no.", "DR. JEKYLL was there."]


def test_a_title_before_a_name_does_not_end_a_sentence():
    # syntok splits after these: "the Rev." and "Lieut." would each end a sentence and cut a name in two
    texts = _texts("It was the Rev. Josiah Crawley who spoke. Lieut. Starbuck and Wm. Dobbin came.\n\n"
                   "Messrs. Jones and Mme. Merle sat. Yes, Sir. No.")
    assert texts == ["It was the Rev. Josiah Crawley who spoke.", "Lieut. Starbuck and Wm. Dobbin came.",
                     "Messrs. Jones and Mme. Merle sat.", "Yes, Sir.", "No."]


def test_closing_punctuation_alone_joins_the_sentence_before_it():
    # syntok cuts `."` off a spaced ellipsis (The Scarlet Pimpernel, 75 times): alone it is a sentence of no words
    texts = _texts('"Remember, dear, I have only you . . . to care for me. . . ."\n\n'
                   'He said no?" she asked. "Well . . . !"\n\n". . ." was all.')
    assert texts == ['"Remember, dear, I have only you . . . to care for me. . . ."', 'He said no?" she asked.',
                     '"Well . . . !"', '". . ." was all.']
    assert not [t for t in texts if not any(c.isalnum() for c in t)]


def test_crlf_bom_and_invisible_characters(tmp_path):
    f = tmp_path / "win.txt"
    f.write_bytes(b"\xef\xbb\xbf" + WRAPPED.replace("\n", "\r\n").encode("utf-8"))
    corpus = read_corpus(f)
    assert corpus.formats == ("text",) and corpus.n_sentences == 6
    assert corpus.sentences()[0][0] == "the"
    assert all("\ufeff" not in t and "\r" not in t for t in corpus.sentence_texts())
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes(WRAPPED.encode("utf-16"))
    assert read_corpus(utf16).sentences() == corpus.sentences()


def test_line_end_hyphens_follow_the_texts_own_usage():
    text = ("The first example shows it. We want an exam-\nple that is long enough to wrap. The well-known\n"
            "case is a well-\nknown one. Another example follows here.\n")
    joined = " ".join(_texts(text))
    assert "an example that" in joined  # "example" occurs elsewhere, "exam-ple" does not
    assert "a well-known one" in joined  # the hyphenated form is the text's own


def test_dashes_at_line_ends_join_without_space():
    text = "He waited--\nand then he went home. She stayed there, in the dark — \nquite alone. The end came.\n"
    joined = " ".join(_texts(text))
    assert "waited--and then" in joined and "dark — quite alone" in joined


def test_paragraphs_by_first_line_indentation_and_short_last_lines():
    indented = ("    First paragraph line one that goes on\nand on until it ends here.\n"
                "    Second paragraph starts\nhere and ends.\n")
    paras, _ = paragraphs(indented)
    assert [p.text for p in paras] == ["First paragraph line one that goes on and on until it ends here.",
                                        "Second paragraph starts here and ends."]
    per_line = "One paragraph holds two sentences. This is the second.\nAnother paragraph. It is short.\n"
    assert [p.text for p in paragraphs(per_line)[0]] == ["One paragraph holds two sentences. This is the second.",
                                                          "Another paragraph. It is short."]


@pytest.mark.parametrize("line,expected", [
    ("CHAPTER IV", True), ("Chapter 3. The Storm", True), ("PART TWO", True), ("Prologue", True), ("XII.", True),
    ("2. Methods", True), ("2.1 Data collection", True), ("# Results", True), ("THE END", True),
    ("Part of the problem was the weather.", False), ("He said no.", False), ("2. We then measured it.", False),
    ("OK", False), ("Yes.", False), ("IV", True),
    ("A very long line that could not possibly be a heading because it goes on and on and on", False),
])
def test_heading_lines(line, expected):
    assert is_heading(line) is expected


def test_a_book_read_as_plain_prose_says_it_looks_like_a_book():
    body = "\n\n".join(["The morning came grey over the hills and the people went out to the fields. "
                          "They talked of the weather and the price of corn."] * 3)
    book = "My Book\n\n" + "\n\n".join(f"CHAPTER {n}\n\n{body}" for n in ("I", "II", "III"))
    plain = read_text(book, source="b.txt", headings=False)
    note = next(n for n in plain.notes if "looks like a book" in n)
    assert "3 chapter headings" in note and "'CHAPTER I'" in note
    assert plain.headings_decision == "refused" and plain.book_headings == 3 and not plain.has_reference
    # read with its headings, or with too few of them to be a book, nothing is said
    assert not any("looks like" in n for n in read_text(book, source="b.txt", headings=True).notes)
    two = "My Book\n\n" + "\n\n".join(f"CHAPTER {n}\n\n{body}" for n in ("I", "II"))
    assert not any("looks like" in n for n in read_text(two, source="b.txt", headings=False).notes)
    assert not any("looks like" in n for n in read_text(body, source="b.txt", headings=False).notes)


def test_a_book_is_read_with_its_headings_unless_asked_otherwise():
    paragraph = ("The morning came grey over the hills and the people went out to the fields. They talked of the "
                 "weather and the price of corn.")
    body = "\n\n".join([paragraph] * 3)
    book = "My Book\n\nby Somebody\n\n" + "\n\n".join(f"CHAPTER {n}\n\n{body}" for n in ("I", "II", "III"))
    auto = read_text(book, source="b.txt")
    assert auto.headings_decision == "book" and auto.has_reference and auto.book_headings == 0
    assert [d.title for d in auto.documents] == ["CHAPTER I", "CHAPTER II", "CHAPTER III"]
    assert not any("CHAPTER" in t or "Somebody" in t for d in auto.documents for t in d.texts)
    asked = read_text(book, source="b.txt", headings=True)
    assert asked.documents == auto.documents and asked.headings == auto.headings
    assert asked.headings_decision == "asked"
    # too few chapters to be a book, or none: plain prose, nothing decided either way
    for prose in ("My Book\n\n" + "\n\n".join(f"CHAPTER {n}\n\n{body}" for n in ("I", "II")), body):
        parsed = read_text(prose, source="b.txt")
        assert parsed.headings_decision == "" and not parsed.has_reference
        assert parsed.documents == read_text(prose, source="b.txt", headings=False).documents


def test_headings_become_reference_boundaries_and_leave_the_sentences(tmp_path):
    text = ("Title page text. By an author.\n\nCHAPTER I\n\nThe first chapter begins. It goes on.\n\n"
            "CHAPTER II\n\nTHE STORM\n\nThe second chapter begins. Rain fell. It stopped.\n")
    f = tmp_path / "book.txt"
    f.write_text(text)
    plain = read_corpus(f)
    assert not plain.has_reference and plain.reference_masses() is None
    assert "CHAPTER I" in plain.sentence_texts()  # without --headings, headings are one-line paragraphs
    with pytest.raises(NoReferenceError, match="no reference"):
        plain.masses()
    labelled = read_corpus(f, headings=True)
    # the title page before the first chapter is front matter: it is left out, not a segment of its own
    assert labelled.has_reference and labelled.masses() == (2, 3)
    assert [d.title for d in labelled] == ["CHAPTER I", "CHAPTER II: THE STORM"]
    assert not any(t.startswith(("CHAPTER", "Title page")) for t in labelled.sentence_texts())
    assert labelled.readings[0].reference_boundaries == 1
    assert [(h.line, h.text) for h in labelled.readings[0].headings] == [(3, "CHAPTER I"), (7, "CHAPTER II")]
    none_found = tmp_path / "plain.txt"
    none_found.write_text(WRAPPED)
    corpus = read_corpus(none_found, headings=True)
    assert not corpus.has_reference and "no heading lines found" in corpus.readings[0].notes[-1]


@pytest.mark.parametrize("content,expected", [
    (WRAPPED, "text"),
    ("One paragraph holds two sentences. This is the second.\nAnother paragraph here. It is short.\n", "text"),
    ("one sentence here\nand another\n\n\nsecond doc\n", "lines"),
    ("The first sentence.\nThe second sentence.\n\nA new document.\n", "lines"),
    ("Mr. Smith went home.\nDr. Jones stayed.\nSt. Paul is a city.\n", "lines"),
])
def test_text_or_lines_detection(content, expected):
    assert detect_format(content.encode()) == expected


# ---------------------------------------------------------------------------------------------- real text

FICTION = ("fiction", "romance", "mystery", "adventure", "science_fiction", "humor")


def _fiction_ids(brown_zip, every: int = 4) -> list[str]:
    cats = zipfile.ZipFile(brown_zip).read("brown/cats.txt").decode().split("\n")
    return [line.split()[0] for line in cats if line.strip() and line.split()[1] in FICTION][::every]


@pytest.fixture(scope="module")
def fiction():
    if not SHARED_CORPORA.is_dir():
        pytest.skip(f"needs the shared corpora at {SHARED_CORPORA} (absent on this machine)")
    brown = SHARED_CORPORA / "brown_nltk" / "brown.zip"
    return [brown_paragraphs(brown, f) for f in _fiction_ids(brown)]


@pytest.mark.parametrize("style", ["blank", "indent"])
def test_hard_wrapped_fiction_reads_as_its_sentences(fiction, style, tmp_path):
    """Brown fiction (32 texts) detokenised, joined into paragraphs and wrapped at 72 columns, as a
    Gutenberg-style .txt (blank lines between paragraphs) or with indented first lines and no blank lines."""
    paras = [p for text in fiction for p in text]
    source = [s for p in paras for s in p]
    book = tmp_path / "novel.txt"
    book.write_text(hard_wrapped(paras, width=72, style=style))
    corpus = read_corpus(book)
    texts = corpus.sentence_texts()
    assert corpus.formats == ("text",) and corpus.readings[0].detected
    assert not corpus.has_reference
    # Brown also ends "sentences" at some semicolons, which no sentence splitter does: within 10%
    assert 0.90 * len(source) <= len(texts) <= 1.10 * len(source)
    terminal = sum(bool(TERMINAL_RE.search(t)) for t in texts)
    assert terminal >= 0.95 * len(texts)
    # no fragments: (nearly) every source sentence lies whole inside one sentence read back
    joined = "\n".join(texts)
    assert sum(s in joined for s in source) >= 0.99 * len(source)
    assert sum(t[:1].islower() for t in texts) <= 0.01 * len(texts)
    # paragraphs found again
    assert sum(corpus.paragraph_starts()) == pytest.approx(len(paras), rel=0.02)


def test_one_paragraph_per_line_wikipedia(shared_corpora, tmp_path):
    """wiki300 articles (sentences with final punctuation) as one paragraph per line, no wrapping."""
    paras, source = [], 0
    for i in range(1, 31):
        for seg in choi_segments(shared_corpora / "wiki300_badjatiya" / f"wiki_test_{i}.ref")[1:]:
            kept = [s for s in seg if TERMINAL_RE.search(s)]
            if kept:
                paras.append(" ".join(kept))
                source += len(kept)
    f = tmp_path / "articles.txt"
    f.write_text("\n".join(paras) + "\n")
    corpus = read_corpus(f)
    assert corpus.formats == ("text",)
    assert 0.90 * source <= corpus.n_sentences <= 1.10 * source
    assert sum(corpus.paragraph_starts()) == len(paras)


def test_gutenberg_header_and_licence_are_left_out(tmp_path):
    text = ("The Project Gutenberg EBook of Two Chapters\n\nTitle: Two Chapters\n\n"
            "*** START OF THIS PROJECT GUTENBERG EBOOK TWO CHAPTERS ***\n\n\nCONTENTS\n\nCHAPTER I. Rain\n"
            "CHAPTER II. Sun\n\n\nCHAPTER I.\n\n" + WRAPPED + "\n\nCHAPTER II.\n\nThe sun came out. Everyone went "
            "outside.\n\n*** END OF THIS PROJECT GUTENBERG EBOOK TWO CHAPTERS ***\n\nThe licence, at length. "
            "You may copy it.\n")
    f = tmp_path / "pg.txt"
    f.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    corpus = read_corpus(f)
    assert not any("Gutenberg" in t or "licence" in t for t in corpus.sentence_texts())
    assert "Project Gutenberg header and licence left out" in corpus.readings[0].notes
    chapters = read_corpus(f, headings=True)
    assert chapters.masses() == (6, 2)
    # the contents list is front matter: it is left out, and no part of it reaches a title
    assert [d.title for d in chapters] == ["CHAPTER I.", "CHAPTER II."]
    assert [h.line for h in chapters.readings[0].headings] == [14, 25]  # lines of the file, header counted
