"""Where corpus text comes from: paths expanded to files, bytes read within limits, text decoded.

Limits (documented in ``docs/formats.md``): a corpus file may hold at most :data:`MAX_FILE_BYTES`; anything that
is not a regular file (``/dev/zero``, a FIFO, a socket) is refused before a byte is read, so a read never runs
forever.  Text is UTF-8, with or without a byte-order mark, or UTF-16 with one; Reuters SGML is Latin-1.  A
Project Gutenberg e-text that is not UTF-8 is read in the character set its header declares, or as Windows-1252
(Latin-1 with typographic quotes) when it declares ASCII or UTF-8 and is neither -- Gutenberg's 8-bit plain texts
are Latin-1 -- with a note saying so; the decoded text must hold no control characters, else the file is refused
as any other non-UTF-8 file is.
Line ends (CRLF, CR) become ``\\n`` and byte-order marks anywhere in the text are dropped, so a BOM never
reaches the tokeniser or a display.
"""
from __future__ import annotations

import codecs
import glob
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..errors import SegvizError
from ..persist import read_bytes_limited

#: the largest corpus file segviz reads (a novel is ~1 MB, a Reuters-21578 SGML file 1.3 MB)
MAX_FILE_BYTES = 64 * 1024 * 1024
#: the most lines a corpus file may have: the readers hold a few hundred bytes per line while they lay a text out,
#: so a file of 64 MiB of one-word lines (8 million) used gigabytes before a sentence was split; hard-wrapped
#: prose of 64 MiB has about a million
MAX_FILE_LINES = 4_000_000

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Notes beside the corpus files in data folders
_NOT_CORPUS_PREFIXES = ("readme", "license", "licence")


def read_source(path: str | os.PathLike) -> bytes:
    """The bytes of a corpus file: a regular file of at most :data:`MAX_FILE_BYTES` that is not blank."""
    data = read_bytes_limited(path, MAX_FILE_BYTES, what="corpus file")
    if not data.strip() or data in (_UTF8_BOM, *_UTF16_BOMS):
        raise SegvizError(f"{path}: file is empty")
    return data


def decode_text(data: bytes, *, source: str, encoding: str = "utf-8", notes: list[str] | None = None) -> str:
    """Decoded text with ``\\n`` line ends and no byte-order marks; one-line errors for binary or mis-encoded
    input.  A Project Gutenberg e-text that is not UTF-8 is read in its declared or Gutenberg's 8-bit character
    set (module docstring); ``notes``, when given, receives a line saying so."""
    if data.startswith(_UTF16_BOMS):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise SegvizError(f"{source}: not valid UTF-16 text (byte {exc.start})") from None
    else:
        if b"\x00" in data[:65536]:
            raise SegvizError(f"{source}: looks like a binary file, not a text corpus")
        if data.startswith(_UTF8_BOM):
            data = data[len(_UTF8_BOM):]
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            fallback = _gutenberg_fallback(data) if encoding == "utf-8" else None
            if fallback is None:
                raise SegvizError(
                    f"{source}: not valid {encoding.upper()} text (byte {exc.start}); convert it to UTF-8 first"
                ) from None
            text, note = fallback
            if notes is not None:
                notes.append(note)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    lines = text.count("\n")
    if lines > MAX_FILE_LINES:
        raise SegvizError(f"{source}: {lines:,} lines, more than the {MAX_FILE_LINES:,} a corpus file may have "
                          "(split it into smaller files)")
    return text


#: how far into a file its Project Gutenberg header (and charset declaration) is looked for
_GUTENBERG_HEAD_BYTES = 20000
_GUTENBERG_RE = re.compile(rb"project gutenberg", re.IGNORECASE)
_DECLARED_CHARSET_RE = re.compile(rb"(?im)^[ \t]*character set encoding:[ \t]*([-\w.() ]+?)[ \t]*\r?$")
# what Gutenberg headers write for 7-bit text ("ASCII", "US-ASCII", "ISO-646-US (US-ASCII)", unknown to Python) or
# UTF-8: a file that says so and is neither is in Gutenberg's 8-bit character set
_ASCII_OR_UTF8 = ("ascii", "utf-8")
_LATIN1_CODECS = ("iso8859-1", "latin-1", "cp1252")
#: Gutenberg's 8-bit plain texts are Latin-1; Windows-1252 reads the same bytes and the typographic quotes too
GUTENBERG_8BIT = "cp1252"


def _gutenberg_fallback(data: bytes) -> tuple[str, str] | None:
    """A Project Gutenberg e-text that is not UTF-8, decoded (with the note to give) in the character set its
    header declares, or in :data:`GUTENBERG_8BIT` when it declares ASCII, UTF-8 or nothing; ``None`` when the
    file is not a Gutenberg e-text, or the decoded text is not text (a control character: a binary or
    differently encoded file, never passed on as garbage)."""
    head = data[:_GUTENBERG_HEAD_BYTES]
    if not _GUTENBERG_RE.search(head):
        return None
    declared = _DECLARED_CHARSET_RE.search(head)
    name = declared.group(1).decode("ascii", "replace").strip() if declared else ""
    codec = _codec_name(name)
    if codec in _LATIN1_CODECS:
        # the same letters, and the quotes a Windows editor put in
        chosen, note = GUTENBERG_8BIT, f"read as {name} (Windows-1252), the character set its Gutenberg header declares"
    elif codec is None or codec in _ASCII_OR_UTF8:
        chosen = GUTENBERG_8BIT
        note = (f"declared {name}, but " if name else "") + \
            "not UTF-8: read as Windows-1252 (Latin-1), Project Gutenberg's 8-bit character set"
    else:
        chosen, note = codec, f"read as {name}, the character set its Gutenberg header declares"
    try:
        text = data.decode(chosen)
    except UnicodeDecodeError:
        return None
    if any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r\f" for ch in set(text)):
        return None
    return text, note


def _codec_name(declared: str) -> str | None:
    """Python's name for a declared character set (``ISO-8859-1`` -> ``iso8859-1``), ``None`` if unknown."""
    try:
        return codecs.lookup(declared.split("(")[0].strip().replace(" ", "-")).name if declared else None
    except LookupError:
        return None


def head_text(data: bytes, size: int = 262144) -> str:
    """The start of ``data`` as text for format detection (lenient: undecodable bytes are replaced)."""
    head = data[:size]
    if head.startswith(_UTF16_BOMS):
        return head.decode("utf-16", errors="replace")
    return head.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")


def expand_paths(paths: str | os.PathLike | Sequence[str | os.PathLike]) -> list[Path]:
    """Files named by ``paths``: files as given, directories as their visible files (README/licence notes left
    out), globs as their matching files; each directory or glob in natural order (``2.ref`` before ``10.ref``)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for p in paths:
        s = os.fspath(p)
        if any(ch in s for ch in "*?["):
            matched = [Path(m) for m in glob.glob(s) if Path(m).is_file()]
            if not matched:
                raise SegvizError(f"{s}: no files match this pattern")
            files.extend(natural_sorted(matched))
        elif Path(s).is_dir():
            inside = [f for f in Path(s).iterdir() if f.is_file() and not f.name.startswith(".")]
            inside = [f for f in inside if not f.name.lower().startswith(_NOT_CORPUS_PREFIXES)]
            if not inside:
                raise SegvizError(f"{s}: directory holds no corpus files")
            files.extend(natural_sorted(inside))
        elif Path(s).exists() or Path(s).is_symlink():
            files.append(Path(s))
        else:
            raise SegvizError(f"{s}: no such file or directory")
    return files


def left_out_of_folders(paths: str | os.PathLike | Sequence[str | os.PathLike]) -> list[tuple[str, str]]:
    """What :func:`expand_paths` does not read of the folders among ``paths``, with why: ``(name, why)`` for each
    README or licence note and each subfolder (a folder is read one level deep), in natural order, so that a caller
    can say so rather than leave them out without a word (hidden files are not listed: never meant to be read)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[tuple[str, str]] = []
    for p in paths:
        folder = Path(os.fspath(p))
        if any(ch in str(folder) for ch in "*?[") or not folder.is_dir():
            continue
        for entry in natural_sorted(folder.iterdir()):
            if entry.name.startswith("."):
                continue   # hidden: never meant to be read (editor and system files)
            if entry.is_dir():
                out.append((entry.name + "/", "a folder: only the files directly in the one opened are read"))
            elif entry.name.lower().startswith(_NOT_CORPUS_PREFIXES):
                out.append((entry.name, "a README or licence note, not text to segment"))
    return out


def natural_sorted(paths: Iterable[Path]) -> list[Path]:
    """Sort so that ``2.ref`` comes before ``10.ref``."""
    return sorted(paths, key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(p))])
