"""Peer-evidence features (opt-in): C99 / TextTiling evidence per group, cross-checked by brute force."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.features import (
    FeatureContext,
    FeatureSpec,
    IntervalQuestion,
    Window,
    build_candidates,
    evaluate_features,
)
from segviz.features.peer import PEER_CONTRAST_WINDOWS, peer_questions, peer_values, rank_contrast
from segviz.features.questions import signal_named
from segviz.peers import C99, TextTiling, token_words

TOPICS = [["apple", "pear", "fruit", "orchard", "juice", "tree"],
          ["engine", "piston", "fuel", "car", "wheel", "road"],
          ["violin", "music", "concert", "orchestra", "note", "song"]]


def _stream(rng, n_groups=3):
    """Groups of topical sentences (a few topic changes inside each group)."""
    sents, groups = [], []
    for _ in range(n_groups):
        g = 0
        for _seg in range(rng.integers(2, 4)):
            words = TOPICS[rng.integers(len(TOPICS))]
            for _ in range(rng.integers(3, 7)):
                sents.append(tuple(rng.choice(words, size=rng.integers(4, 12))) + ("the", "."))
                g += 1
        groups.append(g)
    return sents, groups


def _slow_contrast(rank, k, b):
    n = rank.shape[0]
    A = list(range(max(0, b - k), b))
    B = list(range(b, min(n, b + k)))
    inside = [rank[i, j] for S in (A, B) for i in S for j in S if i != j]
    across = [rank[i, j] for i in A for j in B]
    return (np.mean(inside) if inside else np.nan) - np.mean(across)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_contrast_matches_brute_force(k):
    rng = np.random.default_rng(k)
    rank = rng.random((13, 13))
    fast = rank_contrast(rank, k)
    slow = np.array([_slow_contrast(rank, k, b) for b in range(1, 13)])
    np.testing.assert_allclose(fast, slow, equal_nan=True)


@pytest.mark.parametrize("seed", [0, 1])
def test_peer_values_per_group_brute_force(seed):
    rng = np.random.default_rng(seed)
    sents, groups = _stream(rng)
    vals = peer_values(sents, groups)
    start = 0
    edges = np.cumsum(groups)[:-1]
    for key, v in vals.items():
        assert v.shape == (len(sents) - 1,)
        assert np.isnan(v[edges - 1]).all(), key   # between groups: no evidence
    for g in groups:
        part = sents[start:start + g]
        c = C99().fit(part)
        tt = TextTiling().fit(part)
        wps = [sum(len(token_words(t)) for t in s) for s in part]
        for b in range(1, g):
            r = start + b - 1
            for k in PEER_CONTRAST_WINDOWS:
                assert vals[("c99_contrast", k)][r] == pytest.approx(_slow_contrast(c.rank_, k, b), nan_ok=True)
            near = min((abs(b - x) for x in c.boundaries_), default=math.inf)
            assert vals[("c99_near", 0)][r] == near
            step = list(c.splits_).index(b) + 1
            assert vals[("c99_order", 0)][r] == pytest.approx(step / max(c.n_splits_, 1))
            # the edge at word offset e lies between the gaps after pseudo-sentences e//w - 1 and e//w
            e = sum(wps[:b])
            gaps = [min(max(e // tt.w - 1, 0), tt.depth_scores_.size - 1),
                    min(max(e // tt.w, 0), tt.depth_scores_.size - 1)]
            assert vals[("tt_depth", 0)][r] == pytest.approx(max(tt.depth_scores_[x] for x in gaps))
        start += g


def test_peer_candidates_evaluate_and_roundtrip():
    rng = np.random.default_rng(3)
    sents, groups = _stream(rng)
    context = FeatureContext(sents, groups=groups)
    X, specs = build_candidates(context, families=("vocabulary", "peer"), vocabulary=5, drop_empty=False)
    peer = [(j, s) for j, s in enumerate(specs) if s.kind == "peer"]
    assert len(peer) == len(peer_questions()) and {s.signal for _, s in peer} == {"c99_contrast", "c99_near",
                                                                                    "c99_order", "tt_depth"}
    vals = peer_values(sents, groups)
    for j, s in peer:   # each column is the literal interval question on the values
        key = (s.signal, s.window.end if s.signal == "c99_contrast" else 0)
        with np.errstate(invalid="ignore"):
            want = (vals[key] > s.low) & (vals[key] <= s.high)
        np.testing.assert_array_equal(X[:, j].toarray().ravel().astype(bool), want)
    # JSON round trip, then evaluate_features reproduces the columns in any order
    back = [FeatureSpec.from_dict(json.loads(json.dumps(s.to_dict()))) for _, s in peer]
    assert back == [s for _, s in peer]
    order = rng.permutation(len(peer))
    E = evaluate_features([back[i] for i in order] + [specs[0]], FeatureContext(sents, groups=groups)).toarray()
    np.testing.assert_array_equal(E[:, :-1], X[:, [peer[i][0] for i in order]].toarray())
    for _, s in peer:
        assert s.description.endswith("?") and s.short and s.window.unit == "sentence"
    assert "C99 place a boundary within 1 sentence" in IntervalQuestion(
        "c99_near", Window("sentence", -1, 1), low=-math.inf, high=1.0).description
    assert IntervalQuestion("c99_near", Window("sentence", 0, 0), 0.5, 2.0).description == (
        "is the distance to C99's nearest boundary in 0.5 < d <= 2?")


def test_peer_groups_validated_and_opt_in():
    rng = np.random.default_rng(4)
    sents, groups = _stream(rng)
    _, specs = build_candidates(FeatureContext(sents, groups=groups), vocabulary=5)
    assert not any(s.kind == "peer" for s in specs)
    with pytest.raises(SegvizError, match="groups"):
        FeatureContext(sents, groups=[1, 2])
    with pytest.raises(SegvizError, match="groups"):
        peer_values(sents, [1, 2])
    with pytest.raises(SegvizError, match="unknown signal"):
        IntervalQuestion("nonsense", Window("sentence", 0, 0), low=0.0, high=1.0)
    with pytest.raises(SegvizError, match="unknown signal"):
        FeatureSpec.from_dict({"kind": "peer", "word": "nonsense", "window": {"unit": "sentence", "start": 0,
                                                                               "end": 0}, "low": 0, "high": 1})
    # one group = the whole stream: no NaN inside
    v = peer_values(sents)[("c99_near", 0)]
    assert not np.isnan(v).any()


def test_segmenter_with_peer_features_save_load(tmp_path):
    from segviz.corpus import read_corpus
    from segviz.segmenter import Segmenter

    root = Path(__file__).resolve().parents[1] / "sample_corpora" / "choi"
    if not root.is_dir():
        pytest.skip("bundled Choi sample absent")
    files = sorted(root.glob("*.ref"))
    if len(files) < 3:
        pytest.skip("need 3 Choi sample files")
    train = read_corpus([str(f) for f in files[:-1]], kind="choi")
    held = read_corpus(str(files[-1]), kind="choi")
    seg = Segmenter(n_features=4, vocabulary=200, families=("vocabulary", "relevance", "peer")).fit(train, held)
    assert seg.info_["families"] == ["vocabulary", "peer"]      # relevance needs language models: not asked
    assert any(f.kind == "peer" for f in seg.features_)   # topic-change evidence beats single words on Choi
    path = tmp_path / "m.segviz"
    seg.save(path)
    back = Segmenter.load(path)
    assert tuple(back.families) == ("vocabulary", "relevance", "peer")
    np.testing.assert_allclose(back.boundary_probabilities(held), seg.boundary_probabilities(held))
    assert back.predict(held) == seg.predict(held)
    assert len(back.predict(held)) == len(held.by_file())


def test_peer_values_computed_once_per_context(monkeypatch):
    import segviz.features.peer as peer_module

    rng = np.random.default_rng(5)
    sents, groups = _stream(rng)
    calls = []
    real = peer_module.peer_values
    monkeypatch.setattr(peer_module, "peer_values", lambda *a, **k: calls.append(1) or real(*a, **k))
    context = FeatureContext(sents, groups=groups)
    X, specs = build_candidates(context, families=("peer",), drop_empty=False)
    E = evaluate_features(specs[::-1], context)       # the same stream: served from the context's cache
    np.testing.assert_array_equal(E.toarray(), X.toarray()[:, ::-1])
    assert len(calls) == 1
    values = context.values(signal_named(specs[0].signal), specs[0].window)
    with pytest.raises(ValueError):
        values[:] = -7                                # cached values are read-only: nobody can poison them
    whole = FeatureContext(sents)                     # another context (one group): computed afresh
    evaluate_features(specs[:1], whole)
    assert len(calls) == 2


def test_cli_peer_evidence_is_a_family():
    import argparse

    from segviz.commands import reproduce, train

    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    train.register(subparsers)
    reproduce.register(subparsers)
    assert parser.parse_args(["reproduce", "choi"]).families is None   # the protocol decides
    assert parser.parse_args(["reproduce", "choi", "--families", "vocabulary,cohesion"]).families == \
        ("vocabulary", "cohesion")
    assert parser.parse_args(["train", "x", "--out", "m.segviz", "--families", "vocabulary,peer"]).families == \
        ("vocabulary", "peer")
    for gone in (["reproduce", "choi", "--no-peer-evidence"], ["train", "x", "--out", "m.segviz", "--peer-evidence"]):
        with pytest.raises(SystemExit):
            parser.parse_args(gone)
