"""The Wiki-727K / Wiki-50 / Cities / Elements format (Koshorek et al. 2018, "Text Segmentation as a Supervised
Learning Task"): one sentence per line; a line ``========,LEVEL,TITLE.`` opens a section of depth LEVEL
(1 = top level; the article's lead is the level-1 section ``preface``).

How levels map to reference boundaries (``max_level``):

* default (``None``): **every section start** is a boundary, whatever its level -- the finest segmentation the
  file holds;
* ``max_level=L``: only sections of level <= L open a segment; a deeper section's sentences join the segment
  before them.  Koshorek et al.'s loader keeps levels 1-2 in its coarse mode (``max_level=2``).

Sections without sentences (a heading directly followed by a sub-heading) open no segment.  Section titles are
not sentences: they are kept as each document's ``title``.  Lines holding only the dataset's placeholders
(``***LIST***.``, ``***formula***``, ``***codice***``) are dropped, as the authors' loader does; the reader notes
how many.  Unlike that loader, the lead (``preface``) section is kept: it is text the user wants segmented.
Sentences before the first heading form a segment of their own.  One file is one document.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import SegvizError
from .sentences import DocumentBuilder, ParsedFile

#: the most digits a section level may have (a level is a depth: 1, 2, 3, ...)
MAX_LEVEL_DIGITS = 6
HEADER_RE = re.compile(r"^========,(\d+),(.*)$")
_PLACEHOLDER_RE = re.compile(r"^(?:\*\*\*(?:LIST|formula|codice)\*\*\*[.\s]*)+$")


def read_wiki(text: str, *, source: str, max_level: int | None = None) -> ParsedFile:
    if max_level is not None and max_level < 1:
        raise SegvizError(f"the wiki section level must be >= 1, got {max_level}")
    name = Path(source).name
    sections: list[tuple[str, list[str]]] = []  # (title, sentence lines) of each segment
    n_headers = placeholders = 0
    for line in text.split("\n"):
        stripped = line.strip()
        header = HEADER_RE.match(stripped)
        if header:
            n_headers += 1
            digits, title = header.group(1), header.group(2).strip()
            if len(digits) > MAX_LEVEL_DIGITS:   # int() of 4,300+ digits raises; no real level has 7
                raise SegvizError(f"{source}: a section header's level has {len(digits):,} digits; a level is "
                                  "a small number (1 = top level)")
            level = int(digits)
            title = title[:-1].rstrip() if title.endswith(".") else title
            if max_level is None or level <= max_level or not sections:
                sections.append((title, []))
        elif _PLACEHOLDER_RE.match(stripped):
            placeholders += 1
        elif stripped:
            if not sections:
                sections.append(("", []))
            sections[-1][1].append(stripped)
    if not n_headers:
        raise SegvizError(f"{source}: no '========,LEVEL,TITLE.' lines, so not a Wiki-727K-format file")
    builder = DocumentBuilder(name)
    for title, lines in sections:
        builder.add(lines, name=f"{name}#{len(builder.documents) + 1}", title=title)
    if not builder.documents:
        raise SegvizError(f"{source}: Wiki-format file holds no sentences")
    notes = builder.notes()
    if placeholders:
        notes.append(f"{placeholders} placeholder line(s) (***LIST*** and the like) dropped")
    return ParsedFile(builder.documents, has_reference=True, n_documents=1, notes=notes)
