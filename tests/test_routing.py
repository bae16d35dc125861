"""The router (segviz.routing): experts and a decision list over gauges.  Its choices and threshold tuning against
brute force, its tuning against the experts scored one by one, its file validated like a segmenter's, and the CLI
naming the expert."""
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
from segviz.model_protocol import AppliedDocument, SegmentationModel, stream_masses
from segviz.models import load_model
from segviz.paths import bundled, default_model
from segviz.routing import (
    DEFAULT_THRESHOLDS,
    Check,
    ExpertRouter,
    Route,
    expected_segment_length,
    gauge_windows,
    route_choices,
    routed_scores,
)
from segviz.rules import SegmentCountRule, ThresholdRule
from segviz.segmented import segment_documents
from segviz.segmenter import Segmenter
from segviz.tuning import best_on_grid

SAMPLE = bundled("sample_corpora")
CHOI = SAMPLE / "choi"
REUTERS = SAMPLE / "reuters_sample.sgm"


def constant_expert(prior: float, alpha: float, epsilon: int) -> Segmenter:
    """A segmenter without features: q(yes) = ``prior`` at every gap."""
    return Segmenter.from_weights([], [], prior=prior, mu=0.1, rule=ThresholdRule(alpha=alpha, epsilon=epsilon))


def fitted_router(threshold: float = 8.0) -> ExpertRouter:
    router = ExpertRouter(experts=[("short", constant_expert(0.3, 0.2, 2)), ("long", constant_expert(0.01, 0.5, 4))],
                          gauges=["short"])
    router.thresholds_ = [threshold]
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


def test_route_choices_routed_scores_and_the_threshold_choice_against_brute_force():
    rng = np.random.default_rng(3)
    for trial in range(40):
        rules = int(rng.integers(1, 4))
        thresholds = rng.uniform(1, 30, size=rules)
        gauges = [rng.uniform(1, 30, size=(int(rng.integers(1, 6)), rules)) for _ in range(int(rng.integers(1, 4)))]
        scores = [rng.uniform(size=(g.shape[0], rules + 1)).round(1) for g in gauges]
        per_domain = []
        for g, s in zip(gauges, scores):
            picked = []
            for row in g:
                expert = next((r for r in range(rules) if row[r] <= thresholds[r]), rules)   # first that claims
                picked.append(expert)
            np.testing.assert_array_equal(route_choices(thresholds, g), picked)
            per_domain.append(sum(s[i, e] for i, e in enumerate(picked)) / len(picked))
        assert routed_scores(thresholds, gauges, scores) == pytest.approx(sum(per_domain) / len(per_domain))
        curve = rng.uniform(size=int(rng.integers(3, 12))).round(1)
        tolerance = float(rng.choice([0.0, 0.05]))
        for minimise in (True, False):
            chosen = best_on_grid(curve, minimise=minimise, tolerance=tolerance, plateau=True)
            signed = curve if minimise else -curve
            tied = [k for k in range(curve.size) if signed[k] <= signed.min() + tolerance + 1e-12]
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


@pytest.mark.slow
def test_fit_finds_the_thresholds_that_route_each_domain_to_its_expert():
    """Three constant experts (q = 0.5, 0.1, 0.01) on documents of three lengths: the short ones are segmented
    best by the first, the long ones by the last; coordinate-wise tuning finds a setting that gives each domain
    its expert (the gauge of each document is brute-forced here from n and q)."""
    def doc(n: int, segment: int) -> Corpus:
        sentences = [[f"w{i}", "common"] for i in range(n)]
        name = f"n{n}"
        return Corpus([Document(f"{name}-{k}", sentences[k:k + segment], [" ".join(x) for x in sentences[k:k + segment]])
                       for k in range(0, n, segment)], name=name, files=[name] * len(range(0, n, segment)))

    experts = [("fine", constant_expert(0.5, 0.4, 1)), ("middle", constant_expert(0.1, 0.05, 8)),
               ("coarse", constant_expert(0.01, 0.005, 60))]
    router = ExpertRouter(experts=experts, gauges=["fine", "fine"], tolerance=0.0)
    domains = [Corpus.concatenate([doc(n, seg) for _ in range(2)], name=f"segments of {seg}")
               for n, seg in ((12, 2), (80, 10), (300, 60))]
    router.fit(domains)
    # the fine expert's gauge is n / (1 + 0.5 (n - 1)): 1.85, 1.98, 1.99 -- it cannot tell the domains apart
    # beyond the first; so the middle expert takes the rest or the coarse one does, as the held-out scores say
    assert router.route(domains[0].by_file()[0]).expert == "fine"
    taken = {name: row["taken"] for name, row in router.tuning_["domains"].items()}
    assert taken["segments of 2"]["fine"] == 1 or taken["segments of 2"]["fine"] == 2
    best = min(routed_scores(np.array([a, b]), *_brute_inputs(router, domains))
               for a in DEFAULT_THRESHOLDS[::8] for b in DEFAULT_THRESHOLDS[::8])
    assert router.info_["tuned_score"] <= best + 1e-9


def _brute_inputs(router: ExpertRouter, domains):
    gauges, scores = [], []
    for corpus in domains:
        units = corpus.by_file()
        gauges.append(np.array([[expected_segment_length(router.experts_[g].boundary_probabilities(u))
                                 for g in router.gauges] for u in units]))
        scores.append(np.array([[p_k(u.masses(), stream_masses(e.predict(u))) for e in router.experts_.values()]
                                for u in units]))
    return gauges, scores


def test_route_sends_a_document_by_the_short_experts_expected_length():
    router = fitted_router(threshold=8.0)
    # q = 0.3 everywhere: n / (1 + 0.3 (n - 1)) is 2.5 for n = 4 and 3.3 for n = 100, under 8
    assert router.route(stream(100)).expert == "short"
    router.thresholds_ = [3.0]
    route = router.route(stream(100))
    assert route == Route("long", (Check("short", "short", pytest.approx(100 / (1 + 0.3 * 99)), 3.0),))
    assert route.describe().startswith("the long expert: the short expert expects segments of 3.3 sentences")
    assert "(more than 3: not the short expert)" in route.describe()
    three = Route("c", (Check("a", "a", 20.0, 10.0), Check("b", "a", 20.0, 15.0)))
    assert three.describe() == ("the c expert: the a expert expects segments of 20.0 sentences here (more than 10 "
                                "and 15: not the a or the b expert)")
    two = Route("b", (Check("a", "a", 20.0, 10.0), Check("b", "a", 20.0, 25.0)))
    assert two.describe().endswith("(more than 10: not the a expert; at most 25)")
    assert Route.from_dict(route.to_dict()) == route
    assert route.summary() == "the long expert (expected segment lengths: short 3.3)"
    assert router.predict(stream(100)) == router.experts_["long"].predict(stream(100))
    np.testing.assert_array_equal(router.predict_proba(stream(100)), router.experts_["long"].predict_proba(stream(100)))
    # the model protocol: the chosen expert answers with its own rule, and says why
    long = router.segmenters()["long"]
    assert isinstance(router, SegmentationModel) and list(router.segmenters()) == ["short", "long"]
    applied = router.apply(stream(100))
    assert isinstance(applied, AppliedDocument) and applied.route == route and applied.segmenter is long
    assert applied.expert == "long" == router.expert_for(stream(100)) and applied.reason() == route.describe()
    assert applied.rule is long.rule_ is router.rule_for(stream(100))
    np.testing.assert_array_equal(applied.probabilities, long.boundary_probabilities(stream(100)))
    np.testing.assert_array_equal(router.boundary_probabilities(stream(100)), applied.probabilities)
    decided = router.decide(applied.probabilities, stream(100))
    assert decided.tolist() == long.rule_.decide(applied.probabilities).tolist()
    with pytest.raises(SegvizError, match="give the document"):
        router.rule_for(None)


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
    exact = expected_segment_length(shipped.experts_["excerpts"].boundary_probabilities(reuters))
    monkeypatch.setattr(routing, "GAUGE_SENTENCES", reuters.n_sentences)
    assert shipped.gauge("excerpts", reuters) == pytest.approx(exact)            # short enough: every sentence
    monkeypatch.setattr(routing, "GAUGE_SENTENCES", reuters.n_sentences // 3)
    sampled = shipped.gauge("excerpts", reuters)
    assert sampled != exact and sampled == pytest.approx(exact, rel=0.25)


def test_parameters_are_stored_verbatim_and_checked_at_fit():
    grid = (5.0, 10.0)
    router = ExpertRouter(experts=[("a", None), ("b", None)], gauges=["a"], thresholds=grid, tuning_metric="p_mu",
                          tolerance=0.0)
    assert router.get_params()["thresholds"] is grid and not router.is_fitted
    with pytest.raises(SegvizError, match="a expert"):
        router.fit(stream(20))
    with pytest.raises(SegvizError, match="not fitted"):
        router.route(stream(20))
    two = [("a", constant_expert(0.3, 0.2, 2)), ("b", constant_expert(0.01, 0.5, 4))]
    for bad in ({"thresholds": ()}, {"thresholds": (0.0, 3.0)}, {"tuning_metric": "f1"}, {"tolerance": -0.1},
                {"gauges": []}, {"gauges": ["c"]}, {"experts": two[:1], "gauges": []},
                {"experts": [("A b", two[0][1]), two[1]]}, {"experts": [two[0], ("a", two[1][1])]}):
        with pytest.raises(SegvizError):
            ExpertRouter(**{"experts": two, "gauges": ["a"], **bad}).fit(stream(20))
    with pytest.raises(SegvizError, match="no parameter 'alpha'"):
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


@pytest.fixture(scope="module")
def two_of_shipped(shipped):
    """The shipped excerpts and mixed experts as a router of two."""
    return ExpertRouter(experts=[("excerpts", shipped.experts_["excerpts"]), ("mixed", shipped.experts_["mixed"])],
                        gauges=["excerpts"])


def test_fit_matches_the_experts_scored_one_by_one(two_of_shipped):
    """The tuning curve is the experts' own per-document P_k, routed by the gauge, domains weighing the same."""
    choi = read_corpus(CHOI)
    reuters = read_corpus(REUTERS)
    reuters = Corpus(reuters.documents[:60], name="reuters sample", files=[f"r{i // 20}" for i in range(60)])
    router = ExpertRouter(**two_of_shipped.get_params()).fit([choi, reuters])
    curve = dict(zip(router.tuning_["grid"], router.tuning_["curves"]["excerpts (gauge: excerpts)"]))
    excerpts, mixed = router.experts_["excerpts"], router.experts_["mixed"]
    domains = []
    for corpus in (choi, reuters):
        rows = []
        for unit in corpus.by_file():
            gauge = expected_segment_length(excerpts.boundary_probabilities(unit))
            rows.append((gauge, p_k(unit.masses(), stream_masses(excerpts.predict(unit))),
                         p_k(unit.masses(), stream_masses(mixed.predict(unit)))))
        domains.append(rows)
    for t in (3.0, router.thresholds_[0], 400.0):
        expected = np.mean([np.mean([s if g <= t else lo for g, s, lo in rows]) for rows in domains])
        assert curve[t] == pytest.approx(expected)
    # spliced Brown excerpts go to the excerpts expert, newswire to the mixed one
    assert router.route(choi.by_file()[0]).expert == "excerpts"
    assert router.route(reuters.by_file()[0]).expert == "mixed"
    assert router.tuning_["domains"]["reuters sample"]["taken"] == {"excerpts": 0, "mixed": 3}


# -------------------------------------------------------------------------------- the file

def test_save_and_load_round_trip(tmp_path):
    router = fitted_router()
    path = router.save(tmp_path / "r.segviz")
    back = load_model(path)
    assert isinstance(back, ExpertRouter) and back.thresholds_ == router.thresholds_
    assert back.get_params()["thresholds"] == DEFAULT_THRESHOLDS and back.tolerance == router.tolerance
    for name in ("short", "long"):
        assert back.experts_[name].rule_.to_dict() == router.experts_[name].rule_.to_dict()
        assert back.experts_[name].prior_ == pytest.approx(router.experts_[name].prior_)
    assert back.predict(stream(50)) == router.predict(stream(50))
    assert [(e.rule_.alpha, e.rule_.epsilon) for e in back.segmenters().values()] == [(0.2, 2), (0.5, 4)]
    # each expert's document is version 2, its rule a rule document
    with zipfile.ZipFile(path) as z:
        saved = json.loads(z.read("experts/short/segmenter.json"))
    assert saved["version"] == 2 and saved["rule"] == router.experts_["short"].rule_.to_dict()
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
    (lambda r, m: r.update(thresholds=[-1]), "thresholds"),
    (lambda r, m: r.update(thresholds=["7"]), "thresholds"),
    (lambda r, m: r.update(thresholds=[7, 8]), "thresholds"),
    (lambda r, m: r.update(experts=["short", "Long one"]), "experts"),
    (lambda r, m: r.update(experts=["short", "short"]), "experts"),
    (lambda r, m: r["params"].update(gauges=["long", "short"]), "gauges"),
    (lambda r, m: r.update(experts=["short", "other"]), "other"),
    (lambda r, m: r["params"].update(thresholds=[1, -2]), "thresholds"),
    (lambda r, m: r["params"].update(tuning_metric="f1"), "tuning_metric"),
    (lambda r, m: r.update(version=2), "version"),
    (lambda r, m: m.pop("experts/long/segmenter.json"), "long"),
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
        assert [d.masses] == router.experts_[d.expert].predict(unit)
        assert d.rule == router.experts_[d.expert].rule_.describe()
    assert [d.masses for d in documents] == router.predict(corpus)
    out = tmp_path / "out.jsonl"
    assert main(["segment", str(CHOI), "--model", str(path), "-o", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "chose an expert for each document" in err and "short 5" in err
    assert main(["evaluate", "--model", str(path), str(CHOI / "3-11_0.ref"), "--json"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert "chose an expert for each document" in captured.err and "short 1" in captured.err
    [document] = payload["documents"]
    assert document["expert"] == "short"
    assert document["route"].startswith("the short expert: the short expert expects")
    assert document["rule"] == "threshold rule: α = 0.2, ε = 2"   # the short expert's own rule


def test_a_rule_replaces_every_experts_or_one_experts_rule(tmp_path, capsys):
    router = fitted_router(threshold=8.0)
    corpus = read_corpus(CHOI)
    count = router.with_rule(SegmentCountRule(segments=3))
    assert all(isinstance(e.rule_, SegmentCountRule) for e in count.segmenters().values())
    assert [len(m) for m in count.predict(corpus)] == [3] * len(corpus.by_file())
    assert count.thresholds_ == router.thresholds_ and [r.expert for r in map(count.route, corpus.by_file())] == \
        [r.expert for r in map(router.route, corpus.by_file())]
    only_long = router.with_rule(ThresholdRule(alpha=0.9, epsilon=1), expert="long")
    assert only_long.experts_["short"].rule_ is router.experts_["short"].rule_
    assert (only_long.experts_["long"].rule_.alpha, only_long.experts_["long"].rule_.epsilon) == (0.9, 1)
    assert router.experts_["long"].rule_.alpha == 0.5          # the original router is left as it was
    with pytest.raises(SegvizError, match="no expert called 'medium'"):
        router.with_rule(ThresholdRule(), expert="medium")
    # the command line: the same rule in every expert, and the documents' rule says so
    path = router.save(tmp_path / "r.segviz")
    assert main(["evaluate", "--model", str(path), str(CHOI), "--segments", "3", "--json"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert {d["rule"] for d in payload["documents"]} == {"segment-count rule: 3 segments per document"}
    assert "replace the model's own decision rule" in captured.err and "short: threshold rule" in captured.err
    assert main(["evaluate", "--model", str(path), str(CHOI), "--alpha", "0.25", "--json"]) == 0
    captured = capsys.readouterr()
    rules = {(d["expert"], d["rule"]) for d in json.loads(captured.out)["documents"]}
    assert rules == {("short", "threshold rule: α = 0.25, ε = 2")}          # each expert's own ε kept
    assert "note" not in captured.err                          # a threshold rule replaced by a threshold rule
