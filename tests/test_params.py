"""Estimator hygiene: parameters read from ``__init__``, ``get_params(deep=True)`` round-trips, ``set_params``
reaches nested estimators, the repr shows what differs from the defaults, and scikit-learn's ``clone`` works."""
from __future__ import annotations

import inspect

import pytest

from segviz import ExpertRouter, LengthPriorRule, SegmentCountRule, Segmenter, ThresholdRule
from segviz.errors import SegvizError
from segviz.params import ParamsMixin

ESTIMATORS = [
    Segmenter(n_features=7, families=("cohesion", "shape"), l2=1.0, rule=LengthPriorRule(shape=4.0, bias=1.5)),
    Segmenter(),
    ThresholdRule(alpha=0.3, epsilon=4, alphas=(0.1, 0.3), epsilons=(1, 4)),
    LengthPriorRule(mean_length=120.0, shape=8.0),
    SegmentCountRule(segments=30),
    ExpertRouter(thresholds=(5.0, 10.0), tuning_metric="p_mu"),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_get_params_round_trips(estimator):
    params = estimator.get_params(deep=False)
    assert set(params) == set(type(estimator)._param_names())
    # every keyword of __init__, nothing else
    signature = inspect.signature(type(estimator).__init__)
    assert set(params) == {n for n in signature.parameters if n != "self"}
    again = type(estimator)(**params)
    assert again.get_params(deep=False) == params
    deep = estimator.get_params(deep=True)
    for key, value in deep.items():
        if "__" in key:
            outer, inner = key.split("__", 1)
            assert deep[outer].get_params(deep=True)[inner] == value
    # deep parameters can be set back, the nested ones through name__param
    fresh = type(estimator)(**params)
    fresh.set_params(**{k: v for k, v in deep.items()})
    assert fresh.get_params(deep=True) == deep


def test_sklearn_clone_gives_an_unfitted_copy_with_the_same_parameters():
    base = pytest.importorskip("sklearn.base")
    seg = Segmenter(n_features=3, families=("cohesion",), rule=ThresholdRule(alpha=0.2, epsilon=3))
    copy = base.clone(seg)
    assert copy is not seg and not copy.is_fitted
    assert copy.get_params(deep=False).keys() == seg.get_params(deep=False).keys()
    assert copy.rule is not seg.rule and copy.rule.get_params() == seg.rule.get_params()
    assert copy.get_params(deep=True) == {**seg.get_params(deep=True), "rule": copy.rule}
    # a clone of a fitted estimator is unfitted and fits to the same model
    from pathlib import Path

    from segviz import read_corpus

    choi = Path(__file__).resolve().parents[1] / "sample_corpora" / "choi"
    train = read_corpus([choi / "3-11_0.ref", choi / "3-11_1.ref"])
    held = read_corpus(choi / "3-11_2.ref")
    fitted = Segmenter(n_features=3, vocabulary=500, families=("vocabulary", "cohesion")).fit(train, held)
    again = base.clone(fitted).fit(train, held)
    assert [f.description for f in again.features_] == [f.description for f in fitted.features_]
    assert again.rule_.to_dict() == fitted.rule_.to_dict()


def test_set_params_names_what_exists():
    seg = Segmenter()
    seg.set_params(rule=ThresholdRule(), rule__alpha=0.7)
    assert seg.rule.alpha == 0.7
    with pytest.raises(SegvizError, match="no parameter 'use_relevance'"):
        seg.set_params(use_relevance=False)
    with pytest.raises(SegvizError, match="not an estimator"):
        seg.set_params(l2__x=1)


def test_repr_shows_the_parameters_that_differ_from_the_defaults():
    assert repr(Segmenter()) == "Segmenter()"
    assert repr(Segmenter(n_features=7, l2=1.0)) == "Segmenter(l2=1.0, n_features=7)"
    assert repr(ThresholdRule(alpha=0.3)) == "ThresholdRule(alpha=0.3)"
    assert "segments=30" in repr(SegmentCountRule(segments=30))


def test_every_estimator_of_the_engine_uses_the_one_mixin():
    for cls in (Segmenter, ExpertRouter, ThresholdRule, LengthPriorRule, SegmentCountRule):
        assert issubclass(cls, ParamsMixin)
        assert "get_params" not in vars(cls) and "set_params" not in vars(cls)
