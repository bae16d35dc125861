"""Language-model relevance (Section 3.3): how much better the adaptive model predicts the text than the trigram.

Per predicted token, ``R(H, w) = log p_exp(w | H) - log p_tri(w | w-2, w-1)`` (natural log).  Per sentence, the
paper's feature uses the length-normalised sum -- the log of the geometric mean ratio -- over the sentence's
predicted tokens (its words and its ``</s>``, the same tokens perplexity counts).  The trigger cache runs across
sentence *and document* boundaries, exactly as in an unsegmented stream: that is what makes relevance dip after a
topic change.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import SegvizError
from .lm.models import LanguageModels


def _check(lms) -> None:
    if not isinstance(lms, LanguageModels):
        raise SegvizError("relevance needs trained LanguageModels (see `segviz lm train`)")


def word_relevance(lms: LanguageModels, sentences: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """``(R, sentence_index)`` for every predicted token of the stream (words and each ``</s>``)."""
    _check(lms)
    lp_exp, lp_tri, stream = lms.score(sentences)
    return lp_exp - lp_tri, stream.sentence


def sentence_relevance(lms: LanguageModels, sentences: Sequence[Sequence[str]]) -> np.ndarray:
    """Per-sentence relevance, shape ``(n_sentences,)``: mean R over the sentence's predicted tokens.

    Every sentence has at least its ``</s>`` token, so an empty sentence gets the (usually slightly negative)
    relevance of predicting its end: ``-log Z(H)``.
    """
    r, sent = word_relevance(lms, sentences)
    n = len(sentences)
    sums = np.bincount(sent, weights=r, minlength=n)
    counts = np.bincount(sent, minlength=n)
    return sums / np.maximum(counts, 1)


#: sentences scored at once by :func:`sentence_relevance_chunks` (about 1.2 million tokens of book prose: some
#: 150 MB of the scan's arrays, where the whole 10^6-sentence stream at once took 2.3 GB)
RELEVANCE_CHUNK = 50_000


def cache_prefix(sentences: Sequence[Sequence[str]], start: int, window: int) -> int:
    """The first sentence of the shortest run of sentences ending before ``start`` that holds at least ``window``
    words (0 when the stream before ``start`` holds fewer): scored first, they fill the trigger model's cache as
    the whole stream would have it at ``start``."""
    words, first = 0, start
    while first > 0 and words < window:
        first -= 1
        words += len(sentences[first])
    return first


def sentence_relevance_chunks(lms: LanguageModels, sentences: Sequence[Sequence[str]], *,
                              chunk: int = RELEVANCE_CHUNK, start: int = 0, stop: int | None = None):
    """Per-sentence relevance a chunk of sentences at a time: yields ``(start, values)``, ``values`` the relevance
    of sentences ``start .. start + len(values) - 1``, in order, for the sentences ``start .. stop - 1`` of the
    stream (all of it by default; a part is scored as it is within the whole stream).

    Each chunk is scored after the sentences before it that fill the trigger model's cache window (their own scores
    dropped): the trigram's history starts at each sentence and the cache holds the last ``window`` words, so every
    value is :func:`sentence_relevance`'s up to rounding (the scan's running sums are refreshed at other tokens;
    1e-12 relative), while the scan's arrays cover one chunk, not the stream."""
    _check(lms)
    if chunk < 1:
        raise SegvizError("a relevance chunk needs at least one sentence")
    window = int(lms.trigger_.window)
    stop = len(sentences) if stop is None else min(int(stop), len(sentences))
    for lo in range(max(int(start), 0), stop, chunk):
        hi = min(lo + chunk, stop)
        first = cache_prefix(sentences, lo, window)
        values = sentence_relevance(lms, sentences[first:hi])
        yield lo, values[lo - first:]


def relevance_profile(lms: LanguageModels, corpus, *, before: int = 10, after: int = 30,
                      relevance: np.ndarray | None = None) -> dict:
    """The paper's relevance figure: mean sentence relevance against position relative to a segment start.

    Offset ``o >= 0`` is the ``o``-th sentence of a document (every document but the first, whose cache starts
    empty); offset ``o < 0`` is ``-o`` sentences before the start of the *next* document (every document but the
    last).  A sentence thus contributes once on each side.  Returns ``{"offsets", "mean", "count"}`` as lists.
    """
    _check(lms)
    if before < 0 or after < 1:
        raise SegvizError("relevance_profile needs before >= 0 and after >= 1")
    masses = np.asarray(corpus.masses(), dtype=np.int64)
    if relevance is None:
        relevance = sentence_relevance(lms, corpus.sentences())
    relevance = np.asarray(relevance, dtype=float)
    n = int(masses.sum())
    if relevance.shape != (n,):
        raise SegvizError(f"relevance has shape {relevance.shape}, the corpus has {n} sentences")
    starts = np.concatenate([[0], np.cumsum(masses)[:-1]])
    doc = np.repeat(np.arange(masses.size), masses)
    pos = np.arange(n) - starts[doc]  # offset from own document start
    neg = pos - masses[doc]  # offset from the next document's start (negative)
    offsets = np.arange(-before, after)
    sums = np.zeros(offsets.size)
    counts = np.zeros(offsets.size, dtype=np.int64)
    sel = (doc > 0) & (pos < after)
    np.add.at(sums, pos[sel] + before, relevance[sel])
    np.add.at(counts, pos[sel] + before, 1)
    sel = (doc < masses.size - 1) & (neg >= -before)
    np.add.at(sums, neg[sel] + before, relevance[sel])
    np.add.at(counts, neg[sel] + before, 1)
    mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return {"offsets": offsets.tolist(), "mean": [None if np.isnan(m) else float(m) for m in mean],
            "count": counts.tolist()}
