"""The distinct-word counts of the windows around each gap (cohesion, names) against Python sets, and against the
sparse window matrices they replace."""
from __future__ import annotations

import numpy as np
import pytest

from segviz.features.questions import Window
from segviz.features.stream import TokenStream


def brute(sentences, vocab, k, group):
    known = set(vocab)
    n = len(sentences)
    out = []
    for b in range(1, n):
        before = {w for s in range(max(0, b - k), b) if group is None or group[s] == group[b - 1]
                  for w in sentences[s] if w in known}
        after = {w for s in range(b, min(n, b + k)) if group is None or group[s] == group[b]
                 for w in sentences[s] if w in known}
        out.append((len(before), len(after), len(before & after)))
    return [np.array(col, dtype=float) for col in zip(*out)]


def random_streams(seed, trials):
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        n = int(rng.integers(2, 30))
        sentences = [tuple(f"w{x}" for x in rng.integers(0, int(rng.integers(1, 7)), size=int(rng.integers(0, 5))))
                     for _ in range(n)]
        vocab = sorted({t for s in sentences for t in s})[1:] or ["w0"]   # a word left out of the vocabulary
        group = np.sort(rng.integers(0, 3, size=n)) if rng.random() < 0.5 else None
        yield sentences, vocab, int(rng.integers(1, 10)), group


@pytest.mark.parametrize("seed", range(4))
def test_the_counts_are_those_of_python_sets(seed):
    for sentences, vocab, k, group in random_streams(seed, 60):
        got = TokenStream(sentences, vocab).window_set_sizes(k, group)
        expected = brute(sentences, vocab, k, group)
        inside = np.ones(len(sentences) - 1, dtype=bool) if group is None else group[1:] == group[:-1]
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g[inside], e[inside])


def test_the_counts_are_the_row_sums_of_the_window_matrices():
    for sentences, vocab, k, group in random_streams(7, 60):
        stream = TokenStream(sentences, vocab)
        P = stream.sentence_window(Window("sentence", -k, 0), group=group).astype(np.float64)
        N = stream.sentence_window(Window("sentence", 0, k), group=group).astype(np.float64)
        before, after, both = stream.window_set_sizes(k, group)
        inside = np.ones(len(sentences) - 1, dtype=bool) if group is None else group[1:] == group[:-1]
        np.testing.assert_array_equal(before[inside], np.asarray(P.sum(axis=1)).ravel()[inside])
        np.testing.assert_array_equal(after[inside], np.asarray(N.sum(axis=1)).ravel()[inside])
        np.testing.assert_array_equal(both[inside], np.asarray(P.multiply(N).sum(axis=1)).ravel()[inside])


def test_a_stream_without_known_words_counts_nothing():
    before, after, both = TokenStream([("a",), ("b",), ("c",)], ["z"]).window_set_sizes(2)
    assert before.tolist() == after.tolist() == both.tolist() == [0.0, 0.0]


def test_first_occurrences_are_those_of_python_sets():
    """The names family's "new names" count: words a sentence holds for the first time in its group."""
    for sentences, vocab, _, group in random_streams(11, 80):
        known = set(vocab)
        seen: dict = {}
        expected = []
        for s, sentence in enumerate(sentences):
            g = None if group is None else group[s]
            words = {w for w in sentence if w in known}
            expected.append(float(len(words - seen.setdefault(g, set()))))
            seen[g] |= words
        np.testing.assert_array_equal(TokenStream(sentences, vocab).first_occurrences(group), expected)


@pytest.mark.parametrize("lookback", [0, 1, 3, 10, None])
def test_returning_words_are_those_of_a_direct_scan(lookback):
    """The novelty family's count: words a sentence holds that none of the ``lookback`` sentences before it (in
    its group) held; None = first occurrences, 0 = every distinct word."""
    for sentences, vocab, _, group in random_streams(13, 80):
        known = set(vocab)
        expected = []
        for s, sentence in enumerate(sentences):
            first = 0 if lookback is None else max(0, s - lookback)
            earlier = {w for t in range(first, s) if group is None or group[t] == group[s] for w in sentences[t]}
            expected.append(float(len({w for w in sentence if w in known} - earlier)))
        np.testing.assert_array_equal(TokenStream(sentences, vocab).returns(lookback, group), expected)
