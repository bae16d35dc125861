"""Choi (2000) format: a line ``==========`` before each segment and one closing the file, one sentence per line.

One file is one document of reference segments.  Empty segments (two separators in a row, present in the real
data) are skipped.  Wiki300 (Badjatiya et al. 2018) uses this format with the article title as the first line of
the first segment; it is kept as a sentence.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import SegvizError
from .sentences import DocumentBuilder, ParsedFile

CHOI_SEPARATOR = "=========="


def read_choi(text: str, *, source: str) -> ParsedFile:
    name = Path(source).name
    lines = text.split("\n")
    if not any(line.strip() == CHOI_SEPARATOR for line in lines):
        raise SegvizError(f"{source}: no '{CHOI_SEPARATOR}' separator lines, so not a Choi-format file")
    builder = DocumentBuilder(name)
    current: list[str] = []

    def flush():
        builder.add(current, name=f"{name}#seg{len(builder.documents) + 1}")
        current.clear()

    for line in lines:
        if line.strip() == CHOI_SEPARATOR:
            flush()
        elif line.strip():
            current.append(line)
    flush()
    if not builder.documents:
        raise SegvizError(f"{source}: Choi file holds no sentences")
    return ParsedFile(builder.documents, has_reference=True, n_documents=1, notes=builder.notes())
