"""The counting passes of trigram training: a count of one run of sentences, and a merge of such counts.

Training the Katz trigram (Section 3.1) counts its text twice: the words (the vocabulary is chosen from them),
then the uni-, bi- and trigrams of the text encoded in that vocabulary; the cross-fitted priors of the trigger
model (:mod:`segviz.lm.iis`) are the same n-gram counts over parts of the text.  Every count is an integer and
the trigram history restarts at every sentence, so the counts of a text are exactly the merged counts of any
split of it into runs of whole sentences.  That is why one machine (the whole text as one part) and a cluster
(``segviz.distributed``: parts counted where they lie, merged on the client) train the same model with these
same functions.

N-grams are keyed as in :mod:`segviz.lm.trigram`: ids of :data:`ID_BITS` bits packed into one int64.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

#: bits per word id in an n-gram key: a trigram key (3 x 21 bits) fits in a signed int64
ID_BITS = 21


def ngram_key2(a, b) -> np.ndarray:
    """The int64 key of the bigrams ``(a, b)`` (id arrays)."""
    return (np.asarray(a, dtype=np.int64) << ID_BITS) | np.asarray(b, dtype=np.int64)


def ngram_key3(a, b, c) -> np.ndarray:
    """The int64 key of the trigrams ``(a, b, c)`` (id arrays)."""
    return (np.asarray(a, dtype=np.int64) << (2 * ID_BITS)) | (np.asarray(b, dtype=np.int64) << ID_BITS) | \
        np.asarray(c, dtype=np.int64)


@dataclass(frozen=True)
class NgramCounts:
    """The n-gram counts of a run of sentences encoded in one vocabulary of ``n_ids`` ids.

    ``unigrams[i]``: how often id ``i`` is predicted; ``bigram_keys``/``trigram_keys``: the sorted distinct keys
    with their counts (the sentence-initial history, two sentence starts, which is bigram-only, left out of the
    trigrams); ``n_tokens``: the predicted tokens counted."""

    unigrams: np.ndarray
    bigram_keys: np.ndarray
    bigram_counts: np.ndarray
    trigram_keys: np.ndarray
    trigram_counts: np.ndarray
    n_tokens: int

    @property
    def n_ids(self) -> int:
        return int(self.unigrams.size)


def count_words(sentences: Iterable[Sequence[str]]) -> Counter:
    """How often each token occurs in ``sentences`` (the first pass: the vocabulary is chosen from it)."""
    return Counter(t for s in sentences for t in s)


def merge_word_counts(parts: Iterable[Counter]) -> Counter:
    """The word counts of the parts taken together."""
    total: Counter = Counter()
    for part in parts:
        total.update(part)
    return total


def count_stream(stream, n_ids: int, bos_id: int) -> NgramCounts:
    """The n-gram counts of an encoded stream (a :class:`~segviz.lm.trigram.TokenStream`: its ``w``, ``h1``,
    ``h2`` id arrays, ids below ``n_ids``; ``bos_id`` the sentence start)."""
    bkeys, bcounts = np.unique(ngram_key2(stream.h1, stream.w), return_counts=True)
    m = ~((stream.h2 == bos_id) & (stream.h1 == bos_id))
    tkeys, tcounts = np.unique(ngram_key3(stream.h2[m], stream.h1[m], stream.w[m]), return_counts=True)
    return NgramCounts(np.bincount(stream.w, minlength=n_ids).astype(np.int64), bkeys.astype(np.int64),
                       bcounts.astype(np.int64), tkeys.astype(np.int64), tcounts.astype(np.int64),
                       int(stream.w.shape[0]))


def _merge_keyed(keys: list[np.ndarray], counts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    if len(keys) == 1:
        return keys[0], counts[0]
    merged, where = np.unique(np.concatenate(keys), return_inverse=True)
    total = np.zeros(merged.size, dtype=np.int64)
    np.add.at(total, where.ravel(), np.concatenate(counts))
    return merged, total


def merge_ngram_counts(parts: Sequence[NgramCounts]) -> NgramCounts:
    """The counts of the parts' sentences taken together (the parts share one vocabulary)."""
    parts = list(parts)
    if not parts:
        raise ValueError("no counts to merge")
    if len({p.n_ids for p in parts}) != 1:
        raise ValueError("counts in different vocabularies cannot be merged")
    bkeys, bcounts = _merge_keyed([p.bigram_keys for p in parts], [p.bigram_counts for p in parts])
    tkeys, tcounts = _merge_keyed([p.trigram_keys for p in parts], [p.trigram_counts for p in parts])
    unigrams = np.sum([p.unigrams for p in parts], axis=0, dtype=np.int64)
    return NgramCounts(unigrams, bkeys, bcounts, tkeys, tcounts, sum(p.n_tokens for p in parts))
