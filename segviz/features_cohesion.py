"""Lexical-cohesion candidate questions (an addition to the paper, in the spirit of TextTiling).

The paper's candidates (Sections 3.3-3.4) ask about single words and about the language models' relevance.
These ask instead how much the content words of the previous k and the next k sentences overlap -- the cosine
between their sets, as in TextTiling's block comparison (Hearst 1997) -- as interval questions
``low < C <= high`` over a fixed grid, like the relevance questions of Section 3.3.  Computed from the text
itself, so no training vocabulary is needed.  ``build_candidates(..., cohesion=True)`` adds them to the
candidate pool; :func:`segviz.features.evaluate_features` dispatches "cohesion" features here.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from segviz.features import FeatureSpec, Window, _Stream, relevance_intervals

__all__ = [
    "COHESION_EDGES",
    "cohesion_values",
]

#: Lexical cohesion (an addition to the paper, in the spirit of TextTiling): the cosine between the sets of
#: content words of the previous k and the next k sentences, asked as intervals of this grid, for these k.
COHESION_EDGES: tuple[float, ...] = (-math.inf, 0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, math.inf)
COHESION_WINDOWS: tuple[int, ...] = (2, 5, 10)

_CONTENT = re.compile(r"[a-z]")


def _cohesion_description(f: FeatureSpec) -> str:
    k = f.window.end
    what = f"the content-word overlap (cosine) of the previous {k} and next {k} sentences"
    if f.low == -math.inf:
        return f"is {what} C <= {f.high:g}?"
    if f.high == math.inf:
        return f"is {what} C > {f.low:g}?"
    return f"is {what} in {f.low:g} < C <= {f.high:g}?"


def _cohesion_short(f: FeatureSpec) -> str:
    return f"C±{f.window.end} in ({f.low:g},{f.high:g}]"


def cohesion_values(sentences: Sequence[Sequence[str]], k: int) -> np.ndarray:
    """Cosine of the content-word sets of sentences [b-k, b) and [b, b+k) for b = 1..n-1 (0 if one is empty).

    Content words: tokens with a letter that are not on the bundled English stopword list.  Built from the
    sentence-by-word incidence matrix of the text itself, so no training vocabulary is needed.
    """
    from segviz.peers._text import default_stopwords

    stop = default_stopwords()
    content = sorted({t for s in sentences for t in s if t not in stop and _CONTENT.search(t)})
    stream = _Stream(sentences, content)
    P = stream.sentence_window(Window("sentence", -k, 0)).astype(np.float64)
    N = stream.sentence_window(Window("sentence", 0, k)).astype(np.float64)
    inter = np.asarray(P.multiply(N).sum(axis=1)).ravel()
    sizes = np.sqrt(np.asarray(P.sum(axis=1)).ravel() * np.asarray(N.sum(axis=1)).ravel())
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.where(sizes > 0, inter / np.where(sizes > 0, sizes, 1.0), 0.0)
    return cos


def cohesion_specs(edges: Sequence[float] = COHESION_EDGES,
                   windows: Sequence[int] = COHESION_WINDOWS) -> list[FeatureSpec]:
    return [FeatureSpec("cohesion", None, Window("sentence", -k, k), low=lo, high=hi)
            for k in windows for lo, hi in relevance_intervals(edges)]


def _cohesion_block(sentences, specs: Sequence[FeatureSpec]) -> sp.csc_matrix:
    cache: dict[int, np.ndarray] = {}
    cols = []
    for s in specs:
        k = s.window.end
        if k not in cache:
            cache[k] = cohesion_values(sentences, k)
        c = cache[k]
        cols.append((c > s.low) & (c <= s.high))
    if not cols:
        return sp.csc_matrix((max(len(sentences) - 1, 0), 0), dtype=np.int8)
    return sp.csc_matrix(np.column_stack(cols).astype(np.int8))
