"""Trigger model: Z(H) and expected counts against brute force over the vocabulary, selection counts, IIS."""
from __future__ import annotations

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.lm._scan import cooccurrence_scan
from segviz.lm.iis import _iis_deltas, iis_buckets
from segviz.lm.pairs import average_mutual_information, top_pairs_by_ami
from segviz.lm.triggers import TriggerLM
from segviz.lm.trigram import TrigramLM

WINDOW = 7


def corpus(seed=1, n=220, types=25):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(types)]
    return [[words[j] for j in rng.zipf(1.3, size=rng.integers(0, 8)) % types] for _ in range(n)]


@pytest.fixture(scope="module")
def fitted():
    sents = corpus()
    prior = TrigramLM(vocab_size=15).fit(sents[:160])
    model = TriggerLM(window=WINDOW, n_triggers=50, trigger_vocab=11, min_cooccurrence=1, max_iter=2,
                      cv_folds=2).fit(sents[:160], prior=prior, heldout=sents[160:190])
    # random weights of both signs exercise the normaliser far from lambda = 0
    model.weights_ = np.random.default_rng(0).normal(0, 0.8, model.weights_.size)
    return model, sents[190:]


def brute_force(model, stream):
    """Per predicted token: log Z(H) as the sum over the vocabulary, log p_exp, and expected counts by f#."""
    prior = model.prior_
    pairs = list(zip(model.sources_, model.targets_, model.weights_))
    values, bucket = iis_buckets(len(pairs))
    E = np.zeros((len(pairs), values.size))
    obs = np.zeros(len(pairs))
    logZ, lp = [], []
    history = []
    for j in range(len(stream)):
        H = set(history[-WINDOW:])
        lam = np.zeros(prior.n_ids)
        nf = np.zeros(prior.n_ids, dtype=int)
        for s, t, w in pairs:
            if s in H:
                lam[t] += w
                nf[t] += 1
        p = prior.prob_vector_ids(stream.h2[j], stream.h1[j])
        Z = float(np.sum(np.exp(lam) * p))
        logZ.append(np.log(Z))
        pe = np.exp(lam) * p / Z
        lp.append(np.log(pe[stream.w[j]]))
        for k, (s, t, _) in enumerate(pairs):
            if s in H:
                E[k, bucket[nf[t]]] += pe[t]
                obs[k] += stream.w[j] == t
        if stream.is_word[j]:
            history.append(stream.w[j])
    return np.array(logZ), np.array(lp), E, obs


def test_normaliser_and_probabilities_match_brute_force(fitted):
    model, test = fitted
    stream = model.prior_.encode(test)
    logZ_bf, lp_bf, _, _ = brute_force(model, stream)
    assert np.abs(logZ_bf).max() > 0.05  # the cache really changes the distribution
    assert np.allclose(model.log_normalizers(stream), logZ_bf, atol=1e-12)
    lp, lp_tri = model.score_stream(stream)
    assert np.allclose(lp, lp_bf, atol=1e-12)
    assert np.allclose(lp_tri, model.prior_.logprob_stream(stream))


def test_iis_statistics_match_brute_force(fitted):
    model, test = fitted
    stream = model.prior_.encode(test)
    _, _, E_bf, obs_bf = brute_force(model, stream)
    _, _, E, obs = model._run(model.prior_, stream, model.weights_, accumulate=True)
    assert obs.sum() > 0
    assert np.allclose(obs, obs_bf)
    m = min(E.shape[1], E_bf.shape[1])  # the bucket lists differ only in their (empty) tail
    assert np.allclose(E[:, :m], E_bf[:, :m], atol=1e-12)
    assert E[:, m:].sum() == 0 and E_bf[:, m:].sum() == 0


def test_probabilities_normalised_at_every_position(fitted):
    model, test = fitted
    prior = model.prior_
    stream = prior.encode(test[:15])
    logZ = model.log_normalizers(stream)
    pairs = list(zip(model.sources_, model.targets_, model.weights_))
    history = []
    for j in range(len(stream)):
        lam = np.zeros(prior.n_ids)
        for s, t, w in pairs:
            if s in set(history[-WINDOW:]):
                lam[t] += w
        p = np.exp(lam) * prior.prob_vector_ids(stream.h2[j], stream.h1[j]) / np.exp(logZ[j])
        assert abs(p.sum() - 1) < 1e-12
        if stream.is_word[j]:
            history.append(stream.w[j])


@pytest.mark.parametrize("n_parts", [1, 2, 4])
def test_cooccurrence_scan_counts(n_parts):
    rng = np.random.default_rng(3)
    x = rng.integers(-1, 6, size=400)
    r = rng.random(400)
    C = np.zeros((6, 6), dtype=np.float32)
    # the parts fill disjoint rows of one matrix (they run on separate threads in selection); bands of targets
    # (selection's memory bound) fill their own rows of the same counts
    results = [cooccurrence_scan(x, r, 9, C, 0, part, n_parts) for part in range(n_parts)]
    for t0, t1 in ((0, 2), (2, 5), (5, 6)):
        band = np.zeros((t1 - t0, 6), dtype=np.float32)
        results += [cooccurrence_scan(x, r, 9, band, t0, part, n_parts) for part in range(n_parts)]
        assert np.array_equal(band, C[t0:t1])
    hist, target = results[0]
    for other in results[1:]:
        assert np.array_equal(other[0], hist) and np.array_equal(other[1], target)
    C_bf = np.zeros((6, 6))
    hist_bf = np.zeros(6)
    for i in range(400):
        H = set(v for v in x[max(0, i - 9):i] if v >= 0)
        for s in H:
            hist_bf[s] += 1
            if x[i] >= 0:
                C_bf[x[i], s] += r[i]
    assert np.allclose(C, C_bf, atol=1e-4)
    assert np.allclose(hist, hist_bf)
    assert np.allclose(target, np.bincount(x[x >= 0], weights=r[x >= 0], minlength=6))


def test_top_pairs_by_ami_matches_the_formula_on_every_pair():
    # brute force: score every (s, t) with the numpy formula, keep the positive, frequent-enough ones, take the top k
    rng = np.random.default_rng(8)
    n_tv, window, k, min_co = 40, 15, 60, 2.0
    x = rng.zipf(1.4, 5000) - 1
    x[x >= n_tv] = -1
    r = rng.random(x.size)
    C = np.zeros((n_tv, n_tv), dtype=np.float32)  # summed in float32 in stream order, as the scan does
    hist = np.zeros(n_tv)
    for i in range(x.size):
        H = set(v for v in x[max(0, i - window):i] if v >= 0)
        for s in H:
            hist[s] += 1
            if x[i] >= 0:
                C[x[i], s] += r[i]
    target = np.bincount(x[x >= 0], weights=r[x >= 0], minlength=n_tv)
    n = float(x.size)
    C = C.astype(np.float64)
    score = average_mutual_information(C, hist[None, :], target[:, None], n)
    ok = (C * n > target[:, None] * hist[None, :]) & (C >= min_co)
    score = np.where(ok, score, -np.inf).ravel()
    best = np.argsort(-score, kind="stable")[:k]
    best = best[np.isfinite(score[best])]
    ss, tt, vv = top_pairs_by_ami(x, r, window, n_tv, k, min_co)
    assert ss.size == best.size == k
    np.testing.assert_allclose(vv, score[best], rtol=1e-12)
    assert list(zip(tt.tolist(), ss.tolist())) == list(zip(*np.divmod(best, n_tv)))


def test_top_pairs_by_ami_is_the_same_counted_in_bands(monkeypatch):
    from segviz.lm import pairs

    rng = np.random.default_rng(9)
    n_tv = 300
    x = np.minimum(rng.zipf(1.4, size=20_000) - 1, n_tv + 20)
    x[x >= n_tv] = -1
    r = rng.random(x.size)
    whole = top_pairs_by_ami(x, r, 25, n_tv, 400, 1.0)
    monkeypatch.setattr(pairs, "BLOCK_ENTRIES", 10 * n_tv)       # blocks of 10 targets
    monkeypatch.setattr(pairs, "BAND_BYTES", 4 * n_tv * 25)      # bands of 2 blocks: 15 bands
    banded = top_pairs_by_ami(x, r, 25, n_tv, 400, 1.0)
    assert all(np.array_equal(a, b) for a, b in zip(whole, banded))


def test_average_mutual_information_matches_table():
    n, c_s, c_t, c_st = 1000.0, 120.0, 40.0, 15.0
    table = np.array([[c_st, c_s - c_st], [c_t - c_st, n - c_s - c_t + c_st]]) / n
    ps, pt = table.sum(1), table.sum(0)
    expected = sum(table[a, b] * np.log(table[a, b] / (ps[a] * pt[b])) for a in range(2) for b in range(2))
    assert average_mutual_information(c_st, c_s, c_t, n) == pytest.approx(expected)
    assert average_mutual_information(c_s * c_t / n, c_s, c_t, n) == pytest.approx(0, abs=1e-12)


def test_iis_buckets_round_up_and_solver():
    values, bucket = iis_buckets(300)
    f = np.arange(1, 301)
    assert np.all(values[bucket[f]] >= f)
    assert np.all(values[bucket[1:17]] == np.arange(1, 17))
    rng = np.random.default_rng(0)
    E = rng.random((50, values.size)) * (rng.random((50, values.size)) < 0.2)
    obs = rng.random(50) * 3
    lam = rng.normal(0, 1, 50)
    d = _iis_deltas(E, obs, lam, 2.0, values)
    resid = (E * np.exp(np.outer(d, values))).sum(1) + (lam + d) / 2.0 - obs
    assert np.abs(resid).max() < 1e-8


def test_one_iis_step_increases_training_likelihood():
    sents = corpus(seed=5, n=300)
    prior = TrigramLM(vocab_size=15).fit(sents)
    model = TriggerLM(window=WINDOW, n_triggers=60, trigger_vocab=12, min_cooccurrence=1, max_iter=1, cv_folds=1,
                      prior_variance=1e6).fit(sents, prior=prior)
    stream = prior.encode(sents)
    lam0 = np.zeros(model.sources_.size)

    def loglik(lam):
        logZ, lam_w, _, _ = model._run(prior, stream, lam, accumulate=False)
        return float((prior.logprob_stream(stream) + lam_w - logZ).sum())

    assert loglik(model.weights_) > loglik(lam0) + 1.0


def test_training_records_history_and_errors():
    sents = corpus(seed=7)
    prior = TrigramLM(vocab_size=15).fit(sents)
    model = TriggerLM(window=WINDOW, n_triggers=30, trigger_vocab=10, min_cooccurrence=1, max_iter=3)
    events = list(model.fit_iter(sents[:180], prior=prior, heldout=sents[180:]))
    iis = [e for e in events if getattr(e, "stage", "") == "triggers: IIS"]
    # IIS stops on held-out data, long before max_iter: its progress counts iterations with no known end (total
    # 0), then ends with the iterations it kept, complete (not "31 of 200")
    assert [e.done for e in iis[:-1]] == list(range(len(iis) - 1)) and all(e.total == 0 for e in iis[:-1])
    assert iis[-1].done == iis[-1].total == max(len(model.history_) - 1, 1)
    assert model.history_[0].iteration == 0 and model.history_[0].heldout_perplexity > 0
    table = model.pairs_table(5)
    assert len(table) == 5 and {"s", "t", "exp_lambda", "score"} <= set(table[0])
    assert [r["exp_lambda"] for r in table] == sorted((r["exp_lambda"] for r in table), reverse=True)
    with pytest.raises(SegvizError, match="not fitted"):
        TriggerLM().score_stream(prior.encode(sents[:3]))
    with pytest.raises(SegvizError, match="ranking"):
        TriggerLM(ranking="nope").fit(sents, prior=prior)


def _penalised_objective(model, folds_sents, prior, lam):
    """Brute-force-free check of the recorded objective: log-likelihood (cv_folds=1) + Gaussian log-prior."""
    stream = prior.encode(folds_sents)
    logZ, lam_w, _, _ = model._run(prior, stream, lam, accumulate=False)
    return float((prior.logprob_stream(stream) + lam_w - logZ).sum()) - 0.5 * float(lam @ lam) / model.prior_variance


def test_overrelaxed_iis_reaches_the_plain_iis_optimum_monotonically():
    sents = corpus(seed=11, n=400)
    prior = TrigramLM(vocab_size=15).fit(sents)
    common = dict(window=WINDOW, n_triggers=60, trigger_vocab=12, min_cooccurrence=1, cv_folds=1,
                  prior_variance=4.0, tol=1e-11)
    plain = TriggerLM(acceleration="none", max_iter=3000, **common).fit(sents, prior=prior)
    fast = TriggerLM(acceleration="overrelaxed", max_iter=3000, **common).fit(sents, prior=prior)
    assert np.array_equal(plain.sources_, fast.sources_) and np.array_equal(plain.targets_, fast.targets_)
    obj_plain = [h.train_objective for h in plain.history_]
    obj_fast = [h.train_objective for h in fast.history_]
    # the recorded objective is the real one (cv_folds=1: the prior is the model's own trigram)
    assert obj_fast[-1] == pytest.approx(_penalised_objective(fast, sents, prior, fast.weights_), abs=1e-6)
    assert obj_plain[-1] == pytest.approx(_penalised_objective(plain, sents, prior, plain.weights_), abs=1e-6)
    # never decreases (up to floating-point noise), for plain and accelerated steps alike
    assert np.all(np.diff(obj_plain) >= -1e-9 * abs(obj_plain[0]))
    assert np.all(np.diff(obj_fast) >= -1e-9 * abs(obj_fast[0]))
    assert obj_fast[-1] > obj_fast[0] + 1.0
    # same optimum (the objective is strictly concave), reached with fewer passes over the data
    assert obj_fast[-1] == pytest.approx(obj_plain[-1], abs=1e-4 * abs(obj_plain[-1]) + 1e-3)
    assert np.abs(fast.weights_ - plain.weights_).max() < 0.05
    assert any(h.step > 1 for h in fast.history_)
    passes = lambda m: sum(h.passes for h in m.history_)  # noqa: E731
    assert passes(fast) < passes(plain)


def test_iis_stops_on_heldout_likelihood_and_keeps_the_best_weights():
    sents = corpus(seed=13, n=400)
    prior = TrigramLM(vocab_size=15).fit(sents[:300])
    model = TriggerLM(window=WINDOW, n_triggers=60, trigger_vocab=12, min_cooccurrence=1, cv_folds=2,
                      max_iter=200, tol=1e-6).fit(sents[:300], prior=prior, heldout=sents[300:])
    held = [h.heldout_perplexity for h in model.history_]
    assert len(model.history_) - 1 < 200  # stopped by the held-out rule, not the cap
    assert all(b < a for a, b in zip(held, held[1:]))  # every kept iteration improved held-out text
    assert model.perplexity(sents[300:]) == pytest.approx(held[-1], rel=1e-9)
    objective = [h.train_objective for h in model.history_]  # cross-fitted, with the Gaussian log-prior
    assert np.all(np.diff(objective) >= -1e-9 * abs(objective[0]))
    with pytest.raises(SegvizError, match="acceleration"):
        TriggerLM(acceleration="fast").fit(sents, prior=prior)
