"""The in-memory corpus: documents of sentences of tokens, the one tokeniser, and what the readers decided.

A :class:`Corpus` is a sequence of :class:`Document` s; a document is a sequence of sentences; a sentence is a
tuple of tokens.  The concatenation of the documents is the stream the paper segments (Section 2).

Two kinds of corpus:

*labelled* (``has_reference`` true: Choi, Reuters, ``lines``, ``wiki``, JSONL with segments, prose read with
``headings``)
    Each document is one **reference segment**; the document edges are the reference boundaries and
    :meth:`Corpus.masses` their lengths (segeval's convention; :mod:`segviz.segmentation` converts them).
*unlabelled* (``has_reference`` false: prose read as ``text``, JSONL without segments)
    Each document is a unit the reader found (a file, a JSONL object) and nothing says where its topics change.
    :meth:`Corpus.reference_masses` is ``None`` and :meth:`Corpus.masses` raises :class:`NoReferenceError`, so
    everything that needs a reference (scoring, training, tuning, the relevance profile) says so in one line
    instead of scoring against file edges.  :meth:`Corpus.document_masses` gives the document lengths of either
    kind.

``Corpus.files[i]`` names the *source unit* of document ``i``: the file it came from (one JSONL object is a
unit of its own, ``FILE#ID``).  Peers, per-document evaluation and ``segviz segment`` treat each unit as one
input (:meth:`Corpus.by_file`, :meth:`Corpus.source_groups`).  ``Corpus.readings`` records, per file, the
format the reader used and whether it was detected from content (:class:`FileReading`).

Tokenisation (:func:`tokenize`) is defined once, here: Unicode-lowercased text split into runs of word
characters (keeping inner ``-``, ``'``, ``.`` and ``,`` between word characters, so ``u.s``, ``1,000``,
``3.5`` and ``don't`` stay whole) and single punctuation characters.  Invisible format characters (a byte-order
mark, soft hyphens, zero-width joiners, direction marks) are never tokens: they are removed first (a zero-width
space separates words).
"""
from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import SegvizError
from .segmentation import segment_starts

Sentence = tuple[str, ...]

_TOKEN_RE = re.compile(r"\w+(?:[-'’.,]\w+)*|[^\w\s]", re.UNICODE)
# Unicode "Cf" characters that occur in real text files: soft hyphen, Arabic letter mark, Mongolian vowel
# separator, zero-width non-joiner/joiner, direction marks and embeddings, word joiner, invisible operators,
# byte-order mark, interlinear annotation marks.  The zero-width space (U+200B) separates words.
_INVISIBLE_RE = re.compile("[\u00ad\u061c\u180e\u200c-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
                           "\ufff9-\ufffb]")
_ZERO_WIDTH_SPACE = "\u200b"


def strip_invisible(text: str) -> str:
    """``text`` without invisible format characters (the BOM among them); a zero-width space becomes a space."""
    return _INVISIBLE_RE.sub("", text).replace(_ZERO_WIDTH_SPACE, " ")


def tokenize(text: str) -> list[str]:
    """Lowercase ``text`` and split it into word and punctuation tokens (the one tokeniser of segviz).

    Each token is interned: a corpus holds one string per distinct word instead of one per token (10^6 sentences
    of prose: 23 million tokens, some 100,000 distinct words; about 1 GB less)."""
    return list(map(sys.intern, _TOKEN_RE.findall(strip_invisible(text).lower())))


@dataclass(frozen=True)
class Document:
    """One document: its tokenised sentences and their original text (for display).

    ``paragraph_starts[i]`` is true when sentence ``i`` opens a paragraph of the source text; the tuple is empty
    when the format does not say (one sentence per line, Choi, JSONL without it).  ``title`` is a heading the
    reader took out of the text (a Wiki section title, a heading line under ``headings``), empty otherwise.
    """

    name: str
    sentences: tuple[Sentence, ...]
    texts: tuple[str, ...]
    paragraph_starts: tuple[bool, ...] = ()
    title: str = ""

    def __post_init__(self) -> None:
        if len(self.texts) != len(self.sentences):
            raise ValueError(f"{self.name}: {len(self.sentences)} sentences but {len(self.texts)} texts")
        if self.paragraph_starts and len(self.paragraph_starts) != len(self.sentences):
            raise ValueError(f"{self.name}: {len(self.sentences)} sentences but "
                             f"{len(self.paragraph_starts)} paragraph marks")

    def __len__(self) -> int:
        return len(self.sentences)


@dataclass(frozen=True)
class HeadingLine:
    """A heading a reader took out of a file's text to start a reference segment (prose read with
    ``headings``): its line in the file (1-based), the heading line as written, and the segment's title (the
    heading with its title lines, as in :attr:`Document.title`)."""

    line: int
    text: str
    title: str = ""


#: how a prose file's headings were decided (:attr:`FileReading.headings_decision`): read with them as asked, read
#: with them because nothing was asked and the text looks like a book, or read as plain prose as asked (an empty
#: decision: plain prose, nothing asked and no book seen, or a format without headings)
HEADINGS_ASKED, HEADINGS_BOOK, HEADINGS_REFUSED = "asked", "book", "refused"


@dataclass(frozen=True)
class FileReading:
    """What a reader made of one file: the format (and whether it was detected from content), the counts, and
    notes worth telling the user (sentences split for length, placeholder lines dropped, ...).

    ``documents`` counts documents as the format defines them (a Choi or Wiki file is one document, a Reuters
    file holds many stories, a JSONL file one per line); ``reference_boundaries`` counts the places inside a source
    unit (the file; each object of a JSONL file) where one reference segment ends and the next begins, ``None``
    when the file has no reference.  ``headings`` lists the headings the reader took as segment starts (prose
    read with ``headings``), in order; empty for every other reading.  ``headings_decision`` says whether prose
    was read with its headings and who decided (:data:`HEADINGS_ASKED`, :data:`HEADINGS_BOOK`,
    :data:`HEADINGS_REFUSED`), so that the CLI and the app can say it.
    """

    path: str
    format: str
    detected: bool
    documents: int
    sentences: int
    reference_boundaries: int | None
    notes: tuple[str, ...] = ()
    # the list of headings taken reports on the reading and is not compared: a reading summarised without it is
    # still the same reading of the same file
    headings: tuple[HeadingLine, ...] = field(default=(), compare=False)
    #: chapter headings of prose read without them, when it looks like a book (:class:`ParsedFile`); advice, not
    #: the reading itself, so not compared either
    book_headings: int = field(default=0, compare=False)
    headings_decision: str = ""

    @property
    def has_reference(self) -> bool:
        return self.reference_boundaries is not None

    @property
    def read_with_headings(self) -> bool:
        """Was the file read by its chapters: prose read with its headings (asked, or seen to be a book), some
        taken?"""
        return bool(self.headings) and self.headings_decision in (HEADINGS_ASKED, HEADINGS_BOOK)

    @property
    def read_as_book(self) -> bool:
        """Was the file read with its headings because it looks like a book (nothing asked either way)?"""
        return self.headings_decision == HEADINGS_BOOK

    def summary(self) -> str:
        """One line: ``read FILE as FORMAT: D documents, S sentences, R reference boundaries``; prose read with its
        chapter headings is read ``as a book`` (detected, or as asked)."""
        what, how = self.format, "detected" if self.detected else "as asked"
        if self.read_with_headings:
            what, how = "a book", "as asked" if self.headings_decision == HEADINGS_ASKED else "detected"
        elif self.headings_decision == HEADINGS_ASKED:
            # asked to read a book and found no chapter heading: "as text (as asked)" said the opposite of the ask
            what, how = "a book", "as asked, no chapter headings found"
        ref = (f"{self.reference_boundaries} reference boundar{'y' if self.reference_boundaries == 1 else 'ies'}"
               if self.has_reference else "no reference boundaries (unlabelled)")
        return (f"read {self.path} as {what} ({how}): {_plural(self.documents, 'document')}, "
                f"{_plural(self.sentences, 'sentence')}, {ref}")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


class NoReferenceError(SegvizError):
    """The corpus has no reference segmentation, and the caller needs one (scoring, training, tuning)."""


class Corpus:
    """A sequence of documents; the concatenated stream is what gets segmented (module docstring).

    ``files[i]`` is the source unit of ``documents[i]``, so per-unit evaluation (each Choi file segmented on its
    own, as the literature does) is :meth:`by_file`.  Empty documents are dropped.
    """

    def __init__(self, documents: Iterable[Document], *, name: str = "corpus", files: Sequence[str] | None = None,
                 has_reference: bool = True, readings: Sequence[FileReading] = ()):
        documents = list(documents)
        files = [name] * len(documents) if files is None else list(files)
        if len(files) != len(documents):
            raise ValueError("files and documents differ in length")
        kept = [(d, f) for d, f in zip(documents, files) if len(d) > 0]
        self.documents: list[Document] = [d for d, _ in kept]
        self.files: list[str] = [f for _, f in kept]
        self.name = name
        self.has_reference = bool(has_reference)
        self.readings: tuple[FileReading, ...] = tuple(readings)

    # sequence protocol over documents
    def __len__(self) -> int:
        return len(self.documents)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Corpus(self.documents[index], name=self.name, files=self.files[index],
                          has_reference=self.has_reference)
        return self.documents[index]

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    def __repr__(self) -> str:
        ref = "" if self.has_reference else ", no reference"
        return f"Corpus({self.name!r}, documents={len(self)}, sentences={self.n_sentences}{ref})"

    # ---------------------------------------------------------------------------------------- the stream
    @property
    def n_sentences(self) -> int:
        return sum(len(d) for d in self.documents)

    def sentences(self) -> list[Sentence]:
        """The concatenated stream, sentence by sentence."""
        return [s for d in self.documents for s in d.sentences]

    def sentence_texts(self) -> list[str]:
        return [t for d in self.documents for t in d.texts]

    def tokens(self) -> list[str]:
        return [w for d in self.documents for s in d.sentences for w in s]

    @property
    def n_tokens(self) -> int:
        return sum(len(s) for d in self.documents for s in d.sentences)

    def paragraph_starts(self) -> tuple[bool, ...]:
        """Per sentence of the stream: does it open a paragraph?  Empty unless every document says.

        A document's first sentence always opens a paragraph."""
        if not self.documents or any(not d.paragraph_starts for d in self.documents):
            return ()
        return tuple(bool(p) or i == 0 for d in self.documents for i, p in enumerate(d.paragraph_starts))

    # --------------------------------------------------------------------------------------- the reference
    def document_masses(self) -> tuple[int, ...]:
        """Document lengths in sentences, labelled or not."""
        return tuple(len(d) for d in self.documents)

    def reference_masses(self) -> tuple[int, ...] | None:
        """Reference segment lengths in sentences, or ``None`` for an unlabelled corpus."""
        return self.document_masses() if self.has_reference else None

    def masses(self) -> tuple[int, ...]:
        """Reference segment lengths in sentences; :class:`NoReferenceError` for an unlabelled corpus."""
        if not self.has_reference:
            formats = ", ".join(sorted({r.format for r in self.readings})) or "unlabelled"
            books = [r for r in self.readings if r.book_headings]
            if books:   # prose with chapter headings: its own reference is one reading away
                which = "it" if len(self.readings) == 1 else books[0].path
                raise NoReferenceError(
                    f"{self.name}: no reference segmentation (read as {formats}), but {which} looks like a book "
                    f"with {books[0].book_headings} chapter headings: read it with headings (--headings) to score "
                    "against its chapters")
            raise NoReferenceError(
                f"{self.name}: no reference segmentation (read as {formats}), so there is nothing to score "
                "against or learn from; give a labelled corpus (choi, wiki, lines, reuters, or jsonl with "
                "segments)")
        return self.document_masses()

    def document_starts(self) -> np.ndarray:
        """Index of the first sentence of each document in the stream."""
        return segment_starts(self.document_masses())

    def source_groups(self) -> list[int]:
        """Sentence counts of the runs of consecutive documents from the same source unit.

        Peer segmenters (and the peer-evidence questions built on them) run on each unit on its own, as the
        literature evaluates them (one Choi file is one input)."""
        groups: list[int] = []
        previous: object = object()
        for doc, source in zip(self.documents, self.files):
            if source == previous:
                groups[-1] += len(doc)
            else:
                groups.append(len(doc))
                previous = source
        return groups

    # ------------------------------------------------------------------------------------ what was read
    @property
    def formats(self) -> tuple[str, ...]:
        """The formats the files were read as, in order of first appearance (empty for a built corpus)."""
        return tuple(dict.fromkeys(r.format for r in self.readings))

    def summary(self) -> str:
        """One line on the whole corpus: files and formats, documents, sentences, reference boundaries."""
        if len(self.readings) == 1:
            return self.readings[0].summary()
        formats = "/".join(self.formats) or "corpus"
        books = sum(r.read_with_headings for r in self.readings)
        if books:
            formats += " (as books)" if books == len(self.readings) else f" ({_plural(books, 'book')} among them)"
        ref = (f"{sum(len(c) - 1 for c in self.by_file())} reference boundaries inside the files"
               if self.has_reference else "no reference boundaries (unlabelled)")
        return (f"read {_plural(len(self.readings), 'file')} as {formats}: "
                f"{_plural(sum(r.documents for r in self.readings), 'document')}, "
                f"{_plural(self.n_sentences, 'sentence')}, {ref}")

    # -------------------------------------------------------------------------------------- constructors
    @classmethod
    def from_sentences(cls, sentences: Sequence[Sequence[str]], *, name: str = "stream") -> Corpus:
        """One document holding already tokenised ``sentences`` (a stream with no reference inside it)."""
        sents = tuple(tuple(str(w) for w in s) for s in sentences)
        return cls([Document(name=name, sentences=sents, texts=tuple(" ".join(s) for s in sents))], name=name)

    def by_file(self) -> list[Corpus]:
        """One sub-corpus per source unit: each run of consecutive documents from one unit, in stream order (so
        the units laid end to end are the stream; their sizes are :meth:`source_groups`)."""
        runs: list[tuple[str, list[Document]]] = []
        for doc, f in zip(self.documents, self.files):
            if runs and runs[-1][0] == f:
                runs[-1][1].append(doc)
            else:
                runs.append((f, [doc]))
        # readings by path, found once: a scan of all readings per unit was quadratic (200,000 files)
        readings: dict[str, list[FileReading]] = {}
        for reading in self.readings:
            readings.setdefault(reading.path, []).append(reading)
        return [Corpus(docs, name=f, files=[f] * len(docs), has_reference=self.has_reference,
                       readings=readings.get(f, ())) for f, docs in runs]

    @classmethod
    def concatenate(cls, corpora: Sequence[Corpus], *, name: str | None = None) -> Corpus:
        docs = [d for c in corpora for d in c.documents]
        files = [f for c in corpora for f in c.files]
        return cls(docs, name=name or "+".join(c.name for c in corpora), files=files,
                   has_reference=all(c.has_reference for c in corpora),
                   readings=[r for c in corpora for r in c.readings])
