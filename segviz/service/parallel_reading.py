"""Reading a corpus of several files on two cores: the engine parses some of the files, a forked reader the
others (Qt-free).

The engine is the only reader of the window's corpus, and on prose its reading is mostly the sentence splitter,
pure Python on one core: reut2-000..013 (14 files, 70,539 sentences) took 10 s, half of the app's open.  A
process forked from the engine parses the last files (about half of the bytes) while the engine parses the
first ones, and sends each parsed file back as one JSON line on a pipe (no pickle): document names, sentence
texts and tokens, paragraph marks, titles, and what the reader decided.  Decoding a file costs a fraction of
parsing it, so the reading takes about as long as the larger half.

Whatever goes wrong with the forked reader -- it cannot be forked, it dies, it sends a line that does not decode,
it gets a file wrong -- the engine parses the files it did not get itself, so the corpus is always the one a
single reader makes (and a file the reader refuses gives the single reader's error).  A reader that has sent
nothing long after the engine finished its own share is ended (:data:`~segviz.service.forked_worker.PATIENCE`).

The forked process is a :class:`~segviz.service.forked_worker.ForkedWorker`.  Used by the engine process only, never
by the window (:func:`segviz.service.tasks.read_corpus_task`).
"""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Generator, Sequence
from pathlib import Path

from ..documents import Corpus, Document, FileReading, HeadingLine
from ..events import Progress
from .forked_worker import ForkedWorker, can_fork, nearest_half

__all__ = ["read_files", "MIN_BYTES"]

#: below this many bytes in all the files are read here (forking costs more than it saves)
MIN_BYTES = 1 << 20


def read_files(files: Sequence[str], read_one: Callable[[str], Corpus]) -> Generator[Progress, None, list[Corpus]]:
    """Every file of ``files`` parsed by ``read_one``, in order; on two cores a forked reader takes the last files
    (about half of the bytes).  Yields ``Progress`` as files are done; returns one corpus per file."""
    files = list(files)
    split = _split(files)
    if split >= len(files) or not can_fork():
        return (yield from _read_here(files, read_one, 0, len(files)))
    reader = ForkedWorker(lambda send: [send(encode(read_one(path))) for path in files[split:]])
    try:
        started = time.monotonic()
        mine = yield from _read_here(files[:split], read_one, 0, len(files))
        theirs = reader.results(lambda index, message: decode(message), started=started)
    finally:
        reader.end()
    parts = list(mine)
    for offset, path in enumerate(files[split:]):
        part = theirs[offset] if offset < len(theirs) else None
        if part is None:   # not sent, or not usable: read it here, as a single reader would
            part = read_one(path)
        parts.append(part)
        yield Progress(f"read {Path(path).name}", len(parts), len(files))
    return parts


def _read_here(files, read_one, done: int, total: int) -> Generator[Progress, None, list[Corpus]]:
    out = []
    if done == 0:
        yield Progress("reading", 0, total)
    for path in files:
        out.append(read_one(path))
        yield Progress(f"read {Path(path).name}", done + len(out), total)
    return out


def _split(files: Sequence[str]) -> int:
    """The index of the first file the forked reader takes (``len(files)``: read everything here)."""
    sizes = []
    for path in files:
        try:
            sizes.append(os.path.getsize(path))
        except OSError:
            return len(files)   # the reader will say what is wrong with it
    if sum(sizes) < MIN_BYTES:
        return len(files)
    return nearest_half(sizes)[0]


# -- one parsed file as JSON ----------------------------------------------------------------------------------

def encode(corpus: Corpus) -> dict:
    return {
        "name": corpus.name, "has_reference": corpus.has_reference, "files": list(corpus.files),
        "readings": [[r.path, r.format, r.detected, r.documents, r.sentences, r.reference_boundaries, list(r.notes),
                      [[h.line, h.text, h.title] for h in r.headings], r.book_headings, r.headings_decision]
                     for r in corpus.readings],
        "documents": [[d.name, list(d.texts), [_joined(s) for s in d.sentences], [int(p) for p in d.paragraph_starts],
                       d.title] for d in corpus.documents],
    }


def _joined(tokens) -> str | list:
    # one string a sentence (the tokeniser's tokens hold no space): decoding 10^6 sentences as lists of tokens
    # made some 20 million strings at once, 0.6 GB more at the engine's peak
    return " ".join(tokens) if not any(" " in t or not t for t in tokens) else list(tokens)


def _tokens(value) -> tuple[str, ...]:
    intern = sys.intern
    if isinstance(value, str):
        return tuple(map(intern, value.split(" "))) if value else ()
    return tuple(intern(_text(w)) for w in value)


def _text(value) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def decode(d: dict) -> Corpus:
    """The corpus of :func:`encode` (a TypeError or ValueError for anything else)."""
    documents = []
    for name, texts, sentences, paragraphs, title in d["documents"]:
        if len(texts) != len(sentences):
            raise ValueError("texts and sentences differ in length")
        documents.append(Document(
            _text(name), tuple(_tokens(s) for s in sentences),
            tuple(_text(t) for t in texts), tuple(bool(p) for p in paragraphs), _text(title)))
    readings = []
    for path, fmt, detected, n_docs, n_sents, boundaries, notes, headings, book_headings, decision in d["readings"]:
        readings.append(FileReading(_text(path), _text(fmt), bool(detected), int(n_docs), int(n_sents),
                                    None if boundaries is None else int(boundaries), tuple(_text(n) for n in notes),
                                    tuple(HeadingLine(int(line), _text(text), _text(title))
                                          for line, text, title in headings), int(book_headings), _text(decision)))
    return Corpus(documents, name=_text(d["name"]), files=[_text(f) for f in d["files"]],
                  has_reference=bool(d["has_reference"]), readings=readings)
