"""Names and messages as they are shown and written: never interpreted by a terminal, always valid UTF-8.

A file name is whatever bytes the file system holds.  Python decodes the bytes that are not UTF-8 as lone
surrogates (``surrogateescape``), which no UTF-8 file can hold, and a name may hold a newline, a carriage return
or an ANSI escape, which a terminal would obey: a one-line error would become two lines, a forged
``segviz: error:`` line, or a change of colour.  Two functions decide how such text leaves the program:

:func:`portable`
    the bytes that are not UTF-8 written as ``\\xNN`` (``backslashreplace`` of the name's own bytes): what JSON
    Lines, CSV, text outputs and saved models hold, the same way in every format;
:func:`printable`
    :func:`portable`, then every control character shown as an escape (``\\n``, ``\\r``, ``\\t``, ``\\x1b``,
    ``\\u202e``): what a terminal is given, one line that says what the name is.
"""
from __future__ import annotations

import os
import re

#: C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional overrides and isolates
#: (which reorder what follows them on screen)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def portable(text) -> str:
    """``text`` (a str or a path) with the bytes a file name held that are not UTF-8 as ``\\xNN``; unchanged
    when it is valid UTF-8 already."""
    text = os.fspath(text) if isinstance(text, os.PathLike) else text
    if isinstance(text, bytes):
        return text.decode("utf-8", "backslashreplace")
    text = str(text)
    if not _SURROGATE.search(text):
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:   # a surrogate that no byte decoded to: show its code point
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return raw.decode("utf-8", "backslashreplace")


def printable(text) -> str:
    """:func:`portable`, with every control character shown as an escape: one line a terminal shows as is."""
    text = portable(text)
    return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text
