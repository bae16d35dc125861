"""Greedy feature induction for the exponential boundary model (paper Section 4): the estimator.

:class:`BoundaryModel` grows the model q(b | w) one feature per round -- the candidate of largest exact gain
(found by :class:`~segviz.induction_math.CandidateSearch`) added, every weight refitted by IIS -- and yields a
:class:`FeatureAdded` event per round and an :class:`InductionFinished` at the end.  The mathematics (the model's
form, the gains, the IIS refit) lives in :mod:`segviz.induction_math`; the class coordinates it and keeps the
state.
"""
from __future__ import annotations

import math
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from segviz.errors import SegvizError
from segviz.events import Progress
from segviz.features import FeatureSpec
from segviz.induction_math import (
    CandidateSearch,
    as_csc,
    candidate_gains,
    column_source,
    iis_refit,
    log_likelihood,
)
from segviz.induction_math import (
    numba_available as _numba_available,
)
from segviz.rules import ThresholdRule
from segviz.segmentation import logistic

__all__ = [
    "FeatureAdded",
    "InductionFinished",
    "BoundaryModel",
]


@dataclass(frozen=True)
class FeatureAdded:
    """One induction round finished (Section 5's figures are a list of these).

    ``weights`` are the current factors ``e^lambda`` of *all* features so far, in
    order of selection (the numbers under the paper's Figure 5 bars);
    ``train_loglik`` is the natural-log likelihood of the training events after
    the refit; ``heldout_p_mu`` the best held-out P_mu over the threshold rule's alpha/epsilon grid
    (None without held-out data), reached by ``heldout_rule`` (a :class:`~segviz.rules.ThresholdRule`).
    """

    round: int
    feature: FeatureSpec
    gain: float
    weights: tuple[float, ...]
    train_loglik: float
    heldout_p_mu: float | None
    heldout_rule: ThresholdRule | None = None
    column: int = -1
    iis_iterations: int = 0
    seconds: float = 0.0

    @property
    def lambdas(self) -> tuple[float, ...]:
        return tuple(math.log(w) for w in self.weights)


@dataclass(frozen=True)
class InductionFinished:
    """Induction stopped: ``reason`` is "n_features", "no_gain" or "candidates_exhausted"."""

    rounds: int
    reason: str


# ----------------------------------------------------------------------------- the estimator


class BoundaryModel:
    """The exponential boundary model q(b | w) grown by greedy feature induction (Section 4).

    Parameters (keyword-only, stored verbatim)
    ------------------------------------------
    n_features : features to induce (the paper used 70 and 100).
    lambda_max : cap on |lambda| (keeps separable features finite).
    l2 : precision of a Gaussian prior on every lambda (gains and IIS maximise the penalised likelihood,
        :mod:`segviz.induction_math`); 0 = the paper's maximum likelihood.  A question firing on a few training
        events then keeps a moderate weight instead of the cap.
    iis_tol : IIS stops when no weight moves by more than this.
    iis_max_iter : cap on IIS iterations per refit.
    rule : the threshold rule whose alpha/epsilon grid scores each round on held-out data (None: the default grid).

    Learned state
    -------------
    prior_ : training base rate q0(yes); offset_ = its log-odds.
    features_ : the induced FeatureSpecs, in order of selection.
    columns_ : their column indices in the candidate matrix passed to :meth:`induce`.
    lambdas_ : their weights lambda (the factors are ``exp(lambdas_)``).
    history_ : the FeatureAdded events so far (each holds that round's weights).
    """

    def __init__(self, *, n_features: int = 100, lambda_max: float = 10.0, l2: float = 0.0, iis_tol: float = 1e-6,
                 iis_max_iter: int = 5000, rule: ThresholdRule | None = None):
        self.n_features = n_features
        self.lambda_max = lambda_max
        self.l2 = l2
        self.iis_tol = iis_tol
        self.iis_max_iter = iis_max_iter
        self.rule = rule

    # -- state helpers
    def _check_fitted(self) -> None:
        if not hasattr(self, "prior_"):
            raise SegvizError("this BoundaryModel is not fitted yet; call induce()/fit() first")

    @property
    def weights_(self) -> np.ndarray:
        """The factors e^lambda of the induced features."""
        self._check_fitted()
        return np.exp(self.lambdas_)

    def _validate(self, X, y, specs):
        X = as_csc(X)
        y = np.asarray(y).astype(bool)
        if y.shape != (X.shape[0],):
            raise SegvizError(f"labels must have shape ({X.shape[0]},), got {y.shape}")
        if specs is not None and len(specs) != X.shape[1]:
            raise SegvizError(f"{len(specs)} feature specs for {X.shape[1]} candidate columns")
        if X.nnz and (X.data.min() < 0 or X.data.max() > 1):
            raise SegvizError("candidate matrix must be binary (0/1)")
        if y.all() or not y.any():
            raise SegvizError("training events need both boundaries and non-boundaries")
        return X, y

    def scores(self, Xf) -> np.ndarray:
        """Log-odds theta0 + lambda.f for events x (induced features) matrix ``Xf``."""
        self._check_fitted()
        Xf = sp.csr_matrix(Xf) if not sp.issparse(Xf) else Xf
        if Xf.shape[1] != len(self.lambdas_):
            raise SegvizError(f"expected {len(self.lambdas_)} feature columns, got {Xf.shape[1]}")
        return self.offset_ + np.asarray(Xf @ self.lambdas_).ravel()

    def predict_proba(self, Xf) -> np.ndarray:
        """q(yes | w) for each event; ``Xf`` holds the induced features' columns, in order."""
        return logistic(self.scores(Xf))

    def fit(self, X, y, specs=None, **kwargs) -> BoundaryModel:
        """Run :meth:`induce` to completion."""
        gen = self.induce(X, y, specs, **kwargs)
        for _ in gen:
            pass
        return self

    def truncated(self, rounds: int) -> BoundaryModel:
        """A copy holding the first ``rounds`` features with the weights they had after that round."""
        self._check_fitted()
        if not 0 <= rounds <= len(self.features_):
            raise SegvizError(f"rounds must be in 0..{len(self.features_)}")
        m = BoundaryModel(**self.get_params())
        m.prior_, m.offset_ = self.prior_, self.offset_
        m.features_ = list(self.features_[:rounds])
        m.columns_ = list(self.columns_[:rounds])
        m.lambdas_ = np.array(self.history_[rounds - 1].lambdas) if rounds else np.zeros(0)
        m.history_ = list(self.history_[:rounds])
        return m

    def get_params(self) -> dict:
        return dict(n_features=self.n_features, lambda_max=self.lambda_max, l2=self.l2, iis_tol=self.iis_tol,
                    iis_max_iter=self.iis_max_iter, rule=self.rule)

    def induce(
        self,
        X,
        y,
        specs: Sequence[FeatureSpec] | None = None,
        *,
        heldout_X=None,
        heldout_masses: Sequence[int] | None = None,
        mu: float | None = None,
        n_features: int | None = None,
    ) -> Generator[Progress | FeatureAdded | InductionFinished, None, BoundaryModel]:
        """Grow the model one feature per round; yields a :class:`FeatureAdded` per round.

        ``X`` is the (events x candidates) binary matrix, ``y`` the labels, ``specs``
        the candidates' FeatureSpecs.  With ``heldout_X`` (held-out events x the same
        candidates: a matrix, or anything with its ``shape`` and ``columns(cols)``, such as
        :class:`~segviz.features.question_columns.QuestionColumns`, which answers only the
        chosen features) and ``heldout_masses``, each round also reports the best
        held-out P_mu over the alpha/epsilon grid.  The caller may stop pulling
        after any round: the model is consistent after every yield.  Calling
        ``induce`` again on a fitted model *resumes* (same candidate matrix),
        up to ``n_features`` (defaults to ``self.n_features``).
        """
        X, y = self._validate(X, y, specs)
        target = self.n_features if n_features is None else int(n_features)
        if target < 0:
            raise SegvizError("n_features must be >= 0")
        if heldout_X is not None:
            heldout_X = column_source(heldout_X)
            if heldout_X.shape[1] != X.shape[1]:
                raise SegvizError("held-out matrix must have the same candidate columns as the training matrix")
            if heldout_masses is None or int(np.sum(heldout_masses)) != heldout_X.shape[0] + 1:
                raise SegvizError("held-out masses must cover the held-out events + 1 sentences")
        if not hasattr(self, "prior_"):
            self.prior_ = float(y.mean())
            self.offset_ = math.log(self.prior_ / (1.0 - self.prior_))
            self.features_, self.columns_, self.lambdas_, self.history_ = [], [], np.zeros(0), []
        elif specs is not None:
            # resuming: the stored features must be the same columns of this candidate matrix
            for c, f in zip(self.columns_, self.features_):
                if c >= len(specs) or specs[c] != f:
                    raise SegvizError("cannot resume: the candidate matrix differs from the one the model was grown on")
        Xa = X[:, self.columns_] if self.columns_ else sp.csc_matrix((X.shape[0], 0))
        scores = self.offset_ + np.asarray(Xa @ self.lambdas_).ravel()
        excluded = np.zeros(X.shape[1], dtype=bool)
        excluded[self.columns_] = True
        warm = None
        # exact gains only where a bound says the candidate can still win (induction_math.CandidateSearch)
        search = CandidateSearch(X, y, lambda_max=self.lambda_max, l2=self.l2) if _numba_available() else None
        while len(self.features_) < target:
            t0 = time.perf_counter()
            rnd = len(self.features_) + 1
            yield Progress("inducing features", rnd - 1, target)
            if search is not None:
                j, gain_j, alpha_j = search.best(scores, excluded)
            else:  # pragma: no cover - without numba: every candidate's gain, numpy
                # Newton starts from last round's optima: the model moves little per round
                gains, warm = candidate_gains(X, y, scores, lambda_max=self.lambda_max, l2=self.l2, init=warm)
                gains[excluded] = -np.inf
                j = int(np.argmax(gains))
                gain_j, alpha_j = float(gains[j]), float(warm[j])
            if j < 0 or not np.isfinite(gain_j) or gain_j <= 1e-12:
                yield InductionFinished(rnd - 1, "no_gain" if j >= 0 and np.isfinite(gain_j)
                                        else "candidates_exhausted")
                return self
            # add it, warm-start its weight at the gain-optimal value, refit all by IIS
            self.columns_.append(j)
            excluded[j] = True
            self.features_.append(specs[j] if specs is not None else None)
            lam0 = np.append(self.lambdas_, alpha_j)
            Xa = X[:, self.columns_]
            lam, iters = iis_refit(Xa, y, self.offset_, lam0, lambda_max=self.lambda_max, l2=self.l2,
                                   tol=self.iis_tol, max_iter=self.iis_max_iter)
            self.lambdas_ = lam
            scores = self.offset_ + np.asarray(Xa @ lam).ravel()
            ll = log_likelihood(scores, y)
            hp = hr = None
            if heldout_X is not None:
                hprobs = logistic(self.offset_ + np.asarray(heldout_X.columns(self.columns_) @ lam).ravel())
                hr, hp = (ThresholdRule() if self.rule is None else self.rule).tune(hprobs, heldout_masses, mu=mu)
            event = FeatureAdded(
                round=rnd, feature=self.features_[-1], gain=gain_j,
                weights=tuple(float(w) for w in np.exp(lam)), train_loglik=ll,
                heldout_p_mu=hp, heldout_rule=hr, column=j,
                iis_iterations=iters, seconds=time.perf_counter() - t0)
            self.history_.append(event)
            yield event
        yield Progress("inducing features", len(self.features_), target)
        yield InductionFinished(len(self.features_), "n_features")
        return self
