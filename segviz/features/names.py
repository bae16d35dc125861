"""The names family (beyond the paper): does the cast of proper nouns change across the gap?

A new chapter brings other characters on stage, a new section other places and people.  Names are read from
the raw sentence texts (tokens are lowercased): capitalised words that do not open the sentence (nor follow an
opening quote, colon or bracket), whose lowercase form the text never uses, and that are not "I".  Lines
written mostly in capitals without final punctuation (titles, headings) contribute none.

* ``names_overlap`` -- the cosine between the sets of names of the previous k and the next k sentences;
* ``names_new`` -- the share of the names of the next k sentences that the document has not mentioned before.

Windows are clipped to the document; a gap with no name on a side gets no value, nor does a gap between two
documents.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from segviz.features.family import IntervalFamily
from segviz.features.questions import IntervalQuestion, Signal, Window, interval_grid, register_signal
from segviz.features.stream import TokenStream

__all__ = ["NAME_WINDOWS", "sentence_names", "unit_names", "context_names", "name_stream", "names_questions", "FAMILY"]

NAME_WINDOWS: tuple[int, ...] = (5, 10, 25)
OVERLAP_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.1, 0.2, 0.3, 0.5, math.inf)
NEW_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.25, 0.5, 0.75, 0.99, math.inf)

_WORD = re.compile(r"(?:``|[\"“„«(\[:—])|[^\W\d_](?:[\w-]|['’.](?=\w))*", re.UNICODE)
_OPENERS = frozenset('``"“„«([:—')
_ENDS = re.compile(r"[.!?…][\"'”’)\]]*\s*$")


def _candidates(text: str, tokens: Sequence[str] | None = None) -> list[str]:
    """Capitalised words of one sentence that neither open it nor follow an opener (``tokens``: the sentence's
    ``_WORD`` matches, when already found)."""
    if tokens is None:
        tokens = _WORD.findall(text)
    words = [t for t in tokens if t not in _OPENERS]
    # a title or heading (capitalised words, no final punctuation): no word is telling.  The final punctuation is
    # tested first: most sentences have it, and then the capitals need not be counted
    if not words or (not _ENDS.search(text) and sum(w[0].isupper() for w in words) > 0.6 * len(words)):
        return []
    out, initial = [], True
    for t in tokens:
        if t in _OPENERS:
            initial = True
            continue
        if not initial and t[0].isupper() and t not in ("I", "I'm", "I'll", "I've", "I'd"):
            out.append(t)
        initial = False
    return out


def sentence_names(texts: Sequence[str]) -> list[tuple[str, ...]]:
    """The names (lowercased) of every sentence: capitalised non-initial words the text never writes in lower
    case."""
    tokens = [_WORD.findall(text) for text in texts]
    lower = {t for found in tokens for t in found if t[:1].islower()}
    return [tuple(sorted({w.lower() for w in _candidates(text, found) if w and w.lower() not in lower}))
            for text, found in zip(texts, tokens)]


def unit_names(texts: Sequence[str], groups: Sequence[int]) -> list[tuple[str, ...]]:
    """:func:`sentence_names` decided per source unit (``groups``: sentence counts of consecutive books or files):
    a word one book writes in lower case is still a name in another, and a training book's names do not depend on
    the books it is read with."""
    out: list[tuple[str, ...]] = []
    start = 0
    for size in groups:
        out.extend(sentence_names(texts[start:start + size]))
        start += size
    return out


def context_names(context) -> list[tuple[str, ...]]:
    """Each sentence's names in ``context`` (:func:`unit_names` over its source groups), computed once per context:
    the names family and the paragraph measurements both read them."""
    return context.memo(("names", "per sentence"), lambda: unit_names(context.texts, context.groups))


def name_stream(context) -> tuple[TokenStream, np.ndarray]:
    """The stream's names as a token stream (one per context), and each sentence's source group."""
    def build():
        names = context_names(context)
        vocab = sorted({w for s in names for w in s})
        return TokenStream(names, vocab), context.group_of_sentence()

    return context.memo(("names", "stream"), build)


def _set_sizes(context, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct names before / after each gap (k sentences, within the document) and shared by both."""
    def build():
        stream, group = name_stream(context)
        return stream.window_set_sizes(k, group)

    return context.memo(("names", "set sizes", k), build)


def _overlap(context, window: Window) -> np.ndarray:
    before, after, inter = _set_sizes(context, window.end)
    sizes = before * after
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(sizes > 0, inter / np.sqrt(np.where(sizes > 0, sizes, 1.0)), np.nan)
    return context.inside_groups(out)


def _first_mentions(context) -> np.ndarray:
    """Per sentence: how many names the document mentions there for the first time."""
    stream, group = name_stream(context)
    return stream.first_occurrences(group)


def _new(context, window: Window) -> np.ndarray:
    k = window.end
    _, distinct, _ = _set_sizes(context, k)
    firsts = context.memo(("names", "first mentions"), lambda: _first_mentions(context))
    new, _ = context.window_sums(firsts, Window("sentence", 0, k))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(distinct > 0, new / np.where(distinct > 0, distinct, 1.0), np.nan)
    return context.inside_groups(out)


NAMES_OVERLAP = register_signal(Signal(
    name="names_overlap", kind="names", symbol="N",
    subject=lambda w: f"the overlap (cosine) of the names in the previous {w.end} and next {w.end} sentences",
    tag=lambda w: f"N±{w.end}", compute=_overlap))
NAMES_NEW = register_signal(Signal(
    name="names_new", kind="names", symbol="F",
    subject=lambda w: f"the share of the names in the next {w.end} sentences that the document has not used before",
    tag=lambda w: f"Nnew+{w.end}", compute=_new))


def names_questions(windows: Sequence[int] = NAME_WINDOWS) -> list[IntervalQuestion]:
    out = [IntervalQuestion(NAMES_OVERLAP.name, Window("sentence", -k, k), lo, hi)
           for k in windows for lo, hi in interval_grid(OVERLAP_EDGES)]
    out += [IntervalQuestion(NAMES_NEW.name, Window("sentence", 0, k), lo, hi)
            for k in windows for lo, hi in interval_grid(NEW_EDGES)]
    return out


FAMILY = IntervalFamily(
    "names", lambda settings: names_questions(),
    summary="change in the set of proper nouns (capitalised, not sentence-initial) across the gap",
    needs=frozenset({"texts"}))
