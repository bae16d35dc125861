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

_REUTERS_RE = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_NEWID_RE = re.compile(r'NEWID="(\d+)"')
_BODY_RE = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# "NEW YORK, March 3 - " style datelines, should one appear inside a body.
_DATELINE_RE = re.compile(r"^\s*[A-Z][A-Za-z.'&/ -]{1,40},\s+[A-Z][a-z]{2,8}\.?\s+\d{1,2}\s+-\s+")
# Sign-off at the very end ("Reuter", "REUTER...", "reuter^M") and "More"/"MORE" continuation lines.
_SIGNOFF_RE = re.compile(r"(?:\s*\b(?:reuters?)\b[\s.^m]*|\n\s*more\W*)$", re.I)


def clean_body(raw: str) -> str:
    body = _CONTROL_RE.sub(" ", html.unescape(raw)).replace("\r", "")
    body = _DATELINE_RE.sub("", body, count=1)
    previous = None
    while previous != body:
        previous = body
        body = _SIGNOFF_RE.sub("", body.rstrip()).rstrip()
    return body


def read_reuters(text: str, *, source: str) -> ParsedFile:
    """Stories with a body, in file (NEWID) order."""
    name = Path(source).name
    stories = _REUTERS_RE.findall(text)
    if not stories:
        raise SegvizError(f"{source}: no <REUTERS> elements, so not a Reuters-21578 SGML file")
    builder = DocumentBuilder(name)
    for attrs, inner in stories:
        body = _BODY_RE.search(inner)
        if body is None:
            continue
        newid = _NEWID_RE.search(attrs)
        builder.add(split_sentences(clean_body(body.group(1))),
                    name=f"{name}#NEWID={newid.group(1) if newid else '?'}")
    if not builder.documents:
        raise SegvizError(f"{source}: no Reuters story has a <BODY>")
    return ParsedFile(builder.documents, has_reference=True, n_documents=len(builder.documents),
                      notes=builder.notes())
