"""The Segmenter's choice of candidate families and its Gaussian prior: fitted, saved, loaded, applied."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from segviz.corpus import read_corpus
from segviz.errors import SegvizError
from segviz.rules import ThresholdRule
from segviz.segmenter import DEFAULT_FAMILIES, Segmenter

CHOI = Path(__file__).resolve().parents[1] / "sample_corpora" / "choi"


@pytest.fixture(scope="module")
def choi():
    files = sorted(CHOI.glob("*.ref"))
    if len(files) < 3:
        pytest.skip("the bundled Choi sample is absent")
    return read_corpus([str(f) for f in files[:-1]]), read_corpus(str(files[-1]))


def test_default_families_and_the_switches_they_replace():
    assert Segmenter().candidate_families() == DEFAULT_FAMILIES == ("vocabulary", "relevance", "cohesion")
    # the earlier switches (cohesion=False, peer_evidence=True) are a families list now, and refused as arguments
    assert Segmenter(families=("vocabulary", "relevance", "peer")).candidate_families() == \
        ("vocabulary", "relevance", "peer")
    for gone in ("use_relevance", "cohesion", "peer_evidence"):
        with pytest.raises(TypeError, match=gone):
            Segmenter(**{gone: False})
    assert Segmenter(families=["cohesion", "vocabulary"]).candidate_families() == ("vocabulary", "cohesion")
    for bad in (dict(families=["vocabulary", "nope"]), dict(families="vocabulary"), dict(l2=-1.0),
                dict(l2=float("nan")), dict(l2=True)):
        with pytest.raises(SegvizError):
            Segmenter(**bad).check_params()


def test_relevance_is_not_asked_without_language_models(choi):
    train, held = choi
    seg = Segmenter(n_features=2, vocabulary=100).fit(train, held)          # the default families, no LMs
    assert seg.families is None and seg.info_["families"] == ["vocabulary", "cohesion"]
    assert seg.lms_ is None and not seg.uses_relevance


def test_families_and_prior_are_fitted_saved_and_loaded(choi, tmp_path):
    train, held = choi
    seg = Segmenter(n_features=6, vocabulary=200, families=["vocabulary", "cohesion"], l2=0.5,
                    rule=ThresholdRule(alphas=(0.2, 0.4, 0.6), epsilons=(1, 3))).fit(train, held)
    assert seg.info_["families"] == ["vocabulary", "cohesion"] and seg.info_["l2"] == 0.5
    assert {f.kind for f in seg.features_} <= {"sentences", "words", "sentences_not", "begins_previous",
                                                  "cohesion"}
    path = tmp_path / "m.segviz"
    seg.save(path)
    back = Segmenter.load(path)
    assert tuple(back.families) == ("vocabulary", "cohesion") and back.l2 == 0.5
    assert back.rule.to_dict() == seg.rule.to_dict() and back.rule_.to_dict() == seg.rule_.to_dict()
    np.testing.assert_allclose(back.predict_proba(held), seg.predict_proba(held))
    refit = Segmenter(**back.get_params(deep=False)).fit(train, held)   # the saved parameters refit the same model
    assert refit.features_ == seg.features_
    np.testing.assert_allclose(refit.lambdas_, seg.lambdas_)
    assert refit.rule_.to_dict() == seg.rule_.to_dict()
    assert (refit.rule_.alpha, refit.rule_.epsilon) in {(a, e) for a in (0.2, 0.4, 0.6) for e in (1, 3)}


def test_prior_shrinks_the_weights_of_the_fitted_model(choi):
    train, held = choi
    free = Segmenter(n_features=8, vocabulary=300, families=("vocabulary",)).fit(train, held)
    shrunk = Segmenter(n_features=8, vocabulary=300, families=("vocabulary",), l2=2.0).fit(train, held)
    assert np.max(np.abs(free.lambdas_)) > np.max(np.abs(shrunk.lambdas_))
    assert np.max(np.abs(shrunk.lambdas_)) < free.lambda_max / 2
