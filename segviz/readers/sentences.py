"""From sentence texts to documents: syntok's sentence splitter, the sentence-length limit, tokenisation.

Sentences are split with *syntok* (pure Python, maintained, abbreviation-aware, and ~4x faster than pysbd on
Reuters bodies: 0.5 s vs 1.8 s per 1,000 stories here).  A sentence longer than :data:`MAX_SENTENCE_CHARS` (far
beyond any real sentence: Proust's longest has ~5,000 characters) is cut at spaces into pieces of at most that
length, and the reader reports how many it cut; a line of 10^6 characters thus becomes ~100 sentences instead of
one feature window the size of a book.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..documents import Document, HeadingLine, tokenize
from ..errors import SegvizError

#: the longest sentence segviz keeps whole; longer ones are cut at spaces (with a note)
MAX_SENTENCE_CHARS = 10_000
#: the most sentences one corpus file may hold: each file is segmented on its own, and the default model takes
#: about 1.4 GB per million sentences of a file (docs/reliability.md), so a file at the limit stays under 3 GB
MAX_FILE_SENTENCES = 2_000_000

_SPACE_RE = re.compile(r"\s+")


@dataclass
class ParsedFile:
    """What a reader made of one file's text (before it becomes part of a :class:`~segviz.corpus.Corpus`).

    ``documents`` are reference segments when ``has_reference``, otherwise the file's unlabelled documents;
    ``units[i]`` names the source unit of ``documents[i]`` (empty: the file itself); ``n_documents`` counts
    documents as the format defines them; ``notes`` are messages for the user; ``headings`` are the headings the
    reader took as segment starts (prose read with ``headings``), each with its line in the file;
    ``book_headings`` counts the chapter headings of prose read *without* ``headings`` when it looks like a book
    (0 otherwise), so that the user can be told how to read it as one; ``headings_decision`` says how a prose
    file's headings were decided (:data:`segviz.documents.HEADINGS_ASKED` and its kin; empty for other
    formats)."""

    documents: list[Document]
    has_reference: bool
    n_documents: int
    notes: list[str] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    headings: list[HeadingLine] = field(default_factory=list)
    book_headings: int = 0
    headings_decision: str = ""


# a title in capitals syntok does not know for an abbreviation: books set a chapter's first words so ("MR.
# GRADGRIND", "COL. Grangerford"), and a one-word sentence there would give the chapter's start away
_CAPITAL_TITLE_RE = re.compile(r"(?:^|\s)(?:MRS?|MESSRS|DR|COL|CAPT|GEN|REV|PROF|SGT|LT|ST)\.$")
# ... and capitalised, a title that always stands before a name ("the Rev. Mr. Collins", "Lieut. Starbuck", "Wm.
# Dobbin"), where a sentence break cuts the name in two
_NAME_TITLE_RE = re.compile(r"(?:^|\s)(?:Rev|Revd|Hon|Lieut|Lt|Sgt|Serg|Messrs|Gov|Maj|Cpl|Mme|Mlle|Bp|"
                            r"Jno|Wm|Geo|Chas|Thos|Jas)\.$")


# a piece of nothing but closing punctuation and quotes: syntok splits `."` off a spaced ellipsis (`. . . ."`),
# and alone it is a sentence of no words (Scarlet Pimpernel 75 times, Lord Jim 48, four of them at a chapter's end)
_LONE_PUNCTUATION_RE = re.compile(r"[.!?\u2026'\"\u201d\u2019\u00bb)\]]+")


def split_sentences(text: str, *, repair: bool = True) -> list[str]:
    """The sentences of ``text`` (one paragraph or more) by syntok, with whitespace runs made single spaces; a
    sentence ending in a title in capitals (``MR.``, ``COL.`` ...) goes on into the next one of its paragraph.
    With ``repair``, so does a capitalised title before a name that syntok splits at (``Rev.``, ``Lieut.``,
    ``Gov.`` ...), and a piece of only closing punctuation and quotes (``."``) joins the sentence before it in
    its paragraph."""
    import syntok.segmenter as segmenter  # imported on use: only prose needs it

    out = []
    for paragraph in segmenter.analyze(text):
        held = ""
        first, last_end = len(out), 0
        for sentence in paragraph:
            start = sentence[0].offset
            end = sentence[-1].offset + len(sentence[-1].value)
            piece = " ".join(text[start:end].split())
            if not piece:
                continue
            if repair and _LONE_PUNCTUATION_RE.fullmatch(piece) and (held or len(out) > first):
                # as printed: `. . . ."` keeps its space, `?"` none
                piece = f" {piece}" if text[last_end:start].isspace() else piece
                if held:
                    held += piece
                else:
                    out[-1] += piece
                last_end = end
                continue
            last_end = end
            piece = f"{held} {piece}" if held else piece
            held = ""
            if _CAPITAL_TITLE_RE.search(piece) or (repair and _NAME_TITLE_RE.search(piece)):
                held = piece
            else:
                out.append(piece)
        if held:
            out.append(held)
    return out


def cut_long(sentence: str, limit: int = MAX_SENTENCE_CHARS) -> list[str]:
    """``sentence`` cut at spaces into pieces of at most ``limit`` characters (hard cuts where no space is)."""
    if len(sentence) <= limit:
        return [sentence]
    # positions, not slices of the rest: slicing copied the remaining text once per piece (quadratic on a
    # 50 MB line)
    pieces, start, n = [], 0, len(sentence)
    while start < n:
        while start < n and sentence[start].isspace():
            start += 1
        if n - start <= limit:
            end = n
        else:
            end = sentence.rfind(" ", start, start + limit + 1)
            if end <= start:
                end = start + limit
        piece = sentence[start:end].strip()
        if piece:
            pieces.append(piece)
        start = end
    return pieces


class DocumentBuilder:
    """Collects the documents of one file, tokenising sentences and enforcing the sentence-length limit and the
    file's sentence limit (:data:`MAX_FILE_SENTENCES`)."""

    def __init__(self, source_name: str):
        self.source_name = source_name
        self.documents: list[Document] = []
        self.cut_sentences = 0
        self.dropped_sentences = 0
        self.sentences_seen = 0

    def add(self, texts: Sequence[str], *, name: str | None = None, paragraph_starts: Sequence[bool] = (),
            title: str = "") -> Document | None:
        """Add one document of sentence ``texts``; sentences without a token are dropped (their paragraph
        mark passes to the next sentence).  Returns the document, or ``None`` if nothing was left."""
        self._count(len(texts))
        marks = list(paragraph_starts) if paragraph_starts else None
        kept_texts, kept_tokens, kept_marks = [], [], []
        carry = False
        for i, raw in enumerate(texts):
            mark = bool(marks[i]) if marks is not None else False
            pieces = cut_long(_SPACE_RE.sub(" ", raw).strip())
            if len(pieces) > 1:
                self.cut_sentences += 1
                self._count(len(pieces) - 1)
            for j, piece in enumerate(pieces):
                tokens = tokenize(piece)
                if not tokens:
                    self.dropped_sentences += 1
                    carry = carry or (mark and j == 0)
                    continue
                kept_texts.append(piece)
                kept_tokens.append(tuple(tokens))
                kept_marks.append((mark and j == 0) or carry)
                carry = False
        if not kept_tokens:
            return None
        doc = Document(name=name or f"{self.source_name}#{len(self.documents) + 1}", sentences=tuple(kept_tokens),
                       texts=tuple(kept_texts), paragraph_starts=tuple(kept_marks) if marks is not None else (),
                       title=title)
        self.documents.append(doc)
        return doc

    def _count(self, more: int) -> None:
        """Count ``more`` sentences of this file, refusing the file (before they are tokenised) beyond the limit."""
        self.sentences_seen += more
        if self.sentences_seen > MAX_FILE_SENTENCES:
            raise SegvizError(f"{self.source_name}: more than {MAX_FILE_SENTENCES:,} sentences, the most a corpus "
                              "file may hold (split it into smaller files)")

    def notes(self) -> list[str]:
        out = []
        if self.cut_sentences:
            out.append(f"{self.cut_sentences} sentence(s) longer than {MAX_SENTENCE_CHARS:,} characters were cut "
                       "into pieces")
        return out
