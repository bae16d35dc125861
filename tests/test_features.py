"""Candidate features: cross-checked against a slow, literal reading of each question."""
from __future__ import annotations

import math

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.features import (
    VOCABULARY_TEMPLATES,
    FeatureSpec,
    Window,
    boundary_labels,
    build_candidates,
    evaluate_features,
    relevance_intervals,
    select_vocabulary,
)


def _random_stream(rng, n=30, vocab=("a", "b", "cat", "dog", "eel", "fox", "gnu", "the", "1"), max_len=6):
    # include empty and one-word sentences: edge cases for word windows
    return [tuple(rng.choice(list(vocab), size=rng.integers(0, max_len + 1))) for _ in range(n)]


def _slow_answer(spec: FeatureSpec, sentences, relevance, b: int) -> bool:
    """Literal evaluation of one question at boundary position b (before sentence b)."""
    n = len(sentences)

    def sent_range(w: Window):
        return [s for s in range(b + w.start, b + w.end) if 0 <= s < n]

    if spec.kind == "relevance":
        idx = sent_range(spec.window)
        if not idx:
            return False
        r = float(np.mean([relevance[s] for s in idx]))
        return spec.low < r <= spec.high
    if spec.kind == "cohesion":
        from segviz.peers._text import default_stopwords
        k = spec.window.end
        content = lambda idx: {t for i in idx for t in sentences[i] if t not in default_stopwords() and t.isalpha()}
        L = content([s for s in range(b - k, b) if 0 <= s < n])
        R = content([s for s in range(b, b + k) if 0 <= s < n])
        c = len(L & R) / np.sqrt(len(L) * len(R)) if L and R else 0.0
        return spec.low < c <= spec.high
    if spec.kind == "begins_previous":
        prev = sentences[b - 1]
        return len(prev) > 0 and prev[0] == spec.word
    if spec.kind in ("sentences", "sentences_not"):
        hit = any(spec.word in sentences[s] for s in sent_range(spec.window))
        if spec.kind == "sentences_not":
            hit = hit and not any(spec.word in sentences[s] for s in sent_range(spec.not_window))
        return hit
    if spec.kind == "words":
        flat = [t for s in sentences for t in s]
        start = sum(len(s) for s in sentences[:b])
        pos = [start + o for o in range(spec.window.start, spec.window.end)]
        return any(0 <= p < len(flat) and flat[p] == spec.word for p in pos)
    raise AssertionError(spec.kind)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_candidate_matches_slow_evaluation(seed):
    rng = np.random.default_rng(seed)
    sents = _random_stream(rng)
    rel = rng.normal(0, 0.3, size=len(sents))
    X, specs = build_candidates(sents, rel, vocabulary=["a", "b", "cat", "dog", "the", "1", "zzz"],
                                cohesion=True, drop_empty=False)
    assert any(s.kind == "cohesion" for s in specs)
    assert X.shape == (len(sents) - 1, len(specs))
    dense = X.toarray()
    assert set(np.unique(dense)) <= {0, 1}
    for j, spec in enumerate(specs):
        slow = [_slow_answer(spec, sents, rel, b) for b in range(1, len(sents))]
        assert dense[:, j].astype(bool).tolist() == slow, spec.description


def test_drop_empty_and_evaluate_features_agree():
    rng = np.random.default_rng(5)
    sents = _random_stream(rng, n=40)
    rel = rng.normal(0, 0.5, size=len(sents))
    X, specs = build_candidates(sents, rel, vocabulary=10, cohesion=True)
    assert np.all(np.diff(X.indptr) > 0)  # nothing empty kept
    # evaluate a shuffled subset on the same stream: same columns
    rng.shuffle(idx := np.arange(len(specs)))
    sub = idx[:50]
    Y = evaluate_features([specs[i] for i in sub], sents, rel)
    assert (Y.toarray() == X[:, sub].toarray()).all()


def test_paper_questions_present():
    kinds = [(t.kind, t.window.unit, t.window.start, t.window.end) for t in VOCABULARY_TEMPLATES]
    assert len(kinds) == 15
    for k in (1, 2, 3, 5):
        assert ("sentences", "sentence", 0, k) in kinds
        assert ("sentences", "sentence", -k, 0) in kinds
    for m in (1, 5):
        assert ("words", "word", 0, m) in kinds and ("words", "word", -m, 0) in kinds
    ivs = relevance_intervals()
    assert (-0.5, 0.0) in ivs and (0.0, 0.05) in ivs and (-math.inf, 0.0) in ivs


def test_descriptions_readable_and_roundtrip():
    X, specs = build_candidates([("mr.", "x"), ("y",), ("mr.",)], np.zeros(3), vocabulary=["mr."], drop_empty=False)
    texts = [s.description for s in specs]
    assert 'does "mr." appear in the next sentence?' in texts
    assert 'does "mr." appear in the previous 5 sentences but not in the next 5 sentences?' in texts
    assert 'does "mr." begin the preceding sentence?' in texts
    assert any("relevance" in t and "-0.5 < R <= 0" in t for t in texts)
    for s in specs:
        assert FeatureSpec.from_dict(s.to_dict()) == s


def test_labels_and_errors():
    assert boundary_labels([2, 3, 1]).tolist() == [False, True, False, False, True]
    with pytest.raises(SegvizError, match="at least 2 sentences"):
        build_candidates([("a",)], None, vocabulary=5)
    with pytest.raises(SegvizError, match="shape"):
        build_candidates([("a",), ("b",)], np.zeros(5), vocabulary=5)
    X, specs = build_candidates([("a",), ("b",)], None, vocabulary=5)
    with pytest.raises(SegvizError, match="relevance"):
        evaluate_features([FeatureSpec("relevance", None, Window("sentence", 0, 1), low=0.0, high=1.0)],
                          [("a",), ("b",)], None)
    assert select_vocabulary([("b", "a", "a"), ("b", "c")], 2) == ["a", "b"]


def test_min_support_drops_rare_candidates():
    rng = np.random.default_rng(9)
    sents = _random_stream(rng, n=60)
    X1, s1 = build_candidates(sents, None, vocabulary=20)
    X3, s3 = build_candidates(sents, None, vocabulary=20, min_support=3)
    counts = np.diff(X1.indptr)
    assert np.all(np.diff(X3.indptr) >= 3)
    assert [s1[i] for i in np.flatnonzero(counts >= 3)] == s3
