"""The text language models are trained on, and where its counting passes run.

Training (:func:`segviz.lm.models.LanguageModels.fit_iter`) reaches its sentences through a :class:`TrainingText`:
the word counts of a run of sentences, the n-gram counts of runs of sentences in a vocabulary, the sentences
themselves (the trigger model scans the encoded stream here), and where to map a function over items (the
co-occurrence bands of pair selection).  :class:`SentenceText` holds tokenised sentences in memory and does all
of it in this process; ``segviz.distributed`` implements the same protocol on a Dask cluster.  Both count with
the functions of :mod:`segviz.lm.ngram_counts`, whose counts of parts merge into exactly the counts of the whole,
so both train the same model.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from .ngram_counts import NgramCounts, count_stream, count_words
from .trigram import BOS_ID, TokenStream, encode_stream


def count_ngrams(sentences: Sequence[Sequence[str]], word_index: dict[str, int]) -> NgramCounts:
    """The n-gram counts of tokenised ``sentences`` in the vocabulary ``word_index`` (ids ``0..len - 1``)."""
    return count_stream(encode_stream(sentences, word_index), len(word_index), BOS_ID)


def slice_stream(stream: TokenStream, start: int, stop: int) -> TokenStream:
    """The tokens of sentences ``start:stop`` of an encoded stream, as a stream of their own."""
    a, b = np.searchsorted(stream.sentence, [start, stop])
    return TokenStream(w=stream.w[a:b], h1=stream.h1[a:b], h2=stream.h2[a:b], sentence=stream.sentence[a:b] - start,
                       is_word=stream.is_word[a:b], oov=stream.oov[a:b], n_sentences=stop - start)


class TrainingText(Protocol):
    """The sentences language models are trained on (module docstring).  Sentences are addressed by their index
    in the text; ``start``/``stop`` bound a run of them (stop exclusive)."""

    @property
    def n_sentences(self) -> int: ...

    def word_counts(self, start: int, stop: int) -> Counter:
        """:func:`~segviz.lm.ngram_counts.count_words` of sentences ``start:stop``."""
        ...

    def ngram_counts(self, spans: Sequence[tuple[int, int]], word_index: dict[str, int],
                     stream: TokenStream | None = None) -> list[NgramCounts]:
        """The n-gram counts of each run of sentences in ``spans``, in order.  ``stream``, when given, holds the
        text's sentences ``0:spans[-1][1]`` already encoded in ``word_index``, for an implementation that can
        count it where it is."""
        ...

    def sentences(self, start: int, stop: int) -> list[Sequence[str]]: ...

    #: ``mapper(func, items, *shared)`` computes ``[func(item, *shared) for item in items]`` where this text's work
    #: runs (a cluster), results in order; ``None``: in this process, on its cores
    mapper: Callable[..., list] | None


class SentenceText:
    """A :class:`TrainingText` of tokenised sentences in memory, counted in this process."""

    def __init__(self, sentences: Sequence[Sequence[str]]):
        self._sentences = sentences

    @property
    def n_sentences(self) -> int:
        return len(self._sentences)

    def word_counts(self, start: int, stop: int) -> Counter:
        return count_words(self._sentences[start:stop])

    def ngram_counts(self, spans: Sequence[tuple[int, int]], word_index: dict[str, int],
                     stream: TokenStream | None = None) -> list[NgramCounts]:
        if stream is not None:   # already encoded here: count the stream's runs instead of encoding them again
            return [count_stream(slice_stream(stream, a, b), len(word_index), BOS_ID) for a, b in spans]
        return [count_ngrams(self._sentences[a:b], word_index) for a, b in spans]

    def sentences(self, start: int, stop: int) -> list[Sequence[str]]:
        return list(self._sentences[start:stop])

    mapper = None
