"""Where corpus text comes from: paths expanded to files, bytes read within limits, text decoded.

Limits (documented in ``docs/formats.md``): a corpus file may hold at most :data:`MAX_FILE_BYTES`; anything that
is not a regular file (``/dev/zero``, a FIFO, a socket) is refused before a byte is read, so a read never runs
forever.  Text is UTF-8, with or without a byte-order mark, or UTF-16 with one; Reuters SGML is Latin-1.
Line ends (CRLF, CR) become ``\\n`` and byte-order marks anywhere in the text are dropped, so a BOM never
reaches the tokeniser or a display.
"""
from __future__ import annotations

import glob
import os
import re
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import SegvizError
from ..persist import read_bytes_limited

#: the largest corpus file segviz reads (a novel is ~1 MB, a Reuters-21578 SGML file 1.3 MB)
MAX_FILE_BYTES = 64 * 1024 * 1024

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


def decode_text(data: bytes, *, source: str, encoding: str = "utf-8") -> str:
    """Decoded text with ``\\n`` line ends and no byte-order marks; one-line errors for binary or mis-encoded
    input."""
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
            raise SegvizError(
                f"{source}: not valid {encoding.upper()} text (byte {exc.start}); convert it to UTF-8 first"
            ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")


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


def natural_sorted(paths: Iterable[Path]) -> list[Path]:
    """Sort so that ``2.ref`` comes before ``10.ref``."""
    return sorted(paths, key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(p))])
