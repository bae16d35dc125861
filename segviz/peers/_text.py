"""Shared text handling for the peer segmenters: stopwords and the word filter.

Both peers work on the corpus sentences as given (lowercased tokens from :func:`segviz.corpus.tokenize`); they
only need to decide which tokens count as *words*.  The stopword list is our own file
(``stopwords_en.txt`` next to this module) so nothing is ever downloaded.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from ..errors import SegvizError

STOPWORDS_PATH = Path(__file__).with_name("stopwords_en.txt")

# NLTK's TextTiling keeps only the characters [a-z\-' ] of the lowercased text and then takes \w+ runs, so
# "u.s." becomes "us", "don't" becomes "don" + "t" and digits vanish.  We apply exactly the same rule token
# by token, which makes our TextTiling see the same word stream as NLTK's on the same text.
_DROP = re.compile(r"[^a-z\-' ]")
_SPLIT = re.compile(r"[a-z]+")


@lru_cache(maxsize=1)
def default_stopwords() -> frozenset[str]:
    """The bundled English stopword list (one word per line, ``#`` comments)."""
    try:
        lines = STOPWORDS_PATH.read_text(encoding="utf-8").splitlines()
    except OSError as exc:  # a broken install, not a user error -- but say what is missing
        raise SegvizError(f"cannot read the stopword list {STOPWORDS_PATH}: {exc.strerror}") from exc
    return frozenset(w.strip() for w in lines if w.strip() and not w.startswith("#"))


def resolve_stopwords(stopwords: Iterable[str] | None) -> frozenset[str]:
    """``None`` -> the bundled list; otherwise the given words (lowercased)."""
    if stopwords is None:
        return default_stopwords()
    if isinstance(stopwords, str):
        raise SegvizError("stopwords must be a collection of words, not a single string")
    return frozenset(str(w).lower() for w in stopwords)


@lru_cache(maxsize=200_000)
def token_words(token: str) -> tuple[str, ...]:
    """The alphabetic words NLTK's TextTiling would see in one token (see ``_DROP`` above)."""
    return tuple(_SPLIT.findall(_DROP.sub("", token.lower())))


def validate_sentences(sentences: Sequence[Sequence[str]], *, who: str) -> list[tuple[str, ...]]:
    """Boundary validation: a non-empty sequence of sentences, each a sequence of string tokens."""
    if isinstance(sentences, (str, bytes)):
        raise SegvizError(f"{who}: expected a sequence of tokenised sentences, got a string")
    out = []
    for i, s in enumerate(sentences):
        if isinstance(s, (str, bytes)):
            raise SegvizError(f"{who}: sentence {i} is a string; expected a sequence of tokens")
        out.append(tuple(str(t) for t in s))
    if not out:
        raise SegvizError(f"{who}: no sentences to segment")
    return out
