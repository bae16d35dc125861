"""Which reader a file needs, decided from its content (the first 256 kB), never from its name.

In order: ``<REUTERS`` -> ``reuters``; a line ``========,LEVEL,TITLE`` -> ``wiki``; a line ``==========`` ->
``choi``; a first line that is a JSON object -> ``jsonl``; otherwise ``text`` or ``lines``:

``text`` when lines hold sentence ends *inside* them (at least :data:`PROSE_INNER_END_FRACTION` of the lines
have a ``. Next`` / ``? "Next`` pattern that is not an abbreviation such as ``Mr. Smith``: a paragraph per line
or hard-wrapped prose), or when the lines are hard-wrapped (at least 20 lines continue a paragraph, and 80% of
those are *full*: the next line's first word would not have fitted on them).  Otherwise (every line one
sentence, or too little text to tell) ``lines``.  ``segviz inspect`` warns about sentences that look like
wrapped lines, and ``--format text`` settles any doubt.
"""
from __future__ import annotations

import json
import re

from .prose import looks_hard_wrapped
from .source import head_text

PROSE_INNER_END_FRACTION = 0.15

_WIKI_RE = re.compile(r"(?m)^========,\d+,")
_CHOI_RE = re.compile(r"(?m)^[ \t]*==========[ \t]*$")
# a word of 2+ characters, optional space, terminal punctuation, closing quotes, space, an opening quote or capital;
# the word is anchored at its start (\b): unanchored, a 256 kB run of letters is tried from each of its positions
_INNER_END_RE = re.compile(r"\b(\w{2,}) ?[.!?][\"'”’)\]]*\s+[\"'“‘(\[]?[A-Z]")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr st jr sr prof gen col capt lt sgt rev hon gov sen rep inc co corp ltd vs etc no nos vol fig mt "
    "ft jan feb mar apr jun jul aug sep sept oct nov dec ave blvd dept univ messrs mme mlle".split())


def has_inner_sentence_end(line: str) -> bool:
    """Does a sentence end inside ``line`` (not at its end), by a pattern that is not an abbreviation?"""
    return any(m.group(1).lower() not in _ABBREVIATIONS for m in _INNER_END_RE.finditer(line))


def looks_like_prose(text: str) -> bool:
    """``text`` rather than ``lines`` (module docstring)."""
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()][:5000]
    if not lines:
        return False
    inner = sum(has_inner_sentence_end(ln) for ln in lines)
    return inner >= PROSE_INNER_END_FRACTION * len(lines) or looks_hard_wrapped(text)


def detect_format(data: bytes) -> str:
    """The reader for a file's bytes: ``reuters``, ``wiki``, ``choi``, ``jsonl``, ``text`` or ``lines``."""
    if b"<REUTERS" in data[:262144]:
        return "reuters"
    head = head_text(data)
    if _WIKI_RE.search(head):
        return "wiki"
    if _CHOI_RE.search(head):
        return "choi"
    first = next((ln.strip() for ln in head.split("\n") if ln.strip()), "")
    if first.startswith("{"):
        try:
            if isinstance(json.loads(first), dict):
                return "jsonl"
        except (json.JSONDecodeError, RecursionError):
            pass
        except ValueError:   # JSON up to an integer beyond Python's 4,300 digits: the JSONL reader says so
            return "jsonl"
        if first == "{":  # a pretty-printed JSON file: the JSONL reader names what it is
            return "jsonl"
    # the last line of the head may be cut mid-way; it cannot mislead a fraction of thousands of lines
    return "text" if looks_like_prose(head) else "lines"
