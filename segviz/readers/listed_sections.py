"""Sections a book's contents list names without numbering them: the narrators of a novel told by many pens.

Some books part their text by lines that are no chapter heading of any kind -- The Woman in White's ``THE STORY
CONTINUED BY VINCENT GILMORE``, ``THE NARRATIVE OF THE DOCTOR`` -- and whose numbered chapters, where a narrative
has any, restart under each.  Such a line is known by the contents list: it repeats one of the list's entries.
:func:`listed_section_lines` finds the list (a ``CONTENTS`` line, then its entries up to the first entry met
again with prose below it, or the first paragraph of prose) and, after it, the lines in capitals standing alone in
their block whose words begin with the words of an entry (``THE STORY CONTINUED BY FREDERICK FAIRLIE, ESQ., OF LIMMERIDGE HOUSE[2]``
repeats ``THE STORY CONTINUED BY FREDERICK FAIRLIE, ESQ.``; ``1.  THE NARRATIVE OF HESTER PINHORN, COOK ...``
repeats ``THE NARRATIVE OF HESTER PINHORN``).  Entries that are numbered headings themselves are left to the
heading rules, and a list whose entries stand in the text fewer than :data:`MIN_LISTED_SECTIONS` times is no
evidence (an entry in capitals met once may be a line of the text).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = ["MIN_LISTED_SECTIONS", "MIN_ENTRY_WORDS", "listed_section_lines"]

#: the contents list's unnumbered entries must stand in the text at least this many times
MIN_LISTED_SECTIONS = 3
#: an entry repeats in the text only when it has at least this many words (``NOTES`` is no section heading)
MIN_ENTRY_WORDS = 2

#: an entry met again opens the text when prose follows within this many blocks (a subtitle may stand between)
_PROSE_WITHIN = 3
_CONTENTS_RE = re.compile(r"^(?:table\s+of\s+)?contents\.?$", re.IGNORECASE)
_FOOTNOTE_MARK_RE = re.compile(r"\[\d+\]|\*+$")
_LEADING_NUMBER_RE = re.compile(r"^(?:\d{1,3}|[IVXLC]{1,7})\.\s+")
_TOKEN_RE = re.compile(r"[A-Z0-9]+(?:['’][A-Z]+)?")


def _words(line: str) -> tuple[str, ...]:
    """A line's words in capitals, without a leading number (``1.``), footnote marks or a leading ``THE``."""
    text = _LEADING_NUMBER_RE.sub("", _FOOTNOTE_MARK_RE.sub("", line.strip()))
    words = tuple(_TOKEN_RE.findall(text.upper()))
    return words[1:] if words[:1] == ("THE",) else words


def _contents_entries(visible: Sequence[str], blocks: Sequence[tuple[int, int]], prose: Sequence[bool], before: int,
                      is_numbered: Callable[[str], bool]) -> tuple[list[tuple[str, ...]], int] | None:
    """The unnumbered entries of the contents list that starts before line ``before``, and the line where the
    list ends (an entry met again with prose below it, a paragraph of prose, or ``before``); ``None`` without a
    list."""
    head = next((k for k, (s, e) in enumerate(blocks) if s < before and e - s == 1 and _CONTENTS_RE.match(visible[s])),
                None)
    if head is None:
        return None
    entries: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for k in range(head + 1, len(blocks)):
        start, end = blocks[k]
        if start >= before or prose[k]:
            return entries, start
        if end - start == 1 and _words(visible[start]) in seen and any(prose[k + 1:k + 1 + _PROSE_WITHIN]):
            return entries, start   # an entry met again with the text below it: the list has ended
        for i in range(start, end):
            words = _words(visible[i])
            seen.add(words)
            if len(words) >= MIN_ENTRY_WORDS and not is_numbered(visible[i]):
                entries.append(words)
    return entries, len(visible)


def listed_section_lines(visible: Sequence[str], blocks: Sequence[tuple[int, int]], prose: Sequence[bool],
                         before: int, *, is_numbered: Callable[[str], bool]) -> list[int]:
    """Indices of the lines after the contents list (found before line ``before``) that repeat one of its
    unnumbered entries (module docstring); empty when there is no such list or too few of its entries stand in
    the text.  ``prose`` says which blocks are paragraphs of prose, ``is_numbered`` which lines are numbered
    headings (both as the book reader decides them)."""
    found = _contents_entries(visible, blocks, prose, before, is_numbered)
    if found is None or not found[0]:
        return []
    entries, list_end = found
    lines: list[int] = []
    matched: set[tuple[str, ...]] = set()
    for start, end in blocks:
        if start < list_end or end - start != 1:
            continue
        line = visible[start]
        if any(ch.islower() for ch in line) or is_numbered(line) and not _LEADING_NUMBER_RE.match(line):
            continue
        words = _words(line)
        entry = next((e for e in entries if words[:len(e)] == e), None)
        if entry is not None:
            lines.append(start)
            matched.add(entry)
    return lines if len(matched) >= MIN_LISTED_SECTIONS else []
