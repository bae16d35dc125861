"""``lm train --scheduler``: the language models' counting passes on a Dask cluster.

:class:`ClusterText` is a :class:`segviz.lm.training_text.TrainingText` whose sentences are cut into parts of
whole sentences, sent once to the workers and kept there.  The word counts and the n-gram counts of any run of
sentences (the trigram, its refit on all the text, the cross-fitted priors' folds) are taken part by part on the
workers with :mod:`segviz.lm.ngram_counts`' functions and merged here in order: integer counts, so the merged
counts are the counts of the whole run, exactly.  Pair selection's co-occurrence counts are taken one band of
target words per task (:func:`segviz.lm.pairs.band_best`), each row in one pass over the whole stream in stream
order, as on one machine: a split of the *text* would add the float weights of a row in another order and could
change the pairs at the cut-off.  Encoding the stream and Improved Iterative Scaling run on the client.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ..errors import SegvizError
from ..lm.ngram_counts import (
    NgramCounts,
    count_words,
    merge_ngram_counts,
    merge_word_counts,
)
from ..lm.training_text import count_ngrams

#: sentences per part: a few hundred thousand words, counted in well under a second
DEFAULT_PART_SENTENCES = 20_000
#: how often Dask runs a counting task again after it raised
RETRIES = 2


def _count_words(part: Sequence, start: int, stop: int) -> Counter:
    return count_words(part[start:stop])


def _count_ngrams(part: Sequence, start: int, stop: int, word_index: dict[str, int]) -> NgramCounts:
    return count_ngrams(part[start:stop], word_index)


class ClusterText:
    """A :class:`~segviz.lm.training_text.TrainingText` counted on ``client``'s workers (module docstring)."""

    def __init__(self, client, sentences: Sequence[Sequence[str]], *, part_sentences: int = DEFAULT_PART_SENTENCES):
        self._client = client
        self._sentences = sentences
        n = len(sentences)
        self._bounds = [(a, min(a + part_sentences, n)) for a in range(0, n, max(1, part_sentences))]
        self._parts = client.scatter([list(sentences[a:b]) for a, b in self._bounds], hash=False)

    @property
    def n_sentences(self) -> int:
        return len(self._sentences)

    def _runs(self, start: int, stop: int):
        """``(part, local start, local stop)`` of the parts that sentences ``start:stop`` lie in, in order."""
        for part, (a, b) in zip(self._parts, self._bounds):
            lo, hi = max(a, start), min(b, stop)
            if lo < hi:
                yield part, lo - a, hi - a

    def _gather(self, futures: list) -> list:
        try:
            return self._client.gather(futures)
        except SegvizError:
            raise
        except Exception as exc:   # a worker holding a part died: the part is gone with it
            raise SegvizError(f"the cluster lost a counting task ({type(exc).__name__}: {exc}); run the command "
                              "again") from None

    def word_counts(self, start: int, stop: int) -> Counter:
        futures = [self._client.submit(_count_words, part, a, b, retries=RETRIES, pure=False)
                   for part, a, b in self._runs(start, stop)]
        return merge_word_counts(self._gather(futures))

    def ngram_counts(self, spans: Sequence[tuple[int, int]], word_index: dict[str, int],
                     stream=None) -> list[NgramCounts]:
        index = self._send(word_index)
        per_span = [[self._client.submit(_count_ngrams, part, a, b, index, retries=RETRIES, pure=False)
                     for part, a, b in self._runs(start, stop)] for start, stop in spans]
        counted = self._gather([f for futures in per_span for f in futures])
        out, i = [], 0
        for futures in per_span:
            out.append(merge_ngram_counts(counted[i:i + len(futures)]))
            i += len(futures)
        return out

    def sentences(self, start: int, stop: int) -> list[Sequence[str]]:
        return list(self._sentences[start:stop])

    @property
    def mapper(self) -> Callable[..., list]:
        return self._map

    def _map(self, func: Callable, items: Sequence, *shared) -> list:
        """``[func(item, *shared) for item in items]`` on the workers (each shared argument sent once to each)."""
        sent = [self._send(value) for value in shared]
        futures = [self._client.submit(func, item, *sent, retries=RETRIES, pure=False) for item in items]
        return self._gather(futures)

    def _send(self, value):
        """``value`` on every worker once, as a future (wrapped: Dask would scatter a dict's or a list's items)."""
        return self._client.scatter([value], broadcast=True, hash=False)[0]

    def close(self) -> None:
        """Let the workers drop the parts."""
        self._client.cancel(self._parts)
