"""Real text in the shapes people have, built from the shared corpora (Brown, wiki300) for the reader tests.

* :func:`brown_paragraphs` -- a Brown text as paragraphs of detokenised sentences (tags stripped, quotes and
  punctuation re-attached), with the source's own sentence count;
* :func:`hard_wrapped` -- paragraphs joined and wrapped at a width, blank lines between paragraphs (a
  Gutenberg-style ``.txt``), or indented first lines without blank lines;
* :func:`wiki727k_from_wiki300` -- a wiki300 article rewritten in the Wiki-727K format.
"""
from __future__ import annotations

import re
import textwrap
import zipfile
from pathlib import Path

_ATTACH_LEFT = {",", ".", ";", ":", "!", "?", ")", "]", "'", "''", "n't", "'s", "'ll", "'re", "'ve", "'d", "'m", "%"}
_ATTACH_RIGHT = {"(", "[", "``", "$"}


def detokenize(tokens: list[str]) -> str:
    out = ""
    glue_next = False
    for i, tok in enumerate(tokens):
        if i and tok == tokens[i - 1] and tok in {";", ",", "?", "!"}:  # Brown doubles a sentence-ending ";"
            continue
        word = {"``": '"', "''": '"'}.get(tok, tok)
        if not out:
            out = word
        elif tok in _ATTACH_LEFT or glue_next:
            out += word
        else:
            out += " " + word
        glue_next = tok in _ATTACH_RIGHT
    return out


def brown_paragraphs(brown_zip: Path, file_id: str) -> list[list[str]]:
    """Paragraphs (lists of sentences) of one Brown text, e.g. ``cp01`` (romance fiction)."""
    raw = zipfile.ZipFile(brown_zip).read(f"brown/{file_id}").decode("utf-8")
    paragraphs: list[list[str]] = []
    for block in re.split(r"\n\s*\n", raw):
        sentences = []
        for line in block.split("\n"):
            tokens = [t.rsplit("/", 1)[0] for t in line.split()]
            if tokens:
                sentences.append(detokenize(tokens))
        if sentences:
            paragraphs.append(sentences)
    return paragraphs


def hard_wrapped(paragraphs: list[list[str]], *, width: int = 72, style: str = "blank") -> str:
    """Paragraphs wrapped at ``width``: separated by blank lines (``blank``) or first-line indented (``indent``)."""
    if style == "blank":
        return "\n\n".join(textwrap.fill(" ".join(p), width=width) for p in paragraphs) + "\n"
    return "\n".join(textwrap.fill(" ".join(p), width=width, initial_indent="    ") for p in paragraphs) + "\n"


def choi_segments(path: Path) -> list[list[str]]:
    segments: list[list[str]] = [[]]
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.strip() == "==========":
            if segments[-1]:
                segments.append([])
        elif line.strip():
            segments[-1].append(line.strip())
    return [s for s in segments if s]


def wiki727k_from_wiki300(path: Path) -> tuple[str, list[list[str]]]:
    """The article in Wiki-727K format (its title line becomes the preface's heading; the other sections are
    level 2, every third one level 3) and its segments as sentence lists."""
    segments = choi_segments(path)
    title, segments[0] = segments[0][0], segments[0][1:]
    lines = ["========,1,preface."]
    for k, seg in enumerate(segments):
        if k:
            lines.append(f"========,{3 if k % 3 == 0 else 2},Section {k} of {title}.")
        lines.extend(seg)
    return "\n".join(lines) + "\n", segments
