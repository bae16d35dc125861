"""The router (segviz.routing): two experts and a gauge.  Its threshold choice against brute force, its tuning
against the experts scored one by one, its file validated like a segmenter's, and the CLI naming the expert."""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from segviz.cli import main
from segviz.corpus import Corpus, Document, read_corpus
from segviz.errors import SegvizError
from segviz.metrics import p_k
from segviz.models import experts_of, load_model
from segviz.paths import bundled, default_model
from segviz.routing import (DEFAULT_THRESHOLDS, ExpertRouter, Route, best_threshold, expected_segment_length,
                            gauge_windows, routed_scores)
from segviz.segmented import segment_documents
from segviz.segmenter import Segmenter

SAMPLE = bundled("sample_corpora")
CHOI = SAMPLE / "choi"
REUTERS = SAMPLE / "reuters_sample.sgm"


def constant_expert(prior: float, alpha: float, epsilon: int) -> Segmenter:
    """A segmenter without features: q(yes) = ``prior`` at every gap."""
    return Segmenter.from_weights([], [], prior=prior, alpha=alpha, epsilon=epsilon, mu=0.1)


def fitted_router(threshold: float = 8.0) -> ExpertRouter:
    router = ExpertRouter(short=constant_expert(0.3, 0.2, 2), long=constant_expert(0.01, 0.5, 4))
    router.threshold_ = threshold
    router.tuning_ = {"metric": "p_k"}
    router.info_ = {}
    return router


def stream(n: int) -> Corpus:
    sentences = [[f"w{i}", "common", f"x{i % 7}"] for i in range(n)]
    return Corpus([Document("d", sentences, [" ".join(s) for s in sentences])], name="stream", files=["f"])


# -------------------------------------------------------------------------------- the gauge and the choice

def test_expected_segment_length_is_n_over_one_plus_the_expected_boundaries():
    p = np.array([0.5, 0.25, 0.0, 1.0])
    assert expected_segment_length(p) == pytest.approx(5 / (1 + 1.75))
    assert expected_segment_length(np.zeros(9)) == 10.0


def test_routed_scores_and_best_threshold_against_brute_force():
    rng = np.random.default_rng(3)
    for trial in range(40):
        grid = np.sort(rng.uniform(1, 30, size=int(rng.integers(3, 12))))
        gauges = [rng.uniform(1, 30, size=int(rng.integers(1, 6))) for _ in range(int(rng.integers(1, 4)))]
        scores = [{"short": rng.uniform(size=g.size).round(1), "long": rng.uniform(size=g.size).round(1)}
                  for g in gauges]
        curve = routed_scores(grid, gauges, scores)
        for k, t in enumerate(grid):
            per_domain = []
            for g, s in zip(gauges, scores):
                per_domain.append(sum(s["short"][i] if g[i] <= t else s["long"][i] for i in range(g.size)) / g.size)
            assert curve[k] == pytest.approx(sum(per_domain) / len(per_domain))
        tolerance = float(rng.choice([0.0, 0.05]))
        for minimise in (True, False):
            chosen = best_threshold(curve, minimise=minimise, tolerance=tolerance)
            signed = curve if minimise else -curve
            tied = [k for k in range(grid.size) if signed[k] <= signed.min() + tolerance + 1e-12]
            runs, run = [], [tied[0]]
            for k in tied[1:]:
                if k == run[-1] + 1:
                    run.append(k)
                else:
                    runs.append(run)
                    run = [k]
            runs.append(run)
            longest = max(runs, key=len)          # the first of the longest runs
            assert chosen == longest[len(longest) // 2]


def test_route_sends_a_document_by_the_short_experts_expected_length():
    router = fitted_router(threshold=8.0)
    # q = 0.3 everywhere: n / (1 + 0.3 (n - 1)) is 2.5 for n = 4 and 3.3 for n = 100, under 8
    assert router.route(stream(100)).expert == "short"
    router.threshold_ = 3.0
    route = router.route(stream(100))
    assert route == Route("long", pytest.approx(100 / (1 + 0.3 * 99)), 3.0)
    assert "long-prose expert" in route.describe() and "more than 3" in route.describe()
    assert router.predict(stream(100)) == router.long.predict(stream(100))
    np.testing.assert_array_equal(router.predict_proba(stream(100)), router.long.predict_proba(stream(100)))


def test_gauge_windows_are_evenly_spread_stretches_of_the_stream():
    corpus = read_corpus(CHOI)             # 5 files, several documents each
    n = corpus.n_sentences
    assert gauge_windows(corpus, max_sentences=n) == [corpus]
    pieces = gauge_windows(corpus, max_sentences=60, windows=4)
    stream = corpus.sentence_texts()
    width = 15
    starts = [round(k * (n - width) / 3) for k in range(4)]
    assert [p.sentence_texts() for p in pieces] == [stream[a:a + width] for a in starts]
    assert starts[0] == 0 and starts[-1] + width == n


def test_a_long_text_is_gauged_on_windows_close_to_the_whole(shipped, monkeypatch):
    from segviz import routing

    reuters = read_corpus(REUTERS)
    exact = expected_segment_length(shipped.short.boundary_probabilities(reuters))
    assert shipped.gauge(reuters) == pytest.approx(exact)            # short enough: every sentence
    monkeypatch.setattr(routing, "GAUGE_SENTENCES", reuters.n_sentences // 3)
    sampled = shipped.gauge(reuters)
    assert sampled != exact and sampled == pytest.approx(exact, rel=0.25)


def test_parameters_are_stored_verbatim_and_checked_at_fit():
    grid = (5.0, 10.0)
    router = ExpertRouter(short=None, long=None, thresholds=grid, tuning_metric="p_mu", tolerance=0.0)
    assert router.get_params()["thresholds"] is grid and not router.is_fitted
    with pytest.raises(SegvizError, match="short expert"):
        router.fit(stream(20))
    with pytest.raises(SegvizError, match="not fitted"):
        router.route(stream(20))
    ok = dict(short=constant_expert(0.3, 0.2, 2), long=constant_expert(0.01, 0.5, 4))
    for bad in ({"thresholds": ()}, {"thresholds": (0.0, 3.0)}, {"tuning_metric": "f1"}, {"tolerance": -0.1}):
        with pytest.raises(SegvizError):
            ExpertRouter(**ok, **bad).fit(stream(20))
    with pytest.raises(SegvizError, match="unknown"):
        router.set_params(alpha=0.3)


# -------------------------------------------------------------------------------- tuning on real documents

@pytest.fixture(scope="module")
def shipped():
    if not default_model().is_file():
        pytest.skip(f"the default model {default_model()} is not built")
    model = load_model(default_model())
    if not isinstance(model, ExpertRouter):
        pytest.skip("the bundled default model is a single segmenter")
    return model


def test_fit_matches_the_experts_scored_one_by_one(shipped):
    """The tuning curve is the experts' own per-document P_k, routed by the gauge, domains weighing the same."""
    choi = read_corpus(CHOI)
    reuters = read_corpus(REUTERS)
    reuters = Corpus(reuters.documents[:60], name="reuters sample", files=[f"r{i // 20}" for i in range(60)])
    router = ExpertRouter(short=shipped.short, long=shipped.long).fit([choi, reuters])
    curve = dict(zip(router.tuning_["thresholds"], router.tuning_["scores"]))
    domains = []
    for corpus in (choi, reuters):
        rows = []
        for unit in corpus.by_file():
            gauge = expected_segment_length(shipped.short.boundary_probabilities(unit))
            rows.append((gauge, p_k(unit.masses(), shipped.short.predict(unit)),
                         p_k(unit.masses(), shipped.long.predict(unit))))
        domains.append(rows)
    for t in (3.0, router.threshold_, 64.0):
        expected = np.mean([np.mean([s if g <= t else lo for g, s, lo in rows]) for rows in domains])
        assert curve[t] == pytest.approx(expected)
    # spliced Brown excerpts go to the short expert, newswire to the long one
    assert router.route(choi.by_file()[0]).expert == "short"
    assert router.route(reuters.by_file()[0]).expert == "long"
    assert router.tuning_["domains"]["reuters sample"]["short_chosen"] == 0


# -------------------------------------------------------------------------------- the file

def test_save_and_load_round_trip(tmp_path):
    router = fitted_router()
    path = router.save(tmp_path / "r.segviz")
    back = load_model(path)
    assert isinstance(back, ExpertRouter) and back.threshold_ == router.threshold_
    assert back.get_params()["thresholds"] == DEFAULT_THRESHOLDS and back.tolerance == router.tolerance
    for name in ("short", "long"):
        assert back.experts_[name].alpha_ == router.experts_[name].alpha_
        assert back.experts_[name].prior_ == pytest.approx(router.experts_[name].prior_)
    assert back.predict(stream(50)) == router.predict(stream(50))
    assert [e.epsilon_ for e in experts_of(back)] == [2, 4]
    # a plain segmenter file still loads as a segmenter; a router is not a segmenter
    single = constant_expert(0.2, 0.3, 2).save(tmp_path / "s.segviz")
    assert isinstance(load_model(single), Segmenter)
    with pytest.raises(SegvizError, match="router"):
        Segmenter.load(path)


def _rewrite(path, out, edit):
    """A copy of the bundle at ``path`` with router.json edited and the index's checksums made to match."""
    import hashlib

    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    router = json.loads(members["router.json"])
    edit(router, members)
    members["router.json"] = json.dumps(router).encode()
    index = json.loads(members["bundle.json"])
    index["members"] = {n: hashlib.sha256(d).hexdigest() for n, d in members.items() if n != "bundle.json"}
    members["bundle.json"] = json.dumps(index).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    out.write_bytes(buffer.getvalue())
    return out


@pytest.mark.parametrize("edit, message", [
    (lambda r, m: r.update(threshold=-1), "threshold"),
    (lambda r, m: r.update(threshold="7"), "threshold"),
    (lambda r, m: r.update(experts=["long", "short"]), "experts"),
    (lambda r, m: r["params"].update(thresholds=[1, -2]), "thresholds"),
    (lambda r, m: r["params"].update(tuning_metric="f1"), "tuning_metric"),
    (lambda r, m: r.update(version=2), "version"),
    (lambda r, m: m.pop("long/segmenter.json"), "long"),
])
def test_a_damaged_or_crafted_router_is_refused_with_one_message(tmp_path, edit, message):
    path = fitted_router().save(tmp_path / "r.segviz")
    bad = _rewrite(path, tmp_path / "bad.segviz", edit)
    with pytest.raises(SegvizError, match=message):
        load_model(bad)
    assert main(["segment", str(CHOI / "3-11_0.ref"), "--model", str(bad), "--quiet"]) == 2


# -------------------------------------------------------------------------------- segment, evaluate

def test_segment_routes_each_document_and_says_so(tmp_path, capsys):
    router = fitted_router(threshold=8.0)
    path = router.save(tmp_path / "r.segviz")
    corpus = read_corpus(CHOI)
    documents = segment_documents(router, corpus)
    assert [d.expert for d in documents] == [router.route(u).expert for u in corpus.by_file()]
    for d, unit in zip(documents, corpus.by_file()):
        assert d.masses == router.experts_[d.expert].predict(unit)
    out = tmp_path / "out.jsonl"
    assert main(["segment", str(CHOI), "--model", str(path), "-o", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "short-excerpt expert segmented 5" in err and "at most 8 sentences" in err
    assert main(["evaluate", "--model", str(path), str(CHOI / "3-11_0.ref"), "--json"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert payload["route"]["expert"] == "short" and "short-excerpt expert" in captured.err
    assert payload["epsilon"] == 2   # the short expert's own rule
