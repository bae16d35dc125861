"""The structure of a book in raw text: which lines are chapter headings, which are their titles, and which lines
are not the book's text at all (front matter, contents lists, illustrations, notes, back matter).

The ``text`` reader uses it under ``headings=True`` (:func:`book_layout`); it works on the lines of one file
after the Project Gutenberg header and licence are gone, and every decision is one pass over the lines (linear
time; the patterns are anchored and have no nested repetition).

Heading lines
    A heading starts a *block* (a run of non-blank lines after a blank line), or follows another heading line in
    its block (``VOLUME I`` / ``CHAPTER I``).  The kinds:

    * **chapter words**: ``CHAPTER``, ``BOOK``, ``PART``, ``STAVE``, ``LETTER``, ``VOLUME``, ``PHASE`` (and
      ``SECTION``, ``CANTO``, ``ACT``, ``SCENE``, ``EPISODE``, ``ADVENTURE``, ``LECTURE``, ``ESSAY``), in capitals or
      capitalised, then a number -- Roman, Arabic, or words (``TWENTY-ONE``, ``the First``, ``THE LAST``) --
      then nothing, or a separator (``.``, ``:``, ``--``, a dash, ``(``) or a capitalised title.  No length cap:
      ``CHAPTER XV: ON THE LACK OF INCENTIVE TO LABOUR IN A COMMUNIST SOCIETY`` is a heading.  A misprinted Roman
      number in capitals counts letter by letter (``CHAPTER XXXIIII``).  A title wrapped onto up to five more lines
      of the block that read as a title is part of the heading, and so is a title cut mid-phrase that goes on in
      lower case (or a digit) for up to three lines no longer than the heading line (``CHAPTER 15. No just Cause
      ... why these Two Persons`` / ``should not be joined together``);
    * **numbered papers**: a capitalised word, ``No.`` and a number (``FEDERALIST No. 10``), at least
      :data:`MIN_PAPER_SERIES` of one name (a lone ``TICKLER NO. 3`` is an advertisement in the text);
    * **numerals**: a Roman or Arabic number alone (``XII``, ``I.``, ``1``) or with a capitalised title on its line
      after a full stop, a dash or a colon (``I. The Period``, ``1.  The Cyclone``, ``1--A Face on Which ...``)
      or after spaces alone when the title reads as one (``01 My Early Home``, ``I  The Old Pyncheon Family``),
      alone in its block.  A numeral is a heading only with evidence:
      it is one of a series of at least two numerals of the same style numbered one after the other (a
      misprinted number between two that fit is forgiven; a series may restart at one, and several may run at
      once: the stanzas of a poem inside a part), with, on the median, at least :data:`MIN_NUMERAL_GAP`
      characters of text between them (:data:`MIN_TITLED_NUMERAL_GAP` when titled) -- stanza numbers are close
      together -- and only when the body has no chapter-word chapters (numerals inside chapters number their
      sub-sections), and in one numeral system: the system of the body's first numeral numbers the chapters, the
      other numbers the letters or narratives inside them (Armadale's ``I. LURKING MISCHIEF.`` / ``1. _From
      Ozias Midwinter_``).  The numbers of sub-sections with series evidence, and a lone ``I`` opening a chapter,
      leave the text with the title under a bare number (the Moonstone's ``I`` / ``The Statement of SERGEANT
      CUFF'S MAN (1849)``): a chapter that opens with ``I`` would give its boundary away;
    * **parts named by an ordinal before their word**, in capitals: ``THE SECOND SCENE.``, ``FIRST PERIOD``,
      ``SECOND NARRATIVE``, ``THE THIRD EPOCH`` (parts above the chapters, as ``BOOK``, ``PART`` and ``PHASE`` are);
    * **named sections**: ``Prologue``, ``Epilogue``, ``Introduction``, ``Conclusion``, ``Preface``,
      ``Afterword``, ... alone in their block, with an ordinal where there are several (``FIRST EPILOGUE``); and
      Markdown ``#`` headings, whose text is read as any heading's
      (``## Chapter 3`` is a chapter heading, ``# Results`` a heading of its own kind).

    * **listed sections**: a line in capitals alone in its block that repeats an unnumbered entry of the book's
      contents list (:mod:`segviz.readers.listed_sections`: The Woman in White's ``THE STORY CONTINUED BY
      VINCENT GILMORE``), when at least three entries stand in the text so.  Only blocks in capitals or in
      parentheses below it are its title (``(of Chancery Lane, Solicitor)``).  When the first numbered heading
      is a ``II``, the listed section right before it opens the book (its unnumbered first part); a lone ``II``
      that is the first numeral under a listed section is a chapter for the same reason.

    Nothing else is a heading: not a short line in capitals (``THE END``, a song title, a signature such as
    ``MOTHER.``), not a lone word, not a line inside a paragraph (a wrapped ``I.`` continues its sentence).
Contents lists
    Three ways to know a heading line is an entry of a contents list: its block holds another heading line of
    the same style (``CHAPTER I. Rain`` / ``CHAPTER II. Sun``); it belongs to a run of headings without a
    paragraph of prose between them in which at least three share a style; or what follows it, before the next
    heading, is a list longer than a title.  The body starts at the heading the contents list opened with,
    met again (``PART ONE`` listed, then ``PART ONE--The Old Buccaneer``), else at the first numbered heading
    after the list.
Front matter
    When the text has numbered headings (chapter words, numbered papers or a numeral series) it is a *book*, and
    everything before its first numbered heading -- title page, dedication, contents, list of illustrations,
    prefaces and introductions, whoever wrote them -- is front matter: left out.  A ``Prologue`` right before
    the first chapter is the story's and stays, as its own segment.  A ``PREFACE`` (``FOREWORD``,
    ``INTRODUCTION``) under a first ``VOLUME I`` heading is front matter too, and so are chapters printed before
    ``VOLUME I`` (``BOOK I``, ``PART I``) / ``CHAPTER I`` -- the fragments an editor prints in an appendix to a
    preface (Waverley) -- unless a Prologue opens them.  When the text is not a book nothing is left out before
    the first heading.
Titles
    Headings with nothing but titles between them make one group (``BOOK ONE`` / ``THE COMING OF THE
    MARTIANS`` / ``I.`` / ``THE EVE OF THE WAR.``; at most :data:`MAX_GROUP_HEADINGS` headings), which starts one
    reference segment: a part or volume heading directly followed by a chapter heading is part of that chapter's
    title, and so is one with only a motto (at most :data:`MAX_PART_EPIGRAPH_CHARS` characters) before its first
    chapter, the motto opening the chapter's text (and leaving it where mottos are the book's habit: Mottos); a
    part followed by more prose is a segment of its own.  Chapter numbers may restart in each part.  After a
    heading, up to
    :data:`MAX_TITLE_BLOCKS` short blocks (at most :data:`MAX_TITLE_LINES` lines each, or
    :data:`MAX_CAPITALS_TITLE_LINES` in capitals: Typee's arguments) that read as titles -- in
    capitals (a quotation too: ``"I WON'T!" SAID MARY``), or capitalised like a title (:data:`TITLE_CAPITALS_SHARE`
    of the words a title capitalises, :data:`TITLE_LINE_CAPITALS_SHARE` on one short line: ``The first Step
    towards the Ladder.``), not a quotation in lower case
    (unless the whole block is a quoted title, ``“Pieces of Eight”``) nor a sentence ending in ``!``, ``?``,
    ``,`` or ``;``; or whatever its case, repeating the title the contents list gives a chapter (Tom Jones:
    ``Showing what kind of a history this is; what it is like, and what it is not like.``), or right below a
    chapter heading its *argument* in sentence case (:func:`is_chapter_argument`: ``In which another old Friend
    encounters Smike, very opportunely and to some Purpose``) -- are the chapter's title (``The Widow and her
    Child.``, ``HAMILTON``, ``To the People of the State of New York:``) and leave the
    text.  The group's lines join into one title: after punctuation with a space, otherwise with ``: ``.
Mottos
    Verse or a quotation set in below a chapter's heading and title, above the prose that opens the chapter
    (at most :data:`MAX_MOTTO_BLOCKS` blocks and :data:`MAX_MOTTO_LINES` lines, each line set in by at least
    :data:`MIN_MOTTO_INDENT` columns more than that prose), is the chapter's motto where at least
    :data:`MIN_MOTTO_CHAPTERS` chapters of the book open with one (Scott's, Cooper's, Eliot's, Gaskell's and
    Kipling's books): it gives the chapter's start away as its heading would, and leaves the text.  A single
    chapter opening with a song keeps it.
Left out anywhere
    ``[Illustration ...]`` blocks (``[Picture: ...]``, ``[Plate 1]``), ``[Transcriber's note ...]``, ``[Note: ...]``
    and ``[Footnote: ...]`` blocks (``[*All the details ...]`` opening a block), a footnote's own paragraph opened
    by its mark (``[1] The Roman government ...``, ``[*] A religious sect.``, ``(*) Duke Lodovico was ...``) and,
    inside the text, footnotes and their marks (``day. [Footnote: ...]``, ``Italy.[1]``, ``Lodovico(*)``, a number in
    braces: ``landward {2}``, or the printed edition's page, ``trees, as {301}``; a note opened by one); lines that
    only say a volume, a book or a stage of the story ends (``(End of volume one.)``, ``END OF PHASE THE FIRST``,
    ``THE END OF THE FIRST SCENE.``), or a bracketed block opening so (``[End volume one of this edition.`` and the printer's
    imprint on the lines below, to its closing bracket).  After the last heading, a line ``THE END`` or ``FINIS``, the heading of the
    notes (``FOOTNOTES:``, ``NOTE``, ``NOTES TO CHAPTER I.``, ``A NOTE ON THE TEXT``), a transcriber's note or an
    old-style Gutenberg closing line ends the book: the rest (notes, publishers' lists, corrections) is back
    matter; so are ``APPENDIX`` sections after the last numbered chapter (:mod:`segviz.readers.back_matter`).
    Numbered notes at the end of a section whose text marks them glued to a word (the Federalist's
    ``the whole.(1)`` and, after the paper, ``1. The same idea ...``) leave the text with their marks, and so do
    notes opened by stars (``* Our most gracious sovereign.``, ``**--Peeps through the blanket``).  The title page
    printed again at the end of a section, before a volume's heading (Waverley's ``WAVERLEY`` / ``OR`` / ``'TIS
    SIXTY YEARS SINCE``), leaves the text.
    A *closing formula* -- a short line standing alone among the last :data:`CLOSING_BLOCKS` blocks of at least
    a third of the sections, the same each time (the Federalist's ``PUBLIUS``) -- gives the boundary after it
    away as a heading would: it is left out wherever it stands alone.
"""
from __future__ import annotations

import re
import statistics
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .back_matter import back_matter_start, is_appendix
from .listed_sections import listed_section_lines

#: a numeral heading needs at least this much text (characters, median) before the next numeral of its series
MIN_NUMERAL_GAP = 2000
#: ... or this much when it carries a title on its line (``I. The Period``)
MIN_TITLED_NUMERAL_GAP = 500
#: numbered papers of one name needed before they are headings
MIN_PAPER_SERIES = 3
#: blocks after a heading that can be its title
MAX_TITLE_BLOCKS = 5
#: lines of one title block
MAX_TITLE_LINES = 4
#: ... or this many in capitals (a chapter's argument: ``THE SEA--LONGINGS FOR SHORE--...``)
MAX_CAPITALS_TITLE_LINES = 8
#: a book whose titles may be known by the gap after them: this many numbered chapters at least, and this share
#: of them titled by the other rules
MIN_SET_APART_CHAPTERS = 8
SET_APART_TITLED_SHARE = 0.5
#: headings in one group (BOOK / PART / CHAPTER / a named section)
MAX_GROUP_HEADINGS = 4
#: lines of a heading's own title wrapped inside its block
MAX_HEADING_CONTINUATION = 5
#: ... and lines a title cut mid-phrase continues onto (a longer block in lower case is a paragraph)
MAX_WRAPPED_TITLE_LINES = 3
#: a heading with its chapter's text right below it (no blank line) is at most this share of the text's line length
SHORT_HEADING_SHARE = 0.7
#: a closing formula (``PUBLIUS``) is a line of at most this many characters standing alone ...
MAX_CLOSING_CHARS = 40
#: ... among the last this many blocks of a section ...
CLOSING_BLOCKS = 6
#: ... in at least this share of the sections, and at least this many
CLOSING_SHARE = 1 / 3
MIN_CLOSING_SECTIONS = 3
#: a part heading with at most this much text (characters) before its first chapter (a motto) joins that chapter
MAX_PART_EPIGRAPH_CHARS = 1000
#: a chapter's motto (indented blocks right below its heading) has at most this many blocks and lines
MAX_MOTTO_BLOCKS = 3
MAX_MOTTO_LINES = 20
#: ... and mottos are a book's habit: the rule holds only where at least this many chapters open with one
MIN_MOTTO_CHAPTERS = 3
#: a line set in by at least this many columns (tabs expanded) more than the prose after it is indented
MIN_MOTTO_INDENT = 2
#: a line of verse (a motto below a chapter heading) is shorter than this; a wrapped title runs to the margin
MAX_VERSE_LINE_CHARS = 60
#: a title capitalises at least this share of the words a title would ...
TITLE_CAPITALS_SHARE = 0.75
#: ... or this share on a line of its own of at most MAX_TITLE_LINE_CHARS (``The first Step towards the Ladder.``)
TITLE_LINE_CAPITALS_SHARE = 0.6
MAX_TITLE_LINE_CHARS = 80
#: a block of prose has at least this many words ...
PROSE_MIN_WORDS = 8
#: ... and at least this share of them begin in lower case
PROSE_LOWER_SHARE = 0.5

_CHAPTER_WORDS = ("chapter", "stave", "letter", "section", "canto", "act", "scene", "episode", "adventure",
                  "lecture", "essay")
_CONTAINER_WORDS = ("book", "part", "volume", "phase")
_KEYWORDS = _CHAPTER_WORDS + _CONTAINER_WORDS
_NAMED = ("prologue", "epilogue", "preface", "foreword", "introduction", "conclusion", "afterword", "postscript",
          "appendix", "interlude")

_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_UNIT_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_TEEN_ORDINALS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                  "seventeenth", "eighteenth", "nineteenth")
_TENS_ORDINALS = ("twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth",
                  "ninetieth")
_WORD_VALUES: dict[str, int] = {}
for _i, _w in enumerate(_UNITS + _TEENS, start=1):
    _WORD_VALUES[_w] = _i
for _i, _w in enumerate(_UNIT_ORDINALS + _TEEN_ORDINALS, start=1):
    _WORD_VALUES[_w] = _i
for _i, (_w, _o) in enumerate(zip(_TENS, _TENS_ORDINALS), start=2):
    _WORD_VALUES[_w] = _WORD_VALUES[_o] = 10 * _i


def _alternation(words) -> str:
    # longest first, so that "seventeen" is not read as "seven"
    return "|".join(sorted(words, key=len, reverse=True))


_SMALL = _alternation(_UNITS + _UNIT_ORDINALS)
_NUMBER_WORD = (rf"(?:the\s+)?(?:(?:{_alternation(_TENS)})(?:[-\s](?:{_SMALL}))?|{_alternation(_TENS_ORDINALS)}|"
                rf"{_alternation(_TEENS + _TEEN_ORDINALS)}|{_SMALL}|last|final)")
_ROMAN = r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
# what may follow a heading's number: nothing, a separator and anything, or a space and a capitalised title
_REST = r"(?P<rest>[.:;,)\]*]*$|\s*(?:[.:]|--|[—–-]|\()+.*$|\s+[A-Z0-9“\"‘'(_\[].*$)"
_KEYWORD_RE = re.compile(
    rf"^(?P<kw>(?:{'|'.join(w.upper() for w in _KEYWORDS)}|{'|'.join(w.capitalize() for w in _KEYWORDS)}))"
    # Roman numbers in capitals, or in lower case from i, v, x and l only ("Chapter iv"; "Letter mix" is no heading)
    # ... or a misprinted Roman number in capitals ("CHAPTER XXXIIII")
    rf"\s+(?P<num>\d{{1,4}}\b|{_ROMAN}\b|[ivxl]+\b|[IVXLC]{{1,9}}\b|(?i:{_NUMBER_WORD})\b)" + _REST)
# a part named by an ordinal before its word, in capitals: "THE SECOND SCENE." (No Name), "FIRST PERIOD", "SECOND
# NARRATIVE" (The Moonstone), "THE THIRD EPOCH" (The Woman in White); "First Epoch" in lower case is a contents entry
_ORDINAL_PART_WORDS = ("scene", "period", "narrative", "epoch", "phase", "stage", "book", "part", "volume")
_ORDINAL_PART_RE = re.compile(
    rf"^(?:THE\s+)?(?P<num>{_alternation(w.upper() for w in _UNIT_ORDINALS + _TEEN_ORDINALS + ('last', 'final'))})"
    rf"\s+(?P<kw>{_alternation(w.upper() for w in _ORDINAL_PART_WORDS)})"
    r"[.:]?$")
_PAPER_RE = re.compile(r"^(?P<kw>[A-Z][A-Za-z]+)\s+(?:No|NO|Number|NUMBER)\.?\s*(?P<num>\d{1,4})\b" + _REST)
_NUMERAL_RE = re.compile(rf"^(?P<num>{_ROMAN}|\d{{1,3}})\.?$")
# a numeral and a title on one line: ``I. The Period``, ``1.  The Cyclone``, ``1--A Face on Which Time ...``, or
# with spaces alone (``01 My Early Home``, ``I  The Old Pyncheon Family``: the title must then read as one)
_TITLED_NUMERAL_RE = re.compile(rf"^(?P<num>(?=[IVXLCDM\d]){_ROMAN}(?![\d])|\d{{1,3}})"
                                r"(?P<sep>\.\s*|\s*(?:--|[—–:])\s*|\s+)(?P<title>[A-Z“\"‘'(_].*)$")
# a heading line's words after its number (``CHAPTER 15. No just Cause``): a title that may wrap onto the next line
_TITLE_AFTER_NUMBER_RE = re.compile(r"^\S+\s+\S+?[.:]?(?:\s*(?:--|[—–])\s*|\s+)([A-Z“\"‘'(_].*)$")
# a named section (``EPILOGUE``), with an ordinal where a book has more than one (War and Peace's ``FIRST EPILOGUE: 1813 - 20``)
_NAMED_RE = re.compile(
    rf"^(?:(?:(?:{_alternation(w.upper() for w in _UNIT_ORDINALS)})\s+)?(?:{_alternation(w.upper() for w in _NAMED)})"
    rf"|(?:(?:{_alternation(w.capitalize() for w in _UNIT_ORDINALS)})\s+)?"
    rf"(?:{_alternation(w.capitalize() for w in _NAMED)}))"
    r"(?:[.:]?$|\s*(?:[.:]|--|[—–])\s*\S.*$|\s+[A-Z0-9][\w.]*$)")
_MARKDOWN_MARK_RE = re.compile(r"^#{1,6}\s+")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}

# a quotation closed and words after it: "I WON'T!" SAID MARY
_QUOTE_THEN_WORDS_RE = re.compile(r"[\"”’»]\s+[^\W\d_]")
_WORD_RE = re.compile(r"(?<![\w'’])[^\W\d_][\w'’-]*")
_OPEN_QUOTES = "\"'“‘«"
_CLOSERS = "\"'”’»)]_*"
# words a title leaves in lower case ("The Widow and her Child", "Diana Is Invited to Tea with Tragic Results")
_MINOR_WORDS = frozenset(
    "a an the and or but nor so yet of in on at to by for with from into onto upon over under as is are was be "
    "its it his her hers their our my your than that this which who whom what when where how up out off down "
    "about among through after before without within between against towards toward during near per via vs "
    "de la le du des von van der da di".split())
# an editor's bracketed block: an illustration (also misspelt, or a picture, a plate, an omitted sketch or score), a
# transcriber's note, a footnote ("[Footnote: ...]", "[* Footnote: ...]"), a note ("[Note: ...")
_NOTE_BLOCK_RE = re.compile(r"^\[\s*\*?\s*(?:il+ustration|picture\s*:|plates?\s+\d|transcriber|footnote|note\s*:|"
                            r"sketch\s+omitted|music\s+score)", re.I)
# ... and, opening a block of its own, a footnote starred in brackets ("[*All the details concerning the hermits ...]")
_STARRED_NOTE_RE = re.compile(r"^\[\s*\*")
# a footnote's own paragraph, opened by its mark: "[1] The Roman government ...", "[*]Whenever this word ...",
# "(*) Duke Lodovico was Lodovico Moro" (a symbol in parentheses: "(1)" opens numbered lists too)
_FOOTNOTE_BODY_RE = re.compile(r"^(?:\[(?:\d{1,3}|[*+\u2020\u2021])\]|\([*+\u2020\u2021]\)|\{\d{1,3}\}|"
                               # ... or by stars before its words (War and Peace's "* Our most gracious sovereign.",
                               # "*(2) That suits us", Wieland's "**--Peeps through the blanket"; a rule "* * *" has none)
                               r"\*{1,3}(?:\(\d{1,3}\))?(?:\s+|--)(?=[^\W\d_]|[\"'“‘(]))")
# ... or by a star glued to its first word ("*The cabin-compass is called the tell-tale, ...", "*Befool."), in italics
# too (The Three Musketeers' "_*Domestic affairs, housekeeping_"), when no second star in the paragraph closes it as
# emphasis ("*The book is about to kill the edifice*.")
_GLUED_STAR_NOTE_RE = re.compile(r"^_?\*(?=[^\W\d_])")
# a star marking a note, in a paragraph with no star opening emphasis (``*word*``, ``**bold**``): glued to a word or
# its stop ("Milady*", "the ceiling.*", "guerre.*"), or alone after a closing stop ("touche!' * They say he was very
# fine", "voisinage;\" * she added"); never one of a rule's stars ("* * *") nor a product ("2 * 3")
_EMPHASIS_OPENING_RE = re.compile(r"(?:^|(?<=\s))\*+(?=[^\s*])")
# (or before the stop: "Fort La Pointe*.", "the Angelus*.", "yellow*,"; a word starred throughout, "R*s*o*", stays)
_STAR_MARK_RE = re.compile(r"(?<!\*)(?P<before>[^\W\d_][.,;:!?\"'’”)]{0,2}|[.,;:!?\"'’”)]\s)\*"
                           r"(?=[.,;:!?\"'’”)]{0,2}(?:\s|$))(?!\s*\*)")
# a footnote's mark in the text: "... on the western coast of Italy.[1]", "natives of some distant Eastern country. [9]",
# "the Duke Lodovico(*) to raise", "(and not of Charles)(+)", a number in braces ("landward {2}", "trees, as
# {301}": a note, or the printed edition's page); "C_{2}HCl_{3}O" goes on in a letter and stays
_FOOTNOTE_MARK_RE = re.compile(
    r"\s*(?:\[(?:\d{1,3}|[*+\u2020\u2021])\]|\([*+\u2020\u2021]\)|\{\d{1,3}\})(?![^\W_])")
# a note's mark in parentheses glued to the word or stop before it: "portions of the whole.(1) This", "mankind!)(E1)",
# "neighbors."(11)", "is ONE";(2)"
# (an enumeration's "(1)" stands after a space)
_GLUED_MARK_RE = re.compile(r"(?<=[^\W\d_])(?P<stop>[.,;:!?\"'’”)]{0,2})\((?P<number>[A-Z]?\d{1,3})\)"
                            r"(?=[\s)\]\"'’”,.;:]|$)")
# ... and the note under the section it marks, opened by the same number: "1. The same idea, tracing ...", "E1. Two"
_NUMBERED_NOTE_RE = re.compile(r"^([A-Z]?\d{1,3})\.\s+\S")
# a footnote printed inside a paragraph: "day. [Footnote: Alas' that attire ...]", "{footnote [1. Hannibal, ...]}"
_INLINE_FOOTNOTE_RE = re.compile(r"\s*(?:\[\s*\*?\s*footnote\b[^\]]*\]|\{\s*footnote\s*\[[^\]]*\]\s*\})", re.I)
# a line of its own that says a part, or a stage of the story, ends: "END OF VOL. I", "END OF PHASE THE FIRST" (Tess),
# "THE END OF THE FIRST SCENE." (No Name), "THIS IS THE END OF THE SECOND STAGE OF PIP'S EXPECTATIONS.", "The End of
# Mr. Gilmore's Narrative." (The Woman in White)
_END_OF_PART_RE = re.compile(r"^[\[(]?\s*(?:this\s+is\s+)?(?:the\s+)?end\s+of\s+(?:the\s+)?(?:[\w.'’]+\s+){0,2}"
                             r"(?:book|volume|vol\.?|part|phase|stage|scene|period|prologue|narrative)"
                             r"(?:\s+(?:the\s+)?\w+)?(?:\s+of\s+[\w .'’]{1,40})?[.)\]]*$", re.I)
_MAX_END_OF_PART_CHARS = 70
# an editor's bracketed note that a volume ends, run on with the printer's imprint over a few lines (Mansfield Park:
# "[End volume one of this edition. / Printed by T. and A. Constable, / ... University Press]")
# ... or says where a volume of an earlier edition ended ("[At this point in the first and second editions, Volume 1
# ends.]"), or that a part of the story closes ("[The First Epoch of the Story closes here.]")
_BRACKETED_END_OF_PART_RE = re.compile(r"^\[\s*(?:(?:the\s+)?end\s+(?:of\s+)?(?:the\s+)?(?:\w+\s+)?"
                                       r"(?:book|volume|vol\.?|part)\b|[^\]]{0,80}\bvolume\s+\w+\s+end(?:s|ed)\b|"
                                       r"[^\]]{0,80}\b(?:epoch|part|book|volume|period)\s+of\s+the\s+story\s+closes\b)",
                                       re.I)
# how a chapter's argument opens (Fielding, Dickens, Scott: "In which ...", "Containing ...", "Showing how ...")
_ARGUMENT_OPENING_RE = re.compile(r"^(?:in\s+which|wherein|whereby|which\s+(?:concludes|contains|treats)|containing|"
                                  r"comprising|showing\s+(?:how|what|that)|treating\s+of|"
                                  r"describing|acquaints|illustrative\s+of|in\s+continuation)\b", re.IGNORECASE)
# a motto's attribution at the end of its block: "--Douglas", "— SHAKSPEARE", "Richard III"
_ATTRIBUTION_RE = re.compile(r"(?:--|[—–])\s*[A-Z][\w .,'’]*$")
# named sections that are front matter before the first chapter, even under a volume heading
_FRONT_MATTER_RE = re.compile(r"^(?:preface|foreword|introduction)\b", re.IGNORECASE)


# ------------------------------------------------------------------------------------------------ numbers
def roman_value(numeral: str) -> int | None:
    """The value of a valid Roman numeral (either case), else ``None``."""
    numeral = numeral.upper()
    if not numeral or not re.fullmatch(_ROMAN, numeral):
        return None
    total = 0
    for i, ch in enumerate(numeral):
        value = _ROMAN_VALUES[ch]
        following = _ROMAN_VALUES[numeral[i + 1]] if i + 1 < len(numeral) else 0
        total += -value if value < following else value
    return total


def number_value(token: str) -> int | None:
    """The value of a heading's number: Arabic, Roman, or words (``TWENTY-ONE``, ``the First``); ``None`` for
    ``the last`` (it continues its series) or anything else."""
    token = token.strip()
    if token.isdigit():
        return int(token)
    roman = roman_value(token)
    if roman:
        return roman
    words = token.lower().split()
    if words and words[0] == "the":
        words = words[1:]
    parts = "-".join(words).split("-")
    if not parts or any(p not in _WORD_VALUES for p in parts):
        return None
    return sum(_WORD_VALUES[p] for p in parts)


# ------------------------------------------------------------------------------------------------ headings
@dataclass(frozen=True)
class HeadingMatch:
    """What one line says as a heading: its kind (``keyword``, ``paper``, ``numeral``, ``named``,
    ``markdown``), the series it belongs to (``style``: the chapter word, or the numeral system), its number,
    and whether it only contains chapters (a book, part or volume)."""

    kind: str
    style: str
    number: int | None
    container: bool = False

    @property
    def numbered(self) -> bool:
        return self.kind in ("keyword", "paper", "numeral")


def match_heading(line: str) -> HeadingMatch | None:
    """The heading this line would be if it stood as one (module docstring), else ``None``.  Says nothing about
    where the line stands: see :func:`book_layout` for the evidence a heading needs."""
    line = line.strip()
    if not line:
        return None
    markdown = _MARKDOWN_MARK_RE.match(line)
    if markdown and markdown.end() < len(line):
        # a book converted to Markdown keeps its chapter words under the markup (``## Chapter 3``): read them,
        # so that it is a book (front matter left out) and its numerals need their series as anywhere else
        inner = _match_plain_heading(line[markdown.end():])
        return inner if inner is not None else HeadingMatch("markdown", "markdown", None)
    return _match_plain_heading(line)


def _match_plain_heading(line: str) -> HeadingMatch | None:
    """:func:`match_heading` for a stripped line without Markdown marks."""
    m = _KEYWORD_RE.match(line)
    if m:
        kw = m.group("kw").lower()
        num = m.group("num")
        value = number_value(num)
        if value is None and re.fullmatch("[IVXLC]+", num):
            value = sum(_ROMAN_VALUES[ch] for ch in num)   # a misprint: counted letter by letter, XXXIIII is 34
        if value is None and not re.fullmatch(r"(?i)(?:the\s+)?(?:last|final)", num):
            return None
        return HeadingMatch("keyword", kw, value, container=kw in _CONTAINER_WORDS)
    m = _ORDINAL_PART_RE.match(line)
    if m:
        return HeadingMatch("keyword", m.group("kw").lower(), number_value(m.group("num")), container=True)
    m = _PAPER_RE.match(line)
    if m:
        return HeadingMatch("paper", m.group("kw").lower(), int(m.group("num")))
    m = _NUMERAL_RE.match(line)
    if m:
        num = m.group("num")
        return HeadingMatch("numeral", "arabic" if num.isdigit() else "roman", number_value(num))
    m = _TITLED_NUMERAL_RE.match(line)
    if m and (m.group("sep").strip() or is_title_like([m.group("title")], question=True)):
        num = m.group("num")
        return HeadingMatch("numeral", "arabic titled" if num.isdigit() else "roman titled", number_value(num))
    if _NAMED_RE.match(line):
        return HeadingMatch("named", "named", None)
    return None


# ------------------------------------------------------------------------------------------ reading lines
def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.replace("_", " "))  # _emphasis_ is markup


def is_prose(lines: Sequence[str]) -> bool:
    """Is this block running prose: at least :data:`PROSE_MIN_WORDS` words, mostly in lower case, and not a
    title?  (Contents entries, lists of illustrations and titles are capitalised word by word or in capitals.)"""
    words = _words(" ".join(lines))
    return (len(words) >= PROSE_MIN_WORDS and sum(w[0].islower() for w in words) >= PROSE_LOWER_SHARE * len(words)
            and not is_title_like(lines))


def is_title_like(lines: Sequence[str], *, question: bool = False) -> bool:
    """Does this block read as a title: in capitals, or capitalised word by word (three in four of the words a
    title would capitalise); not a sentence ending in ``,`` or ``;``, nor in ``!`` or ``?`` unless ``question``
    (the rest of a heading's own line may ask: ``ARE FORTRESSES ... ADVANTAGEOUS OR HURTFUL?``) or it is in
    capitals and no quotation (``WATER! WATER!``; a quoted ``“TOM!”`` is a line of dialogue); a quotation only
    when it is a short title in quotation marks (``“Pieces of Eight”``) or in capitals with words after it
    (``"I WON'T!" SAID MARY``)?"""
    text = " ".join(line.strip() for line in lines).strip()
    core = text.rstrip(_CLOSERS + " ")
    letters = [ch for ch in text if ch.isalpha()]
    capitals = not any(ch.islower() for ch in letters)
    exclaims = capitals and text[:1] not in _OPEN_QUOTES   # a title in capitals may exclaim or ask
    if not core or core[-1] in (",;" if question or exclaims else "!?,;"):
        return False
    # a quotation in capitals is a title that quotes (``“I WON'T!” SAID MARY``); in lower case, dialogue
    quoted_title = len(lines) == 1 and not any(ch in core for ch in ",;!?") and text.rstrip(" *")[-1] in "\"'”’»"
    # in capitals, a quotation with words after it (``"I WON'T!" SAID MARY``; not a letter's ``“MY DEAR MR PIP:--``)
    quoting_title = capitals and bool(_QUOTE_THEN_WORDS_RE.search(text))
    if text[0] in _OPEN_QUOTES and not quoted_title and not quoting_title:   # "* ": a footnote mark after the quote
        return False
    if len(letters) < 2:
        return False
    if capitals:
        return True
    content = [w for w in _words(text) if w.lower() not in _MINOR_WORDS]
    if content and sum(w[0].isupper() for w in content) >= TITLE_CAPITALS_SHARE * len(content):
        return True
    # a title line of its own may leave more in lower case (``The first Step towards the Ladder.``), counted
    # without its first word (every sentence starts with a capital: "Next morning Stubb accosted Flask." is no
    # title) and with no clause inside; in a block of several lines a paragraph full of names would pass
    # (War and Peace: "On August 25, the eve of the battle of Borodino, M. de Beausset ...")
    later = [w for w in _words(text)[1:] if w.lower() not in _MINOR_WORDS]
    return (len(lines) == 1 and len(text) <= MAX_TITLE_LINE_CHARS and not any(ch in core for ch in ",;")
            and bool(later) and sum(w[0].isupper() for w in later) >= TITLE_LINE_CAPITALS_SHARE * len(later))


@dataclass
class _Candidate:
    start: int          # line index of the heading line
    end: int            # index after the heading's own lines
    match: HeadingMatch
    block: int          # index of its block
    contents: bool = False  # an entry of a contents list (two headings of one series in its block)
    text: str = ""      # the heading line

    @property
    def key(self) -> tuple[str, object]:
        """What a contents entry and the heading it lists share: the series and number (``PART ONE`` and ``PART
        ONE--The Old Buccaneer``), or a named section's name."""
        if self.match.numbered:
            return (self.match.style, self.match.number)
        return (self.match.style, self.text.lower().rstrip(" .:"))


@dataclass(frozen=True)
class Section:
    """One reference segment's heading group: lines ``start:end`` (the heading lines and the title lines after
    them) leave the text; ``heading`` is the first heading line as written, ``title`` the whole group as one
    title (``CHAPTER I. The Widow and her Child.``)."""

    start: int
    end: int
    heading: str
    title: str


@dataclass
class BookLayout:
    """What :func:`book_layout` found: the sections that start reference segments, which lines are left out of
    the text (``dropped[i]``), whether the text was read as a book (front matter left out), and notes."""

    sections: list[Section]
    dropped: list[bool]
    book: bool
    notes: list[str] = field(default_factory=list)


def _blocks(stripped: Sequence[str]) -> list[tuple[int, int]]:
    out, start = [], None
    for i, line in enumerate(stripped):
        if line and start is None:
            start = i
        elif not line and start is not None:
            out.append((start, i))
            start = None
    if start is not None:
        out.append((start, len(stripped)))
    return out


def _find_candidates(stripped: Sequence[str], blocks: list[tuple[int, int]]) -> list[_Candidate]:
    """Heading lines standing where a heading stands: first in a block, or after another heading line in it
    (each line is matched once: a block is looked into only when its first line is a heading)."""
    out: list[_Candidate] = []
    for b, (start, end) in enumerate(blocks):
        if match_heading(stripped[start]) is None:
            continue
        matches = [match_heading(line) for line in stripped[start:end]]
        later: dict[str, int] = {}   # styles of the heading lines after the current one
        for m in matches[1:]:
            if m is not None:
                later[m.style] = later.get(m.style, 0) + 1
        for offset, match in enumerate(matches):
            i = start + offset
            if match is None:
                break
            if offset:
                later[match.style] -= 1
            if later.get(match.style):   # two headings of one series in one block: a contents list
                out.append(_Candidate(i, end, match, b, True, stripped[i]))
                break
            if i + 1 == end:
                out.append(_Candidate(i, end, match, b, False, stripped[i]))
                break
            following = matches[offset + 1]
            if following is not None and match.numbered and following.numbered:  # VOLUME I / CHAPTER I
                out.append(_Candidate(i, i + 1, match, b, False, stripped[i]))
                continue
            tail = stripped[i + 1:end]
            if len(tail) <= MAX_HEADING_CONTINUATION and (is_title_like(tail, question=True)
                                                          or _continues_title(stripped[i], tail)):
                out.append(_Candidate(i, end, match, b, False, stripped[i]))  # a title wrapped onto the next lines
            elif match.kind == "keyword" and len(stripped[i]) <= SHORT_HEADING_SHARE * max(map(len, tail)):
                # the chapter's text follows without a blank line; a line as long as the text's lines is the
                # first line of a paragraph ("BOOK I. (Folio), CHAPTER I. (Sperm Whale).--This whale, ...")
                out.append(_Candidate(i, i + 1, match, b, False, stripped[i]))
            break
    return out


def _continues_title(heading: str, tail: Sequence[str]) -> bool:
    """Is ``tail`` the rest of a title the heading line wrapped mid-phrase (``CHAPTER 15. No just Cause or
    Impediment why these Two Persons`` / ``should not be joined together``; ``Chapter i -- The introduction to the
    work, or bill of fare to the`` / ``feast.``)?  The heading carries a title and stops without ending a sentence,
    the next line goes on in lower case, and no line of the rest is longer than the heading line (a wrapped
    title; a chapter's text below its heading starts with a capital)."""
    rest = _TITLE_AFTER_NUMBER_RE.match(heading)
    return bool(rest and rest.group(1).strip() and 0 < len(tail) <= MAX_WRAPPED_TITLE_LINES
                and (tail[0][:1].islower() or tail[0][:1].isdigit())
                and heading.rstrip(_CLOSERS + " ")[-1:] not in ".!?;"
                and max(map(len, tail)) <= len(heading))


def _numeral_series(cands: list[_Candidate], stripped: Sequence[str]) -> set[int]:
    """Indices (into ``cands``) of the numeral headings with series evidence (module docstring): series of at
    least two numbered one after the other, far enough apart.

    Several series can be open at once -- the parts of a book, and the stanzas of a poem inside one of them
    numbered from I again -- so each numeral continues the most recent series that expects its number; a
    number no series expects continues one anyway when the next numeral fits after it (a misprint, VI for IV
    before V); otherwise it starts a series of its own."""
    accepted: set[int] = set()
    chars_before = [0]   # characters of text before each line, so that any gap is one subtraction
    for line in stripped:
        chars_before.append(chars_before[-1] + len(line))
    by_style: dict[str, list[int]] = {}
    for k, c in enumerate(cands):
        if c.match.kind == "numeral" and not c.contents and c.match.number is not None:
            by_style.setdefault(c.match.style, []).append(k)
    for style, members in by_style.items():
        series: list[list[int]] = []
        waiting: dict[int, list[int]] = {}   # number expected next -> the series expecting it, most recent last
        for pos, k in enumerate(members):
            number = cands[k].match.number
            following = cands[members[pos + 1]].match.number if pos + 1 < len(members) else None
            if waiting.get(number):
                chosen = waiting[number].pop()
            elif number != 1 and following is not None and waiting.get(following - 1):
                number = following - 1   # read as the number the series expected
                chosen = waiting[number].pop()
            else:
                series.append([])
                chosen = len(series) - 1
            series[chosen].append(k)
            waiting.setdefault(number + 1, []).append(chosen)
        least = MIN_TITLED_NUMERAL_GAP if style.endswith("titled") else MIN_NUMERAL_GAP
        for chain in series:
            if len(chain) < 2:
                continue
            gaps = [chars_before[cands[b].start] - chars_before[cands[a].end] for a, b in zip(chain, chain[1:])]
            if statistics.median(gaps) >= least:
                accepted.update(chain)
    return accepted


def numbered_paragraph_starts(lines: Sequence[str], layout: BookLayout) -> int:
    """How many of the layout's sections open with a numbered heading (a chapter word, a numbered paper, a numeral
    of a series) that starts a paragraph of its own (after a blank line or a line left out): the evidence a text
    is a book.  Named sections and Markdown headings are no such evidence (a wiki article has dozens), and
    neither are headings stacked in one paragraph."""
    count = 0
    for section in layout.sections:
        match = match_heading(section.heading)
        i = section.start
        if match is not None and match.numbered and (i == 0 or not lines[i - 1].strip() or layout.dropped[i - 1]):
            count += 1
    return count


def may_be_book(lines: Sequence[str], least: int) -> bool:
    """Could :func:`book_layout` find ``least`` numbered headings in ``lines``?  Its heading candidates alone (no
    block read as prose), so that prose with none skips the layout's reading of every block."""
    stripped = [line.strip() for line in lines]
    return sum(c.match.numbered for c in _find_candidates(stripped, _blocks(stripped))) >= least


def _left_out_anywhere(stripped: Sequence[str]) -> tuple[list[bool], int, int]:
    """Lines that are never the book's text wherever they stand (module docstring), and how many illustration or
    note blocks and end-of-volume lines were among them."""
    n = len(stripped)
    dropped = [False] * n
    blocks = end_lines = 0
    i = 0
    while i < n:
        line = stripped[i]
        alone = i == 0 or not stripped[i - 1]
        body = alone and _FOOTNOTE_BODY_RE.match(line)
        glued = alone and not body and _GLUED_STAR_NOTE_RE.match(line)
        if body or glued:
            paragraph_end = next((j for j in range(i, n) if not stripped[j]), n)
            if body or "*" not in "".join(stripped[i:paragraph_end])[glued.end():]:
                for j in range(i, paragraph_end):   # the note's paragraph, to the next blank line
                    dropped[j] = True
                blocks += 1
                i = paragraph_end
                continue
        note = _NOTE_BLOCK_RE.match(line) or (alone and _STARRED_NOTE_RE.match(line))
        if note or (alone and _BRACKETED_END_OF_PART_RE.match(line)):
            j = i
            # a bracketed block runs to its closing bracket (a few lines at most; an unclosed one is one line)
            while j < n and j - i < 30 and "]" not in stripped[j]:
                j += 1
            last = j if j < n and "]" in stripped[j] else i
            for k in range(i, last + 1):
                dropped[k] = True
            if note:
                blocks += 1
            else:
                end_lines += 1
            i = last + 1
            continue
        alone = alone and (i + 1 == n or not stripped[i + 1])
        if alone and len(line) <= _MAX_END_OF_PART_CHARS and _END_OF_PART_RE.match(line):
            dropped[i] = True
            end_lines += 1
        i += 1
    return dropped, blocks, end_lines


def without_footnotes(text: str) -> tuple[str, int]:
    """``text`` without the footnotes printed inside it (``[Footnote: ...]``, ``{footnote [...]}``) and their marks
    (``Italy.[1]``, ``country. [9]``, ``[*]``, ``whole.(1)``, ``the ceiling.*``, ``touche!' * They say``), and how
    many of both there were: an editor's apparatus, or the author's notes, never the story's words (module
    docstring)."""
    out, notes = _INLINE_FOOTNOTE_RE.subn("", text)
    out, marks = _FOOTNOTE_MARK_RE.subn("", out)
    out, glued = _GLUED_MARK_RE.subn(r"\g<stop>", out)
    marks += glued
    if "*" in out and not _EMPHASIS_OPENING_RE.search(out):
        out, stars = _STAR_MARK_RE.subn(r"\g<before>", out)
        marks += stars
    return (out.strip(), notes + marks) if notes + marks else (text, 0)


def _prose_between(prose_before: list[int], a: _Candidate, b: _Candidate, tail_prose: bool) -> bool:
    """Is there a paragraph of prose between heading ``a`` and heading ``b``?"""
    return tail_prose or prose_before[b.block] - prose_before[a.block + 1] > 0


def _body_start(cands: list[_Candidate], runs: list[list[int]], listed: set[int]) -> int | None:
    """Index of the first heading of the body (module docstring: Contents lists), or ``None`` when no numbered
    heading stands outside a contents list."""
    by_key: dict[tuple[str, object], list[int]] = {}
    for k, c in enumerate(cands):
        if not c.contents:
            by_key.setdefault(c.key, []).append(k)
    for run in runs:
        styles: dict[str, int] = {}
        for k in run:
            styles[cands[k].match.style] = styles.get(cands[k].match.style, 0) + 1
        contentsish = [k for k in run if cands[k].contents or k in listed or styles[cands[k].match.style] >= 3]
        if not contentsish:
            numbered = [k for k in run if cands[k].match.numbered]
            if numbered:
                return numbered[0]
            continue   # named sections before any chapter (a preface): front matter if this is a book
        first = cands[run[0]]
        # the heading the list opened with, met again: in this run after the list, else in a later run
        same = by_key.get(first.key, [])
        if first.match.number is not None or first.match.kind == "named":
            lo, hi = bisect_right(same, run[0]), bisect_right(same, run[-1])
            if hi > lo:
                return _with_container(cands, run, same[hi - 1], contentsish)
            if hi < len(same):
                return same[hi]
        after = [k for k in run if k > contentsish[-1] and cands[k].match.numbered and not cands[k].contents]
        if after:
            return after[0]
    return None


def _chapter_headings(body: list[_Candidate]) -> list[_Candidate]:
    """The headings of a book's body that start its sections (module docstring: Heading lines)."""
    chapter_words = any(c.match.kind == "paper" or (c.match.kind == "keyword" and not c.match.container)
                        for c in body)
    chosen = [c for c in body if c.match.kind != "numeral"] if chapter_words else list(body)
    # numerals inside chapters number their sub-sections (above); a LETTER heading after the chapters have begun
    # is a letter quoted in a chapter (Tom Jones), not one of the letters a book opens with (Frankenstein)
    first_chapter = next((k for k, c in enumerate(chosen) if c.match.style == "chapter"), len(chosen))
    chosen = [c for k, c in enumerate(chosen) if k < first_chapter or c.match.style != "letter"]
    numerals = [c.match.style.split()[0] for c in chosen if c.match.kind == "numeral"]
    if numerals:
        # chapters numbered in one system (Roman, Arabic): numerals of the other number the letters or
        # narratives inside a chapter (Armadale's "I. LURKING MISCHIEF." / "1. _From Ozias Midwinter_")
        chosen = [c for c in chosen if c.match.kind != "numeral" or c.match.style.split()[0] == numerals[0]]
    return chosen


def _first_volume(cands: list[_Candidate], body: int) -> int:
    """Where the book starts when chapters come before its first volume: ``VOLUME I`` (``BOOK I``, ``PART I``)
    with ``CHAPTER I`` right below it, after a few chapters that are not the story's -- the fragments an editor
    prints in the front matter (Waverley's general preface and its appendix).  Chapters after a Prologue are
    the story's (Armadale): then, and when there is no such volume, ``body`` stays."""
    for k in range(body, len(cands) - 1):
        c, below = cands[k], cands[k + 1]
        if c.match.kind == "named" and c.text.lower().startswith("prologue"):
            return body
        if c.contents or below.contents:
            continue
        if k > body and c.match.container and c.match.number == 1 and below.match.numbered \
                and not below.match.container and below.match.number == 1 and below.block - c.block <= 1:
            return k
    return body


def _with_container(cands: list[_Candidate], run: list[int], body: int, contentsish: list[int]) -> int:
    """Step back from ``body`` over numbered headings right before it that are not contents entries (``VOLUME
    I`` before ``CHAPTER I``)."""
    listed = set(contentsish)
    position = run.index(body)
    while position > 0:
        previous = run[position - 1]
        if previous in listed or not cands[previous].match.numbered or cands[previous].contents:
            break
        position -= 1
    return run[position]


def book_layout(lines: Sequence[str]) -> BookLayout:
    """The structure of the text whose lines are ``lines`` (module docstring): the sections that start reference
    segments, the lines left out, and notes (their line numbers are indices into ``lines``)."""
    stripped = [line.strip() for line in lines]
    dropped, n_blocks_out, n_end_lines = _left_out_anywhere(stripped)
    visible = ["" if gone else line for line, gone in zip(stripped, dropped)]
    blocks = _blocks(visible)
    prose = [is_prose(visible[s:e]) for s, e in blocks]
    prose_before = [0]
    for flag in prose:
        prose_before.append(prose_before[-1] + flag)
    cands = _find_candidates(visible, blocks)
    papers: dict[str, int] = {}
    for c in cands:
        if c.match.kind == "paper":
            papers[c.match.style] = papers.get(c.match.style, 0) + 1
    # a numbered paper is a heading in a series of them (FEDERALIST No. 1, 2, ...), not one ``TICKLER NO. 3``
    cands = [c for c in cands if c.match.kind != "paper" or papers[c.match.style] >= MIN_PAPER_SERIES]
    series = _numeral_series(cands, visible)
    lone_numerals = [c for k, c in enumerate(cands) if c.match.kind == "numeral" and not c.contents
                     and k not in series]
    cands = [c for k, c in enumerate(cands) if c.match.kind != "numeral" or c.contents or k in series]
    # prose right below a heading in its own block (a heading stacked on another has none of its own)
    stacked = {c.start for c in cands}
    tails = [c.end < blocks[c.block][1] and c.end not in stacked and is_prose(visible[c.end:blocks[c.block][1]])
             for c in cands]

    # runs of headings without prose between them; a heading followed by a list longer than a title is listed
    runs: list[list[int]] = []
    listed: set[int] = set()
    for k, c in enumerate(cands):
        if runs and not _prose_between(prose_before, cands[k - 1], c, tails[k - 1]):
            runs[-1].append(k)
        else:
            runs.append([k])
        following = cands[k + 1].block if k + 1 < len(cands) else len(blocks)
        between = [blocks[b] for b in range(c.block + 1, following)]
        if not tails[k] and between and not any(prose[b] for b in range(c.block + 1, following)) and (
                len(between) > MAX_TITLE_BLOCKS or any(e - s > MAX_TITLE_LINES for s, e in between)):
            listed.add(k)

    notes: list[str] = []
    body = _body_start(cands, runs, listed)
    if body is not None:
        # a prologue right before the first chapter is the story's, not front matter
        previous = body - 1
        while previous >= 0 and not cands[previous].contents and not cands[previous].match.numbered:
            if cands[previous].text.lower().startswith("prologue"):
                body = previous
                break
            previous -= 1
    if body is not None and cands[body].match.container:
        # VOLUME I / PREFACE / ... / CHAPTER I: the volume heading opens the edition, the preface is front matter
        following = next((k for k in range(body + 1, len(cands)) if not cands[k].contents
                          and (cands[k].match.numbered or _FRONT_MATTER_RE.match(cands[k].text))), None)
        if following is not None and _FRONT_MATTER_RE.match(cands[following].text):
            body = next((k for k in range(following + 1, len(cands))
                         if not cands[k].contents and cands[k].match.numbered), body)
    if body is not None and not cands[body].match.container:
        body = _first_volume(cands, body)
    book = body is not None
    listed: list[_Candidate] = []
    if book:
        # sections the contents list names without a number (The Woman in White's narrators): headings too, and
        # the first of them, when it stands before the first numbered heading, opens the book
        block_starts = [s for s, _ in blocks]
        listed = [_Candidate(i, i + 1, HeadingMatch("named", "listed", None), bisect_right(block_starts, i) - 1,
                             False, visible[i])
                  for i in listed_section_lines(visible, blocks, prose, cands[body].start,
                                                is_numbered=_is_numbered_heading)]
        # ... only when the body's first numbered heading is a second one (``II``): then the listed section right
        # before it is the first part, unnumbered (The Woman in White); else whatever stands before the first
        # chapter is front matter as in any book, listed or not (Waverley's editor's notes and prefaces)
        early = [c for c in listed if c.start < cands[body].start]
        listed = [c for c in listed if c.start > cands[body].start]
        if early and cands[body].match.number == 2:
            listed.insert(0, early[-1])
        opening = min([cands[body].start, *(c.start for c in listed)])
        for i in range(opening):
            dropped[i] = True
        chosen = _chapter_headings([c for c in cands[body:] if not c.contents])
        # the numbers of sub-sections (a series far enough apart to number sections, not stanzas) leave the text
        # too: a chapter that opens with "I" gives its boundary away as its heading would
        taken = {c.start for c in chosen} | {c.start for c in listed}
        subsections = [c for c in cands[body:] if c.match.kind == "numeral" and not c.contents
                       and c.start not in taken]
        for c in subsections:
            for i in range(c.start, c.end):
                dropped[i] = True
        heading_starts = sorted(taken) + [len(visible)]
        for c in subsections:
            # ... with the sub-section's own title under a bare number (after every number is marked, so that a
            # number right below is never read as a title), never reaching a heading; under a titled number
            # (Armadale's ``2. _From Miss Gwilt to Mrs. Oldershaw_.``) the next block is the letter's own text
            stop = heading_starts[bisect_left(heading_starts, c.end)]
            if _NUMERAL_RE.match(visible[c.start].strip()):
                _drop_title_below(c.end, stop, visible, dropped)
            elif "".join(visible[c.start:c.end]).count("_") % 2:
                # ... and a titled number's italics that run on into the next block are its title's (Armadale's
                # "5. _From Miss Gwilt to Mrs. Oldershaw." / "(First Answer.)_")
                _drop_title_below(c.end, stop, visible, dropped, _closes_italics)
        if subsections:
            notes.append(f"{len(subsections)} sub-section number(s) inside chapters left out")
        if opening:
            notes.append(f"front matter before line {opening} (title page, contents, prefaces) left out")
    else:
        chosen = [c for c in cands if not c.contents]

    # the titles a contents list gives its chapters: a block below a chapter heading that repeats one is its title,
    # however it is written (Tom Jones: "Showing what kind of a history this is; what it is like, and what it is
    # not like.")
    listed_titles = {_listed_title(c, visible) for c in cands[:body] if c.match.numbered} if book else set()
    if book:
        # ... and an entry wrapped over lines longer than its first, which no heading rule takes whole (Tom Jones:
        # "Chapter ii -- The heroe of this great history appears with very bad" / "omens. A little tale ...")
        listed_titles |= {_entry_title(" ".join(visible[s:e])) for s, e in blocks
                          if s < cands[body].start and _is_numbered_heading(visible[s])}
    listed_titles.discard("")
    if listed:
        # a listed line that is already a chapter's title (below its heading) stays one
        titled = {i for s in _sections(chosen, blocks, visible, listed_titles, book) for i in range(s.start, s.end)}
        chosen = sorted(chosen + [c for c in listed if c.start not in titled], key=lambda c: c.start)
        chosen = sorted(chosen + _second_sections(chosen, lone_numerals), key=lambda c: c.start)
        notes.append(f"{len(listed)} section(s) the contents list names without a number taken as headings")
    sections = _sections(chosen, blocks, visible, listed_titles, book)
    if book and _mostly_titled(sections):
        # a book that titles its chapters sets each title apart by a wider gap than its paragraphs have (Tom
        # Jones: "The reader's neck brought into danger by a description; ..." and two blank lines): where the
        # rules above found none, such a block below the heading is the title too
        sections = _sections(chosen, blocks, visible, listed_titles, book, set_apart=_paragraph_gap(blocks))
    if book:
        opening_numbers = _opening_numbers(sections, visible, dropped)
        if opening_numbers:
            notes.append(f"{opening_numbers} sub-section number(s) opening a chapter left out")
    if book:
        # appendices after the last chapter are no chapters of the story: back matter, as the notes are
        last_numbered = max((k for k, s in enumerate(sections) if (m := match_heading(s.heading)) and m.numbered),
                            default=len(sections))
        appendix = next((k for k in range(last_numbered + 1, len(sections))
                         if is_appendix(sections[k].heading)), None)
        if appendix is not None:
            cut = sections[appendix].start
            for i in range(cut, len(dropped)):
                dropped[i] = True
            notes.append(f"back matter from line {cut} (appendices after the last chapter) left out")
            sections = sections[:appendix]
    if sections:
        cut = back_matter_start(visible, sections[-1].end)
        if cut is not None:
            for i in range(cut, len(dropped)):
                dropped[i] = True
            notes.append(f"back matter from line {cut} (after THE END, notes or a transcriber's note) left out")
    if book:
        section_notes = _section_notes(sections, visible, dropped)
        if section_notes:
            notes.append(f"{section_notes} numbered note(s) at the end of the sections that mark them left out")
        repeated = _repeated_title_page(sections, visible, dropped, opening)
        if repeated:
            notes.append(f"{repeated} line(s) of the title page repeated before a heading left out")
    for text, count in _closing_lines(sections, visible, dropped):
        notes.append(f"the closing line {text!r} that ends {count} of {len(sections)} sections left out")
    sections, empty = _with_text(sections, visible, dropped)
    if empty:
        notes.append(f"{empty} heading(s) with no text of their own before the next left out")
    sections, joined = _parts_with_epigraphs(sections, visible, dropped)
    if joined:
        notes.append(f"{joined} part heading(s) with only a motto before their first chapter joined to it")
    if book:
        mottos = _chapter_mottos(sections, lines, visible, dropped)
        if mottos:
            notes.append(f"{mottos} chapter motto(s) below the headings left out")
    if n_blocks_out:
        notes.append(f"{n_blocks_out} illustration, footnote or transcriber's note block(s) left out")
    if n_end_lines:
        notes.append(f"{n_end_lines} end-of-volume line(s) left out")
    return BookLayout(sections, dropped, book, notes)


def _second_sections(chosen: list[_Candidate], lone_numerals: list[_Candidate]) -> list[_Candidate]:
    """The lone ``II`` right after a listed section whose first part the section's own heading opens (The Woman in
    White: ``THE STORY CONTINUED BY MARIAN HALCOMBE`` / a diary / ``II``): no series of two, but its chapter all
    the same, numbered as the book numbers its chapters."""
    systems = [c.match.style.split()[0] for c in chosen if c.match.kind == "numeral"]
    if not systems:
        return []
    starts = [c.start for c in chosen]
    out = []
    for k, c in enumerate(chosen):
        if c.match.style != "listed":
            continue
        stop = starts[k + 1] if k + 1 < len(starts) else None
        first = next((n for n in lone_numerals if n.start > c.start and (stop is None or n.start < stop)), None)
        if first is not None and first.match.number == 2 and first.match.style.split()[0] == systems[0]:
            out.append(first)
    return out


def _is_listed_subtitle(lines: Sequence[str]) -> bool:
    """A block below a listed section's heading that belongs to it: in capitals, in parentheses (``(of Chancery
    Lane, Solicitor)``) or a note in brackets; its text may open with anything else (the Tombstone's narrative is
    its epitaph)."""
    text = " ".join(line.strip() for line in lines)
    return text.startswith("(") and text.rstrip().endswith(")") or _is_bracketed_note(lines) or (
        is_title_like(lines) and not any(ch.islower() for ch in text))


def _is_bracketed_note(lines: Sequence[str]) -> bool:
    """A block wholly in square brackets, as an edition sets a note under a chapter's heading (Lorna Doone's
    ``[Also known as BLOOD UPON THE ALTAR in other editions]``, Wieland's ``[Written three years after the
    foregoing, and dated at Montpellier.]``, The Woman in White's ``[Taken down from her own statement]``): the
    heading's, not the chapter's prose, which would open on it."""
    text = " ".join(line.strip() for line in lines)
    return (len(lines) <= MAX_TITLE_LINES and text.startswith("[") and text.endswith("]")
            and "[" not in text[1:] and "]" not in text[:-1])


def _is_numbered_heading(line: str) -> bool:
    match = match_heading(line)
    return match is not None and match.numbered


def is_chapter_argument(lines: Sequence[str], following: Sequence[str]) -> bool:
    """Does this block, standing right below a chapter heading, read as the chapter's argument -- the title older
    novels give a chapter in sentence case (``In which another old Friend encounters Smike, very opportunely and
    to some Purpose``; ``Whereby the Reader will be enabled to trace ... whether it ran smooth or otherwise.``)?
    At most :data:`MAX_TITLE_LINES` lines starting with a capital, not a quotation nor verse (short lines each
    starting with a capital: a motto), and either opening as an argument does (``In which``, ``Wherein``,
    ``Containing``, ``Showing how`` ...) or not ending in punctuation at all with a paragraph of prose
    (``following``) after it -- a paragraph ends its sentence, unless a quotation breaks it (``... bearing the
    legend`` / a banner's words), and a motto's attribution (``--Douglas``) is no title."""
    if not lines or len(lines) > MAX_TITLE_LINES:
        return False
    text = " ".join(line.strip() for line in lines).strip()
    if not text[:1].isupper() or len(text.split()) < 2:
        return False
    if _is_verse(lines):
        return False
    if _ARGUMENT_OPENING_RE.match(text):
        return True
    return text[-1].isalnum() and not _ATTRIBUTION_RE.search(text) and is_prose(following)


def _fits_a_title(lines: Sequence[str]) -> bool:
    """Is a block short enough to be a title: :data:`MAX_TITLE_LINES` lines, or :data:`MAX_CAPITALS_TITLE_LINES`
    in capitals (Typee's chapter arguments, ``THE SEA--LONGINGS FOR SHORE--A LAND-SICK SHIP--...`` over five
    lines)?"""
    if len(lines) <= MAX_TITLE_LINES:
        return True
    return len(lines) <= MAX_CAPITALS_TITLE_LINES and not any(ch.islower() for line in lines for ch in line)


def _is_verse(lines: Sequence[str]) -> bool:
    """Short lines each opening with a capital: verse (a motto), not a title or an argument."""
    return len(lines) > 1 and all(line.strip()[:1].isupper() and len(line.strip()) < MAX_VERSE_LINE_CHARS
                                  for line in lines)


def _normal_title(text: str) -> str:
    """A title to compare with another: its words in lower case (punctuation, emphasis and wrapping aside)."""
    return " ".join(re.sub(r"[\W_]+", " ", text).lower().split())


def _entry_title(text: str) -> str:
    """The title a contents entry's text gives after its number (``Chapter i -- Showing what kind of a history
    this is ...``), compared as :func:`_normal_title`; ``""`` when it gives none."""
    rest = _TITLE_AFTER_NUMBER_RE.match(text)
    return _normal_title(rest.group(1)) if rest else ""


def _listed_title(entry: _Candidate, visible: Sequence[str]) -> str:
    """:func:`_entry_title` of a heading candidate listed in the contents (wrapped over its lines)."""
    return _entry_title(visible[entry.start] if entry.contents else " ".join(visible[entry.start:entry.end]))


def _mostly_titled(sections: list[Section]) -> bool:
    """Do most numbered chapters carry a title beyond their heading line?"""
    numbered = [s for s in sections if (m := match_heading(s.heading)) and m.numbered]
    titled = sum(1 for s in numbered if _normal_title(s.title) != _normal_title(s.heading))
    return len(numbered) >= MIN_SET_APART_CHAPTERS and titled >= SET_APART_TITLED_SHARE * len(numbered)


def _paragraph_gap(blocks: list[tuple[int, int]]) -> int:
    """The blank lines that usually part two blocks of the text (its most common gap)."""
    gaps = [b[0] - a[1] for a, b in zip(blocks, blocks[1:])]
    return max(set(gaps), key=gaps.count) if gaps else 1


def _sections(chosen: list[_Candidate], blocks: list[tuple[int, int]], visible: Sequence[str],
              listed_titles: frozenset[str] | set[str] = frozenset(), book: bool = False,
              set_apart: int | None = None) -> list[Section]:
    """Group the headings with their title lines (module docstring: Titles); a block that repeats a title of the
    contents list (``listed_titles``, as :func:`_normal_title`) is a title however it is written, and in a
    ``book`` so is a chapter's argument right below its heading (:func:`is_chapter_argument`).  With
    ``set_apart`` (the text's usual gap between paragraphs, in blank lines), a sentence right below a numbered
    heading, followed by a wider gap than that before the chapter's prose, is its title as well."""
    starts = {c.start: c for c in chosen}
    out: list[Section] = []
    k = 0
    while k < len(chosen):
        c = chosen[k]
        start, pieces = c.start, [" ".join(visible[c.start:c.end])]
        end, b, titles, headings = c.end, c.block + 1, 0, 1
        while True:
            nxt = chosen[k + 1] if k + 1 < len(chosen) else None
            joinable = nxt is not None and headings < MAX_GROUP_HEADINGS and not (
                c.match.numbered and nxt.match.numbered and nxt.match.style == c.match.style)
            if joinable and nxt.start == c.end:   # stacked in the same block (VOLUME I / CHAPTER I)
                pass
            elif c.end < blocks[c.block][1] or b >= len(blocks):
                break   # the chapter's text follows in the heading's own block: no title lines below it
            elif joinable and nxt.start == blocks[b][0]:
                pass    # the next block is the next heading
            elif c.match.style == "listed" and blocks[b][0] not in starts and titles < MAX_TITLE_BLOCKS:
                if not _is_listed_subtitle(visible[slice(*blocks[b])]):
                    break
                pieces.append(" ".join(visible[slice(*blocks[b])]))
                end, b, titles = blocks[b][1], b + 1, titles + 1
                continue
            elif blocks[b][0] not in starts and titles < MAX_TITLE_BLOCKS and \
                    _fits_a_title(visible[slice(*blocks[b])]) and (
                        is_title_like(visible[slice(*blocks[b])])
                        or _is_bracketed_note(visible[slice(*blocks[b])])
                        or _normal_title(" ".join(visible[slice(*blocks[b])])) in listed_titles
                        or (book and not titles and b + 1 < len(blocks)
                            and is_chapter_argument(visible[slice(*blocks[b])], visible[slice(*blocks[b + 1])]))
                        or (set_apart is not None and not titles and c.match.numbered and b + 1 < len(blocks)
                            and _is_set_apart_title(visible[slice(*blocks[b])], blocks[b + 1][0] - blocks[b][1],
                                                    set_apart, visible[slice(*blocks[b + 1])]))):
                pieces.append(" ".join(visible[slice(*blocks[b])]))
                end, b, titles = blocks[b][1], b + 1, titles + 1
                continue
            else:
                break
            headings += 1
            k += 1
            c = nxt
            pieces.append(" ".join(visible[c.start:c.end]))
            end, b, titles = c.end, c.block + 1, 0
        out.append(Section(start, end, visible[start], _join_title(pieces)))
        k += 1
    return out


def _is_set_apart_title(lines: Sequence[str], gap_after: int, paragraph_gap: int,
                        following: Sequence[str]) -> bool:
    """At most :data:`MAX_TITLE_LINES` lines starting with a capital and ending in ``.`` (a quotation may close
    it) or a dash (``with a dispute concerning----``), set apart from the prose after it by more blank lines than
    the text's paragraphs are (``paragraph_gap``)."""
    text = " ".join(line.strip() for line in lines).strip().rstrip("\"'\u201d\u2019")
    if _ATTRIBUTION_RE.search(text) or _is_verse(lines):
        return False   # a motto (verse, or a line with its source) opens the chapter's text, as in any book
    return (gap_after > paragraph_gap and text[:1].isupper() and text.endswith((".", "--", "\u2014"))
            and len(text.split()) >= 3 and is_prose(following))


def _with_stops(sections: list[Section], n_lines: int) -> list[tuple[Section, int]]:
    """Each section with the line its text stops at: the next section's first line, or the end of the text."""
    return list(zip(sections, [section.start for section in sections[1:]] + [n_lines]))


def _opening_numbers(sections: list[Section], visible: Sequence[str], dropped: list[bool]) -> int:
    """Mark as dropped a lone ``I`` (``I.``, ``1``) standing first in a chapter, and the title under it: the number
    of its first sub-section, even where the sub-sections are too short to be a numeral series of their own (a
    chapter that opens with ``I`` gives its boundary away as its heading would).  Returns how many."""
    count = 0
    for section, stop in _with_stops(sections, len(visible)):
        i = next((i for i in range(section.end, stop) if visible[i] and not dropped[i]), None)
        if i is None or (i + 1 < len(visible) and visible[i + 1] and not dropped[i + 1]):
            continue   # not alone in its block
        match = _NUMERAL_RE.match(visible[i])
        if match and number_value(match.group("num")) == 1:
            dropped[i] = True
            count += 1
            _drop_title_below(i + 1, stop, visible, dropped)
    return count


def _is_sub_section_title(block: Sequence[str]) -> bool:
    """A block under a bare sub-section number that is its title: title-like and no prose."""
    return is_title_like(block) and not is_prose(block)


def _closes_italics(block: Sequence[str]) -> bool:
    """A block that closes the italics a title above it opened (Armadale's ``(First Answer.)_``)."""
    text = " ".join(block).strip()
    return text.count("_") % 2 == 1 and text.endswith("_")


def _drop_title_below(line: int, stop: int, visible: Sequence[str], dropped: list[bool],
                      is_title: Callable[[Sequence[str]], bool] = _is_sub_section_title) -> None:
    """Mark as dropped the title a sub-section number stands over: the next block from ``line`` (before
    ``stop``), when it is short and ``is_title`` says so (the Moonstone's ``II`` / ``The Statement of THE CAPTAIN
    (1849)``).  A sub-section's title left in the text is a heading's line the model would read as prose."""
    start = next((j for j in range(line, stop) if visible[j] and not dropped[j]), stop)
    end = next((j for j in range(start, stop) if not visible[j]), stop)
    if start < stop and end - start <= MAX_TITLE_LINES and is_title(visible[start:end]):
        for j in range(start, end):
            dropped[j] = True


def _parts_with_epigraphs(sections: list[Section], visible: Sequence[str],
                          dropped: list[bool]) -> tuple[list[Section], int]:
    """A part, book or volume heading whose own text before its first chapter is a motto or a few lines (at most
    :data:`MAX_PART_EPIGRAPH_CHARS`: ``Part First`` / ``AT MARYGREEN`` / a quotation / ``I``) is no segment of
    its own: it joins that chapter's group (one title; the motto opens the chapter's text, the chapter's heading
    lines leave it), as a part heading stacked on a chapter heading does.  A part with more text keeps it."""
    out: list[Section] = []
    joined = 0
    k = 0
    while k < len(sections):
        section = sections[k]
        match = match_heading(section.heading)
        following = sections[k + 1] if k + 1 < len(sections) else None
        # a part heading stacked on its first chapter's heading already is that chapter: its text is the chapter's
        stacked = any((m := match_heading(visible[i])) is not None and m.numbered and not m.container
                      for i in range(section.start + 1, section.end))
        if match is not None and match.container and following is not None and not stacked:
            chapter = match_heading(following.heading)
            own = sum(len(visible[i]) for i in range(section.end, following.start) if not dropped[i])
            # ... or on the part below it (The Moonstone: "SECOND PERIOD" / its subtitle / "The events related in
            # several narratives." / "FIRST NARRATIVE")
            if chapter is not None and chapter.numbered and own <= MAX_PART_EPIGRAPH_CHARS:
                for i in range(following.start, following.end):
                    dropped[i] = True
                out.append(Section(section.start, section.end, section.heading,
                                   _join_title([section.title, following.title])))
                joined += 1
                k += 2
                continue
        out.append(section)
        k += 1
    return out, joined


def _indent(line: str) -> int:
    """The columns a raw line is set in by (tabs expanded as a terminal would)."""
    expanded = line.expandtabs(8)
    return len(expanded) - len(expanded.lstrip())


def _opening_blocks(start: int, stop: int, visible: Sequence[str], dropped: list[bool],
                    most: int) -> list[list[int]]:
    """The line numbers of the first ``most`` blocks of text (runs of lines neither blank nor left out) between
    lines ``start`` and ``stop``."""
    blocks: list[list[int]] = []
    for i in range(start, stop):
        if not visible[i] or dropped[i]:
            if blocks and blocks[-1]:
                if len(blocks) == most:
                    break
                blocks.append([])
            continue
        if not blocks:
            blocks.append([])
        blocks[-1].append(i)
    return [block for block in blocks if block]


def _motto_lines(section: Section, stop: int, lines: Sequence[str], visible: Sequence[str],
                 dropped: list[bool]) -> list[int]:
    """The lines of the motto opening a section's text, or none: the indented blocks right below its heading
    and title (at most :data:`MAX_MOTTO_BLOCKS` blocks and :data:`MAX_MOTTO_LINES` lines, at least two lines or
    one ending in its source, ``--Shakespeare``), each line set in by :data:`MIN_MOTTO_INDENT` columns more
    than the first line of the prose that follows them (which must follow: a section whose whole text is set in
    has no motto)."""
    blocks = _opening_blocks(section.end, stop, visible, dropped, MAX_MOTTO_BLOCKS + 1)
    for count in range(1, len(blocks)):
        margin = _indent(lines[blocks[count][0]])
        motto = [i for block in blocks[:count] for i in block]
        if not all(_indent(lines[i]) >= margin + MIN_MOTTO_INDENT for i in motto):
            continue   # the block after is set in as well: the motto may go on (Kim's verse, then its source)
        if len(motto) > MAX_MOTTO_LINES or sum(len(visible[i]) for i in motto) > MAX_PART_EPIGRAPH_CHARS:
            return []
        if len(motto) < 2 and not _ATTRIBUTION_RE.search(visible[motto[0]]):
            return []
        return motto
    return []


def _chapter_mottos(sections: list[Section], lines: Sequence[str], visible: Sequence[str],
                    dropped: list[bool]) -> int:
    """Mark as dropped the motto opening each section's text (:func:`_motto_lines`) where at least
    :data:`MIN_MOTTO_CHAPTERS` sections open with one: verse set in below the heading (Ivanhoe's ``Then (sad
    relief!) from the bleak coast that hears`` / ... / ``Thomson's Liberty``) gives the chapter's start away as
    its heading would, and is no part of the story.  Returns how many mottos left the text."""
    mottos = [_motto_lines(section, stop, lines, visible, dropped)
              for section, stop in _with_stops(sections, len(visible))]
    mottos = [motto for motto in mottos if motto]
    if len(mottos) < MIN_MOTTO_CHAPTERS:
        return 0
    for motto in mottos:
        for i in motto:
            dropped[i] = True
    return len(mottos)


def _section_notes(sections: list[Section], visible: Sequence[str], dropped: list[bool]) -> int:
    """Mark as dropped the numbered notes printed at the end of a section whose text marks them glued to a word
    (the Federalist: ``... of the whole.(1) This doctrine`` and, after the paper, ``1. The same idea, tracing the
    arguments ...``): the last paragraphs of the section that open with a number its text marks.  Standing at every
    section's end, they give the boundary after them away as a heading would.  Returns how many notes."""
    count = 0
    for section, stop in _with_stops(sections, len(visible)):
        kept = [i for i in range(section.end, stop) if visible[i] and not dropped[i]]
        marked = {mark.group("number") for i in kept for mark in _GLUED_MARK_RE.finditer(visible[i])}
        if not marked:
            continue
        paragraph_firsts = [i for i in kept if i == section.end or not visible[i - 1] or dropped[i - 1]]
        for first in reversed(paragraph_firsts):
            note = _NUMBERED_NOTE_RE.match(visible[first])
            if note is None or note.group(1) not in marked:
                break
            end = next((j for j in range(first, stop) if not visible[j]), stop)
            for j in range(first, end):
                dropped[j] = True
            count += 1
    return count


def _repeated_title_page(sections: list[Section], visible: Sequence[str], dropped: list[bool], opening: int) -> int:
    """Mark as dropped the lines of the title page printed again at the end of a section, right before the next
    heading (Waverley's half-title ``WAVERLEY`` / ``OR`` / ``'TIS SIXTY YEARS SINCE`` above ``VOLUME II.``): lines in
    capitals that the front matter (before line ``opening``) has too, each standing alone.  Returns how many."""
    title_page = {line for line in visible[:opening] if line and line == line.upper()
                  and any(ch.isalpha() for ch in line)}
    count = 0
    for section, stop in _with_stops(sections, len(visible)):
        if stop == len(visible):
            continue   # the last section ends the book, not before a heading
        i = stop - 1
        while i >= section.end and (not visible[i] or dropped[i] or (
                visible[i] in title_page and not visible[i - 1] and (i + 1 == len(visible) or not visible[i + 1]))):
            if visible[i] and not dropped[i]:
                dropped[i] = True
                count += 1
            i -= 1
    return count


def _with_text(sections: list[Section], visible: Sequence[str], dropped: list[bool]) -> tuple[list[Section], int]:
    """The sections that have a line of text before the next one (an empty section would be no segment: its
    heading lines are marked dropped instead), and how many had none."""
    kept: list[Section] = []
    for section, stop in _with_stops(sections, len(visible)):
        if any(visible[i] and not dropped[i] for i in range(section.end, stop)):
            kept.append(section)
        else:
            for i in range(section.start, section.end):
                dropped[i] = True
    return kept, len(sections) - len(kept)


def _closing_lines(sections: list[Section], visible: Sequence[str], dropped: list[bool]) -> list[tuple[str, int]]:
    """Mark as dropped the closing formula that ends many sections (module docstring), and return each with the
    number of sections it ends."""
    if len(sections) < MIN_CLOSING_SECTIONS:
        return []
    shown = list(visible)
    for section in sections:
        shown[section.start:section.end] = [""] * (section.end - section.start)
    shown = ["" if gone else line for line, gone in zip(shown, dropped)]
    blocks = _blocks(shown)
    bounds = [section.start for section in sections] + [len(shown)]
    endings: list[list[int]] = []   # per section: lines standing alone among its last blocks
    b = 0
    for lo, hi in zip(bounds, bounds[1:]):
        inside = []
        while b < len(blocks) and blocks[b][0] < hi:
            if blocks[b][0] >= lo:
                inside.append(blocks[b])
            b += 1
        endings.append([s for s, e in inside[-CLOSING_BLOCKS:] if e - s == 1 and len(shown[s]) <= MAX_CLOSING_CHARS
                        and any(ch.isalpha() for ch in shown[s])])
    counts: dict[str, int] = {}
    for lines in endings:
        for text in {shown[i] for i in lines}:
            counts[text] = counts.get(text, 0) + 1
    common = {text: n for text, n in counts.items()
              if n >= MIN_CLOSING_SECTIONS and n >= CLOSING_SHARE * len(sections)}
    if common:
        # once known, the formula goes wherever it stands alone (a section may close with notes after it)
        for s, e in blocks:
            if e - s == 1 and shown[s] in common:
                dropped[s] = True
    return sorted(common.items(), key=lambda item: -item[1])


def _join_title(pieces: list[str]) -> str:
    """One title from a heading group: pieces joined by a space after punctuation, else by ``: ``."""
    parts: list[str] = []
    for piece in pieces:
        # markup and a note's mark ("THE INTERIOR* OF THE MUSKETEERS"), not the title
        piece = without_footnotes(_MARKDOWN_MARK_RE.sub("", piece.strip().strip("_").strip()))[0]
        if parts:
            parts.append(" " if parts[-1][-1:] in ".:;!?—-" else ": ")
        parts.append(piece)
    return "".join(parts)
