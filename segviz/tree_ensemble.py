"""A gradient-boosted tree ensemble as plain arrays: fitted by scikit-learn, stored in a model file as numbers,
evaluated with numpy.

The chapters model offers a non-linear score of paragraph-level measurements to feature induction as one more
question family (:mod:`segviz.gap_scorer`): the trees learn thresholds and interactions of the measurements that
the exponential model's binary questions cannot, and induction still chooses what to ask and weighs it (Section 4),
so the model and its feature panel stay one.  Model files hold no pickle, so the ensemble is kept as its node
arrays; every array is validated on reading (indices in range, children after their parent, so that a walk down a
tree always ends at a leaf) before a single row is scored.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import SegvizError

__all__ = ["TreeEnsemble", "MAX_TREE_NODES"]

#: the most nodes a stored ensemble may hold (400 trees of 31 leaves hold 24,400): a file claiming more is refused
MAX_TREE_NODES = 1_000_000
#: the most measurements an ensemble may read
MAX_TREE_FEATURES = 10_000


@dataclass(frozen=True)
class TreeEnsemble:
    """Binary-classification trees: the log-odds of a row is ``baseline`` plus the value of the leaf each tree
    sends it to.  Node arrays are concatenated over trees; ``roots[t]`` is tree ``t``'s first node; at an inner
    node a row goes ``left`` when its measurement ``feature`` is ``<= threshold`` (a missing one, NaN, where
    ``missing_left`` says); ``feature`` is -1 at a leaf, whose log-odds contribution is ``value``."""

    baseline: float
    n_features: int
    roots: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray

    @classmethod
    def from_sklearn(cls, classifier) -> TreeEnsemble:
        """The trees of a fitted binary ``sklearn.ensemble.HistGradientBoostingClassifier`` (numerical
        measurements only)."""
        predictors = getattr(classifier, "_predictors", None)
        baseline = np.asarray(getattr(classifier, "_baseline_prediction", np.nan), dtype=np.float64).ravel()
        if predictors is None or baseline.size != 1 or any(len(p) != 1 for p in predictors):
            raise SegvizError("need a fitted binary HistGradientBoostingClassifier")
        roots, parts = [], []
        offset = 0
        for (tree,) in predictors:
            nodes = tree.nodes
            if np.any(nodes["is_categorical"]):
                raise SegvizError("categorical splits are not supported")
            roots.append(offset)
            leaf = nodes["is_leaf"].astype(bool)
            parts.append((np.where(leaf, -1, nodes["feature_idx"]).astype(np.int32),
                          np.where(leaf, 0.0, nodes["num_threshold"]).astype(np.float64),
                          nodes["missing_go_to_left"].astype(bool),
                          np.where(leaf, -1, nodes["left"].astype(np.int64) + offset).astype(np.int32),
                          np.where(leaf, -1, nodes["right"].astype(np.int64) + offset).astype(np.int32),
                          np.where(leaf, nodes["value"], 0.0).astype(np.float64)))
            offset += len(nodes)
        columns = [np.concatenate(c) for c in zip(*parts)]
        return cls(float(baseline[0]), int(classifier.n_features_in_), np.asarray(roots, dtype=np.int32),
                   *columns).check()

    # ------------------------------------------------------------------ checking
    def check(self, source: str = "tree ensemble") -> TreeEnsemble:
        """Refuse arrays that could not be walked safely: shapes, indices, children after parents, finite numbers."""
        def fail(what: str):
            raise SegvizError(f"{source}: {what}")

        n = self.feature.shape[0] if self.feature.ndim == 1 else -1
        if not 1 <= n <= MAX_TREE_NODES:
            fail(f"the trees must hold 1..{MAX_TREE_NODES} nodes")
        for name in ("threshold", "missing_left", "left", "right", "value"):
            if getattr(self, name).shape != (n,):
                fail(f"'{name}' must hold one entry per node ({n})")
        if not 1 <= self.n_features <= MAX_TREE_FEATURES:
            fail(f"n_features must be 1..{MAX_TREE_FEATURES}")
        if not math.isfinite(self.baseline):
            fail("the baseline log-odds must be finite")
        roots = self.roots
        if roots.ndim != 1 or roots.size < 1 or roots[0] != 0 or np.any(np.diff(roots) <= 0) or roots[-1] >= n:
            fail("tree roots must start at 0 and increase within the nodes")
        tree_end = np.append(roots[1:], n)[np.searchsorted(roots, np.arange(n), side="right") - 1]
        leaf = self.feature < 0
        index = np.arange(n)
        if np.any(self.feature[~leaf] >= self.n_features) or np.any(self.feature[leaf] != -1):
            fail("a split reads a measurement the ensemble does not have")
        for child in (self.left, self.right):
            inner = child[~leaf]
            if np.any(inner <= index[~leaf]) or np.any(inner >= tree_end[~leaf]):
                fail("a node's children must follow it within its own tree")
        # a split on missing values alone sends every present value left: its threshold is +inf
        if np.any(np.isnan(self.threshold)) or not np.all(np.isfinite(self.value)):
            fail("thresholds must be numbers and leaf values finite")
        return self

    # ------------------------------------------------------------------ scoring
    def decision_function(self, X) -> np.ndarray:
        """The log-odds of every row of ``X`` (rows x ``n_features``; NaN = missing)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise SegvizError(f"the trees read {self.n_features} measurements a row, got shape {X.shape}")
        rows = np.arange(X.shape[0])
        out = np.full(X.shape[0], self.baseline)
        for root in self.roots:
            node = np.full(X.shape[0], root, dtype=np.int64)
            while True:
                inner = self.feature[node] >= 0
                if not inner.any():
                    break
                at = node[inner]
                x = X[rows[inner], self.feature[at]]
                go_left = np.where(np.isnan(x), self.missing_left[at], x <= self.threshold[at])
                node[inner] = np.where(go_left, self.left[at], self.right[at])
            out += self.value[node]
        return out

    def predict_proba(self, X) -> np.ndarray:
        """P(yes) of every row (the logistic of :meth:`decision_function`)."""
        return 1.0 / (1.0 + np.exp(-self.decision_function(X)))

    # ------------------------------------------------------------------ storing
    def to_parts(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """A JSON document and named arrays (stored in a model bundle)."""
        return ({"baseline": self.baseline, "n_features": self.n_features, "n_trees": int(self.roots.size)},
                {"roots": self.roots, "feature": self.feature, "threshold": self.threshold,
                 "missing_left": self.missing_left.astype(np.int8), "left": self.left, "right": self.right,
                 "value": self.value})

    @classmethod
    def from_parts(cls, document: Any, arrays: dict[str, Any], *, source: str) -> TreeEnsemble:
        """The ensemble of :meth:`to_parts`, every field validated (a damaged or crafted file is refused by name)."""
        if not isinstance(document, dict):
            raise SegvizError(f"{source}: the trees' document must be an object")
        baseline, n_features = document.get("baseline"), document.get("n_features")
        if isinstance(baseline, bool) or not isinstance(baseline, (int, float)):
            raise SegvizError(f"{source}: 'baseline' must be a number")
        if isinstance(n_features, bool) or not isinstance(n_features, int):
            raise SegvizError(f"{source}: 'n_features' must be an integer")
        kinds = {"roots": "i", "feature": "i", "threshold": "f", "missing_left": "i", "left": "i", "right": "i",
                 "value": "f"}
        got = {}
        for name, kind in kinds.items():
            a = arrays.get(name)
            if not isinstance(a, np.ndarray) or a.dtype.kind != kind or a.ndim != 1:
                raise SegvizError(f"{source}: the trees' '{name}' must be a 1-d {'integer' if kind == 'i' else 'float'}"
                                  " array")
            got[name] = a
        if np.any((got["missing_left"] != 0) & (got["missing_left"] != 1)):
            raise SegvizError(f"{source}: 'missing_left' must hold 0 or 1")
        try:
            baseline = float(baseline)
        except OverflowError:
            raise SegvizError(f"{source}: 'baseline' is out of range") from None
        if not 1 <= n_features <= MAX_TREE_FEATURES:
            raise SegvizError(f"{source}: n_features must be 1..{MAX_TREE_FEATURES}")
        as_int = {k: got[k].astype(np.int64) for k in ("roots", "feature", "left", "right")}
        for name, a in as_int.items():
            if a.size and (a.min() < -1 or a.max() > MAX_TREE_NODES):
                raise SegvizError(f"{source}: the trees' '{name}' holds an index out of range")
        return cls(baseline, n_features, as_int["roots"].astype(np.int32), as_int["feature"].astype(np.int32),
                   got["threshold"].astype(np.float64), got["missing_left"].astype(bool),
                   as_int["left"].astype(np.int32), as_int["right"].astype(np.int32),
                   got["value"].astype(np.float64)).check(source)
