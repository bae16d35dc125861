"""``lines``: one sentence per line, a blank line between documents (each document is one reference segment).

The format of text that is already split into sentences.  A line is taken as one sentence whatever it holds,
so prose (a paragraph per line, or hard-wrapped) belongs in the ``text`` reader instead; detection tells the two
apart (:mod:`segviz.readers.detect`).
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import SegvizError
from .sentences import DocumentBuilder, ParsedFile

_BLANK_LINES_RE = re.compile(r"\n\s*\n")


def read_lines(text: str, *, source: str) -> ParsedFile:
    name = Path(source).name
    builder = DocumentBuilder(name)
    for block in _BLANK_LINES_RE.split(text):
        builder.add([ln for ln in block.split("\n") if ln.strip()], name=f"{name}#doc{len(builder.documents) + 1}")
    if not builder.documents:
        raise SegvizError(f"{source}: no sentences found")
    return ParsedFile(builder.documents, has_reference=True, n_documents=len(builder.documents),
                      notes=builder.notes())
