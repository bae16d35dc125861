"""Chapter headings in raw books (the ``text`` reader with ``headings``; :mod:`segviz.readers.books`): the 26
Project Gutenberg books of ``../shared/corpora/gutenberg_novels``, and small texts for each way it went wrong."""
from __future__ import annotations

from pathlib import Path

import pytest

from segviz.corpus import read_corpus
from segviz.errors import SegvizError
from segviz.readers.books import book_layout, match_heading, number_value
from segviz.readers.prose import headings_in, read_text
from segviz.readers.source import decode_text, read_source

BOOKS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "gutenberg_novels"

# file -> (headings, line of the first, line of the last): lines of the file as distributed (1-based, CRLF
# counted once).  Each count was checked against the book itself: its contents list where it has one, a grep
# of its heading lines, and the first and last chapter numbers.
BOOKS = {
    # "Chapter 1" .. "Chapter 24", no contents list; "(End of volume one.)" and "Finis" are not chapters
    "105_persuasion.txt": (24, 49, 8210),
    # contents: chapters 1-34 in six parts; the body numbers chapters "1" .. "34" alone on a line with the title
    # on the next, and PART ONE .. PART SIX open chapters 1, 7, 13, 16, 22 and 28 (part and chapter: one title)
    "120_treasure-island.txt": (34, 141, 7338),
    # "CHAPTER I -- ..." .. "CHAPTER XXVI -- ..." (titles wrapped onto a second line); the translator's
    # introduction and the dedication before are front matter; the two works printed after chapter XXVI have
    # no chapter heading and stay in its text
    "1232_the-prince.txt": (26, 497, 3443),
    # "CHAPTER I" .. "CHAPTER XXXVIII--CONCLUSION"; the preface and the note to the third edition before
    # chapter I are front matter
    "1260_jane-eyre.txt": (38, 186, 20528),
    # "Chapter 1" .. "Chapter 61" (grep: 61 lines, numbered 1 to 61)
    "1342_pride-and-prejudice.txt": (61, 38, 12938),
    # "Chapter I" .. "Chapter LIX"
    "1400_great-expectations.txt": (59, 45, 19879),
    # "FEDERALIST No. 1" .. "FEDERALIST No. 85", each once (85 essays)
    "1404_the-federalist-papers.txt": (85, 39, 19126),
    # VOLUME I: CHAPTER I-XVIII, VOLUME II: I-XVIII, VOLUME III: I-XIX (18 + 18 + 19)
    "158_emma.txt": (55, 39, 16144),
    # "CHAPTER 1" .. "CHAPTER 50"
    "161_sense-and-sensibility.txt": (50, 44, 12412),
    # "CHAPTER 1" .. "CHAPTER 20"; THE PREFACE before is front matter
    "174_the-picture-of-dorian-gray.txt": (20, 95, 8362),
    # "CHAPTER I" .. "CHAPTER XLV", numbered on through VOLUME II (which opens chapter XIX)
    "203_uncle-tom-s-cabin.txt": (45, 46, 20491),
    # contents I-VII; "Chapter I. Into the Primitive" .. "Chapter VII. The Sounding of the Call"
    "215_the-call-of-the-wild.txt": (7, 54, 2501),
    # three parts, "I", "II", "III" alone on their lines
    "219_heart-of-darkness.txt": (3, 38, 2289),
    # contents and body: "CHAPTER 1. Loomings." .. "CHAPTER 135. The Chase.—Third Day." and the Epilogue; the
    # "BOOK I. (Folio), CHAPTER I. (Sperm Whale).--This whale ..." paragraphs of chapter 32 are its text;
    # Etymology and Extracts before chapter 1 are front matter
    "2701_moby-dick--or-the-whale.txt": (136, 849, 21938),
    # contents: INTRODUCTORY (The Custom-House) and CHAPTER I-XXIV; the body numbers "I. THE PRISON DOOR" ..
    # "XXIV. CONCLUSION"; The Custom-House, before chapter I, is front matter
    "33_the-scarlet-letter.txt": (24, 1653, 8858),
    # contents CHAPTER I-XXVII with page numbers; body CHAPTER I-XXVII; after THE END a publisher's list and
    # the transcriber's corrections (back matter)
    "345_dracula.txt": (27, 196, 14804),
    # contents I-XVI and Epilogue; the body has each numeral alone and its title on the next line
    "35_the-time-machine.txt": (17, 64, 3182),
    # BOOK ONE: I.-XVII., BOOK TWO: I.-X. (17 + 10; the body prints "VI." for IV)
    "36_the-war-of-the-worlds.txt": (27, 80, 6210),
    # contents CHAPTER I-XXXVIII in one block; body "CHAPTER I. Mrs. Rachel Lynde is Surprised" .. XXXVIII
    "45_anne-of-green-gables.txt": (38, 91, 10509),
    # "CHAPTER ONE" .. "CHAPTER FORTY-SEVEN"; PART 1 and PART 2 appear only in the contents
    "514_little-women.txt": (47, 95, 20238),
    # contents I-LIII; body CHAPTER I-LIII, each title on the lines after
    "730_oliver-twist.txt": (53, 152, 18678),
    # CHAPTER I-XXXV (chapter XXVI misprinted "CHAPTER XVI") and CONCLUSION
    "74_the-adventures-of-tom-sawyer.txt": (36, 484, 8848),
    # "CHAPTER I" .. "CHAPTER XXXIV"
    "768_wuthering-heights.txt": (34, 43, 11658),
    # "CHAPTER I." .. "CHAPTER XLII." and "CHAPTER THE LAST" (the contents list the same 43)
    "76_adventures-of-huckleberry-finn.txt": (43, 542, 11906),
    # contents: Letter 1-4, Chapter 1-24; the body the same
    "84_frankenstein.txt": (28, 116, 6677),
    # Book the First: I.-VI., the Second: I.-XXIV., the Third: I.-XV. (6 + 24 + 15, as the contents list them)
    "98_a-tale-of-two-cities.txt": (45, 106, 15654),
}


@pytest.fixture(scope="module")
def books_dir() -> Path:
    if not BOOKS_DIR.is_dir():
        pytest.skip(f"needs the Gutenberg books at {BOOKS_DIR} (absent on this machine)")
    return BOOKS_DIR


def _text(path: Path) -> str:
    return decode_text(read_source(path), source=str(path))


def test_every_shared_book_is_listed(books_dir):
    assert sorted(p.name for p in books_dir.glob("*.txt")) == sorted(BOOKS)


@pytest.mark.parametrize("name", sorted(BOOKS))
def test_chapter_headings_of_each_shared_book(books_dir, name):
    count, first, last = BOOKS[name]
    found = headings_in(_text(books_dir / name))
    assert len(found) == count, [(h.line, h.text) for h in found]
    assert (found[0].line, found[-1].line) == (first, last)
    assert [h.line for h in found] == sorted({h.line for h in found})


# four books read whole (sentences split): segments, the first and the last chapter's title
WHOLE = {
    "1342_pride-and-prejudice.txt": (61, "Chapter 1", "Chapter 61"),
    "98_a-tale-of-two-cities.txt": (45, "Book the First--Recalled to Life: I. The Period",
                                    "XV. The Footsteps Die Out For Ever"),
    "1404_the-federalist-papers.txt": (
        85, ("FEDERALIST No. 1: General Introduction: For the Independent Journal. Saturday, October 27, 1787: "
             "HAMILTON: To the People of the State of New York:"),
        ("FEDERALIST No. 85: Concluding Remarks: From MCLEAN's Edition, New York. Wednesday, May 28, 1788: "
         "HAMILTON: To the People of the State of New York:")),
    "120_treasure-island.txt": (34, "PART ONE--The Old Buccaneer: 1: The Old Sea-dog at the Admiral Benbow",
                                "34: And Last"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WHOLE))
def test_whole_books_read_as_their_chapters(books_dir, name):
    segments, first_title, last_title = WHOLE[name]
    corpus = read_corpus(books_dir / name, headings=True)
    assert corpus.has_reference and len(corpus) == segments
    assert corpus.readings[0].reference_boundaries == segments - 1
    assert len(corpus.readings[0].headings) == segments
    assert (corpus[0].title, corpus[-1].title) == (first_title, last_title)
    texts = corpus.sentence_texts()
    # nothing of the Gutenberg boilerplate, the title page or the contents reaches the text
    assert not any("Gutenberg" in t for t in texts)
    # no heading and no title line is left as a sentence to give its boundary away
    for doc in corpus:
        assert doc.texts[0] not in doc.title and not doc.texts[0].startswith(("CHAPTER", "Chapter"))
    assert "PUBLIUS" not in texts   # the closing formula of the Federalist papers


# ------------------------------------------------------------------------------------------- small books
PARAGRAPH = ("The morning came grey over the hills and the people of the village went out to the fields as they had "
             "done every day of their lives, talking of the weather and the price of corn.")


def _wrapped(text: str, width: int = 70) -> str:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join(lines + [line])


# a chapter's text: long enough for numerals alone to count as chapter headings (MIN_NUMERAL_GAP)
BODY = "\n\n".join(_wrapped(PARAGRAPH) for _ in range(14))


def _book(*parts: str) -> str:
    return "\n\n\n".join(parts) + "\n"


def _lines_of(text: str, *headings: str) -> list[int]:
    """The line numbers (1-based) of the lines that are exactly ``headings``, in order."""
    lines = text.split("\n")
    out, at = [], 0
    for heading in headings:
        at = lines.index(heading, at) + 1
        out.append(at)
    return out


def _read(text: str):
    parsed = read_text(text, source="book.txt", headings=True)
    return parsed, [d.title for d in parsed.documents], [t for d in parsed.documents for t in d.texts]


def test_a_long_heading_is_taken():
    long = "CHAPTER XV: ON THE LACK OF INCENTIVE TO LABOUR IN A COMMUNIST SOCIETY AND THE ANSWER OF ITS FRIENDS"
    text = _book("CHAPTER XIV: ON WORK", BODY, long, BODY)
    parsed, titles, texts = _read(text)
    assert titles == ["CHAPTER XIV: ON WORK", long]
    assert [(h.line, h.text) for h in parsed.headings] == list(zip(_lines_of(text, "CHAPTER XIV: ON WORK", long),
                                                                   ["CHAPTER XIV: ON WORK", long]))
    assert not any("INCENTIVE" in t for t in texts)


def test_a_wrapped_pronoun_is_not_a_heading():
    said = ("He looked at the sea for a long time and then he turned to the boy beside him and said that nobody had\n"
            "ever loved the place as much as his father had, and neither, he added with a smile, had\n"
            "I.\n")
    _, titles, texts = _read(_book("CHAPTER I", said + "\n" + BODY, "CHAPTER II", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II"]
    assert any(t.endswith("he added with a smile, had I.") for t in texts)


def test_signatures_lone_words_and_song_titles_are_not_headings():
    letter = ("My dear child, I write to you from the old house, where the roses are out again and the rooms are\n"
              "quiet without you. Come home soon and tell us everything.\n\nMOTHER.\n\n" + BODY +
              "\n\nKATRINE.\n\nSHE\n\nTHE SONG OF THE RIVER\n\n" + BODY)
    _, titles, texts = _read(_book("CHAPTER I", letter, "CHAPTER II", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II"]
    assert {"MOTHER.", "KATRINE.", "SHE", "THE SONG OF THE RIVER"} <= set(texts)


def test_stanza_numbers_are_not_headings():
    verse = ("    The wind is in the willows,\n    the water at the door;\n    the night is long and cold,\n"
             "    and I shall sail no more.")
    stanzas = "\n\n".join(f"{numeral}.\n\n{verse}" for numeral in ("I", "II", "III"))
    # parts numbered by Roman numerals alone, a poem with numbered stanzas inside the first
    text = _book("I", BODY + "\n\n" + stanzas + "\n\n" + BODY, "II", BODY, "III", BODY)
    parsed, titles, texts = _read(text)
    assert titles == ["I", "II", "III"]
    assert [h.line for h in parsed.headings] == _lines_of(text, "I", "II", "III")
    assert sum(t in ("I.", "II.", "III.") for t in texts) == 3   # the stanza numbers stay in the poem
    # inside chapters named by a chapter word, numerals are never headings
    parsed, titles, _ = _read(_book("CHAPTER I", stanzas + "\n\n" + BODY, "CHAPTER II", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II"]


def test_contents_lists_and_front_matter_are_left_out():
    front = ("THE RIVER\n\nA Tale\n\nBY A. WRITER\n\nLONDON: PRINTED FOR THE AUTHOR\n\n"
             "[Illustration: The river at dawn]\n\nCONTENTS")
    contents_block = "CHAPTER I. The Mill\nCHAPTER II. The Flood\nCHAPTER III. The Bridge"
    contents_spaced = "CHAPTER I. The Mill\n\nCHAPTER II. The Flood\n\nCHAPTER III. The Bridge"
    preface = "PREFACE\n\n" + _wrapped("This little book was written in the winter of a hard year, and the reader "
                                       "will forgive its faults for the sake of the river it tells of.")
    chapters = ("CHAPTER I. The Mill", BODY, "CHAPTER II. The Flood", BODY, "CHAPTER III. The Bridge", BODY)
    for contents in (contents_block, contents_spaced):
        parsed, titles, texts = _read(_book(front, contents, preface, *chapters))
        assert titles == ["CHAPTER I. The Mill", "CHAPTER II. The Flood", "CHAPTER III. The Bridge"]
        assert texts[0].startswith("The morning came grey")
        assert not any(w in t for t in texts for w in ("Tale", "PRINTED", "Illustration", "CONTENTS", "winter"))
        assert any("front matter" in note for note in parsed.notes)


def test_title_lines_after_a_heading_become_its_title():
    parsed, titles, texts = _read(_book("CHAPTER I.", "The Widow and her Child.", BODY, "CHAPTER II.",
                                        "IN WHICH NOTHING HAPPENS", "“Who is there?” she cried.", BODY))
    assert titles == ["CHAPTER I. The Widow and her Child.", "CHAPTER II. IN WHICH NOTHING HAPPENS"]
    assert "The Widow and her Child." not in texts and "IN WHICH NOTHING HAPPENS" not in texts
    assert "“Who is there?” she cried." in texts   # dialogue opening a chapter is its text, not a title
    assert parsed.headings[0].title == "CHAPTER I. The Widow and her Child."


def test_parts_and_chapters_one_segment_per_chapter():
    _, titles, _ = _read(_book("PART ONE", "THE VILLAGE", "CHAPTER 1", BODY, "CHAPTER 2", BODY,
                                    "PART TWO", BODY, "CHAPTER 3", BODY))
    # a part directly followed by a chapter is part of that chapter's title; a part followed by prose (an
    # introduction to the part) is a segment of its own
    assert titles == ["PART ONE: THE VILLAGE: CHAPTER 1", "CHAPTER 2", "PART TWO", "CHAPTER 3"]


def test_headings_stacked_or_run_into_their_text():
    text = ("VOLUME I\nCHAPTER I\n\n" + BODY + "\n\nCHAPTER II\n" + _wrapped(PARAGRAPH) + "\n\nVOLUME II\nCHAPTER I\n\n"
            + BODY + "\n\nCHAPTER II\n\n[Illustration: the mill at night]\n\nCHAPTER III\n\n" + BODY + "\n")
    parsed, titles, _ = _read(text)
    # a volume heading stacked on a chapter heading joins its title; a heading may run straight into its text;
    # a chapter with nothing but an illustration is no segment
    assert titles == ["VOLUME I: CHAPTER I", "CHAPTER II", "VOLUME II: CHAPTER I", "CHAPTER III"]
    assert [h.line for h in parsed.headings] == [h.line for h in headings_in(text)]
    assert len(parsed.headings) == len(parsed.documents)
    assert any("no text of their own" in note for note in parsed.notes)
    assert parsed.documents[1].texts[0].startswith("The morning came grey")   # chapter II's text, right below it


def test_numerals_alone_with_titles_below_and_back_matter():
    _, titles, texts = _read(_book("1", "The Old Mill", BODY, "2", "The Flood", BODY, "(End of volume one.)",
                                        "3", "“The Last Bridge”", BODY, "THE END", "Other books by the author",
                                        "The Storm. The Hill."))
    assert titles == ["1: The Old Mill", "2: The Flood", "3: “The Last Bridge”"]
    assert not any(t in texts for t in ("THE END", "(End of volume one.)", "Other books by the author"))


def test_a_line_that_ends_a_stage_of_the_story_leaves_the_text():
    # Tess's "END OF PHASE THE FIRST", No Name's "THE END OF THE FIRST SCENE.", Great Expectations' stage: each stood
    # as the last sentence of a chapter, a mark of the boundary that is no part of the story
    ends = ["END OF PHASE THE FIRST", "THE END OF THE FIRST SCENE.",
            "THIS IS THE END OF THE SECOND STAGE OF PIP'S EXPECTATIONS.", "The End of Mr. Gilmore's Narrative."]
    parts = ["CHAPTER I", BODY]
    for k, end in enumerate(ends, start=2):
        parts += [end, f"CHAPTER {'I' * k if k < 4 else 'IV' if k == 4 else 'V'}", BODY]
    parsed, titles, texts = _read(_book(*parts))
    assert titles == ["CHAPTER I", "CHAPTER II", "CHAPTER III", "CHAPTER IV", "CHAPTER V"]
    assert not any(end in t for end in ends for t in texts)
    # ... but a chapter titled so, and prose that says an end, stay
    _, titles, texts = _read(_book("CHAPTER I", BODY, "The end of the scene was near, and all of us knew it.", BODY,
                                   "CHAPTER II", "THE END OF A LONG JOURNEY", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II: THE END OF A LONG JOURNEY"]
    assert "The end of the scene was near, and all of us knew it." in texts


def test_numbered_notes_at_the_end_of_a_section_that_marks_them_leave_the_text():
    # the Federalist: marks glued to the text ("the whole.(1)", "neighbors."(2)") and, after each paper, its notes
    # opened by the same numbers: they stood at every paper's end, giving the boundary away; an enumeration stays
    marked = ('It is the doctrine of portions of the whole.(1) This doctrine will hold. And "neighbors."(2) Then more '
              "of the same argument follows here, as every reader will see.")
    parsed, _, texts = _read(_book("FEDERALIST No. 1", marked, BODY, "1. The same idea is held out.",
                                   "2. Ibid.", "FEDERALIST No. 2", BODY, "The powers are these:",
                                   "1. Regulation of the intercourse with foreign nations;",
                                   "2. Maintenance of harmony among the States.", "FEDERALIST No. 3", BODY))
    assert "It is the doctrine of portions of the whole." in texts and 'And "neighbors."' in texts
    assert not any(t.startswith(("1. The same", "2. Ibid")) or "(1)" in t for t in texts)
    assert "1. Regulation of the intercourse with foreign nations;" in texts
    assert any("2 numbered note(s)" in note for note in parsed.notes)


def test_the_title_page_repeated_before_a_volume_and_starred_notes_leave_the_text():
    # Waverley prints its half-title again above "VOLUME II.", at the end of the chapter before it; War and Peace
    # and Wieland open their notes with stars ("* Our most gracious sovereign.", "**--Peeps through the blanket")
    parsed, titles, texts = _read(_book("WAVERLEY", "OR", "'TIS SIXTY YEARS SINCE", "VOLUME I.", "CHAPTER I.", BODY,
                                        "* Our most gracious sovereign.", BODY, "CHAPTER II.", BODY,
                                        "**--Peeps through the blanket of the dark.", "WAVERLEY", "OR",
                                        "'TIS SIXTY YEARS SINCE", "VOLUME II.", "CHAPTER III.", BODY,
                                        "* * * * *", BODY, "CHAPTER IV.", BODY))
    assert titles == ["VOLUME I. CHAPTER I.", "CHAPTER II.", "VOLUME II. CHAPTER III.", "CHAPTER IV."]
    assert not any(t in texts for t in ("WAVERLEY", "OR", "'TIS SIXTY YEARS SINCE", "Our most gracious sovereign."))
    assert not any("Peeps" in t for t in texts) and "* * * * *" in texts
    assert any("3 line(s) of the title page" in note for note in parsed.notes)


def test_notes_opened_by_a_glued_star_and_star_marks_leave_the_text():
    # Moby-Dick: "... swung from a beam in the ceiling.*" / "*The cabin-compass is called the tell-tale, ...";
    # War and Peace: "'Dieu me la donne, gare a qui la touche!' * They say he was very fine"
    marked = ("The lantern swung from a beam in the ceiling.* He slept.\n\n*The cabin-compass is called the "
              "tell-tale, because the Captain can read it below.")
    inline = "\"'Dieu me la donne, gare a qui la touche!' * They say he was very fine when he said that,\" he said."
    emphasis = "It is *very* late.* he said."
    _, titles, texts = _read(_book("CHAPTER I", BODY, marked, "CHAPTER II", inline, BODY, "CHAPTER III", emphasis,
                                   "* * * * *", "2 * 3 makes six, he wrote.", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II", "CHAPTER III"]
    joined = " ".join(texts)
    assert "cabin-compass" not in joined and "ceiling.*" not in joined and "ceiling." in joined
    assert "They say he was very fine" in joined and "* They" not in joined and "*" not in texts
    # stars that open emphasis keep the paragraph's stars; a rule and a product keep theirs
    assert "It is *very* late.*" in joined and "* * * * *" in texts and "2 * 3 makes six" in joined
    # The Three Musketeers: the note in italics ("_*Domestic affairs, housekeeping_"), its mark before a stop
    # ("at Fort La Pointe*. He will"); a word starred throughout stays ("R*s*o*,")
    italic = ("He would sail from Fort La Pointe*. He will go tonight.\n\n    _*Fort La Pointe, or Fort Vasou, was "
              "not built until 1672,\n            nearly 50 years later._")
    _, titles, texts = _read(_book("CHAPTER I", BODY, italic, "CHAPTER II", "And here R*s*o*, with genius.", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II"]
    joined = " ".join(texts)
    assert "Fort Vasou" not in joined and "years later" not in joined and "*" not in joined.replace("R*s*o*", "")
    assert "He would sail from Fort La Pointe." in texts and "And here R*s*o*, with genius." in texts
    # a note's mark in a heading leaves its title too ("7 THE INTERIOR* OF THE MUSKETEERS", "THE LAURISTON GARDEN
    # MYSTERY [6]", "CHAPTER XVIII(*) -- CONCERNING ...")
    _, titles, _ = _read(_book("CHAPTER I", "THE INTERIOR* OF THE HOUSE", BODY, "CHAPTER II. THE GARDEN MYSTERY [6]",
                               BODY, "CHAPTER III(*) -- CONCERNING FAITH", BODY))
    assert titles == ["CHAPTER I: THE INTERIOR OF THE HOUSE", "CHAPTER II. THE GARDEN MYSTERY",
                      "CHAPTER III -- CONCERNING FAITH"]


def test_a_bracketed_end_of_volume_block_with_the_printers_imprint_leaves_the_text():
    imprint = ("[End volume one of this edition.\n    Printed by T. and A. Constable,\n    Printers to Her Majesty "
               "at\n    the Edinburgh University Press]")
    edition = "[At this point in the first and second editions, Volume 1 ends.]"
    _, titles, texts = _read(_book("CHAPTER I", BODY, imprint, "CHAPTER II", BODY, edition, "CHAPTER III", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II", "CHAPTER III"]
    joined = " ".join(texts)
    assert "End volume one" not in joined and "Constable" not in joined and "University Press" not in joined
    assert "first and second editions" not in joined
    # an aside in brackets inside a paragraph is the author's, and stays
    _, _, texts = _read(_book("CHAPTER I", "He read on.\n[The end of the first volume was near, he thought.] And so it "
                              "was.", "CHAPTER II", BODY, "CHAPTER III", BODY))
    assert "[The end of the first volume was near, he thought.]" in " ".join(texts)


def test_footnotes_pictures_and_their_marks_leave_a_books_text():
    text = _book("CHAPTER I", "The city gave name to the promontory.[1] It crowned the hill,\nand the road "
                 "ran east. [2] So it was. The day. [Footnote: Alas' that attire,\nrespectable in 1805.] Then "
                 "the village {footnote [1. Hannibal, Missouri]} woke. Look to the bolts. [33]--Fling abroad the "
                 "banner.",
                 "    [1] The Roman government had two harbors in\n        which fleets were kept.",
                 "[Footnote: Suum cuique. This snatch of a ballad was composed\nby a poet of the town.]",
                 "[Picture: A magnificent family red silk umbrella]", "[Illlustration: Mrs. Hurtle at the window.]",
                 "[* Footnote: It is a curious thing.]", "[9]", "[*All the details are from Lecky.]",
                 "[*]Whenever this word occurs in our writings, it intends\npersons without virtue.", BODY, "CHAPTER II", BODY, "[*] A religious sect.",
                 "CHAPTER III", BODY, "[Note:\n\n     The correct words were obtained from the 1909 edition.]",
                 "* * * * *", "PRINTED BY\nTURNBULL AND SPEARS,\nEDINBURGH")
    parsed, titles, texts = _read(text)
    assert titles == ["CHAPTER I", "CHAPTER II", "CHAPTER III"]
    joined = " ".join(texts)
    for gone in ("[1]", "[2]", "[9]", "[33]", "Alas", "Hannibal", "Roman government", "Suum cuique", "umbrella", "Mrs. Hurtle", "curious thing",
                 "religious sect", "correct words", "PRINTED", "TURNBULL", "Lecky",
                 "without virtue"):
        assert gone not in joined, gone
    assert "The city gave name to the promontory." in texts and "So it was." in texts
    assert "It crowned the hill, and the road ran east." in texts
    assert "The day." in texts and "Then the village woke." in texts
    assert any("5 footnote(s) or footnote mark(s)" in note for note in parsed.notes)
    # the author's brackets stay: a stage direction, a year, a lettered aside (inside the chapter: a note in
    # brackets right under a heading is the heading's, test_a_note_in_brackets_under_a_heading_is_the_headings)
    _, _, texts = _read(_book("CHAPTER I", BODY, "[Applausive titter.]", "In [1805] the attire [a] was new.", BODY,
                              "CHAPTER II", BODY, "CHAPTER III", BODY))
    assert "[Applausive titter.]" in texts and "In [1805] the attire [a] was new." in texts
    # a star in brackets at the start of a line inside a paragraph is no note of its own: the line stays
    _, _, texts = _read(_book("CHAPTER I", "Then I met a Peruvian smouse, and he said\n[*] was all he had, and "
                              "left.", BODY, "CHAPTER II", BODY, "CHAPTER III", BODY))
    assert "left." in " ".join(texts) and "Peruvian smouse" in " ".join(texts)
    # a symbol in parentheses marks a note too (The Prince's "Lodovico(*)" and its note below the paragraph); a
    # number in parentheses opens a list item and stays
    parsed, _, texts = _read(_book("CHAPTER I", "It was enough for the Duke Lodovico(*) to raise insurrections.",
                                   "     (*) Duke Lodovico was Lodovico Moro, a son of Francesco\n     Sforza.",
                                   "(1) the first way is to ruin them.", BODY, "CHAPTER II", BODY, "CHAPTER III", BODY))
    assert "It was enough for the Duke Lodovico to raise insurrections." in texts
    assert "Moro" not in " ".join(texts) and "(1) the first way is to ruin them." in texts
    # a number in braces: a note's mark or the printed edition's page ("landward {2}", "trees, as {301} and"), and a
    # note opened by one; a chemist's "C_{2}HCl_{3}O" stays
    parsed, _, texts = _read(_book("CHAPTER I", "If you are landward {2} you see. The woods, {301} and the trees.",
                                   "{2}  Country.", "The modern Morpheus--C_{2}HCl_{3}O.", BODY, "CHAPTER II", BODY,
                                   "CHAPTER III", BODY))
    assert "If you are landward you see." in texts and "The woods, and the trees." in texts
    assert "Country." not in texts and "The modern Morpheus--C_{2}HCl_{3}O." in texts


def test_a_prologue_before_the_first_chapter_is_kept_and_an_epilogue_taken():
    _, titles, _ = _read(_book("THE RIVER", "PROLOGUE", BODY, "CHAPTER I", BODY, "CHAPTER II", BODY,
                                    "EPILOGUE", BODY))
    assert titles == ["PROLOGUE", "CHAPTER I", "CHAPTER II", "EPILOGUE"]


def test_numbered_epilogues_are_headings():
    # War and Peace: "FIRST EPILOGUE: 1813 - 20" and "SECOND EPILOGUE" stood above chapters numbered from I again,
    # and the first stayed in the text as the last sentence of the chapter before it
    parsed, titles, texts = _read(_book("BOOK ONE: 1805", "CHAPTER I", BODY, "CHAPTER II", BODY,
                                        "FIRST EPILOGUE: 1813 - 20", "CHAPTER I", BODY, "CHAPTER II", BODY,
                                        "SECOND EPILOGUE", "CHAPTER I", BODY))
    assert titles == ["BOOK ONE: 1805: CHAPTER I", "CHAPTER II", "FIRST EPILOGUE: 1813 - 20: CHAPTER I",
                      "CHAPTER II", "SECOND EPILOGUE: CHAPTER I"]
    assert not any("EPILOGUE" in t for t in texts)


def test_parts_named_by_an_ordinal_before_their_word_are_headings():
    # No Name's "THE SECOND SCENE." / "SKELDERGATE, YORK." and The Moonstone's "SECOND NARRATIVE" stood as the last
    # lines of the chapter before them; a narrative without chapters is a section of its own, and a period with
    # only a line of its own joins the narrative below it
    parsed, titles, texts = _read(_book("THE FIRST SCENE.", "COMBE-RAVEN.", "CHAPTER I.", BODY, "CHAPTER II.", BODY,
                                        "THE SECOND SCENE.", "SKELDERGATE, YORK.", "CHAPTER I.", BODY,
                                        "SECOND PERIOD", "The events related in several narratives.",
                                        "FIRST NARRATIVE", "CHAPTER I", BODY, "SECOND NARRATIVE", BODY,
                                        "THIRD NARRATIVE", "CHAPTER I", BODY))
    assert titles == ["THE FIRST SCENE. COMBE-RAVEN. CHAPTER I.", "CHAPTER II.",
                      "THE SECOND SCENE. SKELDERGATE, YORK. CHAPTER I.",
                      "SECOND PERIOD: FIRST NARRATIVE: CHAPTER I", "SECOND NARRATIVE", "THIRD NARRATIVE: CHAPTER I"]
    assert not any(word in t for t in texts for word in ("SCENE", "SKELDERGATE", "NARRATIVE"))
    # Tess: "Phase the Second: Maiden No More" above numerals alone, a part that stood at the chapter's end before
    _, titles, texts = _read(_book("Phase the First: The Maiden", "I", BODY, "II", BODY,
                                   "Phase the Second: Maiden No More", "III", BODY, "IV", BODY))
    assert titles == ["Phase the First: The Maiden: I", "II", "Phase the Second: Maiden No More: III", "IV"]
    assert not any("Phase" in t for t in texts)
    # ... and "[The First Epoch of the Story closes here.]" (The Woman in White) leaves the text
    _, _, texts = _read(_book("CHAPTER I", BODY, "[The First Epoch of the Story closes here.]", "CHAPTER II", BODY))
    assert not any("closes here" in t for t in texts)


def test_line_end_hyphens_join_as_in_the_source():
    text = _book("CHAPTER I", "The bourgeoisie has through its exploitation of the World-\nMarket given a "
                 "cosmopolitan character\nto production in every country, and the well-\nknown wars of 1914-\n1918 "
                 "came later. An exam-\nple of an example.", "CHAPTER II", BODY)
    _, _, texts = _read(text)
    joined = " ".join(texts)
    assert "the World-Market given" in joined and "the well-known wars of 1914-1918 came" in joined
    assert "An example of an example." in joined


def test_a_book_in_markdown_is_a_book():
    # a book converted to Markdown: its title page is front matter, its chapters are chapters, "#" is no title
    text = _book("# My Novel", "by Somebody", "## Chapter 1", BODY, "## Chapter 2: The Storm", BODY)
    parsed, titles, texts = _read(text)
    assert titles == ["Chapter 1", "Chapter 2: The Storm"]
    assert len(parsed.documents) == 2 and len(parsed.documents[0].texts) == len(parsed.documents[1].texts)
    assert not any("Somebody" in t or "Novel" in t for t in texts)


def test_text_without_a_book_structure():
    # no numbered chapters: nothing is front matter, and the text before the first heading is a segment
    parsed, titles, _ = _read("A short note before anything else. It matters.\n\n# Results\n\nThe results were "
                              "good. We were pleased.\n\n# Discussion\n\nThere is more to do. We will do it.\n")
    assert titles == ["", "Results", "Discussion"]   # the markup is not the title
    parsed, titles, _ = _read(BODY)
    assert not parsed.has_reference and titles == [""]


@pytest.mark.parametrize("token,value", [("XIV", 14), ("xiv", 14), ("24", 24), ("TWENTY-ONE", 21),
                                         ("the First", 1), ("Forty-seventh", 47), ("THE LAST", None), ("IIII", None)])
def test_heading_numbers(token, value):
    assert number_value(token) == value


@pytest.mark.parametrize("line,kind", [
    ("CHAPTER XV: ON THE LACK OF INCENTIVE TO LABOUR IN A COMMUNIST SOCIETY", "keyword"),
    ("Chapter 3. The Storm", "keyword"), ("BOOK ONE.—THE COMING OF THE MARTIANS", "keyword"),
    ("Book the First--Recalled to Life", "keyword"), ("CHAPTER THE LAST", "keyword"), ("STAVE III", "keyword"),
    ("FEDERALIST No. 10", "paper"), ("XII", "numeral"), ("I. The Period", "numeral"), ("34", "numeral"),
    ("Epilogue", "named"), ("# Methods", "markdown"), ("## Chapter 3", "keyword"), ("# XII", "numeral"),
    ("# Epilogue", "named"), ("# MOTHER.", "markdown"), ("# " * 5000 + "x", "markdown"),
    ("Chapter 3 of the report says so.", None), ("Part one of the plan was simple.", None), ("MOTHER.", None),
    ("SHE", None), ("THE END", None), ("I think so.", None), ("CONTENTS", None),
])
def test_heading_lines(line, kind):
    match = match_heading(line)
    assert (match.kind if match else None) == kind


def test_layout_indices_are_lines_of_the_text():
    lines = ["CONTENTS", "", "CHAPTER I", "CHAPTER II", "", "CHAPTER I", "", *_wrapped(PARAGRAPH).split("\n"), "",
             "CHAPTER II", "", *_wrapped(PARAGRAPH).split("\n")]
    layout = book_layout(lines)
    assert layout.book and [s.start for s in layout.sections] == [5, 11]
    assert all(layout.dropped[:5]) and not any(layout.dropped[5:])


# ------------------------------------------------------------------------------------------- encodings
GUTENBERG_HEAD = (b"The Project Gutenberg EBook of The River, by A. Writer\r\n\r\nCharacter set encoding: %s\r\n\r\n"
                  b"*** START OF THIS PROJECT GUTENBERG EBOOK THE RIVER ***\r\n\r\n")


@pytest.mark.parametrize("declared,body,expected", [
    # Gutenberg's headers often say ASCII of a Latin-1 file: its 8-bit character set, with a note
    (b"ASCII", b"CHAPTER I\r\n\r\nA soup\xe7on of scandal cost \xa320,000. It was paid.\r\n", "A soupçon of scandal"),
    (b"ISO-8859-1", b"CHAPTER I\r\n\r\nIt may be history.\xa0 It was paid, said the caf\xe9.\r\n", "the café."),
    (b"ISO-8859-2", b"CHAPTER I\r\n\r\nZa\xbf\xf3\xb3\xe6 g\xea\xb6l\xb1 ja\xbc\xf1. It was paid.\r\n", "Zażółć"),
])
def test_a_gutenberg_file_in_its_8bit_character_set_reads(tmp_path, declared, body, expected):
    path = tmp_path / "river.txt"
    path.write_bytes(GUTENBERG_HEAD % declared + body)
    corpus = read_corpus(path, kind="text", headings=True)
    assert any(expected in t for t in corpus.sentence_texts())
    assert any("not UTF-8" in note or "declares" in note for note in corpus.readings[0].notes)


@pytest.mark.parametrize("data", [
    b"caf\xe9 au lait\n",                                            # not a Gutenberg e-text: no guessing
    GUTENBERG_HEAD % b"ASCII" + b"\x01\x02\xe9\xff\x81 binary\r\n",   # control characters: not text in any case
])
def test_other_non_utf8_files_are_still_refused(tmp_path, data):
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(SegvizError, match="not valid UTF-8"):
        read_corpus(path, kind="text")


# ------------------------------------------------------------------------------------ more heading forms
def test_quoted_and_mixed_case_titles_leave_the_text():
    _, titles, texts = _read(_book("CHAPTER I", "\"I WON'T!\" SAID MARY", BODY, "CHAPTER II",
                                   "The first Step towards the Ladder.", BODY, "CHAPTER III", "WATER! WATER!", BODY,
                                   "CHAPTER IV", "“TOM!”", BODY))
    assert titles == ["CHAPTER I: \"I WON'T!\" SAID MARY", "CHAPTER II: The first Step towards the Ladder.",
                      "CHAPTER III: WATER! WATER!", "CHAPTER IV"]
    assert "The first Step towards the Ladder." not in texts and not any("WON'T" in t or "WATER" in t for t in texts)
    assert "“TOM!”" in texts   # a quotation of its own that exclaims is dialogue


def test_a_chapters_argument_in_capitals_over_more_lines_is_its_title():
    argument = ("THE SEA--LONGINGS FOR SHORE--A LAND-SICK SHIP--DESTINATION OF THE\n"
                "VOYAGERS--THE MARQUESAS--ADVENTURE OF A MISSIONARY'S WIFE AMONG THE\n"
                "SAVAGES--CHARACTERISTIC ANECDOTE OF THE QUEEN OF NUKUHEVA--STATE OF\n"
                "AFFAIRS ABOARD THE SHIP--CONTENTS OF HER LARDER--LENGTH OF SOUTH\n"
                "SEAMEN'S VOYAGES")
    _, titles, texts = _read(_book("CHAPTER ONE", argument, BODY, "CHAPTER TWO", BODY, "CHAPTER THREE", BODY))
    assert titles[0].startswith("CHAPTER ONE: THE SEA--LONGINGS FOR SHORE") and titles[0].endswith("VOYAGES")
    assert not any("NUKUHEVA" in t for t in texts)
    # five lines of prose below a heading stay its text
    prose = "\n".join(_wrapped(PARAGRAPH + " " + PARAGRAPH).split("\n")[:5])
    _, titles, texts = _read(_book("CHAPTER ONE", prose, BODY, "CHAPTER TWO", BODY, "CHAPTER THREE", BODY))
    assert titles[0] == "CHAPTER ONE"


def test_a_title_wrapped_mid_phrase_is_one_title():
    text = _book("CHAPTER 15. No just Cause or Impediment why these Two Persons\nshould not be joined together",
                 BODY, "CHAPTER 16. Getting on", BODY)
    _, titles, texts = _read(text)
    assert titles[0] == "CHAPTER 15. No just Cause or Impediment why these Two Persons should not be joined together"
    assert not any(t.startswith("should not be joined") for t in texts)


@pytest.mark.parametrize("first,second", [
    ("1.  The Cyclone", "2.  The Council"), ("1--A Face", "2--Humanity"), ("01 My Early Home", "02 The Hunt"),
    ("1 THE THREE PRESENTS", "2 THE AUDIENCE"), ("I  The Old Family", "II The Little Shop")])
def test_a_numeral_with_a_title_on_its_line(first, second):
    _, titles, _ = _read(_book(first, BODY, second, BODY))
    assert titles == [first, second]


def test_parts_with_a_motto_and_chapter_numbers_restarting():
    motto = "    \"O ye men, how can it be but women should be strong?\"--ESDRAS."
    text = _book("BOOK ONE -- THE THREE WOMEN", "1--A Face", BODY, "2--Humanity", BODY,
                 "BOOK TWO -- THE ARRIVAL", motto, "1--Tidings", BODY, "2--Preparations", BODY)
    _, titles, texts = _read(text)
    # the part with only a motto before its first chapter is no segment: it joins that chapter
    assert titles == ["BOOK ONE -- THE THREE WOMEN: 1--A Face", "2--Humanity",
                      "BOOK TWO -- THE ARRIVAL: 1--Tidings", "2--Preparations"]
    assert "1--Tidings" not in texts


def test_a_books_chapter_mottos_leave_its_text():
    verse = ("     Then (sad relief!) from the bleak coast that hears\n"
             "     The German Ocean roar, deep-blooming, strong,\n"
             "     Thomson's Liberty")
    # Kim's: the verse, then its source set in as a block of its own; and a single line with its source
    kim = "  And whoso will, from Pride released;\n  Contemning neither creed nor priest,\n\n  Buddha at Kamakura."
    source = '     "Sola, sola, wo ha, ho, sola!"--Shakespeare'
    parsed, titles, texts = _read(_book("CHAPTER I", verse, BODY, "CHAPTER II", kim, BODY, "CHAPTER III", source,
                                        BODY))
    assert titles == ["CHAPTER I", "CHAPTER II", "CHAPTER III"]
    joined = " ".join(texts)
    for gone in ("sad relief", "Thomson", "Pride released", "Kamakura", "Sola"):
        assert gone not in joined, gone
    assert texts.count(PARAGRAPH) == 14 * 3
    assert any("3 chapter motto(s)" in note for note in parsed.notes)
    # a habit of the book, not one chapter's: a single chapter opening with indented verse keeps it (a song)
    _, _, texts = _read(_book("CHAPTER I", verse, BODY, "CHAPTER II", BODY, "CHAPTER III", BODY))
    assert "sad relief" in " ".join(texts)
    # set in no further than the prose after it, or with no prose after it, it is the chapter's text
    flush = "Then (sad relief!) from the bleak coast that hears\nThe German Ocean roar, deep-blooming, strong,"
    _, _, texts = _read(_book("CHAPTER I", flush, BODY, "CHAPTER II", flush, BODY, "CHAPTER III", flush, BODY))
    assert " ".join(texts).count("sad relief") == 3
    indented = "\n\n".join("    " + _wrapped(PARAGRAPH).replace("\n", "\n    ") for _ in range(14))
    _, _, texts = _read(_book("CHAPTER I", verse, indented, "CHAPTER II", verse, indented, "CHAPTER III", verse,
                              indented))
    assert " ".join(texts).count("sad relief") == 3


def test_notes_and_appendices_after_the_last_chapter_are_back_matter():
    _, titles, texts = _read(_book("CHAPTER I", BODY, "CHAPTER II", BODY, "APPENDIX", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II"] and len(texts) == 2 * len(_read(_book("CHAPTER I", BODY))[2])
    _, titles, texts = _read(_book("CHAPTER I", BODY, "CHAPTER II", BODY, "FOOTNOTES:",
                                   "[1] The river is called the Mill Water in the old maps."))
    assert titles == ["CHAPTER I", "CHAPTER II"]
    assert not any("FOOTNOTES" in t or "Mill Water" in t for t in texts)


def test_a_preface_under_the_first_volume_heading_is_front_matter():
    _, titles, texts = _read(_book("VOLUME I", "PREFACE", BODY.replace("morning", "preface"), "CHAPTER I", BODY,
                                   "CHAPTER II", BODY))
    assert titles == ["CHAPTER I", "CHAPTER II"] and not any("preface" in t for t in texts)


def test_the_numbers_of_sub_sections_leave_the_text():
    # a chapter opening with "I" (and the sub-section's title), or numbered sub-sections far enough apart
    sub = "I\n\n" + BODY + "\n\nII\n\n" + BODY
    _, titles, texts = _read(_book("CHAPTER I", "I", "The Statement of the Gardener", BODY, "CHAPTER II", sub))
    assert titles == ["CHAPTER I", "CHAPTER II"]
    assert not any(t in ("I", "II", "The Statement of the Gardener") for t in texts)


def test_a_note_in_brackets_under_a_heading_is_the_headings():
    # Lorna Doone: "CHAPTER LXXIV" / "DRIVEN BEYOND ENDURANCE" / "[Also known as BLOOD UPON THE ALTAR in other
    # editions]"; a bracketed aside inside the prose stays (Tom Sawyer's "[Applausive titter.]")
    note = "[Also known as BLOOD UPON THE ALTAR in other editions]"
    inside = BODY + "\n\n[Applausive titter.]\n\n" + BODY
    _, titles, texts = _read(_book("CHAPTER I", BODY, "CHAPTER II", "DRIVEN BEYOND ENDURANCE", note, inside,
                                   "CHAPTER III", "[Written three years after the foregoing.]", BODY))
    assert titles == ["CHAPTER I", f"CHAPTER II: DRIVEN BEYOND ENDURANCE: {note}",
                      "CHAPTER III: [Written three years after the foregoing.]"]
    assert not any(t.startswith(("[Also", "[Written")) for t in texts)
    assert "[Applausive titter.]" in texts


def test_the_titles_of_numbered_sub_sections_leave_the_text_with_their_numbers():
    # The Moonstone's epilogue: "I" / "The Statement of SERGEANT CUFF'S MAN (1849)", "II" / "The Statement of
    # THE CAPTAIN (1849)": a series of sub-sections, each number with its title under it
    statements = ("I\n\nThe Statement of the Captain (1849)\n\n" + BODY
                  + "\n\nII\n\nThe Statement of the Cook (1850)\n\n" + BODY)
    _, titles, texts = _read(_book("CHAPTER I", BODY, "CHAPTER II", BODY, "EPILOGUE", statements))
    assert titles == ["CHAPTER I", "CHAPTER II", "EPILOGUE"]
    assert not any("Statement" in t for t in texts)
    assert texts.count("I") == texts.count("II") == 0
    # under a number with its title on its own line (Armadale's letters) the next block is the letter's text
    letters = (BODY + "\n\n1. _From Miss Gwilt to Mrs. Oldershaw_.\n\nRichmond, Thursday.\n\n" + BODY
               + "\n\n2. _From Mrs. Oldershaw to Miss Gwilt_.\n\nDiana Street, Friday.\n\n" + BODY)
    _, titles, texts = _read(_book("CHAPTER I", BODY, "CHAPTER II", letters))
    assert titles == ["CHAPTER I", "CHAPTER II"]
    assert "Richmond, Thursday." in texts and "Diana Street, Friday." in texts
    # ... but where the title's italics run on below it, the block that closes them is the title's ("5. _From Miss
    # Gwilt to Mrs. Oldershaw." / "(First Answer.)_")
    answers = (BODY + "\n\n5. _From Miss Gwilt to Mrs. Oldershaw.\n\n(First Answer.)_\n\nRichmond, Wednesday.\n\n"
               + BODY + "\n\n6. _From Miss Gwilt to Mrs. Oldershaw.\n\n(Second Answer.)_\n\nRichmond, Night.\n\n" + BODY)
    _, titles, texts = _read(_book("CHAPTER I", BODY, "CHAPTER II", answers))
    assert titles == ["CHAPTER I", "CHAPTER II"]
    assert not any("Answer" in t or t == "_" for t in texts)
    assert "Richmond, Wednesday." in texts and "Richmond, Night." in texts


def test_chapters_in_the_front_matter_before_volume_one_are_front_matter():
    fragment = _book("APPENDIX", "FRAGMENT OF A ROMANCE", "CHAPTER I.", BODY.replace("morning", "fragment"),
                     "CHAPTER IV.", BODY.replace("morning", "fragment"))
    story = _book("Volume I.", "CHAPTER I", "INTRODUCTORY", BODY, "CHAPTER II", BODY)
    _, titles, texts = _read(fragment + "\n\n" + story)
    assert titles == ["Volume I. CHAPTER I: INTRODUCTORY", "CHAPTER II"]
    assert not any("fragment" in t for t in texts)
    # chapters after a prologue are the story's
    _, titles, _ = _read(_book("PROLOGUE.", "I. THE TRAVELERS.", BODY, "II. THE WRECK.", BODY,
                               "BOOK THE FIRST.", "I. THE MYSTERY.", BODY, "II. THE MAN.", BODY))
    assert titles == ["PROLOGUE. I. THE TRAVELERS.", "II. THE WRECK.", "BOOK THE FIRST. I. THE MYSTERY.",
                      "II. THE MAN."]


def test_an_old_style_gutenberg_closing_line_is_back_matter():
    _, _, texts = _read(_book("CHAPTER I", BODY, "CHAPTER II", BODY,
                              "*Project Gutenberg Etext of The River, by A. Writer*"))
    assert not any("Gutenberg" in t for t in texts)


def test_a_title_written_as_a_sentence_is_known_from_the_contents_list():
    contents = ("CONTENTS",
                ("Chapter i -- Showing what kind of a history this is; what it is like, and what it\n"
                 "is not like."),
                "Chapter ii -- Religious cautions against showing too much favour to\nbastards.",
                "Chapter iii -- Containing little or nothing.")
    text = _book(*contents, "Chapter i.", "Showing what kind of a history this is; what it is like, and what it\n"
                 "is not like.", BODY, "Chapter ii.", "Religious cautions against showing too much favour to\n"
                 "bastards.", BODY, "Chapter iii.", "Containing little or nothing.", BODY)
    _, titles, texts = _read(text)
    assert titles == ["Chapter i. Showing what kind of a history this is; what it is like, and what it is not like.",
                      "Chapter ii. Religious cautions against showing too much favour to bastards.",
                      "Chapter iii. Containing little or nothing."]
    assert not any(t.startswith(("Showing", "Religious", "Containing")) for t in texts)


def test_a_chapters_argument_in_sentence_case_is_its_title():
    argument = "In which another old Friend encounters Smike, very opportunely and to\nsome Purpose"
    unpunctuated = "Nicholas varies the Monotony of Dothebys Hall by a most vigorous and\nremarkable proceeding"
    motto = "When autumn nights were long and drear,\nAnd forest walks were dark and dim,"
    broken = "What was left of the second sheet came in very\nnicely to make a banner bearing the legend"
    _, titles, texts = _read(_book("CHAPTER 1", argument, BODY, "CHAPTER 2", unpunctuated, BODY,
                                   "CHAPTER 3", motto, BODY, "CHAPTER 4", broken, "TAKE CARE", BODY))
    assert titles == ["CHAPTER 1: " + argument.replace("\n", " "), "CHAPTER 2: " + unpunctuated.replace("\n", " "),
                      "CHAPTER 3", "CHAPTER 4"]
    assert not any(t.startswith(("In which", "Nicholas varies")) for t in texts)
    # a motto in verse and a paragraph a quotation breaks stay the chapter's text
    assert any(t.startswith("When autumn nights") for t in texts)
    assert any(t.startswith("What was left") for t in texts)


def test_a_part_stacked_on_its_first_chapter_keeps_the_next_chapter_apart():
    """BOOK I right above CHAPTER I is one heading group, and chapter I's own text (short as it is) is no motto:
    chapter II stays a segment of its own."""
    from segviz.readers.books import book_layout

    chapters = "".join(f"\n\n\nCHAPTER {'I' * c}. Part {c}\n\n"
                       + "\n\n".join(f"Paragraph {p} of chapter {c} is here. It says little." for p in range(6))
                       for c in range(1, 4))
    layout = book_layout(("BOOK I\n" + chapters + "\n").splitlines())
    assert [s.title for s in layout.sections] == ["BOOK I: CHAPTER I. Part 1", "CHAPTER II. Part 2",
                                                  "CHAPTER III. Part 3"]


def test_in_a_book_that_titles_its_chapters_a_sentence_set_apart_below_the_heading_is_the_title():
    """Tom Jones: most chapters' titles are known (capitalised, or listed in the contents), the others are a
    sentence-case argument that only the wider gap after it tells from the chapter's first paragraph."""
    titled = [f"Chapter {numeral}.\n\nThe {word} of the Old House." for numeral, word in
              zip(("i", "ii", "iii", "iv", "v", "vi", "vii"), ("Widow", "Curate", "Squire", "Sister", "Doctor",
                                                              "Captain", "Parson"))]
    argument = "The reader's neck brought into danger by a description; his escape;\nand the great condescension " \
               "of Miss Bridget Allworthy."
    dashed = "The character of Mr Square the philosopher; with a dispute concerning----"
    opening = "It rained all that night."
    motto = "     Happy's the wooing\n     That's not long a doing."
    parts = [t + "\n\n\n" + BODY for t in titled]
    parts += ["Chapter viii.\n\n" + argument + "\n\n\n" + BODY, "Chapter ix.\n\n" + dashed + "\n\n\n" + BODY,
              "Chapter x.\n\n" + opening + "\n\n" + BODY, "Chapter xi.\n\n" + motto + "\n\n\n" + BODY]
    _, titles, texts = _read(_book(*parts))
    # a motto in verse set apart the same way opens the chapter's text (Waverley)
    assert titles[10] == "Chapter xi." and any(t.startswith("Happy's the wooing") for t in texts)
    assert titles[7] == "Chapter viii. " + argument.replace("\n", " ")
    assert titles[8] == "Chapter ix. " + dashed
    # a first paragraph parted from the next by the usual gap is the chapter's text
    assert titles[9] == "Chapter x." and opening in texts
    assert not any(t.startswith(("The reader's neck", "The character of Mr Square")) for t in texts)
    # in a book whose chapters carry no titles, the same gap proves nothing
    _, titles, texts = _read(_book(*[f"Chapter {n}.\n\n" + opening + "\n\n\n" + BODY for n in
                                     ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii")]))
    assert titles == [f"Chapter {n}." for n in ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii")]
    assert texts.count(opening) == 8


def test_sections_a_contents_list_names_without_numbers_are_headings():
    """The Woman in White's layout: narrators named in the contents, chapters numbered afresh under each, an
    unnumbered first part before a lone ``II``, numbered narratives, and one made of a single capitalised block."""
    contents = _book("CONTENTS", "First Epoch", "  THE STORY BEGUN BY WALTER HARTRIGHT\n"
                     "  THE STORY CONTINUED BY VINCENT GILMORE\n  THE STORY CONTINUED BY MARIAN HALCOMBE",
                     "     THE NARRATIVE OF THE DOCTOR\n     THE NARRATIVE OF THE TOMBSTONE")
    epitaph = "Sacred to the Memory of Laura, Lady Glyde, of Limmeridge House, in this parish."
    text = _book(contents, "THE STORY BEGUN BY WALTER HARTRIGHT", "(of Clement's Inn, Teacher of Drawing)", BODY,
                 "II", BODY, "III", BODY,
                 "THE STORY CONTINUED BY VINCENT GILMORE", "(of Chancery Lane, Solicitor)", "I", BODY, "II", BODY,
                 "THE STORY CONTINUED BY MARIAN HALCOMBE[1]", BODY, "II", BODY,
                 "1.  THE NARRATIVE OF THE DOCTOR", BODY, "2.  THE NARRATIVE OF THE TOMBSTONE", epitaph)
    parsed, titles, texts = _read(text)
    assert titles == ["THE STORY BEGUN BY WALTER HARTRIGHT: (of Clement's Inn, Teacher of Drawing)", "II", "III",
                      "THE STORY CONTINUED BY VINCENT GILMORE: (of Chancery Lane, Solicitor): I", "II",
                      "THE STORY CONTINUED BY MARIAN HALCOMBE", "II",   # the note's mark is no part of the title
                      "1.  THE NARRATIVE OF THE DOCTOR", "2.  THE NARRATIVE OF THE TOMBSTONE"]
    assert list(parsed.documents[-1].texts) == [epitaph]     # the narrative that is its epitaph keeps it as its text
    assert not any("STORY" in t or "Clement" in t or "CONTENTS" in t or "Epoch" in t for t in texts)


def test_a_contents_entry_met_once_in_capitals_is_no_heading():
    """Fewer than three unnumbered entries standing in the text are no evidence: a line in capitals that
    happens to repeat one stays in the text, and the chapters are the numbered ones."""
    contents = _book("CONTENTS", "  THE OLD MILL\n  THE NEW ROAD\n  THE LAST WORD")
    text = _book(contents, "CHAPTER I", BODY, "THE OLD MILL", BODY, "CHAPTER II", BODY)
    _, titles, texts = _read(text)
    assert titles == ["CHAPTER I", "CHAPTER II"]
    assert "THE OLD MILL" in texts


def test_a_contents_entry_wrapped_over_longer_lines_still_names_the_title():
    """Tom Jones: the entry's first line is shorter than the lines it wraps onto, so no heading rule takes it
    whole; the title below the chapter heading, set apart by a wider gap before it than after, is still known."""
    entry = ("Chapter iv -- The heroe of this great history appears with very bad\n"
             "omens. A little tale of so LOW a kind that some may think it not worth\n"
             "their notice. A word or two concerning a squire.")
    title = ("The heroe of this great history appears with very bad omens. A little\n"
             "tale of so LOW a kind that some may think it not worth their notice. A\nword or two concerning a squire.")
    short = {"i": "Containing little or nothing.", "ii": "Of the weather.", "iii": "The character of Mr Square.",
             "v": "A short chapter."}
    contents = _book("CONTENTS", *(f"Chapter {n} -- {t}" for n, t in list(short.items())[:3]), entry,
                     f"Chapter v -- {short['v']}")
    chapters = [part for n, t in short.items() for part in (f"Chapter {n}.", t, BODY)]
    text = _book(contents, *chapters[:9], "Chapter iv.\n\n", title + "\n\n" + BODY, *chapters[9:])
    _, titles, texts = _read(text)
    assert titles[3] == ("Chapter iv. The heroe of this great history appears with very bad omens. A little tale of so "
                         "LOW a kind that some may think it not worth their notice. A word or two concerning a squire.")
    assert len(titles) == 5 and not any(t.startswith("The heroe") for t in texts)
