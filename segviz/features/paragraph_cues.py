"""The words around a paragraph start, as hashed terms a linear model learns from (beyond the paper).

A chapter's first sentences and the last ones before it are worded differently from other paragraphs' (a chapter
opens on a time, a place, a name -- ``the next morning``, ``it was``; one closes on a parting or a night), which the
measurements of :mod:`segviz.features.paragraph_measures` see only through a few hand-picked time words.  At every
paragraph start (inside one source unit) :func:`cue_matrix` gives a row of :data:`CUE_HASH_SIZE` hashed term
indicators:

* ``o:w`` and ``c:w`` -- the words of the two sentences opening the paragraph and of the two closing the one before
  (at most :data:`CUE_WORDS` each), ``o2:a_b`` and ``c2:a_b`` their first and last bigrams;
* ``o@i:w`` and ``c@i:w`` -- the first three words of the opening and the last three of the closing, by position.

Words are lower-cased: some books print a chapter's first words in capitals, which would give a boundary away.
Windows never reach into another source unit.  The hashing is scikit-learn's ``FeatureHasher`` (signed 32-bit
MurmurHash3, seed 0), stable across its versions, so a stored weight vector reads new text the same way.  Rows
follow :func:`~segviz.features.paragraph_measures.paragraph_start_gaps`; computed once per context.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from segviz.features.context import FeatureContext
from segviz.features.paragraph_measures import paragraph_start_gaps

__all__ = ["CUE_HASH_BITS", "CUE_HASH_SIZE", "CUE_WORDS", "CUES_MEMO", "cue_terms", "cue_matrix"]

CUE_HASH_BITS = 18
CUE_HASH_SIZE = 1 << CUE_HASH_BITS
#: the words of each side read (the two sentences' first or last)
CUE_WORDS = 30
#: the key :func:`cue_matrix` caches its matrix under in a context (``FeatureContext.memo``)
CUES_MEMO = ("paragraph cues",)
_BIGRAM_WORDS = 12
_POSITIONS = 3


def _words(tokens) -> list[str]:
    return [t.lower() for t in tokens if any(ch.isalnum() for ch in t)]


def cue_terms(opening: list[str], closing: list[str]) -> list[str]:
    """The terms of one paragraph start from its ``opening`` words and the ``closing`` words before it."""
    opening, closing = opening[:CUE_WORDS], closing[-CUE_WORDS:]
    terms = [f"o:{w}" for w in opening] + [f"c:{w}" for w in closing]
    head, tail = opening[:_BIGRAM_WORDS], closing[-_BIGRAM_WORDS:]
    terms += [f"o2:{a}_{b}" for a, b in zip(head, head[1:])]
    terms += [f"c2:{a}_{b}" for a, b in zip(tail, tail[1:])]
    terms += [f"o@{i}:{w}" for i, w in enumerate(opening[:_POSITIONS])]
    terms += [f"c@{i}:{w}" for i, w in enumerate(reversed(closing[-_POSITIONS:]))]
    return terms


def _hasher():
    try:
        from sklearn.feature_extraction import FeatureHasher
    except ImportError:   # pragma: no cover - scikit-learn is a dependency
        from segviz.errors import SegvizError
        raise SegvizError("the paragraph cues need scikit-learn") from None
    return FeatureHasher(n_features=CUE_HASH_SIZE, input_type="string", alternate_sign=False)


def cue_matrix(context: FeatureContext) -> sp.csr_matrix:
    """(paragraph starts) x :data:`CUE_HASH_SIZE`: 0/1 term indicators at each gap where a paragraph starts inside
    a source unit, in gap order."""
    def build() -> sp.csr_matrix:
        gaps = np.flatnonzero(paragraph_start_gaps(context))
        unit = context.group_of_sentence()
        n = context.n_sentences
        words: dict[int, list[str]] = {}   # a sentence is read by up to four gaps: its words are taken once

        def words_of(i: int) -> list[str]:
            if i not in words:
                words[i] = _words(context.sentences[i])
            return words[i]

        rows = []
        for g in gaps:
            here = unit[g + 1]
            opening = [w for i in (g + 1, g + 2) if i < n and unit[i] == here for w in words_of(i)]
            closing = [w for i in (g - 1, g) if i >= 0 and unit[i] == unit[g] for w in words_of(i)]
            rows.append(cue_terms(opening, closing))
        matrix = _hasher().transform(rows).tocsr() if rows else sp.csr_matrix((0, CUE_HASH_SIZE))
        matrix.data = np.minimum(matrix.data, 1.0)
        return matrix

    return context.memo(CUES_MEMO, build)
