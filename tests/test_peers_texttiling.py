"""TextTiling: cross-checked against NLTK's TextTilingTokenizer and against brute-force versions of each step."""
from __future__ import annotations

import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segviz.corpus import read_corpus
from segviz.errors import SegvizError
from segviz.peers import PEERS, segment_with
from segviz.peers._text import default_stopwords, token_words
from segviz.peers.texttiling import TextTiling, depth_scores, identify_boundaries, smooth_scores

nltk_tt = pytest.importorskip("nltk.tokenize.texttiling")

SAMPLE = Path(__file__).resolve().parents[1] / "sample_corpora" / "choi"


def _word(i: int) -> str:
    # fixed-length words: NLTK snaps by characters, ours by words; equal lengths make the two agree
    s = ""
    for _ in range(5):
        s += string.ascii_lowercase[i % 26]
        i //= 26
    return s


def _topical_sentences(rng, *, min_len=17, max_len=40):
    """Segments of sentences drawn mostly from a per-segment vocabulary; every sentence > 100 characters so
    that NLTK keeps every paragraph break."""
    sents = []
    for _ in range(rng.integers(3, 8)):
        topic = rng.integers(0, 10**6)
        for _ in range(rng.integers(3, 9)):
            n = rng.integers(min_len, max_len)
            ids = np.where(rng.random(n) < 0.6, topic + rng.integers(0, 30, n), rng.integers(0, 10**6, n))
            sents.append(tuple(_word(int(i)) for i in ids))
    return sents


def _nltk_demo(sentences, stopwords):
    text = "\n\n".join(" ".join(s) for s in sentences)
    tt = nltk_tt.TextTilingTokenizer(stopwords=list(stopwords), demo_mode=True)
    return [np.asarray(x, dtype=float) for x in tt.tokenize(text)]


def _assert_same_as_nltk(sentences, stopwords):
    gap, smooth, depth, flags = _nltk_demo(sentences, stopwords)
    ours = TextTiling(stopwords=stopwords).fit(sentences)
    np.testing.assert_allclose(ours.gap_scores_, gap, atol=1e-12)
    np.testing.assert_allclose(ours.smoothed_scores_, smooth, atol=1e-12)
    np.testing.assert_allclose(ours.depth_scores_, depth, atol=1e-12)
    np.testing.assert_array_equal(ours.gap_flags_, flags.astype(bool))


def test_scores_and_flags_match_nltk_on_synthetic_text():
    rng = np.random.default_rng(1)
    for _ in range(8):
        _assert_same_as_nltk(_topical_sentences(rng), stopwords=[])


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="needs sample_corpora/choi")
def test_scores_and_flags_match_nltk_on_real_choi_documents():
    # real Brown text: punctuation, contractions and our stopword list all go through both implementations
    for path in sorted(SAMPLE.glob("*.ref"))[:3]:
        sentences = read_corpus(path).sentences()
        _assert_same_as_nltk(sentences, stopwords=sorted(default_stopwords()))


@pytest.mark.slow
def test_final_segmentation_matches_nltk_with_nltk_placement():
    """With NLTK's boundary placement our masses equal the segments NLTK returns (ties in snapping excluded:
    NLTK measures distance in characters, we in words)."""
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(40):
        sents = _topical_sentences(rng)
        ours = TextTiling(stopwords=[], placement="nltk").fit(sents)
        gaps = np.flatnonzero(ours.gap_flags_)
        targets = np.maximum(gaps, 1) * 20 + 1
        edges = np.cumsum([len(s) for s in sents])[:-1]
        dist = np.sort(np.abs(edges[None, :] - targets[:, None]), axis=1)
        if (dist[:, 0] == dist[:, 1]).any():
            continue
        pieces = nltk_tt.TextTilingTokenizer(stopwords=[]).tokenize("\n\n".join(" ".join(s) for s in sents))
        nltk_masses = tuple(p.strip().count("\n\n") + 1 for p in pieces)
        assert ours.masses_ == nltk_masses
        checked += 1
    assert checked >= 30


def test_hearst_placement_is_one_pseudosentence_later_than_nltk():
    # a single flagged gap g ends at word (g+1)*w in Hearst's placement
    gaps = np.array([3])
    ws = np.full(6, 20)
    assert TextTiling(stopwords=[])._snap(gaps, ws).tolist() == [4]
    assert TextTiling(stopwords=[], placement="nltk")._snap(gaps, ws).tolist() == [3]


def test_finds_an_obvious_topic_change():
    a = [tuple(_word(i % 40) for i in range(j, j + 20)) for j in range(0, 300, 20)]
    b = [tuple(_word(1000 + i % 40) for i in range(j, j + 20)) for j in range(0, 300, 20)]
    masses = TextTiling(stopwords=[]).segment(a + b)
    boundaries = np.cumsum(masses)[:-1]
    assert len(a) in boundaries.tolist()


def _depth_bruteforce(scores):
    depth = [0.0] * len(scores)
    clip = min(max(len(scores) // 10, 2), 5)
    for index in range(clip, len(scores) - clip):
        g = scores[index]
        lpeak = g
        for s in scores[index::-1]:
            if s >= lpeak:
                lpeak = s
            else:
                break
        rpeak = g
        for s in scores[index:]:
            if s >= rpeak:
                rpeak = s
            else:
                break
        depth[index] = lpeak + rpeak - 2 * g
    return np.array(depth)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=0, max_size=40))
def test_depth_scores_equal_the_climbing_loop(values):
    scores = np.array(values, dtype=float) / 6   # small integer grid: many ties and plateaus
    np.testing.assert_allclose(depth_scores(scores), _depth_bruteforce(list(scores)), atol=1e-12)


def _flags_bruteforce(depth):
    b = [0] * len(depth)
    if not len(depth):
        return np.array(b, bool)
    cutoff = np.mean(depth) - np.std(depth) / 2
    hp = [dt for dt in sorted(zip(depth, range(len(depth))), reverse=True) if dt[0] > cutoff]
    for dt in hp:
        b[dt[1]] = 1
        for dt2 in hp:
            if dt[1] != dt2[1] and abs(dt2[1] - dt[1]) < 4 and b[dt2[1]] == 1:
                b[dt[1]] = 0
    return np.array(b, bool)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=40))
def test_boundary_flags_equal_nltk_greedy_rule(values):
    depth = np.array(values, dtype=float)
    np.testing.assert_array_equal(identify_boundaries(depth), _flags_bruteforce(depth))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=3, max_size=30))
def test_smoothing_equals_nltk_smooth(values):
    x = np.array(values)
    np.testing.assert_allclose(smooth_scores(x, 2), nltk_tt.smooth(x, window_len=3), atol=1e-12)


def test_token_words_follow_nltk_character_filter():
    assert token_words("u.s.") == ("us",)
    assert token_words("don't") == ("don", "t")
    assert token_words("well-known") == ("well", "known")
    assert token_words("1,000") == ()
    assert token_words("``") == ()


def test_masses_cover_every_sentence_and_degenerate_inputs():
    rng = np.random.default_rng(3)
    sents = _topical_sentences(rng)
    assert sum(TextTiling().segment(sents)) == len(sents)
    assert TextTiling().segment([("one", "sentence")]) == (1,)
    assert TextTiling().segment([(",",), (".",), ("!",)]) == (3,)     # no words at all
    assert segment_with("texttiling", sents) == TextTiling().segment(sents)
    assert "texttiling" in PEERS


@pytest.mark.parametrize("params, match", [
    (dict(w=0), "w must be"), (dict(k=-1), "k must be"), (dict(cutoff="x"), "cutoff"),
    (dict(placement="x"), "placement"), (dict(smoothing_width=-1), "smoothing_width"),
    (dict(stopwords="the"), "collection of words"),
])
def test_bad_parameters_raise_clear_errors(params, match):
    with pytest.raises(SegvizError, match=match):
        TextTiling(**params).fit([("a", "b")] * 5)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(SegvizError, match="no sentences"):
        TextTiling().fit([])
    with pytest.raises(SegvizError, match="string"):
        TextTiling().fit("some text")
    with pytest.raises(SegvizError, match="sentence 1 is a string"):
        TextTiling().fit([("a",), "b c"])
    with pytest.raises(SegvizError, match="unknown peer"):
        segment_with("nope", [("a",)])
    with pytest.raises(SegvizError, match="bad parameter"):
        segment_with("texttiling", [("a",)], bogus=1)


def test_hyperparameters_are_stored_verbatim():
    tt = TextTiling(w=7, k=3, stopwords=("x",))
    assert (tt.w, tt.k, tt.stopwords) == (7, 3, ("x",))
    assert not hasattr(tt, "masses_")
