"""A learned, non-linear score of paragraph starts, offered to feature induction as evidence (beyond the paper).

:class:`GapScorer` fits gradient-boosted trees (scikit-learn's ``HistGradientBoostingClassifier``) on the
paragraph-level measurements of :mod:`segviz.features.paragraph_measures` at the training corpus's paragraph
starts, labelled by the reference boundaries.  Its probability at each gap becomes the ``paragraph_score`` input of
a :class:`~segviz.features.FeatureContext`, and the ``paragraph-score`` family asks interval questions of it
(``is the score above 0.2?``): induction chooses among them as among any other candidates and weighs what it keeps
(Section 4), so the exponential model stays the one model and its feature panel shows the score's questions.

The training corpus's own scores are **cross-fitted**: each source unit (a book) is scored by trees fitted on the
other units (``folds`` groups of units), so induction sees scores as good as a new book's, not the trees' memory
of the book; held-out and new text are scored by the trees fitted on every training unit.  The trees are stored in
the model file as arrays (:class:`~segviz.tree_ensemble.TreeEnsemble`), no pickle.

Beside the measurements the trees read one more column, the **cue score**: a logistic regression over the hashed
words opening the paragraph and closing the one before (:mod:`segviz.features.paragraph_cues`), itself cross-fitted
by unit on the same folds, so the trees learn from cue scores as good as a new book's.  Its weights are stored as
one array beside the trees.

Then **a second look** (``score_context``): more trees read the same columns and where each start's first score
stands among its neighbours along the book (:mod:`segviz.features.score_context`: the words back to the previous
strong start and on to the next, the score less the best within 1,500 and 4,000 words, how many there score
higher).  They learn from the cross-fitted first scores, as good as a new book's, and are cross-fitted on the same
folds in turn; their probability is the score offered to induction.
"""
from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from .errors import SegvizError
from .events import Progress
from .features import FeatureContext
from .features.paragraph_cues import CUE_HASH_SIZE, CUES_MEMO, cue_matrix
from .features.paragraph_measures import MEASUREMENTS, MEASUREMENTS_MEMO, paragraph_measurements, paragraph_start_gaps
from .features.score_context import SCORE_CONTEXT
from .features.score_context import score_context as context_columns
from .params import ParamsMixin
from .tree_ensemble import TreeEnsemble

__all__ = ["GapScorer"]

#: (name, lowest, highest) of the integer and float hyperparameters, checked before any fitting
_LIMITS = {"max_iter": (1, 5000), "max_leaf_nodes": (2, 1024), "folds": (2, 100), "min_units": (2, 100_000)}
_FLOAT_LIMITS = {"learning_rate": (1e-6, 1.0), "l2_regularization": (0.0, 1e6), "cue_c": (1e-6, 1e6)}
#: the trees' columns: the paragraph measurements, then the cue score
COLUMNS: tuple[str, ...] = (*MEASUREMENTS, "cue_score")
#: the second trees' columns: the first trees' columns, then the first score's context
CONTEXT_COLUMNS: tuple[str, ...] = (*COLUMNS, *SCORE_CONTEXT)


class GapScorer(ParamsMixin):
    """Boosted trees over paragraph-level measurements: P(a segment starts at this paragraph start).

    Parameters (keyword-only, stored verbatim)
    ------------------------------------------
    max_iter, learning_rate, max_leaf_nodes, l2_regularization : the trees (scikit-learn's names).
    cue_c : the inverse L2 strength of the cue regression (scikit-learn's ``C``).
    folds : groups of training units for the cross-fitted training scores.
    min_units : the fewest training source units (books) to fit on: with fewer, cross-fitting has nothing to
        hold out and the score is not offered.
    score_context : whether second trees read where each first score stands among its neighbours (the module
        docstring); their probability is then the score.
    random_state : the trees' seed.

    Learned state
    -------------
    trees_ : the :class:`~segviz.tree_ensemble.TreeEnsemble` fitted on every training unit.
    context_trees_ : the second trees fitted on every training unit (None without ``score_context``).
    cue_weights_, cue_bias_ : the cue regression fitted on every training unit (one weight per hashed term).
    info_ : training rows, positives, units.
    """

    def __init__(self, *, max_iter: int = 200, learning_rate: float = 0.05, max_leaf_nodes: int = 15,
                 l2_regularization: float = 1.0, cue_c: float = 0.1, folds: int = 5, min_units: int = 4,
                 score_context: bool = True, random_state: int = 0):
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.l2_regularization = l2_regularization
        self.cue_c = cue_c
        self.folds = folds
        self.min_units = min_units
        self.score_context = score_context
        self.random_state = random_state

    def check_params(self) -> GapScorer:
        for name, (low, high) in _LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
                raise SegvizError(f"{name} must be an integer in {low}..{high}, got {value!r}")
        for name, (low, high) in _FLOAT_LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise SegvizError(f"{name} must be a number in [{low:g}, {high:g}], got {value!r}")
        if not isinstance(self.score_context, bool):
            raise SegvizError(f"score_context must be true or false, got {self.score_context!r}")
        if isinstance(self.random_state, bool) or not isinstance(self.random_state, (int, np.integer)):
            raise SegvizError(f"random_state must be an integer, got {self.random_state!r}")
        return self

    # ------------------------------------------------------------------ fitting
    def _classifier(self):
        try:
            from sklearn.ensemble import HistGradientBoostingClassifier
        except ImportError:   # pragma: no cover - scikit-learn is a dependency
            raise SegvizError("the paragraph-score family needs scikit-learn to train") from None
        return HistGradientBoostingClassifier(
            max_iter=int(self.max_iter), learning_rate=float(self.learning_rate),
            max_leaf_nodes=int(self.max_leaf_nodes), l2_regularization=float(self.l2_regularization),
            random_state=int(self.random_state))

    @staticmethod
    def _check_labels(y: np.ndarray) -> None:
        if y.all() or not y.any():
            raise SegvizError("the paragraph score needs paragraph starts with and without a boundary to learn from")

    def _fit_trees(self, X: np.ndarray, y: np.ndarray) -> TreeEnsemble:
        self._check_labels(y)
        # a measurement missing on every row (names in text without capitals) carries nothing, and scikit-learn's
        # binning cannot take it: a constant column is never split on, so new text's values there are ignored
        X = np.where(np.isnan(X).all(axis=0)[None, :], 0.0, X)
        return TreeEnsemble.from_sklearn(self._classifier().fit(X, y))

    def _fit_cues(self, H, y: np.ndarray) -> tuple[np.ndarray, float]:
        try:
            from sklearn.linear_model import LogisticRegression
        except ImportError:   # pragma: no cover - scikit-learn is a dependency
            raise SegvizError("the paragraph-score family needs scikit-learn to train") from None
        self._check_labels(y)
        fitted = LogisticRegression(C=float(self.cue_c), solver="liblinear", max_iter=2000).fit(H, y)
        return fitted.coef_.ravel().astype(np.float32), float(fitted.intercept_[0])

    @staticmethod
    def _cue_score(H, weights: np.ndarray, bias: float) -> np.ndarray:
        return np.asarray(H @ weights.astype(np.float64)).ravel() + bias

    def usable(self, context: FeatureContext) -> bool:
        """Whether ``context`` has enough source units with paragraph starts and boundaries to fit on."""
        at = paragraph_start_gaps(context)
        if not at.any():
            return False
        unit = context.group_of_sentence()[1:]
        return len(np.unique(unit[at])) >= int(self.min_units)

    def fit_iter(self, context: FeatureContext, y: np.ndarray) -> Generator[Progress, None, np.ndarray]:
        """Fit on the paragraph starts of ``context`` (``y``: the reference indicator per event); yields progress,
        returns the cross-fitted scores of ``context``'s own gaps (NaN where no paragraph starts)."""
        self.check_params()
        y = np.asarray(y, dtype=bool)
        if y.shape != (context.n_events,):
            raise SegvizError(f"need one label per gap ({context.n_events}), got {y.shape}")
        if not self.usable(context):
            raise SegvizError(f"the paragraph score needs at least {self.min_units} source units (books, files) "
                              "with paragraph starts to learn from")
        at = np.flatnonzero(paragraph_start_gaps(context))
        X = paragraph_measurements(context)[at]
        H = cue_matrix(context)
        labels = y[at]
        unit = context.group_of_sentence()[1:][at]
        units = np.unique(unit)
        folds = min(int(self.folds), units.size)
        fold_of_unit = {u: i % folds for i, u in enumerate(units)}
        fold = np.array([fold_of_unit[u] for u in unit])
        steps = 2 * folds + 2 + (folds + 1 if self.score_context else 0)
        # the cue score of each training unit from a regression that never saw it, as for the trees below
        cues = np.empty(at.size)
        for f in range(folds):
            yield Progress("paragraph cues (cross-fitted regression)", f, steps)
            inside = fold == f
            weights, bias = self._fit_cues(H[~inside], labels[~inside])
            cues[inside] = self._cue_score(H[inside], weights, bias)
        yield Progress("paragraph cues (cross-fitted regression)", folds, steps)
        self.cue_weights_, self.cue_bias_ = self._fit_cues(H, labels)
        X = np.c_[X, cues]
        first = np.empty(at.size)
        for f in range(folds):
            yield Progress("paragraph score (cross-fitted trees)", folds + 1 + f, steps)
            inside = fold == f
            first[inside] = self._fit_trees(X[~inside], labels[~inside]).predict_proba(X[inside])
        yield Progress("paragraph score (cross-fitted trees)", 2 * folds + 1, steps)
        self.trees_ = self._fit_trees(X, labels)
        self.context_trees_ = None
        scores = np.full(context.n_events, np.nan)
        scores[at] = first
        if self.score_context:
            # the second trees learn from first scores as good as a new book's (cross-fitted above), and their own
            # training scores are cross-fitted on the same folds, so induction again sees a new book's scores
            X = np.c_[X, context_columns(context, at, first)]
            for f in range(folds):
                yield Progress("paragraph score, second look (cross-fitted trees)", 2 * folds + 2 + f, steps)
                inside = fold == f
                scores[at[inside]] = self._fit_trees(X[~inside], labels[~inside]).predict_proba(X[inside])
            self.context_trees_ = self._fit_trees(X, labels)
        self.info_ = {"rows": int(at.size), "boundaries": int(labels.sum()), "units": int(units.size),
                      "folds": folds, "measurements": list(CONTEXT_COLUMNS if self.score_context else COLUMNS)}
        yield Progress("paragraph score (cross-fitted trees)", steps, steps)
        return scores

    def scores(self, context: FeatureContext) -> np.ndarray:
        """P(boundary) at every gap of ``context`` where a paragraph starts (NaN elsewhere), from :attr:`trees_`."""
        if not hasattr(self, "trees_"):
            raise SegvizError("this GapScorer is not fitted yet")
        out = np.full(context.n_events, np.nan)
        at = np.flatnonzero(paragraph_start_gaps(context))
        if at.size:
            cues = self._cue_score(cue_matrix(context), self.cue_weights_, self.cue_bias_)
            X = np.c_[paragraph_measurements(context)[at], cues]
            out[at] = self.trees_.predict_proba(X)
            if self.context_trees_ is not None:
                out[at] = self.context_trees_.predict_proba(np.c_[X, context_columns(context, at, out[at])])
        return out

    @staticmethod
    def release(context: FeatureContext) -> None:
        """Forget what :meth:`fit_iter` and :meth:`scores` cached on ``context`` (the measurements and the cue terms
        of its paragraph starts): once the score is set, no question reads them, and on the chapters protocol's 127
        training books they hold some 0.6 GB while the candidate matrix is built."""
        context.forget(MEASUREMENTS_MEMO)
        context.forget(CUES_MEMO)

    # ------------------------------------------------------------------ storing
    def bundle_parts(self, base: str) -> tuple[dict[str, dict], dict[str, np.ndarray]]:
        """The scorer's JSON document and its trees' arrays, named under ``base`` in a model bundle."""
        document, arrays = self.trees_.to_parts()
        document = {"params": self.get_params(deep=False), "trees": document, "info": self.info_,
                    "cue_bias": self.cue_bias_}
        parts = {f"{base}/{name}": a for name, a in arrays.items()}
        if self.context_trees_ is not None:
            document["context_trees"], second = self.context_trees_.to_parts()
            parts.update({f"{base}/context/{name}": a for name, a in second.items()})
        parts[f"{base}/cue_weights"] = np.asarray(self.cue_weights_, dtype=np.float32)
        return {base: document}, parts

    @classmethod
    def from_bundle(cls, bundle, base: str, *, source: str) -> GapScorer:
        """The scorer stored under ``base`` of a read bundle, every field validated."""
        document = bundle.document(base)
        if not isinstance(document, dict) or not isinstance(document.get("params"), dict):
            raise SegvizError(f"{source}: the paragraph scorer's document must hold its params")
        params = document["params"]
        unknown = sorted(set(params) - set(cls._param_names()))
        if unknown:
            raise SegvizError(f"{source}: the paragraph scorer has unknown params {', '.join(map(str, unknown))}")
        scorer = cls(**params)
        try:
            scorer.check_params()
        except SegvizError as exc:
            raise SegvizError(f"{source}: paragraph scorer: {exc}") from None
        arrays: dict[str, Any] = dict(bundle.arrays_under(base))
        weights = arrays.pop("cue_weights", None)
        second = {name[len("context/"):]: arrays.pop(name) for name in list(arrays) if name.startswith("context/")}
        scorer.trees_ = TreeEnsemble.from_parts(document.get("trees"), arrays, source=f"{source}: paragraph scorer")
        if scorer.trees_.n_features != len(COLUMNS):
            raise SegvizError(f"{source}: the paragraph scorer reads {scorer.trees_.n_features} measurements, "
                              f"this version measures {len(COLUMNS)}")
        scorer.context_trees_ = None
        if scorer.score_context:
            if "context_trees" not in document or not second:
                raise SegvizError(f"{source}: the paragraph scorer takes a second look but holds no second trees")
            scorer.context_trees_ = TreeEnsemble.from_parts(document["context_trees"], second,
                                                            source=f"{source}: paragraph scorer, second trees")
            if scorer.context_trees_.n_features != len(CONTEXT_COLUMNS):
                raise SegvizError(f"{source}: the paragraph scorer's second trees read "
                                  f"{scorer.context_trees_.n_features} measurements, this version measures "
                                  f"{len(CONTEXT_COLUMNS)}")
        elif second or "context_trees" in document:
            raise SegvizError(f"{source}: the paragraph scorer holds second trees it does not take")
        if not isinstance(weights, np.ndarray) or weights.dtype.kind != "f" or weights.shape != (CUE_HASH_SIZE,) \
                or not np.isfinite(weights).all():
            raise SegvizError(f"{source}: the paragraph scorer's cue weights must be {CUE_HASH_SIZE} finite numbers")
        bias = document.get("cue_bias")
        if isinstance(bias, bool) or not isinstance(bias, (int, float)) or not np.isfinite(bias):
            raise SegvizError(f"{source}: the paragraph scorer's cue bias must be a finite number")
        scorer.cue_weights_, scorer.cue_bias_ = weights.astype(np.float32), float(bias)
        info = document.get("info")
        scorer.info_ = info if isinstance(info, dict) else {}
        return scorer
