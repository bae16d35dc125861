"""One parse per corpus file per window session, shared by the window and its engine children (Qt-free).

Opening a corpus with a model reads it twice at the same time: the window reads it for its views while the
model's child (:mod:`segviz.app.apply_job`) reads it to apply the model, and the training and peers children
read it again later.  Splitting 70k Reuters sentences with syntok is ~9 s of pure Python, so on two cores the
two readings took both cores for 9 s before the model could start.

A :class:`ReadingCache` is a private directory of the session (made by the window, removed when it closes) that
holds what a reader made of one file, keyed by the file's bytes (SHA-256), its name and the reader options.  Each reader
*claims* a file before parsing it (an exclusive create), stores the result when done and releases the claim; a
reader that finds a file claimed by another moves on to the next one and comes back to it at the end, when it
waits for the other's result while the claimant is alive.  The window reads its files first to last and the
children last to first, so the two meet in the middle and each file is parsed once.

Entries are JSON Lines (a header, then chunks of at most :data:`CHUNK_SENTENCES` sentences, so that encoding or
decoding never holds the interpreter for long in the window's process), written whole or not at all, and
validated when read: an entry that does not decode to a consistent corpus is ignored and the file is parsed.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ..documents import Corpus, Document, FileReading, HeadingLine
from ..errors import SegvizError
from ..persist import atomic_write
from ..readers.source import MAX_FILE_BYTES, read_source
from .temp_dirs import owned_temporary_directory, process_alive, read_pid, read_regular, remove_abandoned

#: bump when the entry layout or what a reader makes of a file changes
ENTRY_VERSION = 1
#: sentences per JSON line of an entry
CHUNK_SENTENCES = 2000
#: how often a reader waiting for another's parse looks again (seconds)
POLL_SECONDS = 0.05

#: the largest entry read back: a corpus file holds at most MAX_FILE_BYTES, and its entry holds each sentence twice
#: (text and tokens) with JSON's quoting; anything larger is not an entry this session wrote
MAX_ENTRY_BYTES = 8 * MAX_FILE_BYTES
_READING_FIELDS = ("format", "detected", "documents", "sentences", "reference_boundaries")
#: the session directories' name prefix (each names its owner in temp_dirs.OWNER_FILE)
SESSION_PREFIX = "segviz-reading-"


def new_session_directory() -> tempfile.TemporaryDirectory:
    """A window's private cache directory (removed when the window closes), after removing the temporary
    directories of windows that died without removing theirs (:func:`segviz.app.temp_dirs.remove_abandoned`)."""
    remove_abandoned()
    return owned_temporary_directory(SESSION_PREFIX)


class ReadingCache:
    """The session directory ``directory`` (created by the window; private to the user)."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)

    # -- keys and claims ---------------------------------------------------------------------------------------
    @staticmethod
    def key(data: bytes, options: dict, name: str) -> str:
        """The entry name for a file called ``name`` (its last component: document names carry it) of bytes
        ``data``, read with ``options``."""
        digest = hashlib.sha256(data)
        digest.update(json.dumps([ENTRY_VERSION, Path(name).name,
                                  sorted((str(k), repr(v)) for k, v in options.items())]).encode("utf-8"))
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.directory / f"{key}.jsonl"

    def _claim(self, key: str) -> Path:
        return self.directory / f"{key}.claim"

    def claim(self, key: str) -> bool:
        """Take the file of ``key`` for parsing; False when another reader has it."""
        try:
            fd = os.open(self._claim(key), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return False
        except OSError:
            return True   # no shared directory to claim in: parse it, as without a cache
        with os.fdopen(fd, "w") as handle:
            handle.write(str(os.getpid()))
        return True

    def release(self, key: str) -> None:
        try:
            os.unlink(self._claim(key))
        except OSError:
            pass

    def claimant_alive(self, key: str) -> bool:
        """True while the file of ``key`` is claimed by a live process (other than a stale claim)."""
        pid = read_pid(self._claim(key))
        return pid is not None and process_alive(pid)

    # -- entries -----------------------------------------------------------------------------------------------
    def load(self, key: str, source: str) -> Corpus | None:
        """The corpus stored under ``key``, its paths given as ``source``; None when absent or not valid."""
        raw = read_regular(self._entry(key), MAX_ENTRY_BYTES)
        if raw is None:
            return None
        try:
            return decode_entry(raw, source)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError):
            return None   # UnicodeDecodeError and JSON errors are ValueErrors

    def store(self, key: str, source: str, corpus: Corpus) -> None:
        """Store ``corpus`` (read from ``source``) under ``key``; a corpus JSON cannot hold is not stored."""
        try:
            lines = entry_lines(corpus, source)
        except (ValueError, UnicodeEncodeError):
            return

        def write(handle) -> None:
            for line in lines:   # line by line: the GIL is free between them
                handle.write(line)

        try:
            atomic_write(self._entry(key), write)
        except SegvizError:
            pass   # a full or vanished directory costs a second parse later, nothing else


# -- reading files through the cache ---------------------------------------------------------------------------

def read_files_shared(files: list[str], read: Callable[[str, dict], Corpus], options: dict,
                      cache: ReadingCache | None, *, backwards: bool = False
                      ) -> Iterator[tuple[int, Corpus | None]]:
    """Yield ``(i, corpus of files[i])`` for every file, parsing with ``read(path, options)`` only what no other
    reader of the session has parsed or is parsing; ``(i, None)`` is yielded every :data:`POLL_SECONDS` while
    waiting for another reader (so callers can report progress and see Cancel).  Files claimed by another
    reader are taken last."""
    order = list(range(len(files)))
    if backwards:
        order.reverse()
    if cache is None:
        for i in order:
            yield i, read(files[i], options)
        return
    later = {}
    for i in order:
        # the key once per file: hashing it again at every look while waiting would cost the reader being waited
        # for a core's worth of work on a large file
        key = cache.key(read_source(files[i]), options, files[i])
        corpus = _take(files[i], key, read, options, cache)
        if corpus is None:
            later[i] = key
        else:
            yield i, corpus
    for i, key in later.items():
        while True:
            corpus = _take(files[i], key, read, options, cache, waiting=True)
            if corpus is not None:
                yield i, corpus
                break
            yield i, None
            time.sleep(POLL_SECONDS)


def _take(path: str, key: str, read: Callable[[str, dict], Corpus], options: dict, cache: ReadingCache, *,
          waiting: bool = False) -> Corpus | None:
    """The corpus of ``path`` (entry ``key``): stored, or parsed here when unclaimed; None when another reader is
    on it."""
    stored = cache.load(key, path)
    if stored is not None:
        return stored
    if not cache.claim(key):
        if not waiting or cache.claimant_alive(key):
            stored = cache.load(key, path)   # it may have been stored in between
            return stored
        cache.release(key)   # its reader died or gave up: the claim is stale
        if not cache.claim(key):
            return None
    try:
        stored = cache.load(key, path)   # stored by another reader just before this one claimed it
        if stored is not None:
            return stored
        corpus = read(path, options)
        if _unchanged(path, options, key, cache):   # the file was not rewritten while it was parsed
            cache.store(key, path, corpus)
        return corpus
    finally:
        cache.release(key)


def _unchanged(path: str, options: dict, key: str, cache: ReadingCache) -> bool:
    try:
        return cache.key(read_source(path), options, path) == key
    except SegvizError:
        return False


# -- the entry format ------------------------------------------------------------------------------------------

def encode_entry(corpus: Corpus, source: str) -> bytes:
    """The entry of ``corpus`` as one byte string (:func:`entry_lines` joined)."""
    return b"".join(entry_lines(corpus, source))


def entry_lines(corpus: Corpus, source: str) -> list[bytes]:
    """Header line, then per document its fields and sentence chunks (texts, tokens joined by spaces), each line
    encoded on its own with its end.  (Joined into one string and encoded at once, the entry of a file of 570,000
    sentences held the GIL for 0.6 s, a freeze of the window that was reading it.)"""
    for doc in corpus.documents:
        for sentence in doc.sentences:
            for token in sentence:
                if not token or token != "".join(token.split()):
                    raise ValueError("a token holds white space")
    lines = [json.dumps({
        "version": ENTRY_VERSION, "source": source, "name": corpus.name, "has_reference": corpus.has_reference,
        "files": [_relative(f, source) for f in corpus.files],
        "readings": [{"path": _relative(r.path, source), "notes": list(r.notes),
                      "headings": [[h.line, h.text, h.title] for h in r.headings],
                      **{k: getattr(r, k) for k in _READING_FIELDS}} for r in corpus.readings],
        "documents": [{"name": d.name, "title": d.title, "sentences": len(d),
                       "paragraph_starts": [bool(p) for p in d.paragraph_starts] if d.paragraph_starts else None}
                      for d in corpus.documents],
    }, ensure_ascii=False)]
    for index, doc in enumerate(corpus.documents):
        for start in range(0, len(doc), CHUNK_SENTENCES):
            stop = start + CHUNK_SENTENCES
            lines.append(json.dumps([index, list(doc.texts[start:stop]),
                                     [" ".join(s) for s in doc.sentences[start:stop]]], ensure_ascii=False))
    return [(line + "\n").encode("utf-8") for line in lines]


def _headings(items) -> tuple[HeadingLine, ...]:
    """The headings a reading took (``[line, text, title]`` each), checked."""
    if not isinstance(items, list):
        raise ValueError("headings are not a list")
    out = []
    for item in items:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], int)
                and not isinstance(item[0], bool) and item[0] >= 1):
            raise ValueError("a heading is malformed")
        out.append(HeadingLine(item[0], _text(item[1]), _text(item[2])))
    return tuple(out)


def decode_entry(raw: bytes, source: str) -> Corpus:
    """The corpus of :func:`encode_entry`'s bytes, with ``source`` for its paths; ValueError when inconsistent."""
    # split as bytes and each line decoded on its own: one decode of the whole entry held the GIL for 0.1-0.2 s
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    lines = [line.decode("utf-8") for line in lines]
    header = _json(lines[0])
    if not isinstance(header, dict) or header.get("version") != ENTRY_VERSION:
        raise ValueError("not an entry of this version")
    metas = header["documents"]
    texts: list[list[str]] = [[] for _ in metas]
    tokens: list[list[tuple[str, ...]]] = [[] for _ in metas]
    for line in lines[1:]:
        index, chunk_texts, chunk_tokens = _json(line)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(metas):
            raise ValueError("a chunk of no document")
        if not (isinstance(chunk_texts, list) and isinstance(chunk_tokens, list)
                and len(chunk_texts) == len(chunk_tokens)):
            raise ValueError("inconsistent chunk")
        if not all(isinstance(t, str) for t in chunk_texts) or not all(isinstance(t, str) for t in chunk_tokens):
            raise ValueError("a sentence is not a string")
        texts[index].extend(chunk_texts)
        tokens[index].extend(tuple(t.split()) for t in chunk_tokens)
    documents = []
    for meta, doc_texts, doc_tokens in zip(metas, texts, tokens):
        if len(doc_texts) != _count(meta["sentences"]) or not all(doc_tokens):
            raise ValueError("a document does not hold its sentences")
        marks = meta["paragraph_starts"]
        if marks is not None and not (isinstance(marks, list) and all(isinstance(m, bool) for m in marks)):
            raise ValueError("paragraph marks are not flags")
        documents.append(Document(name=_text(meta["name"]), sentences=tuple(doc_tokens), texts=tuple(doc_texts),
                                  paragraph_starts=tuple(marks) if marks is not None else (),
                                  title=_text(meta["title"])))
    files = [_absolute(_text(f), source) for f in header["files"]]
    readings = [FileReading(path=_absolute(_text(r["path"]), source), notes=tuple(_text(n) for n in r["notes"]),
                            headings=_headings(r.get("headings", [])), **_reading_fields(r))
                for r in header["readings"]]
    if not isinstance(header["has_reference"], bool):
        raise ValueError("not a flag")
    corpus = Corpus(documents, name=_text(header["name"]), files=files, has_reference=header["has_reference"],
                    readings=readings)
    if len(corpus.documents) != len(documents):
        raise ValueError("an empty document")
    return corpus


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not in an entry")


def _json(line: str):
    # NaN and Infinity are no values of an entry (counts, flags, strings): refused while parsing
    return json.loads(line, parse_constant=_refuse_constant)


def _text(value) -> str:
    if not isinstance(value, str):
        raise ValueError("not a string")
    return value


def _count(value, *, none: bool = False) -> int | None:
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("not a count")
    return value


def _reading_fields(r: dict) -> dict:
    if not isinstance(r["detected"], bool):
        raise ValueError("not a flag")
    return {"format": _text(r["format"]), "detected": r["detected"], "documents": _count(r["documents"]),
            "sentences": _count(r["sentences"]),
            "reference_boundaries": _count(r["reference_boundaries"], none=True)}


def _relative(path: str, source: str) -> str:
    # the file's path as the reader was given it is replaced by a marker, so that another reader that names the
    # same file differently (the window: as typed; a child: absolute) gets its own spelling back
    return "\0" + path[len(source):] if path.startswith(source) else path


def _absolute(path: str, source: str) -> str:
    return source + path[1:] if path.startswith("\0") else path
