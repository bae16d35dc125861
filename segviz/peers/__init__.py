"""Peer segmenters (unsupervised, no model needed): TextTiling (Hearst 1997) and C99 (Choi 2000).

They answer the user's first question -- is the paper's model better than what I already use? -- on the same
documents and metrics (``segviz compare``).  Each peer maps tokenised sentences to masses (segment lengths).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import SegvizError
from ._text import default_stopwords, token_words
from .c99 import C99, preload_stemmer
from .texttiling import TextTiling

PEERS = {"texttiling": TextTiling, "c99": C99}


def segment_with(name: str, sentences: Sequence[Sequence[str]], **params) -> tuple[int, ...]:
    """Segment ``sentences`` with the peer called ``name``; ``params`` go to its constructor."""
    try:
        cls = PEERS[name]
    except KeyError:
        raise SegvizError(f"unknown peer segmenter {name!r}; choose from {', '.join(sorted(PEERS))}") from None
    try:
        est = cls(**params)
    except TypeError as exc:
        raise SegvizError(f"{name}: bad parameter ({exc})") from None
    return est.segment(sentences)


__all__ = ["PEERS", "segment_with", "TextTiling", "C99", "preload_stemmer", "default_stopwords", "token_words"]
