"""The tree ensemble as arrays: the same scores as scikit-learn's classifier, and damaged arrays refused."""
from __future__ import annotations

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.tree_ensemble import TreeEnsemble

sklearn_ensemble = pytest.importorskip("sklearn.ensemble", reason="scikit-learn fits the trees")


def _fitted(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2000, 5))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + X[:, 1] ** 2 + 0.5 * rng.normal(size=2000) > 1
    clf = sklearn_ensemble.HistGradientBoostingClassifier(max_iter=30, max_leaf_nodes=7, random_state=0).fit(X, y)
    test = rng.normal(size=(500, 5))
    test[rng.random(test.shape) < 0.2] = np.nan
    return clf, test


@pytest.mark.parametrize("seed", [0, 1])
def test_the_arrays_score_as_scikit_learn_does(seed):
    clf, X = _fitted(seed)
    trees = TreeEnsemble.from_sklearn(clf)
    np.testing.assert_allclose(trees.decision_function(X), clf.decision_function(X), rtol=0, atol=1e-12)
    document, arrays = trees.to_parts()
    again = TreeEnsemble.from_parts(document, arrays, source="m.segviz")
    np.testing.assert_allclose(again.predict_proba(X), clf.predict_proba(X)[:, 1], rtol=0, atol=1e-12)


def _damaged(change):
    clf, _ = _fitted()
    document, arrays = TreeEnsemble.from_sklearn(clf).to_parts()
    arrays = {k: v.copy() for k, v in arrays.items()}
    change(document, arrays)
    return document, arrays


@pytest.mark.parametrize("change, message", [
    (lambda d, a: a["left"].__setitem__(0, 0), "children must follow"),          # a loop: node 0 -> node 0
    (lambda d, a: a["right"].__setitem__(0, 10**6), "children must follow"),      # out of the tree
    (lambda d, a: a["feature"].__setitem__(0, 99), "measurement"),
    (lambda d, a: a["value"].__setitem__(np.flatnonzero(a["feature"] < 0)[0], np.inf), "finite"),
    (lambda d, a: a.__setitem__("threshold", np.zeros(a["threshold"].size, dtype=np.int64)), "float"),
    (lambda d, a: a.__setitem__("roots", a["roots"][::-1].copy()), "roots"),
    (lambda d, a: d.__setitem__("baseline", "0.5"), "baseline"),
    (lambda d, a: d.__setitem__("baseline", 10**400), "baseline"),
    (lambda d, a: d.__setitem__("n_features", 3), "measurement"),
    (lambda d, a: a.__setitem__("missing_left", np.full_like(a["missing_left"], 2)), "missing_left"),
    (lambda d, a: a.pop("value"), "value"),
])
@pytest.mark.slow
def test_damaged_trees_are_refused_with_one_line(change, message):
    document, arrays = _damaged(change)
    with pytest.raises(SegvizError, match=message) as caught:
        TreeEnsemble.from_parts(document, arrays, source="m.segviz")
    assert "\n" not in str(caught.value) and str(caught.value).startswith("m.segviz")


def test_a_row_of_the_wrong_width_is_refused():
    clf, X = _fitted()
    with pytest.raises(SegvizError, match="5 measurements"):
        TreeEnsemble.from_sklearn(clf).decision_function(X[:, :4])
