"""Candidate features: cross-checked against a slow, literal reading of each question."""
from __future__ import annotations

import math

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.features import (
    DEFAULT_FAMILIES,
    FAMILIES,
    VOCABULARY_TEMPLATES,
    FeatureContext,
    FeatureSpec,
    IntervalQuestion,
    Window,
    WordQuestion,
    boundary_labels,
    build_candidates,
    evaluate_features,
    relevance_intervals,
    resolve_families,
    select_vocabulary,
)
from segviz.peers import default_stopwords


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
        k = spec.window.end
        def content(idx):
            return {t for i in idx for t in sentences[i] if t not in default_stopwords() and t.isalpha()}

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
    X, specs = build_candidates(FeatureContext(sents, relevance=rel),
                                vocabulary=["a", "b", "cat", "dog", "the", "1", "zzz"], drop_empty=False)
    assert any(s.kind == "cohesion" for s in specs)
    assert X.shape == (len(sents) - 1, len(specs))
    dense = X.toarray()
    assert set(np.unique(dense)) <= {0, 1}
    for j, spec in enumerate(specs):
        slow = [_slow_answer(spec, sents, rel, b) for b in range(1, len(sents))]
        assert dense[:, j].astype(bool).tolist() == slow, spec.description


@pytest.mark.parametrize("seed", [0, 1])
def test_cohesion_windows_stop_at_the_edges_of_source_units(seed):
    """Each unit's answers are those of the unit read alone, and the gap between two units answers no."""
    rng = np.random.default_rng(seed)
    units = [_random_stream(rng, n=int(rng.integers(3, 25))) for _ in range(3)]
    sents = [s for unit in units for s in unit]
    X, specs = build_candidates(FeatureContext(sents, groups=[len(u) for u in units]),
                                families=("cohesion",), drop_empty=False)
    dense = X.toarray().astype(bool)
    edges = np.cumsum([len(u) for u in units])[:-1]
    assert not dense[edges - 1].any()
    start = 0
    for unit in units:
        for j, spec in enumerate(specs):
            slow = [_slow_answer(spec, unit, None, b) for b in range(1, len(unit))]
            assert dense[start:start + len(unit) - 1, j].tolist() == slow, spec.description
        start += len(unit)


def test_drop_empty_and_evaluate_features_agree():
    rng = np.random.default_rng(5)
    sents = _random_stream(rng, n=40)
    rel = rng.normal(0, 0.5, size=len(sents))
    context = FeatureContext(sents, relevance=rel)
    X, specs = build_candidates(context, vocabulary=10)
    assert np.all(np.diff(X.indptr) > 0)  # nothing empty kept
    # evaluate a shuffled subset on the same stream: same columns
    rng.shuffle(idx := np.arange(len(specs)))
    sub = idx[:50]
    Y = evaluate_features([specs[i] for i in sub], context)
    assert (Y.toarray() == X[:, sub].toarray()).all()
    fresh = evaluate_features([specs[i] for i in sub], FeatureContext(sents, relevance=rel))   # nothing cached
    assert (fresh.toarray() == Y.toarray()).all()


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
    X, specs = build_candidates(FeatureContext([("mr.", "x"), ("y",), ("mr.",)], relevance=np.zeros(3)),
                                vocabulary=["mr."], drop_empty=False)
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
        FeatureContext([("a",)])
    with pytest.raises(SegvizError, match="shape"):
        FeatureContext([("a",), ("b",)], relevance=np.zeros(5))
    with pytest.raises(SegvizError, match="FeatureContext"):
        build_candidates([("a",), ("b",)], vocabulary=5)
    X, specs = build_candidates(FeatureContext([("a",), ("b",)]), vocabulary=5)
    assert not any(s.kind == "relevance" for s in specs)      # no relevance given: the family proposes nothing
    with pytest.raises(SegvizError, match="relevance"):
        evaluate_features([IntervalQuestion("relevance", Window("sentence", 0, 1), low=0.0, high=1.0)],
                          FeatureContext([("a",), ("b",)]))
    assert select_vocabulary([("b", "a", "a"), ("b", "c")], 2) == ["a", "b"]


def test_min_support_drops_rare_candidates():
    rng = np.random.default_rng(9)
    sents = _random_stream(rng, n=60)
    X1, s1 = build_candidates(FeatureContext(sents), vocabulary=20)
    X3, s3 = build_candidates(FeatureContext(sents), vocabulary=20, min_support=3)
    counts = np.diff(X1.indptr)
    assert np.all(np.diff(X3.indptr) >= 3)
    assert [s1[i] for i in np.flatnonzero(counts >= 3)] == s3


def test_questions_validate_and_read_every_saved_form():
    w = Window("sentence", 0, 1)
    with pytest.raises(SegvizError, match="kind"):
        WordQuestion("nonsense", "a", w)
    with pytest.raises(SegvizError, match="word"):
        WordQuestion("sentences", "", w)
    with pytest.raises(SegvizError, match="not_window"):
        WordQuestion("sentences", "a", w, Window("sentence", -5, 0))
    with pytest.raises(SegvizError, match="empty interval"):
        IntervalQuestion("relevance", w, 1.0, 0.0)
    with pytest.raises(SegvizError, match="numeric"):
        IntervalQuestion("relevance", w, float("nan"), 1.0)
    q = IntervalQuestion("relevance", w, -math.inf, 0.0)
    assert q.kind == "relevance" and q.needs == {"relevance"} and q.not_window is None
    assert q.to_dict() == {"kind": "relevance", "signal": "relevance", "window": w.to_dict(), "low": "-inf",
                           "high": 0.0}
    # the form written before questions named their signal: relevance/cohesion by kind, peers in "word"
    assert FeatureSpec.from_dict({"kind": "relevance", "word": None, "window": w.to_dict(), "low": "-inf",
                                  "high": 0.0}) == q
    assert FeatureSpec.from_dict({"kind": "peer", "word": "tt_depth", "window": w.to_dict(), "low": 0.1,
                                  "high": "inf"}).signal == "tt_depth"
    with pytest.raises(SegvizError, match="belongs to"):
        FeatureSpec.from_dict({"kind": "cohesion", "signal": "relevance", "window": w.to_dict(), "low": 0,
                               "high": 1})
    for bad in ({"kind": "sentences"}, {"kind": "relevance", "window": w.to_dict(), "low": "x", "high": 1},
                [1, 2], {"kind": "sentences", "word": "a", "window": {"unit": "line", "start": 0, "end": 1}}):
        with pytest.raises(SegvizError):
            FeatureSpec.from_dict(bad)


def test_families_registry_selects_in_canonical_order():
    assert list(FAMILIES)[:4] == ["vocabulary", "relevance", "cohesion", "peer"]
    assert DEFAULT_FAMILIES == ("vocabulary", "relevance", "cohesion")
    assert resolve_families(["cohesion", "vocabulary", "cohesion"]) == ("vocabulary", "cohesion")
    with pytest.raises(SegvizError, match="unknown feature family"):
        resolve_families(["vocabulary", "nope"])
    rng = np.random.default_rng(3)
    sents = _random_stream(rng, n=25)
    context = FeatureContext(sents, relevance=rng.normal(size=25))
    X, specs = build_candidates(context, families=("cohesion", "vocabulary"), vocabulary=5, drop_empty=False)
    kinds = [s.kind for s in specs]
    assert kinds.index("cohesion") > max(i for i, k in enumerate(kinds) if k != "cohesion")
    Xc, cs = build_candidates(context, families=("cohesion",), drop_empty=False)
    assert cs == [s for s in specs if s.kind == "cohesion"]
    np.testing.assert_array_equal(Xc.toarray(), X[:, [i for i, s in enumerate(specs) if s.kind == "cohesion"]].toarray())


def test_context_validates_its_inputs():
    sents = [("a",), ("b",), ("c",)]
    with pytest.raises(SegvizError, match="groups"):
        FeatureContext(sents, groups=[1, 1])
    with pytest.raises(SegvizError, match="groups"):
        FeatureContext(sents, groups=[0, 3])
    with pytest.raises(SegvizError, match="texts"):
        FeatureContext(sents, texts=["A."])
    with pytest.raises(SegvizError, match="paragraph_starts"):
        FeatureContext(sents, paragraph_starts=[True])
    c = FeatureContext(sents, groups=[2, 1], texts=["A.", "B.", "C."])
    assert c.group_edges().tolist() == [False, True] and c.group_starts.tolist() == [0, 2]
    assert c.provides("texts") and not c.provides("relevance") and not c.provides("paragraph_starts")
    assert not FeatureContext(sents).provides("texts")   # tokens joined by spaces stand in for the texts


def test_the_candidate_matrix_is_the_same_stacked_part_by_part():
    # stack_columns empties its list and must equal scipy's hstack of the same blocks, rare columns dropped per part
    import scipy.sparse as sp

    from segviz.features.stacking import stack_columns

    rng = np.random.default_rng(11)
    blocks = [sp.random(17, m, density=0.3, format="csc", random_state=i, dtype=np.float64) for i, m in
              enumerate((3, 0, 5, 1))]
    blocks = [sp.csc_matrix((np.ones(b.nnz, np.int8), b.indices, b.indptr), shape=b.shape) for b in blocks]
    expected = sp.hstack(blocks, format="csc").toarray()
    parts = list(blocks)
    assert (stack_columns(parts, 17).toarray() == expected).all() and parts == []
    with pytest.raises(SegvizError):
        stack_columns([sp.csc_matrix((3, 2), dtype=np.int8)], 4)
    sents = _random_stream(rng, n=60)
    X, specs = build_candidates(FeatureContext(sents), vocabulary=8, min_support=3, families=("vocabulary",))
    full, all_specs = build_candidates(FeatureContext(sents), vocabulary=8, drop_empty=False, families=("vocabulary",))
    keep = np.flatnonzero(np.diff(full.indptr) >= 3)
    assert [all_specs[i] for i in keep] == specs and (X.toarray() == full[:, keep].toarray()).all()


def test_boundaries_per_column_is_the_labels_times_the_matrix():
    import scipy.sparse as sp

    from segviz.induction_math import boundaries_per_column

    rng = np.random.default_rng(3)
    for trial in range(50):
        X = sp.random(int(rng.integers(1, 25)), int(rng.integers(0, 12)), density=float(rng.random()), format="csc",
                      random_state=trial)
        X = sp.csc_matrix((np.ones(X.nnz, np.int8), X.indices, X.indptr), shape=X.shape)
        y = rng.random(X.shape[0]) < 0.3
        expected = np.asarray(X.T.astype(float) @ y.astype(float)).ravel()
        for chunk in (1, 2, 5, 1 << 22):
            assert np.array_equal(boundaries_per_column(X, y, chunk=chunk), expected)
