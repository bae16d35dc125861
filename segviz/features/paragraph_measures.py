"""Paragraph-level measurements at every paragraph start (beyond the paper): what a reader sees around a gap in a
book, as numbers a non-linear scorer learns from (:mod:`segviz.gap_scorer`).

Every chapter start of a book is a paragraph start, so the question "does a chapter start here?" is asked of
paragraph starts.  At each gap where a paragraph starts (inside one source unit: a book, a file) a row of
:data:`MEASUREMENTS`:

* ``tfidf_cos_k``, ``tfidf_z_k``, ``tfidf_depth_k`` -- the tf-idf block cosine of the previous and next k
  sentences, its z-score and valley depth in the unit, k = 5, 10, 25, 50, 100 (:mod:`segviz.features.tfidf`);
* ``paragraph_cos_m`` -- the tf-idf cosine of the previous m and the next m *paragraphs*, m = 1, 3, 8, 20 (idf
  within the unit);
* the paragraphs on either side: their sentences, words and share of quoting sentences; whether the sentences on
  either side quote and how many words they hold; a closing "!" or "?" before the gap; time words
  (:data:`segviz.features.transitions.TIME_WORDS`) and "had" in the opening sentence, time words in its first 4;
* ``new_names_k`` -- the share of the names of the next k sentences (k = 10, 25, 50) the unit has not named before
  (:func:`segviz.features.names.context_names`).

Every window is clipped to the gap's source unit, and a unit's statistics (idf, first mentions, names) are its own,
so a book's rows do not depend on the books read beside it.  Rows of gaps where no paragraph starts, and of gaps
between two units, are NaN.  Computed once per context (:meth:`FeatureContext.memo`).
"""
from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp

from segviz.features.context import FeatureContext
from segviz.features.dialogue import context_quoting
from segviz.features.names import context_names
from segviz.features.questions import Window
from segviz.features.tfidf import TFIDF, TFIDF_DEPTH, TFIDF_Z, term_counts
from segviz.features.transitions import TIME_WORDS

__all__ = ["MEASUREMENTS", "MEASUREMENTS_MEMO", "TFIDF_SPANS", "PARAGRAPH_SPANS", "NAME_SPANS", "paragraph_measurements",
           "paragraph_start_gaps", "sentence_words"]

TFIDF_SPANS: tuple[int, ...] = (5, 10, 25, 50, 100)
PARAGRAPH_SPANS: tuple[int, ...] = (1, 3, 8, 20)
NAME_SPANS: tuple[int, ...] = (10, 25, 50)
#: the key :func:`paragraph_measurements` caches its matrix under in a context (``FeatureContext.memo``)
MEASUREMENTS_MEMO = ("paragraph measurements",)
#: the columns of :func:`paragraph_measurements`, in order
MEASUREMENTS: tuple[str, ...] = (
    *(f"tfidf_{part}_{k}" for k in TFIDF_SPANS for part in ("cos", "z", "depth")),
    *(f"paragraph_cos_{m}" for m in PARAGRAPH_SPANS),
    "sentences_before", "sentences_after", "words_before", "words_after", "quoting_before", "quoting_after",
    "quote_after", "quote_before", "sentence_words_after", "sentence_words_before", "closing_exclamation",
    "time_words_opening", "had_opening", "time_words_first_4",
    *(f"new_names_{k}" for k in NAME_SPANS),
)
_WORD = re.compile(r"\w")
_CLOSING = re.compile(r"[!?][\"'\u201d\u2019]*\s*$")


def sentence_words(context: FeatureContext) -> np.ndarray:
    """Per sentence (n,): its words, the tokens holding a letter or digit (computed once per context)."""
    return context.memo(("sentence words",), lambda: np.fromiter(
        (sum(1 for t in s if _WORD.search(t)) for s in context.sentences), dtype=np.float64,
        count=context.n_sentences))


def paragraph_start_gaps(context: FeatureContext) -> np.ndarray:
    """Per event (n-1,): True where a paragraph starts at the gap inside one source unit."""
    marks = context.paragraph_starts
    if marks is None:
        return np.zeros(context.n_events, dtype=bool)
    return (marks[1:] == 1.0) & ~context.group_edges()


#: paragraph indices whose cosines are computed together: the band products of one block stay a few megabytes
#: (all of a million one-sentence paragraphs at once took over a gigabyte for the 20-paragraph span)
_COSINE_BLOCK = 1 << 15


def _band(n: int, lo: int, hi: int, start: int = 0, stop: int | None = None) -> sp.csr_matrix:
    """(stop-start) x n: row r sums rows lo+j .. hi+j-1 of an n-row matrix (clipped to 0..n), j = start + r, for
    j in ``start..stop-1`` (by default all of 0..n)."""
    stop = n + 1 if stop is None else stop
    rows, cols = [], []
    for shift in range(lo, hi):
        j = np.arange(start, stop)
        keep = (j + shift >= 0) & (j + shift < n)
        rows.append(j[keep] - start)
        cols.append(j[keep] + shift)
    r, c = np.concatenate(rows), np.concatenate(cols)
    return sp.csr_matrix((np.ones(r.size), (r, c)), shape=(stop - start, n))


def _paragraph_cosines(vectors: sp.csr_matrix, spans) -> dict[int, np.ndarray]:
    """Per m: the cosine, at every paragraph index j = 0..P, of paragraphs j-m..j-1 against j..j+m-1."""
    P = vectors.shape[0]
    out = {m: np.zeros(P + 1) for m in spans}
    for start in range(0, P + 1, _COSINE_BLOCK):
        stop = min(start + _COSINE_BLOCK, P + 1)
        for m in spans:
            before, after = _band(P, -m, 0, start, stop) @ vectors, _band(P, 0, m, start, stop) @ vectors
            dot = np.asarray(before.multiply(after).sum(axis=1)).ravel()
            norm = np.sqrt(np.asarray(before.multiply(before).sum(axis=1)).ravel()
                           * np.asarray(after.multiply(after).sum(axis=1)).ravel())
            with np.errstate(invalid="ignore", divide="ignore"):
                out[m][start:stop] = np.where(norm > 0, dot / np.where(norm > 0, norm, 1.0), 0.0)
    return out


def _unit_rows(sentences, texts, starts: np.ndarray, names, quote: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The paragraph-level columns (all but the tf-idf block ones) at paragraph starts ``starts[1:]`` of one unit
    (``starts``: the first sentence of each paragraph, from 0; ``names``, ``quote``, ``words``: the unit's
    sentences' names, quoting flags and word counts)."""
    n = len(sentences)
    lengths = np.diff(np.r_[starts, n]).astype(np.float64)
    para_words = np.add.reduceat(words, starts)
    para_quote = np.add.reduceat(quote, starts) / lengths
    counts = term_counts(sentences).tocsr()
    idf = np.log((1.0 + n) / (1.0 + np.bincount(counts.indices, minlength=counts.shape[1]))) + 1.0
    owner = sp.csr_matrix((np.ones(n), (np.searchsorted(starts, np.arange(n), side="right") - 1, np.arange(n))),
                          shape=(len(starts), n))
    vectors = (owner @ sp.csr_matrix(counts.multiply(idf[None, :]))).tocsr()
    cosines = _paragraph_cosines(vectors, PARAGRAPH_SPANS)
    first_mentions, mentions, seen = np.zeros(n), np.zeros(n), set()
    for i, found in enumerate(names):
        mentions[i] = len(found)
        first_mentions[i] = sum(1 for x in set(found) if x not in seen)
        seen.update(found)
    cum_first, cum_all = np.r_[0.0, np.cumsum(first_mentions)], np.r_[0.0, np.cumsum(mentions)]
    # column by column into one array: a Python list of floats per paragraph start took about 700 bytes each
    # (0.7 GB for a million one-sentence paragraphs) before the array was made
    b = starts[1:].astype(np.int64)
    count = b.size
    openings = [sentences[i] for i in b]
    columns = [cosines[m][1:len(starts)] for m in PARAGRAPH_SPANS]
    columns += [lengths[:-1], lengths[1:], para_words[:-1], para_words[1:], para_quote[:-1], para_quote[1:],
                quote[b], quote[b - 1], words[b], words[b - 1],
                np.fromiter((float(bool(_CLOSING.search(texts[i - 1]))) for i in b), dtype=np.float64, count=count),
                np.fromiter((sum(w in TIME_WORDS for w in o) for o in openings), dtype=np.float64, count=count),
                np.fromiter((sum(w == "had" for w in o) for o in openings), dtype=np.float64, count=count),
                np.fromiter((sum(w in TIME_WORDS for w in o[:4]) for o in openings), dtype=np.float64, count=count)]
    for span in NAME_SPANS:
        hi = np.minimum(b + span, n)
        total = cum_all[hi] - cum_all[b]
        with np.errstate(invalid="ignore", divide="ignore"):
            columns.append(np.where(total != 0, (cum_first[hi] - cum_first[b]) / np.where(total != 0, total, 1.0),
                                    np.nan))
    out = np.empty((count, len(MEASUREMENTS) - 3 * len(TFIDF_SPANS)), dtype=np.float64)
    for k, column in enumerate(columns):
        out[:, k] = column
    return out


def paragraph_measurements(context: FeatureContext) -> np.ndarray:
    """(n-1) x len(:data:`MEASUREMENTS`): the measurements at every gap where a paragraph starts inside a source
    unit, NaN rows elsewhere (and everywhere when the reader knew no paragraphs)."""
    def build() -> np.ndarray:
        out = np.full((context.n_events, len(MEASUREMENTS)), np.nan)
        at = paragraph_start_gaps(context)
        if not at.any():
            return out
        n_block = 3 * len(TFIDF_SPANS)
        for k_i, k in enumerate(TFIDF_SPANS):
            window = Window("sentence", -k, k)
            for p_i, signal in enumerate((TFIDF, TFIDF_Z, TFIDF_DEPTH)):
                out[at, 3 * k_i + p_i] = context.values(signal, window)[at]
        names = context_names(context) if context.has_texts else [()] * context.n_sentences
        quote = context_quoting(context)
        marks = context.paragraph_starts
        words = sentence_words(context)
        for start, size in zip(context.group_starts, context.groups):
            end = int(start + size)
            local = np.flatnonzero(marks[start:end] == 1.0)
            local = np.union1d([0], local)
            if local.size < 2:
                continue
            rows = _unit_rows(context.sentences[start:end], context.texts[start:end], local, names[start:end],
                              quote[start:end], words[start:end])
            out[start + local[1:] - 1, n_block:] = rows
        out[~at] = np.nan
        return out

    return context.memo(MEASUREMENTS_MEMO, build)
