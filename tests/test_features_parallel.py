"""Questions answered on two cores give the matrix one core gives, and a worker that cannot help changes nothing."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from segviz import Corpus, read_corpus
from segviz.features import parallel, tfidf
from segviz.features.candidates import evaluate_features
from segviz.features.context import FeatureContext
from segviz.models import load_model

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_corpora" / "reuters_sample.sgm"
DEFAULT_MODEL = ROOT / "resources" / "default_model.segviz"   # a router: its mixed expert asks every family

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the parallel path needs os.fork")


@pytest.fixture(autouse=True)
def fork_even_for_the_sample(monkeypatch, fork_allowed):
    monkeypatch.setattr(parallel, "MIN_EVENTS", 0)   # the sample is below the size where a worker pays


@pytest.fixture(scope="module")
def model():
    return load_model(DEFAULT_MODEL).segmenters()["mixed"]


@pytest.fixture(scope="module")
def corpus():
    return read_corpus(SAMPLE)


def test_the_worker_takes_a_share_and_the_matrix_is_the_same(model, corpus):
    specs = list(model.features_)
    one = evaluate_features(specs, FeatureContext.from_corpus(corpus))
    context = FeatureContext.from_corpus(corpus)
    worker = parallel.start_worker(context, specs)
    assert worker.running and worker.tfidf_fraction > 0   # the default model asks tf-idf questions
    worker.compute_rest()
    assert worker.install() == len(worker._expected()) > 0
    two = evaluate_features(specs, context)
    assert (one != two).nnz == 0 and one.shape == two.shape


@pytest.mark.parametrize("fraction", [0.0, 0.3, 0.5, 0.999, 1.0])
def test_complementary_shares_of_the_tfidf_pass_are_the_whole_pass(corpus, fraction):
    choi = read_corpus(sorted((ROOT / "sample_corpora" / "choi").rglob("*.ref"))[:3])
    stream = Corpus.concatenate([corpus, choi])   # several groups: shares cut across them
    sentences, groups = stream.sentences(), stream.source_groups()
    whole = tfidf.tfidf_cosines(sentences, groups)
    first = tfidf.tfidf_cosines(sentences, groups, share=(0.0, fraction))
    second = tfidf.tfidf_cosines(sentences, groups, share=(fraction, 1.0))
    for k in whole:
        both = ~np.isnan(first[k]) & ~np.isnan(second[k])
        assert not both.any()
        np.testing.assert_array_equal(np.where(np.isnan(first[k]), second[k], first[k]), whole[k])
    profiles = tfidf.profiles_from_cosines(whole, groups, len(sentences))
    reference = tfidf.tfidf_cohesion(sentences, groups)
    for k in whole:
        for part in ("cosine", "z", "depth"):
            np.testing.assert_array_equal(profiles[k][part], reference[k][part])


def test_the_segmenter_gives_the_same_probabilities_with_two_jobs(corpus):
    one = load_model(DEFAULT_MODEL).segmenters()["mixed"].boundary_probabilities(corpus)
    two_model = load_model(DEFAULT_MODEL).segmenters()["mixed"]
    two_model.feature_matrix(corpus, n_jobs=2)
    np.testing.assert_array_equal(two_model.boundary_probabilities(corpus), one)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_n_jobs_is_checked(model, corpus, bad):
    with pytest.raises(Exception, match="n_jobs"):
        load_model(DEFAULT_MODEL).segmenters()["mixed"].feature_matrix(corpus, n_jobs=bad)


def test_a_worker_that_dies_is_replaced_by_this_process(model, corpus, monkeypatch):
    specs = list(model.features_)
    expected = evaluate_features(specs, FeatureContext.from_corpus(corpus))
    monkeypatch.setattr(parallel, "die_with_parent", lambda: os._exit(3))   # runs in the worker only
    context = FeatureContext.from_corpus(corpus)
    worker = parallel.start_worker(context, specs)
    assert worker.running
    assert worker.install() == 0   # nothing arrived: computed here
    assert (evaluate_features(specs, context) != expected).nnz == 0


def test_without_fork_everything_is_computed_here(model, corpus, monkeypatch):
    specs = list(model.features_)
    expected = evaluate_features(specs, FeatureContext.from_corpus(corpus))

    def no_fork():
        raise OSError("no fork here")

    monkeypatch.setattr(parallel.os, "fork", no_fork)
    got = evaluate_features(specs, FeatureContext.from_corpus(corpus), n_jobs=2)
    assert (got != expected).nnz == 0


def test_a_stopped_worker_leaves_no_process(model, corpus):
    worker = parallel.start_worker(FeatureContext.from_corpus(corpus), list(model.features_))
    pid = worker._pid
    worker.stop()
    assert not worker.running
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_the_plan_balances_the_work():
    from segviz.features.questions import Window
    others = [("cohesion", Window("sentence", -k, k)) for k in (5, 10)] + [("length", Window("sentence", -1, 0))]
    chosen, fraction = parallel._plan(others, tfidf_windows=[2, 5])
    assert chosen == [] and 0.5 < fraction < 1   # most of the pass, against the parent's words and cohesion
    busy = [(signal, Window("sentence", -k, k)) for signal in ("cohesion", "names_overlap") for k in (5, 10, 25)]
    chosen, fraction = parallel._plan(busy + [("length", Window("sentence", -1, 0))], tfidf_windows=[2])
    assert chosen == [] and fraction == 1.0   # the parent has enough: the worker takes the whole pass
    chosen, fraction = parallel._plan(others)
    # no pass to split: whole families go while the worker has less to do than the parent's word questions
    assert fraction == 0 and {name for name, _ in chosen} == {"cohesion", "length"}
    assert parallel._plan([("from_start", Window("sentence", 0, 0))]) == ([], 0.0)   # free: no process
