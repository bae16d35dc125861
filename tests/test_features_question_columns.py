"""Held-out answers computed as induction asks for them give what the full held-out matrix gives: the same
columns, the same rounds, the same trained segmenter."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from segviz import Segmenter, read_corpus
from segviz.errors import SegvizError
from segviz.features import FeatureContext, build_candidates, evaluate_features
from segviz.features.question_columns import QuestionColumns
from segviz.induction import BoundaryModel, FeatureAdded
from segviz.segmentation import masses_to_indicator

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi"
FAMILIES = ("vocabulary", "cohesion", "tfidf", "shape", "position")


@pytest.fixture(scope="module")
def split():
    corpus = read_corpus(CHOI)
    return corpus[:-4], corpus[-4:]


@pytest.fixture(scope="module")
def candidates(split):
    train, heldout = split
    X, specs = build_candidates(FeatureContext.from_corpus(train), families=FAMILIES, vocabulary=500)
    full = evaluate_features(specs, FeatureContext.from_corpus(heldout), layout="csc")
    return X, specs, full


def test_the_columns_asked_for_are_the_full_matrixs(split, candidates):
    _, heldout = split
    _, specs, full = candidates
    lazy = QuestionColumns(specs, FeatureContext.from_corpus(heldout))
    assert lazy.shape == full.shape
    rng = np.random.default_rng(0)
    for cols in ([], [0], [5, 3, 5], list(rng.choice(full.shape[1], 40, replace=False)), [full.shape[1] - 1]):
        got = lazy.columns(cols)
        assert got.shape == (full.shape[0], len(cols))
        np.testing.assert_array_equal(got.toarray(), full[:, cols].toarray())
    assert len(lazy._answered) < full.shape[1] // 2   # only what was asked for was answered
    with pytest.raises(SegvizError, match="question columns"):
        lazy.columns([full.shape[1]])


def test_induction_runs_the_same_rounds_on_either(split, candidates):
    train, heldout = split
    X, specs, full = candidates
    y = masses_to_indicator(train.masses())
    masses = heldout.masses()

    def rounds(heldout_X):
        events = BoundaryModel(n_features=5).induce(X, y, specs, heldout_X=heldout_X, heldout_masses=masses)
        return [(e.column, e.heldout_p_mu, e.heldout_rule.to_dict()) for e in events if isinstance(e, FeatureAdded)]

    expected = rounds(full)
    assert len(expected) == 5
    assert rounds(QuestionColumns(specs, FeatureContext.from_corpus(heldout))) == expected


def test_a_trained_segmenter_is_the_one_the_full_matrix_gave(split, monkeypatch):
    """The segmenter's held-out stop and rule tuning read the chosen columns only; pinned against the full matrix
    by training with induction fed the full held-out matrix."""
    train, heldout = split
    params = dict(n_features=6, families=FAMILIES, vocabulary=500, stopping="heldout")
    lazy = Segmenter(**params).fit(train, heldout)
    import segviz.segmenter as segmenter_module

    class Full(QuestionColumns):   # the same protocol, every column answered up front
        def __init__(self, specs, context):
            super().__init__(specs, context)
            self.columns(range(len(specs)))

    monkeypatch.setattr(segmenter_module, "QuestionColumns", Full)
    eager = Segmenter(**params).fit(train, heldout)
    assert [f.to_dict() for f in lazy.features_] == [f.to_dict() for f in eager.features_]
    np.testing.assert_array_equal(lazy.lambdas_, eager.lambdas_)
    assert lazy.rule_.to_dict() == eager.rule_.to_dict()
    assert lazy.info_["rounds_kept"] == eager.info_["rounds_kept"]
