"""Feature induction: gains against the slow definition, IIS against scipy, the generator protocol."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.optimize as so
import scipy.sparse as sp

from segviz.errors import SegvizError
from segviz.features import Window, WordQuestion
from segviz.induction import BoundaryModel, FeatureAdded, InductionFinished
from segviz.induction_math import candidate_gains, iis_refit, log_likelihood


def _problem(seed=0, n=400, m=60, density=0.08):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < density).astype(np.int8)
    X[:, 5] = 0                     # a candidate that never fires
    true = rng.normal(0, 1.5, size=m)
    s = -1.5 + X @ true
    y = rng.random(n) < 1 / (1 + np.exp(-s))
    X[:, 7] = 0
    X[y, 7] = (rng.random(int(y.sum())) < 0.3)   # fires only on boundaries: optimum at +inf
    X[:, 8] = 0
    X[~y, 8] = (rng.random(int((~y).sum())) < 0.2)  # never on a boundary: optimum at -inf
    return sp.csc_matrix(X), y


def _slow_gain(x: np.ndarray, y: np.ndarray, scores: np.ndarray, lam_max: float) -> tuple[float, float]:
    base = log_likelihood(scores, y)
    res = so.minimize_scalar(lambda a: -log_likelihood(scores + a * x, y), bounds=(-lam_max, lam_max),
                             method="bounded", options={"xatol": 1e-10})
    return base, -res.fun - base, res.x


@pytest.mark.parametrize("engine", ["numpy", "auto"])
def test_gain_equals_loglik_difference_computed_slowly(engine):
    X, y = _problem()
    rng = np.random.default_rng(1)
    scores = rng.normal(-1, 0.7, size=X.shape[0])  # an arbitrary current model
    init = rng.normal(0, 3, size=X.shape[1]) if engine == "auto" else None  # warm starts must not matter
    gains, alphas = candidate_gains(X, y, scores, lambda_max=10.0, init=init, engine=engine)
    dense = X.toarray()
    for j in range(X.shape[1]):
        x = dense[:, j].astype(float)
        base, slow, a = _slow_gain(x, y, scores, 10.0)
        # the gain is literally the log-likelihood difference at the returned weight
        assert log_likelihood(scores + alphas[j] * x, y) - base == pytest.approx(gains[j], abs=1e-9)
        assert gains[j] == pytest.approx(slow, abs=1e-6), j
    assert gains[5] == 0 and alphas[5] == 0
    assert alphas[7] == pytest.approx(10.0) and alphas[8] == pytest.approx(-10.0)


def test_iis_refit_matches_scipy():
    X, y = _problem(seed=3, n=600, m=10, density=0.25)
    X = X[:, [0, 1, 2, 3, 4, 6]]  # drop the degenerate columns: a well-posed problem
    offset = math.log(y.mean() / (1 - y.mean()))
    lam, iters = iis_refit(X, y, offset, np.zeros(X.shape[1]), tol=1e-10, max_iter=20000)
    dense = X.toarray().astype(float)

    def nll(w):
        s = offset + dense @ w
        p = 1 / (1 + np.exp(-s))
        return -log_likelihood(s, y), -(dense.T @ (y - p))

    ref = so.minimize(nll, np.zeros(X.shape[1]), jac=True, method="BFGS", options={"gtol": 1e-10})
    assert iters > 1
    np.testing.assert_allclose(lam, ref.x, atol=1e-5)
    # stationarity: model expectations equal empirical counts
    p = 1 / (1 + np.exp(-(offset + dense @ lam)))
    np.testing.assert_allclose(dense.T @ p, dense.T @ y, atol=1e-4)


@pytest.mark.parametrize("engine", ["numpy", "auto"])
@pytest.mark.parametrize("l2", [0.5, 4.0])
def test_gain_with_gaussian_prior_equals_the_penalised_optimum(engine, l2):
    X, y = _problem(seed=2)
    rng = np.random.default_rng(2)
    scores = rng.normal(-1, 0.7, size=X.shape[0])
    gains, alphas = candidate_gains(X, y, scores, lambda_max=10.0, l2=l2, engine=engine)
    dense = X.toarray().astype(float)
    base = log_likelihood(scores, y)
    for j in range(X.shape[1]):
        x = dense[:, j]
        res = so.minimize_scalar(lambda a: -(log_likelihood(scores + a * x, y) - base - 0.5 * l2 * a * a),
                                 bounds=(-10.0, 10.0), method="bounded", options={"xatol": 1e-10})
        assert gains[j] == pytest.approx(max(-res.fun, 0.0), abs=1e-7), j
        assert alphas[j] == pytest.approx(res.x if x.any() else 0.0, abs=1e-4), j
    # the separable candidates no longer reach the cap
    assert abs(alphas[7]) < 10.0 and abs(alphas[8]) < 10.0


@pytest.mark.parametrize("l2", [0.1, 1.0, 10.0])
def test_iis_refit_with_gaussian_prior_matches_scipy_on_two_features(l2):
    rng = np.random.default_rng(11)
    n = 40
    dense = (rng.random((n, 2)) < 0.4).astype(float)
    dense[:3, 1] = 1.0
    y = rng.random(n) < 0.3
    y[:3] = True
    dense[3:, 1] = 0.0   # feature 1 fires on three events, all boundaries: separable without the prior
    offset = math.log(y.mean() / (1 - y.mean()))

    def objective(w):
        s = offset + dense @ w
        p = 1 / (1 + np.exp(-s))
        return (-(log_likelihood(s, y) - 0.5 * l2 * w @ w), -(dense.T @ (y - p) - l2 * w))

    ref = so.minimize(objective, np.zeros(2), jac=True, method="BFGS", options={"gtol": 1e-12})
    lam, iters = iis_refit(sp.csc_matrix(dense), y, offset, np.zeros(2), l2=l2, tol=1e-11, max_iter=50000)
    np.testing.assert_allclose(lam, ref.x, atol=1e-6)
    assert abs(lam[1]) < 10.0
    # without the prior the rare, separable feature runs to the cap
    lam0, _ = iis_refit(sp.csc_matrix(dense), y, offset, np.zeros(2), l2=0.0, tol=1e-11, max_iter=50000)
    assert lam0[1] > 9.0 and lam[1] < lam0[1]


def test_prior_keeps_a_rare_question_off_the_cap_in_induction():
    X, y = _problem(seed=5)
    specs = [WordQuestion("sentences", f"w{j}", Window("sentence", 0, 1)) for j in range(X.shape[1])]
    free = BoundaryModel(n_features=6).fit(X, y, specs)
    shrunk = BoundaryModel(n_features=6, l2=1.0).fit(X, y, specs)
    assert np.max(np.abs(free.lambdas_)) == pytest.approx(10.0, abs=0.5)   # a separable column was chosen
    assert np.max(np.abs(shrunk.lambdas_)) < 6.0
    assert shrunk.get_params()["l2"] == 1.0 and shrunk.truncated(3).l2 == 1.0
    with pytest.raises(SegvizError, match="l2"):
        candidate_gains(X, y, np.zeros(X.shape[0]), l2=-1.0)


def test_probabilities_normalised_and_prior_offset():
    X, y = _problem(seed=4)
    specs = [WordQuestion("sentences", f"w{j}", Window("sentence", 0, 1)) for j in range(X.shape[1])]
    m = BoundaryModel(n_features=3).fit(X, y, specs)
    assert m.prior_ == pytest.approx(y.mean())
    Xf = X[:, m.columns_]
    q = m.predict_proba(Xf)
    assert np.all((q > 0) & (q < 1))
    # q(yes) = e^{l.f} q0(yes) / (q0(no) + e^{l.f} q0(yes)): the paper's form, normalised
    ef = np.exp(Xf.toarray() @ m.lambdas_)
    q_paper = ef * m.prior_ / ((1 - m.prior_) + ef * m.prior_)
    np.testing.assert_allclose(q, q_paper, rtol=1e-12)
    # events where no feature fires get exactly the prior
    none = np.asarray(Xf.sum(axis=1)).ravel() == 0
    np.testing.assert_allclose(q[none], m.prior_)


def test_generator_rounds_resume_and_loglik_increases():
    X, y = _problem(seed=6, n=800, m=80)
    specs = [WordQuestion("sentences", f"w{j}", Window("sentence", 0, 1)) for j in range(X.shape[1])]
    hX, hy = _problem(seed=7, n=300, m=80)
    # held-out masses from the held-out labels
    b = np.flatnonzero(hy) + 1
    masses = np.diff(np.concatenate([[0], b, [hX.shape[0] + 1]]))
    m = BoundaryModel(n_features=6)
    gen = m.induce(X, y, specs, heldout_X=hX, heldout_masses=masses)
    added = []
    for ev in gen:
        if isinstance(ev, FeatureAdded):
            added.append(ev)
            if len(added) == 3:
                break  # the app's Step button: stop after any round
    assert len(m.features_) == 3 and len(m.lambdas_) == 3
    full = BoundaryModel(n_features=6)
    events = list(full.induce(X, y, specs))
    assert isinstance(events[-1], InductionFinished)
    # resume to 6 features: same result as an uninterrupted run
    for _ in m.induce(X, y, specs, heldout_X=hX, heldout_masses=masses):
        pass
    assert m.columns_ == full.columns_
    np.testing.assert_allclose(m.lambdas_, full.lambdas_, atol=1e-6)
    lls = [e.train_loglik for e in m.history_]
    assert all(b > a for a, b in zip(lls, lls[1:]))
    assert all(0 < e.heldout_p_mu <= 1 for e in m.history_)
    assert m.history_[0].round == 1 and len(m.history_[-1].weights) == 6
    # the first gain equals the log-likelihood gain of the first refit (single feature: IIS = 1-D optimum)
    base = log_likelihood(np.full(len(y), m.offset_), y)
    assert m.history_[0].train_loglik - base == pytest.approx(m.history_[0].gain, rel=1e-6)
    t = m.truncated(2)
    np.testing.assert_allclose(t.lambdas_, m.history_[1].lambdas)


def test_each_round_tunes_the_threshold_rule_on_held_out_data():
    """A round's held_out P_mu is the best of the threshold rule's grid (brute force over the grid with the
    metric), reached by ``heldout_rule``; a rule given to the model gives the grid; no held-out data, no rule."""
    from segviz.decode import decode
    from segviz.metrics import p_mu
    from segviz.rules import ThresholdRule
    from segviz.segmentation import boundaries_to_masses, default_mu

    X, y = _problem(seed=8, n=500, m=40)
    specs = [WordQuestion("sentences", f"w{j}", Window("sentence", 0, 1)) for j in range(X.shape[1])]
    hX, hy = _problem(seed=9, n=200, m=40)
    b = np.flatnonzero(hy) + 1
    masses = tuple(int(x) for x in np.diff(np.concatenate([[0], b, [hX.shape[0] + 1]])))
    grid = ThresholdRule(alphas=(0.1, 0.2, 0.3, 0.5, 0.7), epsilons=(1, 2, 3))
    m = BoundaryModel(n_features=3, rule=grid)
    events = [e for e in m.induce(X, y, specs, heldout_X=hX, heldout_masses=masses, mu=0.25)
              if isinstance(e, FeatureAdded)]
    n = hX.shape[0] + 1
    for event in events:
        rule = event.heldout_rule
        assert isinstance(rule, ThresholdRule) and tuple(rule.alphas) == grid.alphas
        columns = m.columns_[:event.round]
        scores = m.offset_ + hX[:, columns] @ np.log(np.asarray(event.weights))
        probs = 1.0 / (1.0 + np.exp(-np.asarray(scores).ravel()))
        table = [(p_mu(masses, boundaries_to_masses(decode(probs, a, e), n), 0.25), a, e)
                 for e in grid.epsilons for a in grid.alphas]
        best = max(score for score, _, _ in table)
        first = next((a, e) for score, a, e in table if score == best)
        assert event.heldout_p_mu == pytest.approx(best, abs=1e-9)
        assert (rule.alpha, rule.epsilon) == first
    # the default grid, and the default mu (1 / the held-out mean segment length)
    d = BoundaryModel(n_features=1)
    [event] = [e for e in d.induce(X, y, specs, heldout_X=hX, heldout_masses=masses) if isinstance(e, FeatureAdded)]
    assert event.heldout_rule.alphas == ThresholdRule().alphas
    probs = d.predict_proba(hX[:, d.columns_])
    assert event.heldout_p_mu == pytest.approx(
        p_mu(masses, boundaries_to_masses(event.heldout_rule.decide(probs), n), default_mu(masses)), abs=1e-9)
    # without held-out data: no score and no rule
    [event] = [e for e in BoundaryModel(n_features=1).induce(X, y, specs) if isinstance(e, FeatureAdded)]
    assert event.heldout_p_mu is None and event.heldout_rule is None


def test_errors():
    X, y = _problem()
    with pytest.raises(SegvizError, match="not fitted"):
        BoundaryModel().predict_proba(X)
    with pytest.raises(SegvizError, match="labels"):
        BoundaryModel().fit(X, y[:-1])
    with pytest.raises(SegvizError, match="both"):
        BoundaryModel().fit(X, np.zeros(X.shape[0], bool))


@pytest.mark.parametrize("l2", [0.0, 0.7])
def test_candidate_search_bounds_hold_and_it_picks_the_argmax_of_all_gains(l2):
    """The bounds of induction_math.CandidateSearch are >= every exact gain, and the search answers what the
    exact gains of all candidates answer (the first column of largest gain), round after round."""
    from segviz.induction_math import CandidateSearch

    X, y = _problem(seed=5, n=500, m=300, density=0.05)
    X = sp.hstack([X, X[:, :40]]).tocsc()   # duplicate columns: ties settled by the column order
    rng = np.random.default_rng(2)
    search = CandidateSearch(X, y, lambda_max=10.0, l2=l2, first=8)
    excluded = np.zeros(X.shape[1], dtype=bool)
    for _ in range(6):
        scores = rng.normal(-1.2, 0.8, size=X.shape[0])
        gains, alphas = candidate_gains(X, y, scores, lambda_max=10.0, l2=l2)
        assert np.all(search.bounds(scores) >= gains - 1e-12)
        gains[excluded] = -np.inf
        j, g, a = search.best(scores, excluded)
        assert j == int(np.argmax(gains))
        assert g == pytest.approx(gains[j], rel=1e-9, abs=1e-12) and a == pytest.approx(alphas[j], abs=1e-6)
        assert search.exact_last_round < X.shape[1]
        excluded[j] = True


def test_compiled_iis_pieces_equal_numpy():
    """The compiled IIS solves the same delta equations, and sums the log-likelihood as np.sum does (bit for bit)."""
    from segviz.induction_math import _iis_deltas, _iis_deltas_numpy, _pairwise_sum

    rng = np.random.default_rng(4)
    for n in list(range(1, 140)) + [1000, 8193, 13416, 100001]:
        x = rng.normal(0, 1, n) * np.exp(rng.normal(0, 3, n))
        assert _pairwise_sum(x, 0, n) == np.sum(x)
    for _ in range(50):
        k, M = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        C = rng.random((k, M + 1)) * (rng.random((k, M + 1)) < 0.3) * rng.choice([0.01, 1.0, 100.0])
        A = rng.random(k) * C.sum(axis=1) * rng.uniform(0, 2)
        A[rng.random(k) < 0.1] = 0.0
        mvals = np.arange(M + 1, dtype=float)
        l2 = float(rng.choice([0.0, 0.5]))
        lam = rng.normal(0, 2, k)
        np.testing.assert_allclose(_iis_deltas(C, A, mvals, 20.0, l2, lam),
                                   _iis_deltas_numpy(C, A, mvals, 20.0, l2, l2 * lam), rtol=0, atol=1e-10)
