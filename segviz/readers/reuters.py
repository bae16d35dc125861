"""Reuters-21578 SGML (``reut2-*.sgm``, Latin-1): one story per ``<REUTERS>`` element that has a ``<BODY>``.

The trailing ``Reuter`` sign-off, ``More`` continuation marks and any leading dateline are removed because they
would give the boundaries away for free.  Sentences are split with syntok.  Each story is one document and one
reference segment; the file is the stream.  The Reuters-21578 collection is licensed for research purposes only.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from ..errors import SegvizError
from .sentences import DocumentBuilder, ParsedFile, split_sentences

ENCODING = "latin-1"

_NEWID_RE = re.compile(r'NEWID="(\d+)"')
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# "NEW YORK, March 3 - " style datelines, should one appear inside a body.
_DATELINE_RE = re.compile(r"^\s*[A-Z][A-Za-z.'&/ -]{1,40},\s+[A-Z][a-z]{2,8}\.?\s+\d{1,2}\s+-\s+")
# What may follow a "Reuter" sign-off on its line: dots, carets, stray Ms (of "^M") and spaces.
_SIGNOFF_TRAILER = frozenset(".^mM")


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _signoff_start(body: str, end: int) -> int | None:
    """Where a sign-off ending ``body[:end]`` starts -- ``Reuter``/``Reuters`` (any case) followed by dots,
    carets, Ms or spaces, or a last line ``More`` followed by non-word characters -- or None without one.

    Scans backwards from ``end`` only over what it removes (plus at most one word), so stripping every sign-off
    is linear in the body; a regex anchored at ``$`` is tried from every position of the text, once per sign-off
    (quadratic on a body of thousands of them)."""
    j = end
    while j > 0 and (body[j - 1] in _SIGNOFF_TRAILER or body[j - 1].isspace()):
        j -= 1
    if j == end or not _is_word_char(body[j]):       # the word ends at a word boundary
        for word in ("reuters", "reuter"):
            start = j - len(word)
            if start >= 0 and body[start:j].lower() == word and (start == 0 or not _is_word_char(body[start - 1])):
                return start
    k = end
    while k > 0 and not _is_word_char(body[k - 1]):
        k -= 1
    start = k - 4
    if start >= 0 and body[start:k].lower() == "more":
        i = start
        while i > 0 and body[i - 1].isspace():   # only spaces back to a line break: "More" is a line of its own
            if body[i - 1] == "\n":
                return i - 1
            i -= 1
    return None


def _rstrip_end(body: str, end: int) -> int:
    while end > 0 and body[end - 1].isspace():
        end -= 1
    return end


def clean_body(raw: str) -> str:
    body = _CONTROL_RE.sub(" ", html.unescape(raw)).replace("\r", "")
    body = _DATELINE_RE.sub("", body, count=1)
    # an end index, cut once: slicing after every sign-off would copy the body once per sign-off
    end = _rstrip_end(body, len(body))
    while (start := _signoff_start(body, end)) is not None:
        end = _rstrip_end(body, start)
    return body[:end]


def _elements(text: str):
    """``(attributes, inner text)`` of each ``<REUTERS ...>...</REUTERS>`` element, in order, in linear time.

    A plain scan with ``str.find`` instead of a lazy ``(.*?)`` regex: that one tries every ``<REUTERS`` start
    against the rest of the file, so 200 kB of unclosed starts took 46 s.  Once no ``</REUTERS>`` follows a start,
    none follows any later one, so the scan stops there."""
    pos = 0
    while True:
        start = text.find("<REUTERS", pos)
        if start < 0:
            return
        after = start + len("<REUTERS")
        if after < len(text) and _is_word_char(text[after]):    # <REUTERSX...: another tag
            pos = after
            continue
        gt = text.find(">", after)
        if gt < 0:
            return
        close = text.find("</REUTERS>", gt + 1)
        if close < 0:
            return
        yield text[after:gt], text[gt + 1:close]
        pos = close + len("</REUTERS>")


def _body(inner: str) -> str | None:
    """The text between the first ``<BODY>`` and the ``</BODY>`` after it (None without both)."""
    start = inner.find("<BODY>")
    if start < 0:
        return None
    end = inner.find("</BODY>", start + len("<BODY>"))
    return None if end < 0 else inner[start + len("<BODY>"):end]


def read_reuters(text: str, *, source: str) -> ParsedFile:
    """Stories with a body, in file (NEWID) order."""
    name = Path(source).name
    stories = list(_elements(text))
    if not stories:
        raise SegvizError(f"{source}: no <REUTERS> elements, so not a Reuters-21578 SGML file")
    builder = DocumentBuilder(name)
    for attrs, inner in stories:
        body = _body(inner)
        if body is None:
            continue
        newid = _NEWID_RE.search(attrs)
        # Reuters keeps syntok's breaks after a capitalised title ("Gov." / "Mario Cuomo", 28 of its 105,708
        # sentences) and its one lone "." (reut2-015, NEWID 15528): every published Reuters table was made so, and
        # a reading that changes them is a re-run of all of them (docs/formats.md)
        builder.add(split_sentences(clean_body(body), repair=False),
                    name=f"{name}#NEWID={newid.group(1) if newid else '?'}")
    if not builder.documents:
        raise SegvizError(f"{source}: no Reuters story has a <BODY>")
    return ParsedFile(builder.documents, has_reference=True, n_documents=len(builder.documents),
                      notes=builder.notes())
