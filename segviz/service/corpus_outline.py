"""What the window holds of a corpus: everything it draws, and nothing it would have to parse (Qt-free).

The window's engine process (:mod:`segviz.service.engine_process`) is the only reader: it parses the files, keeps the
corpus for every job (applying a model, the peers, training) and sends the window a :class:`CorpusOutline` --
document names and lengths, the source units (a file, a JSONL object) with their paragraph starts and chapter
titles, what the readers decided, the sentence texts for the context panel and the exports, and each sentence's
size in tokens (what a decision rule that measures segments in words needs).  The tokens, by
far the largest part of a parsed corpus, never cross: at 10^6 sentences a parse is some 2.5 GB of Python objects
in each process that holds one, the outline about 70 MB.

The texts are kept as UTF-8 bytes in chunks with their offsets (:class:`SentenceTexts`), not as a million
strings.  An outline crosses the pipe as a stream of small messages (:func:`outline_messages`), so that no one
message holds the window's interpreter for long when it is decoded; :class:`OutlineReceiver` checks every part
before the window uses it.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import SegvizError
from ..rules import document_sizes
from ..segmented import reference_titles

__all__ = ["SentenceTexts", "UnitOutline", "CorpusOutline", "outline_of", "outline_messages", "OutlineReceiver"]

#: sentences (or documents) per message of an outline
CHUNK = 4000
#: the most tokens a sentence's size may say (a reader caps sentences far below)
MAX_SENTENCE_SIZE = 1_000_000


class SentenceTexts(Sequence):
    """The sentence texts of a stream: ``texts[i]`` a string, ``texts[a:b]`` a list of them."""

    def __init__(self):
        self._chunks: list[bytes] = []
        self._offsets: list[np.ndarray] = []   # per chunk: its sentences' byte offsets, one more than sentences
        self._starts: list[int] = [0]          # first sentence of each chunk, and the total at the end

    @classmethod
    def of(cls, texts: Sequence[str]) -> SentenceTexts:
        out = cls()
        for lo in range(0, len(texts), CHUNK):
            out.append(texts[lo:lo + CHUNK])
        return out

    def append(self, texts: Sequence[str]) -> None:
        """Add the next sentences."""
        encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
        if not encoded:
            return
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        self._chunks.append(b"".join(encoded))
        self._offsets.append(offsets)
        self._starts.append(self._starts[-1] + len(encoded))

    def __len__(self) -> int:
        return self._starts[-1]

    def _range(self, a: int, b: int) -> list[str]:
        """Texts a..b-1 (0 <= a <= b <= len), each chunk's offsets read once (an export slices the whole
        stream)."""
        out: list[str] = []
        k = bisect_right(self._starts, a) - 1
        while a < b:
            first = self._starts[k]
            lo, hi = a - first, min(b, self._starts[k + 1]) - first
            bounds, data = self._offsets[k][lo:hi + 1].tolist(), self._chunks[k]
            out.extend(data[x:y].decode("utf-8", "surrogatepass") for x, y in zip(bounds, bounds[1:]))
            a, k = first + hi, k + 1
        return out

    def __getitem__(self, index):
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step == 1:
                return self._range(start, max(start, stop))
            return [self._range(i, i + 1)[0] for i in range(start, stop, step)]
        i = int(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("sentence index out of range")
        return self._range(i, i + 1)[0]

    def chunks(self) -> Iterator[list[str]]:
        """The texts as they are stored, a list per chunk (what crosses the pipe as one message)."""
        for chunk, offsets in zip(self._chunks, self._offsets):
            bounds = offsets.tolist()
            yield [chunk[a:b].decode("utf-8", "surrogatepass") for a, b in zip(bounds, bounds[1:])]

    def __iter__(self) -> Iterator[str]:
        for texts in self.chunks():
            yield from texts


@dataclass(frozen=True)
class UnitOutline:
    """One source unit (a file; one JSONL object; :meth:`Corpus.by_file`): its name, sentence count, the sentences
    (within it) that open a paragraph -- empty when the reader did not know -- and ``(first sentence, title)`` of
    its reference segments when any has a title (:func:`segviz.segmented.reference_titles`)."""

    name: str
    size: int
    paragraph_starts: tuple[int, ...] = ()
    titles: tuple[tuple[int, str], ...] = ()

    def paragraph_flags(self) -> tuple[bool, ...]:
        """Per sentence: does it open a paragraph (empty when the reader did not say)."""
        if not self.paragraph_starts:
            return ()
        flags = [False] * self.size
        for i in self.paragraph_starts:
            flags[i] = True
        return tuple(flags)


@dataclass(frozen=True)
class CorpusOutline:
    """A corpus as the window holds it (module docstring).  ``document_names[i]`` and ``masses[i]`` are document
    i's name and length in sentences; the units laid end to end are the stream; ``summary`` and
    ``readings_summary`` say what the readers decided (:meth:`Corpus.summary`, and each reading with its notes);
    ``reading_paths`` are the files read; ``sentence_sizes`` the sentences' sizes the decision rules may measure
    segments by; ``book_headings`` the chapter headings of prose read without them (a book read as plain prose:
    the window says how to read it as one)."""

    name: str
    document_names: tuple[str, ...] = field(repr=False)
    masses: tuple[int, ...] = field(repr=False)
    units: tuple[UnitOutline, ...] = field(repr=False)
    has_reference: bool
    texts: SentenceTexts = field(repr=False)
    #: each sentence's size in tokens (:func:`segviz.rules.document_sizes`), int32
    sentence_sizes: np.ndarray = field(repr=False, compare=False)
    summary: str | None = None
    readings_summary: str = ""
    reading_paths: tuple[str, ...] = ()
    book_headings: int = 0

    def __len__(self) -> int:
        return len(self.masses)

    @property
    def n_sentences(self) -> int:
        return len(self.texts)

    def document_masses(self) -> tuple[int, ...]:
        return self.masses

    def source_groups(self) -> list[int]:
        return [unit.size for unit in self.units]


def outline_of(corpus) -> CorpusOutline:
    """The outline of a :class:`~segviz.documents.Corpus` (what the engine sends the window)."""
    units = []
    for unit in corpus.by_file():
        flags = unit.paragraph_starts()
        units.append(UnitOutline(unit.name, unit.n_sentences, tuple(i for i, p in enumerate(flags) if p),
                                 reference_titles(unit)))
    return CorpusOutline(
        corpus.name, tuple(d.name for d in corpus.documents), tuple(corpus.document_masses()), tuple(units),
        bool(corpus.has_reference), SentenceTexts.of(corpus.sentence_texts()),
        document_sizes(corpus.sentences()).astype(np.int32), corpus.summary() if corpus.readings else None,
        "\n".join(r.summary() + "".join(f"\n  {n}" for n in r.notes) for r in corpus.readings),
        tuple(r.path for r in corpus.readings), sum(r.book_headings for r in corpus.readings))


def outline_messages(outline: CorpusOutline) -> Iterator[dict]:
    """The outline as messages of at most :data:`CHUNK` items each: a head, the documents, the units, the texts."""
    yield {"type": "outline", "name": outline.name, "has_reference": outline.has_reference,
           "summary": outline.summary, "readings_summary": outline.readings_summary,
           "reading_paths": list(outline.reading_paths), "book_headings": outline.book_headings,
           "documents": len(outline.masses),
           "units": len(outline.units), "sentences": outline.n_sentences}
    for lo in range(0, len(outline.masses), CHUNK):
        yield {"type": "documents", "names": list(outline.document_names[lo:lo + CHUNK]),
               "masses": list(outline.masses[lo:lo + CHUNK])}
    for lo in range(0, len(outline.units), CHUNK):
        yield {"type": "units", "units": [[u.name, u.size, list(u.paragraph_starts), [list(t) for t in u.titles]]
                                          for u in outline.units[lo:lo + CHUNK]]}
    done = 0
    for texts in outline.texts.chunks():
        yield {"type": "texts", "texts": texts,
               "sizes": outline.sentence_sizes[done:done + len(texts)].tolist()}
        done += len(texts)


def _is_count(value, *, positive: bool = False) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= (1 if positive else 0)


def _is_text(value) -> bool:
    return isinstance(value, str)


class OutlineReceiver:
    """Builds an outline from :func:`outline_messages`, checking each message as it comes (a malformed one is a
    :class:`SegvizError` naming ``what``)."""

    def __init__(self, what: str):
        self.what = what
        self._head: dict | None = None
        self._names: list[str] = []
        self._masses: list[int] = []
        self._units: list[UnitOutline] = []
        self._texts = SentenceTexts()
        self._sizes: list[np.ndarray] = []

    def _malformed(self, detail: str) -> SegvizError:
        return SegvizError(f"{self.what}: malformed corpus outline ({detail})")

    def accept(self, message: dict) -> bool:
        """Take ``message`` when it is part of an outline (True); False for any other message type."""
        kind = message.get("type")
        if kind == "outline":
            head = message
            if self._head is not None or not all(_is_count(head.get(k))
                                                 for k in ("documents", "units", "sentences", "book_headings")) \
                    or not _is_text(head.get("name")) or not isinstance(head.get("has_reference"), bool) \
                    or not (head.get("summary") is None or _is_text(head.get("summary"))) \
                    or not _is_text(head.get("readings_summary")) \
                    or not isinstance(head.get("reading_paths"), list) \
                    or not all(_is_text(p) for p in head["reading_paths"]):
                raise self._malformed("its head")
            self._head = head
            return True
        if kind not in ("documents", "units", "texts"):
            return False
        if self._head is None:
            raise self._malformed(f"{kind} before its head")
        if kind == "documents":
            names, masses = message.get("names"), message.get("masses")
            if not isinstance(names, list) or not isinstance(masses, list) or len(names) != len(masses) \
                    or not all(_is_text(x) for x in names) or not all(_is_count(m, positive=True) for m in masses):
                raise self._malformed("documents")
            self._names.extend(names)
            self._masses.extend(masses)
        elif kind == "units":
            units = message.get("units")
            if not isinstance(units, list):
                raise self._malformed("units")
            for unit in units:
                self._units.append(self._unit(unit))
        else:
            texts, sizes = message.get("texts"), message.get("sizes")
            if not isinstance(texts, list) or not all(_is_text(t) for t in texts):
                raise self._malformed("sentence texts")
            if not isinstance(sizes, list) or len(sizes) != len(texts) \
                    or not all(_is_count(x) and x <= MAX_SENTENCE_SIZE for x in sizes):
                raise self._malformed("sentence sizes")
            self._texts.append(texts)
            # an array per message: one conversion of a million ints at the end held the window's interpreter
            # (the GUI thread waited for it) for some 50 ms
            self._sizes.append(np.asarray(sizes, dtype=np.int32))
        if len(self._names) > self._head["documents"] or len(self._units) > self._head["units"] \
                or len(self._texts) > self._head["sentences"]:
            raise self._malformed("more parts than its head announced")
        return True

    def _unit(self, unit) -> UnitOutline:
        try:
            name, size, starts, titles = unit
            if not _is_text(name) or not _is_count(size, positive=True) or not isinstance(starts, list) \
                    or not all(_is_count(i) and i < size for i in starts) or starts != sorted(set(starts)) \
                    or not isinstance(titles, list):
                raise ValueError
            pairs = []
            for pair in titles:
                at, title = pair
                if not _is_count(at) or at >= size or not _is_text(title):
                    raise ValueError
                pairs.append((at, title))
        except (TypeError, ValueError):
            raise self._malformed("a source unit") from None
        return UnitOutline(name, size, tuple(starts), tuple(pairs))

    def outline(self) -> CorpusOutline:
        """The outline received, once every part has come."""
        head = self._head
        if head is None:
            raise self._malformed("no head")
        n = head["sentences"]
        if len(self._names) != head["documents"] or len(self._units) != head["units"] or len(self._texts) != n:
            raise self._malformed("parts missing")
        if sum(self._masses) != n or sum(u.size for u in self._units) != n:
            raise self._malformed("its documents or units do not cover its sentences")
        return CorpusOutline(head["name"], tuple(self._names), tuple(self._masses), tuple(self._units),
                             head["has_reference"], self._texts,
                             np.concatenate(self._sizes) if self._sizes else np.zeros(0, dtype=np.int32),
                             head["summary"], head["readings_summary"],
                             tuple(head["reading_paths"]), head["book_headings"])
