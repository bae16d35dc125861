"""``text``: raw prose, as people have it -- a book from Project Gutenberg, an essay, a transcript.

Paragraphs
    A blank line always ends a paragraph.  Inside a block of lines without blank lines, the reader first asks
    whether the lines are *hard-wrapped* or *one paragraph per line*.  The file is hard-wrapped when, over at
    least 20 lines that continue a block, 80% are *full* (the next line's first word would not have fitted:
    the mark of greedy wrapping) or most end mid-sentence; then every block is.  Otherwise each block is judged
    alone by the same two signs (fullness only in blocks of four lines or more).
    Per-line blocks give one paragraph per line.  Wrapped blocks are joined, and a new paragraph starts where a
    line is indented deeper than the line before (or, after a sentence end, deeper than the block's least
    indented line: first-line indentation), where the previous line ends a sentence well short of the wrap
    width (the short last line of a paragraph: shorter than 70% of the file's wrap width, estimated as the 90th
    percentile of its line lengths), and around a heading line (any kind on a block's first line; inside a
    block only chapter/part words and Markdown headings: a Roman numeral inside a block is a wrapped word, the
    ``I.`` of "... and neither had" / "I.").
Joining wrapped lines
    Lines are joined with a space.  A line ending in a dash (``--``, an en or em dash) is joined without one.
    A word broken by a hyphen at a line end (``exam-`` / ``ple``) is joined without the hyphen only when the
    text itself uses the unhyphenated word more often than the hyphenated one; otherwise the hyphen stays
    (``well-`` / ``known`` -> ``well-known``): a kept hyphen costs nothing, a dropped one would merge a
    compound.  Before a capital or a digit the hyphen always stays, without a space (``World-`` / ``Market``
    -> ``World-Market``, ``1914-`` / ``1918`` -> ``1914-1918``): no word is broken there.
Sentences
    syntok splits each paragraph into sentences; a sentence never crosses a paragraph.  Each sentence records
    whether it opens a paragraph (``Document.paragraph_starts``).
Headings (by default when the text looks like a book; ``headings=True``, the CLI's ``--headings``, always;
``headings=False``, ``--no-headings``, never)
    A text *looks like a book* when its layout (below) finds at least :data:`MIN_BOOK_HEADINGS` numbered
    chapter headings, each opening a paragraph of its own: then it is read with them unless asked otherwise,
    and the result says what was decided (``ParsedFile.headings_decision``).  The text's structure is read line
    by line by :mod:`segviz.readers.books` (its docstring has every rule).
    Chapter headings start **reference segments**: a chapter word (``CHAPTER``, ``BOOK``, ``PART``, ``STAVE``,
    ``LETTER``, ``VOLUME``, ...) with a Roman, Arabic or spelled-out number and any title after it, however
    long; a numbered paper (``FEDERALIST No. 10``); a Roman or Arabic numeral alone (``XII``, ``I.``, ``1``) or
    with a title (``I. The Period``) when it belongs to a numbered series of chapter-length sections and the book
    has no chapter words; a named section (``Prologue``, ``Epilogue``, ``Conclusion``, ...); a Markdown ``#``
    heading.  A heading needs a blank line before it (or another heading above it), and stands alone or with its
    title wrapped below it.  Short title lines right after a heading, before the prose resumes (``The Widow and
    her Child.``, ``HAMILTON``), are the chapter's title.  Headings and their titles leave the sentences and
    become the segment's ``Document.title`` (``CHAPTER I. The Widow and her Child.``): a heading left in the
    text would give its boundary away to the model.  A part or volume heading directly followed by a chapter
    heading is part of that chapter's title (chapters are the segments); one followed by prose is a segment of
    its own.  Nothing else is a heading: not a short line in capitals (a song title, a signature such as
    ``MOTHER.``, a lone ``SHE``), not a stanza number, not a wrapped ``I.``.

    When numbered headings are found the text is a *book*: everything before its first chapter -- title page,
    dedication, contents lists (recognised as runs of headings without prose between them, or listed again in
    the body), lists of illustrations, prefaces -- is left out; so are ``[Illustration ...]`` blocks,
    transcriber's notes, footnotes and their marks in the text, lines such as ``(End of volume one.)``, whatever follows ``THE END`` or ``FINIS`` after
    the last chapter, and a closing formula that ends many sections (``PUBLIUS``).  Otherwise text before the
    first heading is a segment of its own.  Each heading taken is listed on the result (``ParsedFile.headings``:
    its line in the file, its text, the segment's title; ``segviz inspect --headings`` shows them), and the
    notes say what was left out.  If no heading is found the text stays unlabelled, with a note.  Read as plain
    prose nothing is left out but the Gutenberg boilerplate, heading lines stay ordinary one-line paragraphs and
    the text has no reference (a book read so says, in a note, that it looks like one).

Project Gutenberg files
    The header before ``*** START OF THE PROJECT GUTENBERG EBOOK ...`` and the licence from ``*** END OF THE
    PROJECT GUTENBERG EBOOK ...`` on (with the line ``End of the Project Gutenberg EBook of ...`` just before it)
    are not the book: they are removed, with a note.  A file of several e-texts (books concatenated) is read
    e-text by e-text, each a source unit of its own (:func:`gutenberg_etexts`); what follows the last END marker
    beyond a licence's length is said, never dropped unsaid.

One file is one document.  Without headings it has no reference boundaries: the corpus is unlabelled.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..documents import HEADINGS_ASKED, HEADINGS_BOOK, HEADINGS_REFUSED, HeadingLine
from ..errors import SegvizError
from .books import BookLayout, book_layout, may_be_book, numbered_paragraph_starts, without_footnotes
from .sentences import DocumentBuilder, ParsedFile, split_sentences

#: a wrapped paragraph's last line is shorter than this fraction of the wrap width
SHORT_LINE_FRACTION = 0.7
#: a block is hard-wrapped when at least this fraction of its lines are full
FULL_LINE_FRACTION = 0.8
#: lines continuing a block needed before the file as a whole is judged hard-wrapped
MIN_WRAP_EVIDENCE = 20

# A sentence end: terminal punctuation, then optional closing quotes/brackets.
TERMINAL_RE = re.compile(r"[.!?…][\"'”’»)\]]*$")
_DASH_END_RE = re.compile(r"(?:--|[—–])$")
_HYPHEN_END_RE = re.compile(r"(\S*[^\W\d_])-$")
_LEADING_WORD_RE = re.compile(r"^([^\W\d_]+)")
# a line ending in a hyphen after a letter or digit (not a dash "--")
_COMPOUND_END_RE = re.compile(r"[^\W_]-$")
_WORD_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")

_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                 "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|first|second|third|fourth|fifth|"
                 "sixth|seventh|eighth|ninth|tenth|last|the first|the second|the third|the last")
_ROMAN_ALONE_RE = re.compile(r"^[IVXLCDM]+\.?$")
_HEADING_RES = (
    # CHAPTER IV / Chapter 3. The Storm / PART TWO / Book the First
    re.compile(rf"^(?:chapter|book|part|section|act|scene|canto|volume|vol\.)\s+(?:[ivxlcdm]+|\d+|{_NUMBER_WORDS})"
               r"\b[.:]?(?:\s+\S.*)?$", re.I),
    # Prologue / EPILOGUE / Introduction: The Problem
    re.compile(r"^(?:prologue|epilogue|introduction|preface|foreword|afterword|conclusions?|appendix(?:\s+\w+)?|"
               r"abstract|references|acknowledge?ments|bibliography|contents)\b[.:]?(?:\s+\S.*)?$", re.I),
    # a Roman numeral alone: "IV." / "XII"
    _ROMAN_ALONE_RE,
    # Markdown headings
    re.compile(r"^#{1,6}\s+\S"),
)
# "2. Methods", "2.1 Data collection", "3) Results": a number then a capitalised title without final punctuation
_NUMBERED_HEADING_RE = re.compile(r"^\d+(?:\.\d+)*[.)]?\s+[A-Z][^.!?,;:]*$")
_GUTENBERG_START_RE = re.compile(r"(?im)^\s*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK\b.*$")
_GUTENBERG_END_RE = re.compile(r"(?im)^\s*\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK\b.*$")
# the line that closes the book just before that marker: "End of the Project Gutenberg EBook of Persuasion, by ..."
_GUTENBERG_CLOSING_RE = re.compile(r"(?im)^[ \t]*End of (?:the |this )?Project Gutenberg(?:['’]s)?\b")
_MAX_HEADING_CHARS = 80
_MAX_HEADING_WORDS = 12


def is_heading(line: str, *, strong: bool = False) -> bool:
    """Does this line, standing alone, look like a heading (module docstring)?  ``strong``: only the
    unmistakable kinds (chapter/part words, a Roman numeral alone, Markdown), not numbered or capitalised lines."""
    line = line.strip()
    if not line or len(line) > _MAX_HEADING_CHARS or len(line.split()) > _MAX_HEADING_WORDS:
        return False
    if any(pattern.match(line) for pattern in _HEADING_RES):
        return not line.endswith((",", ";"))
    if strong:
        return False
    if _NUMBERED_HEADING_RE.match(line) and len(line.split()) <= 10:
        return True
    letters = [c for c in line if c.isalpha()]
    return (len(letters) >= 3 and all(c.isupper() for c in letters) and not line.endswith((",", ";", "!", "?"))
            and len(line.split()) <= 10)


@dataclass
class _Line:
    text: str  # stripped
    indent: int
    number: int = 0  # index of the line in the text

    @property
    def ends_sentence(self) -> bool:
        return bool(TERMINAL_RE.search(self.text))


@dataclass
class Paragraph:
    text: str
    heading: bool  # a one-line paragraph that looks like a heading
    line: int = 0  # index of its first line in the text


def _blocks(text: str) -> list[list[_Line]]:
    blocks: list[list[_Line]] = [[]]
    for number, raw in enumerate(text.split("\n")):
        expanded = raw.expandtabs(8).rstrip()
        if not expanded.strip():
            if blocks[-1]:
                blocks.append([])
            continue
        stripped = expanded.lstrip()
        blocks[-1].append(_Line(stripped, len(expanded) - len(stripped), number))
    return [b for b in blocks if b]


def wrap_width(lines: list[_Line]) -> float:
    """The width the text is wrapped at: the 90th percentile of its line lengths (indentation included)."""
    if not lines:
        return 0.0
    widths = [_width(ln) for ln in lines]
    if len(widths) > _NUMPY_PERCENTILE_FROM:
        return float(np.percentile(widths, 90))
    return _percentile_90(widths)


#: from this many lines numpy's percentile is the faster; below, its fixed cost (~0.1 ms) was most of the time
#: a short file took (a folder of 200,000 one-paragraph files)
_NUMPY_PERCENTILE_FROM = 2000


def _percentile_90(values: list[int]) -> float:
    """``numpy.percentile(values, 90)`` (its default, linear interpolation), computed as numpy does, in Python."""
    ordered = sorted(values)
    n = len(ordered)
    virtual = (n - 1) * 0.9
    below = int(virtual // 1)
    above = min(below + 1, n - 1)
    gamma = virtual - below
    a, b = float(ordered[below]), float(ordered[above])
    diff = b - a
    return b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma


def _full_lines(block: list[_Line], width: float) -> int:
    """How many lines of the block are *full*: the next line's first word would not have fitted on them at
    ``width`` (the mark of greedy wrapping)."""
    return sum(_width(line) + 1 + len(following.text.split()[0]) > width for line, following in zip(block, block[1:]))


def _hard_wrapped(block: list[_Line], width: float) -> bool:
    """Is the block hard-wrapped prose: at least half its lines end mid-sentence, or (four lines or more) nearly
    all of them are full?"""
    if len(block) < 2:
        return False
    inner = block[:-1]
    if sum(not line.ends_sentence for line in inner) >= len(inner) / 2:
        return True
    # fullness needs a few lines to mean anything (two lines of any text are "full" at their own width)
    return len(inner) >= 3 and _full_lines(block, width) >= FULL_LINE_FRACTION * len(inner)


def _file_wrapped(blocks: list[list[_Line]], width: float, *, min_lines: int = MIN_WRAP_EVIDENCE) -> bool:
    """Is the whole text hard-wrapped: over at least ``min_lines`` lines that continue a block, 80% are full or
    more than half end mid-sentence?"""
    inner = sum(len(b) - 1 for b in blocks)
    if inner < min_lines:
        return False
    mid_sentence = sum(not line.ends_sentence for b in blocks for line in b[:-1])
    return sum(_full_lines(b, width) for b in blocks) >= FULL_LINE_FRACTION * inner or mid_sentence > inner / 2


def looks_hard_wrapped(text: str) -> bool:
    """Are at least 80% of the lines that continue a block full, over at least :data:`MIN_WRAP_EVIDENCE` such
    lines?  (Format detection: width regularity is the one wrap signal that one-sentence-per-line files without
    punctuation cannot give.)"""
    blocks = _blocks(text)
    width = wrap_width([ln for b in blocks for ln in b])
    inner = sum(len(b) - 1 for b in blocks)
    return inner >= MIN_WRAP_EVIDENCE and sum(_full_lines(b, width) for b in blocks) >= FULL_LINE_FRACTION * inner


class _Joiner:
    """Joins hard-wrapped lines, deciding each line-end hyphen by the text's own word counts."""

    def __init__(self, text: str):
        self.counts = Counter(w.lower() for w in _WORD_RE.findall(text))
        self.hyphens_dropped = 0

    def join(self, lines: list[str]) -> str:
        """One paragraph from its wrapped lines (each decision looks at two neighbouring lines only)."""
        pieces = [lines[0]]
        for left, right in zip(lines, lines[1:]):
            glue = self._glue(left, right)
            if glue is None:  # the line-end hyphen goes
                pieces[-1] = pieces[-1][:-1]
                glue = ""
            pieces.extend((glue, right))
        return "".join(pieces)

    def _glue(self, left: str, right: str) -> str | None:
        """What goes between two wrapped lines: a space, nothing, or ``None`` (nothing, and drop the hyphen)."""
        dash = _DASH_END_RE.search(left)
        if dash:  # "waited--" + "and" -> "waited--and"; "dark —" + "quite" -> "dark — quite"
            return " " if left[: dash.start()].endswith(" ") else ""
        hyphen = _HYPHEN_END_RE.search(left)
        following = _LEADING_WORD_RE.match(right)
        if hyphen and following and following.group(1)[0].islower():
            head, tail = hyphen.group(1).lower(), following.group(1).lower()
            if self.counts[head + tail] > self.counts[f"{head}-{tail}"]:
                self.hyphens_dropped += 1
                return None
            return ""
        if _COMPOUND_END_RE.search(left) and right[:1].isalnum():
            return ""  # "World-" / "Market", "1914-" / "1918": a compound or a range; a word is never split there
        return " "


def _width(line: _Line) -> int:
    return line.indent + len(line.text)


def _short_heading(line: _Line, width: float, *, strong: bool = False) -> bool:
    if strong and _ROMAN_ALONE_RE.match(line.text):
        return False  # inside a block, "I." is a wrapped pronoun ("... said" / "I."), not a heading
    return _width(line) < SHORT_LINE_FRACTION * width and is_heading(line.text, strong=strong)


def paragraphs(text: str) -> tuple[list[Paragraph], int]:
    """The paragraphs of ``text`` (module docstring) and how many line-end hyphens were dropped."""
    blocks = _blocks(text)
    width = wrap_width([ln for b in blocks for ln in b])
    joiner = _Joiner(text)
    wrapped_file = _file_wrapped(blocks, width)
    out: list[Paragraph] = []
    for block in blocks:
        if not (wrapped_file or _hard_wrapped(block, width)):
            out.extend(Paragraph(ln.text, is_heading(ln.text), ln.number) for ln in block)
            continue
        current: list[_Line] = []
        base_indent = min(ln.indent for ln in block)

        def flush():
            if current:
                joined = joiner.join([ln.text for ln in current])
                out.append(Paragraph(joined, len(current) == 1 and is_heading(current[0].text), current[0].number))
                current.clear()

        for ln in block:
            if current:
                prev = current[-1]
                starts_new = (ln.indent > prev.indent + 1
                              or (ln.indent > base_indent + 1 and prev.ends_sentence)
                              or (prev.ends_sentence and _width(prev) < SHORT_LINE_FRACTION * width)
                              or (len(current) == 1 and _short_heading(prev, width))
                              or _short_heading(ln, width, strong=True))
                if starts_new:
                    flush()
            current.append(ln)
        flush()
    return out, joiner.hyphens_dropped


def strip_gutenberg(text: str) -> tuple[str, bool]:
    """``text`` without a Project Gutenberg header and licence (module docstring), and whether any was found; the
    first e-text of a file holding several (:func:`gutenberg_etexts`)."""
    spans, found = gutenberg_etexts(text)
    lo, hi = spans[0]
    return text[lo:hi], found


#: a Project Gutenberg licence is some 13,000-21,000 characters; more after the last end marker is said
MAX_LICENCE_CHARS = 40_000


def gutenberg_etexts(text: str) -> tuple[list[tuple[int, int]], bool]:
    """Where each e-text runs in ``text`` (``text[lo:hi]`` for each ``(lo, hi)``, in order) and whether any
    Gutenberg marker was found.  An e-text runs from its ``*** START`` marker to its ``*** END`` marker (the
    closing line ``End of the Project Gutenberg EBook of ...`` just before it excluded), or to the next START
    marker when its END is missing; the header before each START and the licence after each END are not the
    book.  Several e-texts in one file (books concatenated) are each one span, never the first alone."""
    starts = list(_GUTENBERG_START_RE.finditer(text))
    ends = list(_GUTENBERG_END_RE.finditer(text))
    if not starts and not ends:
        return [(0, len(text))], False
    if not starts:
        return [_without_closing(text, 0, ends[0].start())], True
    spans = []
    position = 0
    for k, start in enumerate(starts):
        if start.start() < position:   # a START inside the previous e-text's licence or a repeated marker
            continue
        lo = start.end()
        following = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        end = next((e for e in ends if e.start() >= lo), None)
        hi = min(end.start(), following) if end is not None else following
        spans.append(_without_closing(text, lo, hi))
        position = end.end() if end is not None and end.start() < following else hi
    return spans, True


def _without_closing(text: str, lo: int, hi: int) -> tuple[int, int]:
    """``(lo, hi)`` ending before the last closing line (``End of the Project Gutenberg EBook of ...``) in it."""
    closing = None
    for closing in _GUTENBERG_CLOSING_RE.finditer(text, lo, hi):
        pass  # the last one before the END marker
    return lo, closing.start() if closing is not None else hi


def _left_out_after(text: str, hi: int) -> str | None:
    """A note when what follows the last e-text's end marker is more than a licence (another text without a START
    marker of its own would otherwise go unsaid); None when it is a licence's length."""
    end = _GUTENBERG_END_RE.search(text, hi)
    rest = len(text) - (end.end() if end is not None else hi)
    if rest <= MAX_LICENCE_CHARS:
        return None
    line = text.count("\n", 0, end.start() if end is not None else hi) + 1
    return (f"{rest:,} characters after the Project Gutenberg end marker (line {line:,}) left out: more than a "
            "licence, but no START marker says where another text begins")


#: numbered headings from which prose is taken for a book: read with its headings unless asked otherwise
MIN_BOOK_HEADINGS = 3


def book_seen(lines: list[str]) -> BookLayout | None:
    """The layout of ``lines`` (a text without its Gutenberg header and licence) when they look like a book: at
    least :data:`MIN_BOOK_HEADINGS` numbered chapter headings, each starting a paragraph of its own; None
    otherwise (prose without a single heading candidate is not laid out at all: the check costs nothing there).
    Counting every section instead let one numbered paragraph ("Episode 39: ...") make a wiki article a book
    whose Markdown and named headings were all chapters, and everything before that paragraph front matter."""
    if not may_be_book(lines, MIN_BOOK_HEADINGS):
        return None
    layout = book_layout(lines)
    if not layout.book or numbered_paragraph_starts(lines, layout) < MIN_BOOK_HEADINGS:
        return None
    return layout


def read_text(text: str, *, source: str, headings: bool | None = None) -> ParsedFile:
    """One prose file (module docstring): a single unlabelled document, or read with its headings one reference
    segment per chapter, titled, with the headings taken listed on the result (``ParsedFile.headings``).

    ``headings``: True reads the text with its headings, False as plain prose, None (the default) with them when
    it looks like a book (:func:`book_seen`); ``ParsedFile.headings_decision`` says which happened.  A file of
    several Project Gutenberg e-texts (books concatenated) is read e-text by e-text, each a source unit of its
    own (``FILE#K``) with its own header and licence left out and its own decision."""
    spans, gutenberg = gutenberg_etexts(text)
    if len(spans) == 1:
        parsed = _read_etext(text, *spans[0], source=source, headings=headings, name=Path(source).name,
                             gutenberg=gutenberg)
        extra = _left_out_after(text, spans[0][1]) if gutenberg else None
        if extra:
            parsed.notes.append(extra)
        return parsed
    return _read_etexts(text, spans, source=source, headings=headings)


def _read_etexts(text: str, spans: list[tuple[int, int]], *, source: str, headings: bool | None) -> ParsedFile:
    """Several e-texts of one file, each read on its own (:func:`_read_etext`) as a source unit ``FILE#K``."""
    name = Path(source).name
    documents, units, notes, taken = [], [], [], []
    decisions, book_headings, labelled = [], 0, []
    lines_at = [text.count("\n", 0, lo) + 1 for lo, _ in spans]
    for k, (lo, hi) in enumerate(spans, start=1):
        try:
            part = _read_etext(text, lo, hi, source=source, headings=headings, name=f"{name}#{k}", gutenberg=True,
                               chapter_mark="/")
        except SegvizError:   # an e-text without a sentence (a header and licence only): said, not fatal
            notes.append(f"e-text {k} (line {lines_at[k - 1]:,}): no sentences")
            continue
        documents.extend(part.documents)
        units.extend([f"{source}#{k}"] * len(part.documents))
        notes.extend(f"e-text {k} (line {lines_at[k - 1]:,}): {note}" for note in part.notes
                     if note != _GUTENBERG_NOTE)
        taken.extend(part.headings)
        decisions.append(part.headings_decision)
        book_headings += part.book_headings
        labelled.append(part.has_reference)
    if not documents:
        raise SegvizError(f"{source}: no sentences found")
    notes.insert(0, f"{len(spans)} Project Gutenberg e-texts in one file (from lines "
                    f"{', '.join(f'{line:,}' for line in lines_at)}): each read as a document of its own, its "
                    "header and licence left out")
    extra = _left_out_after(text, spans[-1][1])
    if extra:
        notes.append(extra)
    decision = next((d for d in decisions if d), "")
    return ParsedFile(documents, has_reference=all(labelled), n_documents=len(labelled), notes=notes, units=units,
                      headings=taken, book_headings=book_headings, headings_decision=decision)


_GUTENBERG_NOTE = "Project Gutenberg header and licence left out"


def _read_etext(text: str, lo: int, hi: int, *, source: str, headings: bool | None, name: str,
                gutenberg: bool, chapter_mark: str = "#") -> ParsedFile:
    """The text ``text[lo:hi]`` (one e-text, or the whole file) as :func:`read_text` reads a file; heading line
    numbers are the file's; chapter ``k`` is the document ``NAME{chapter_mark}k``."""
    lines = text[lo:hi].split("\n")
    # a book's layout is read once: to decide, and then to read it by (or, as plain prose, to say it is one)
    seen = None if headings is True else book_seen(lines)
    with_headings = seen is not None if headings is None else headings
    decision = (HEADINGS_ASKED if headings else HEADINGS_REFUSED if headings is False
                else HEADINGS_BOOK if with_headings else "")
    builder = DocumentBuilder(name)
    notes: list[str] = []
    taken: list[HeadingLine] = []
    book_headings = 0
    if with_headings:
        offset = text.count("\n", 0, lo)   # heading line numbers are the file's, header included
        layout = seen or book_layout(lines)
        gone = list(layout.dropped)
        for section in layout.sections:
            gone[section.start:section.end] = [True] * (section.end - section.start)
        paras, hyphens = paragraphs("\n".join("" if out else line for line, out in zip(lines, gone)))
        # one segment per section; text before the first heading is a segment of its own unless it was a book's
        # front matter (then nothing is left before the first heading)
        starts = [section.start for section in layout.sections]
        segments: list[tuple[HeadingLine | None, list[str], list[bool]]] = [(None, [], [])]
        segments += [(HeadingLine(line=offset + section.start + 1, text=section.heading, title=section.title), [], [])
                     for section in layout.sections]
        footnote_marks = 0
        for para in paras:
            text_of_para, n_marks = without_footnotes(para.text)
            footnote_marks += n_marks
            pieces = split_sentences(text_of_para)
            _, sents, marks = segments[bisect_right(starts, para.line)]
            sents.extend(pieces)
            marks.extend([True] + [False] * (len(pieces) - 1) if pieces else [])
        segments = [segment for segment in segments if segment[1]]
        for k, (heading, sents, marks) in enumerate(segments, start=1):
            added = builder.add(sents, name=f"{name}{chapter_mark}{k}" if len(segments) > 1 else name,
                                paragraph_starts=marks,
                                title=heading.title if heading else "")
            if added is not None and heading is not None:
                taken.append(heading)
        notes.extend(_renumbered(note, offset) for note in layout.notes)
        if footnote_marks:
            notes.append(f"{footnote_marks} footnote(s) or footnote mark(s) inside the text left out")
    else:
        paras, hyphens = paragraphs(text[lo:hi])
        sents, marks = [], []
        for para in paras:
            pieces = split_sentences(para.text)
            sents.extend(pieces)
            marks.extend([True] + [False] * (len(pieces) - 1) if pieces else [])
        builder.add(sents, name=name, paragraph_starts=marks)
        if seen is not None:
            # read as plain prose, a book keeps its headings, contents list and title page as sentences; say how
            # to read it as chapters rather than leave the user to guess why nothing can be scored
            book_headings = len(seen.sections)
            notes.append(f"this looks like a book with {book_headings} chapter headings (the first: "
                         f"{seen.sections[0].heading!r}): read it with headings to take them as its chapters "
                         "and leave out its front matter")
    if not builder.documents:
        raise SegvizError(f"{source}: no sentences found")
    notes[:0] = builder.notes() + ([_GUTENBERG_NOTE] if gutenberg else [])
    if hyphens:
        notes.append(f"{hyphens} word(s) hyphenated at a line end were joined")
    if with_headings:
        notes.append(f"{len(taken)} heading(s) taken as reference boundaries" if taken
                     else "no heading lines found: the text has no reference boundaries")
    return ParsedFile(builder.documents, has_reference=bool(taken), n_documents=1, notes=notes, headings=taken,
                      book_headings=book_headings, headings_decision=decision)


def headings_in(text: str) -> list[HeadingLine]:
    """The headings :func:`read_text` takes from a file's ``text`` under ``headings`` (line numbers in ``text``),
    found without splitting a sentence: the book's structure alone (of every e-text, when the file holds
    several)."""
    out = []
    for lo, hi in gutenberg_etexts(text)[0]:
        offset, layout = text.count("\n", 0, lo), book_layout(text[lo:hi].split("\n"))
        out.extend(HeadingLine(line=offset + section.start + 1, text=section.heading, title=section.title)
                   for section in layout.sections)
    return out


_LINE_NUMBER_RE = re.compile(r"\bline (\d+)")


def _renumbered(note: str, offset: int) -> str:
    """A layout note with its line indices (0-based, after the Gutenberg header) made the file's line numbers."""
    return _LINE_NUMBER_RE.sub(lambda m: f"line {int(m.group(1)) + offset + 1}", note)
