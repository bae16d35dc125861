"""The token stream behind the vocabulary questions: which word occurs in which window of which event.

Events follow :mod:`segviz.features`: for a stream of ``n`` sentences there are ``n - 1`` events, row ``r``
being the position before sentence ``b = r + 1``.  Everything is built with scipy.sparse from token/sentence
index arrays; the only Python loops run over window offsets, never over tokens x words.  A sentence window is one
sparse product of the word-by-sentence incidence with a band of the window's offsets.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from itertools import chain, repeat

import numpy as np
import scipy.sparse as sp

from segviz.errors import SegvizError
from segviz.features.questions import Window, WordQuestion
from segviz.features.stacking import stack_columns

__all__ = ["TokenStream", "word_block"]


class TokenStream:
    """Integer-coded token stream of one sentence sequence over a word list.

    ``tok`` holds token ids (-1 = not in ``vocab``), ``starts`` the sentence offsets into it; the distinct
    (sentence, word) incidences are kept as a sparse sentence-by-word matrix and its transpose.
    The ``*_window`` methods return (events x vocab) binary CSC matrices: entry (r, j) is 1 when word j
    occurs in the window around the boundary before sentence r + 1.
    """

    def __init__(self, sentences: Sequence[Sequence[str]], vocab: Sequence[str]):
        self.n = len(sentences)
        self.V = len(vocab)
        index = {w: i for i, w in enumerate(vocab)}
        lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=self.n)
        self.starts = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.starts[1:])
        self.T = int(self.starts[-1])
        # map() runs the lookups without a Python frame per token: ~3x faster than a generator expression
        self.tok = np.fromiter(map(index.get, chain.from_iterable(sentences), repeat(-1, self.T)),
                               dtype=np.int64, count=self.T)
        self.sent = np.repeat(np.arange(self.n, dtype=np.int64), lengths)
        known = self.tok >= 0
        # distinct (sentence, word) pairs = the sentence-by-word incidence matrix W (n x V), in (sentence, word)
        # order: scipy's conversion sorts each sentence's few words, 4x faster than np.unique of one code a token
        incidence = sp.csr_matrix((np.ones(int(known.sum()), dtype=np.int32), (self.sent[known], self.tok[known])),
                                  shape=(self.n, self.V))
        incidence.sum_duplicates()
        incidence.data = np.ones(incidence.nnz, dtype=np.int8)   # which words a sentence holds, not how often
        self._incidence = incidence

    def _block(self, rows: np.ndarray, cols: np.ndarray) -> sp.csc_matrix:
        n_ev = max(self.n - 1, 0)
        data = np.ones(len(rows), dtype=np.int8)
        m = sp.csc_matrix((data, (rows, cols)), shape=(n_ev, self.V))
        m.sum_duplicates()
        m.data[:] = 1  # binary: a word seen twice in the window still answers "yes"
        return m

    @cached_property
    def _sentences_of_word(self) -> sp.csr_matrix:
        # the transposed incidence (V x n, CSR): row j lists the sentences holding word j
        return self._incidence.T.tocsr()

    def _window_counts(self, offsets: Sequence[tuple[int, int]], group: np.ndarray | None) -> sp.csc_matrix:
        """(events x vocab) CSC: entry (r, j) = sum of ``weight`` over the (offset, weight) pairs whose sentence
        b + offset (b = r + 1) holds word j.

        One sparse product of the word-by-sentence incidence with a (sentences x events) band of the weights,
        so the only arrays as large as the answer are the answer's own: building the matrix from one
        (event, word) coordinate per incidence and offset took some ten times its size on the way."""
        n, n_ev = self.n, max(self.n - 1, 0)
        total = sum(abs(w) for _, w in offsets)
        dtype = np.int8 if total <= np.iinfo(np.int8).max else np.int32
        s = np.arange(n, dtype=np.int64)
        rows, cols, vals = [], [], []
        for o, weight in offsets:
            b = s - o
            ok = (b >= 1) & (b <= n - 1)
            if group is not None:
                side = b - 1 if o < 0 else b
                ok &= group == group[np.clip(side, 0, n - 1)]
            rows.append(s[ok])
            cols.append(b[ok] - 1)
            vals.append(np.full(int(ok.sum()), weight, dtype=dtype))
        band = sp.csr_matrix((np.concatenate(vals) if vals else np.zeros(0, dtype),
                              (np.concatenate(rows) if rows else np.zeros(0, np.int64),
                               np.concatenate(cols) if cols else np.zeros(0, np.int64))), shape=(n, n_ev))
        counts = self._sentences_of_word @ band   # V x events, CSR: the answer, transposed
        counts.sort_indices()
        return sp.csc_matrix((counts.data, counts.indices, counts.indptr), shape=(n_ev, self.V))

    def sentence_window(self, w: Window, group: np.ndarray | None = None) -> sp.csc_matrix:
        """Word j occurs in sentences b+start .. b+end-1.

        ``group`` (a group id per sentence) clips the window to the source group on its side of the gap:
        sentences before the gap must share the group of sentence b-1, those after it the group of sentence b."""
        m = self._window_counts([(o, 1) for o in range(w.start, w.end)],
                                None if group is None else np.asarray(group))
        m.data = np.ones(m.data.size, dtype=np.int8)   # binary: a word seen twice in the window still answers "yes"
        return m

    def window_set_sizes(self, k: int, group: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every gap b = 1..n-1: how many distinct words the previous ``k`` sentences hold, how many the next
        ``k`` hold, and how many both hold -- the row sums of ``sentence_window(-k..0)``, of
        ``sentence_window(0..k)`` and of their product, without building either matrix.

        Each count is a sum of +1 over ranges of gaps: a word is counted in the previous-k set at the gaps where
        its first occurrence inside the window is sentence s (the gaps after s, up to s + k, beyond the previous
        occurrence + k), likewise for the next-k set, and in both at the gaps between two consecutive occurrences
        p < q that lie within k of both.  O(incidences), one cumulative sum per count.

        ``group`` (a group id per sentence) clips the windows as :meth:`sentence_window` does; the counts are
        then exact at every gap inside a group (at a gap between two groups they are not defined: callers mask
        those)."""
        n = self.n
        s, starts = self._word_runs(group)
        s = s.astype(np.int64)
        follows = ~starts                                        # the same word (and group) as the entry before
        if group is None:
            first = np.zeros(n, dtype=np.int64)                  # the first sentence a window may reach
            last = np.full(n, n - 1, dtype=np.int64)             # the last gap whose previous window may
        else:
            group = np.asarray(group, dtype=np.int64)
            edges = np.flatnonzero(np.diff(group)) + 1
            starts = np.concatenate([[0], edges])
            ends = np.concatenate([edges, [n]])
            first = np.repeat(starts, ends - starts)
            last = np.minimum(np.repeat(ends, ends - starts), n - 1)
        none = -(k + 1) - n                                      # "no previous occurrence": far enough back
        prev = np.full(s.size, none, dtype=np.int64)
        prev[1:][follows[1:]] = s[:-1][follows[1:]]

        def ranges(lo, hi):
            ok = lo <= hi
            counts = (np.bincount(lo[ok], minlength=n + 1) - np.bincount(hi[ok] + 1, minlength=n + 1)).cumsum()
            return counts[1:n].astype(np.float64)

        lo = np.maximum(s, prev + k)
        lo += 1
        before = ranges(lo, np.minimum(s + k, last[s]))
        np.maximum(s - k + 1, prev + 1, out=lo)
        np.maximum(lo, first[s], out=lo)
        np.maximum(lo, 1, out=lo)
        after = ranges(lo, s)
        del lo
        p, q = s[:-1][follows[1:]], s[1:][follows[1:]]
        both = ranges(np.maximum(p, q - k) + 1, np.minimum(q, p + k))
        return before, after, both

    def first_occurrences(self, group: np.ndarray | None = None) -> np.ndarray:
        """Per sentence: how many of its words occur there for the first time (in its group, when ``group`` gives
        one id per sentence in contiguous runs)."""
        return self.returns(None, group)

    def returns(self, lookback: int | None, group: np.ndarray | None = None) -> np.ndarray:
        """Per sentence: how many of its words occur there and in none of the ``lookback`` sentences before it (in
        its group, when ``group`` gives one id per sentence in contiguous runs); ``None``: for the first time.
        ``lookback = 0`` counts every distinct word of the sentence."""
        s, fresh = self._word_runs(group)
        if lookback is not None and s.size > 1:
            fresh[1:] |= (s[1:] - s[:-1]) > int(lookback)
        return np.bincount(s[fresh], minlength=self.n).astype(np.float64)

    def _word_runs(self, group: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The incidences word by word, each word's sentences ascending (the transposed incidence as it is: no sort
        and no copy; at 7*10^4 sentences a sort's keys and orders were the largest arrays of a training round's
        curve), and which entries start a run of one word (within one group, when ``group`` is given)."""
        by_word = self._sentences_of_word
        s = by_word.indices
        starts = np.zeros(s.size, dtype=bool)
        starts[by_word.indptr[:-1][np.diff(by_word.indptr) > 0]] = True
        if group is not None and s.size:
            group = np.asarray(group, dtype=np.int64)
            starts[1:] |= group[s[1:]] != group[s[:-1]]
        return s, starts

    def word_window(self, w: Window) -> sp.csc_matrix:
        """Word j is one of the tokens at offsets start .. end-1 from the boundary's first token."""
        b = np.arange(1, self.n, dtype=np.int64)
        rows, cols = [], []
        for o in range(w.start, w.end):
            p = self.starts[b] + o
            ok = (p >= 0) & (p < self.T)
            t = self.tok[p[ok]]
            known = t >= 0
            rows.append((b[ok] - 1)[known])
            cols.append(t[known])
        return self._block(np.concatenate(rows) if rows else np.zeros(0, np.int64),
                           np.concatenate(cols) if cols else np.zeros(0, np.int64))

    def begins_previous(self) -> sp.csc_matrix:
        """Word j is the first token of the sentence before the boundary."""
        b = np.arange(1, self.n, dtype=np.int64)
        prev = b - 1
        nonempty = self.starts[prev + 1] > self.starts[prev]
        t = np.full(len(b), -1, dtype=np.int64)
        t[nonempty] = self.tok[self.starts[prev[nonempty]]]
        ok = t >= 0
        return self._block(b[ok] - 1, t[ok])

    def sentences_not(self, window: Window, not_window: Window) -> sp.csc_matrix:
        """Word j occurs in ``window`` but not in ``not_window`` (both sentence windows).

        One product counts both windows at once: an occurrence in ``window`` weighs 1, one in ``not_window``
        more than all of ``window`` can, so an entry is at most ``window.size`` exactly when the word is absent
        from ``not_window``."""
        heavy = window.size + 1
        m = self._window_counts([(o, 1) for o in range(window.start, window.end)]
                                + [(o, heavy) for o in range(not_window.start, not_window.end)], None)
        keep = m.data < heavy
        kept_before = np.zeros(keep.size + 1, dtype=np.int64)
        np.cumsum(keep, out=kept_before[1:])
        return sp.csc_matrix((np.ones(int(kept_before[-1]), dtype=np.int8), m.indices[keep], kept_before[m.indptr]),
                             shape=m.shape)

    def question_block(self, kind: str, window: Window, not_window: Window | None = None) -> sp.csc_matrix:
        """Answers of the vocabulary question ``kind`` over ``window`` (and ``not_window``) for every word."""
        builders = {
            "sentences": lambda: self.sentence_window(window),
            "words": lambda: self.word_window(window),
            "sentences_not": lambda: self.sentences_not(window, not_window),
            "begins_previous": self.begins_previous,
        }
        if kind not in builders:
            raise SegvizError(f"not a vocabulary question kind: {kind!r}")
        if (kind == "sentences_not") != (not_window is not None):
            raise SegvizError("sentences_not questions, and only they, have a not_window")
        return builders[kind]()


def word_block(sentences: Sequence[Sequence[str]], questions: Sequence[WordQuestion]
               ) -> tuple[sp.csc_matrix, list[int]]:
    """Answers (events x questions, int8 CSC) of vocabulary questions on a stream, and the question of each column.

    One block per distinct template, over only the words the questions ask about; the columns come template by
    template (``columns[j]`` is the index in ``questions`` of column j), which is the questions' own order when
    they are candidates in the builder's order."""
    vocab = list(dict.fromkeys(q.word for q in questions))
    windex = {w: j for j, w in enumerate(vocab)}
    stream = TokenStream(sentences, vocab)
    by_template: dict[tuple, list[int]] = {}
    for i, q in enumerate(questions):
        by_template.setdefault((q.kind, q.window, q.not_window), []).append(i)
    blocks, columns = [], []
    for (kind, window, not_window), items in by_template.items():
        block = stream.question_block(kind, window, not_window)
        blocks.append(block[:, [windex[questions[i].word] for i in items]])
        columns.extend(items)
        del block
    return stack_columns(blocks, max(len(sentences) - 1, 0)), columns
