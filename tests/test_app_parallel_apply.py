"""A model applied to several documents on two cores (segviz.service.parallel_apply): the same probabilities, plan,
shown expert and feature columns as on one, whatever the forked worker does."""
from __future__ import annotations

import os

import numpy as np
import pytest

from segviz import read_corpus
from segviz.events import run_to_end
from segviz.models import load_model
from segviz.service import parallel_apply, tasks
from segviz.service.parallel_apply import split_documents
from segviz.service.tasks import apply_model_task
from tests.conftest import ROOT

CHOI_DIR = ROOT / "sample_corpora" / "choi"
DEFAULT_MODEL = ROOT / "resources" / "default_model.segviz"


def test_the_worker_takes_the_last_half_when_that_is_less_work(monkeypatch):
    monkeypatch.setattr(parallel_apply, "MIN_SENTENCES", 0)
    assert split_documents([10] * 8) == 4
    assert split_documents([60, 84, 74, 79, 76]) == 3   # the nearest to half the documents allow
    assert split_documents([50, 10, 10, 10, 10, 10]) == 1
    assert split_documents([570_286, 429_714]) == 2    # 57 %: each document's questions on two cores is less
    assert split_documents([100]) == 1 and split_documents([]) == 0
    monkeypatch.setattr(parallel_apply, "MIN_SENTENCES", 10_000)
    assert split_documents([10] * 8) == 8               # too small to be worth a fork


def same(a, b) -> None:
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    assert a.units == b.units and a.shown == b.shown and a.coverage == b.coverage
    assert (a.columns != b.columns).nnz == 0 and a.columns.shape == b.columns.shape


@pytest.fixture
def corpus():
    return read_corpus(CHOI_DIR)


@pytest.fixture
def forked(monkeypatch, fork_allowed):
    if not hasattr(os, "fork"):
        pytest.skip("no os.fork here: documents are applied one by one")
    monkeypatch.setattr(parallel_apply, "MIN_SENTENCES", 0)
    monkeypatch.setattr(tasks, "can_fork", lambda: True)


def test_two_processes_apply_a_router_as_one_does(forked, corpus, monkeypatch):
    sent = []
    real = parallel_apply.document_from_message
    monkeypatch.setattr(tasks, "document_from_message", lambda m, n, e: sent.append(n) or real(m, n, e))
    model = load_model(DEFAULT_MODEL)
    two = run_to_end(apply_model_task(model, corpus, n_jobs=2))
    assert sent   # the worker's documents came through the pipe
    same(two, run_to_end(apply_model_task(load_model(DEFAULT_MODEL), corpus, n_jobs=1)))


@pytest.mark.parametrize("failure", ["dies", "sends garbage", "sends an expert the model lacks"])
def test_a_worker_that_fails_leaves_its_documents_to_the_engine(forked, corpus, monkeypatch, failure):
    if failure == "dies":
        monkeypatch.setattr(tasks, "document_message", lambda model, document: os._exit(3))
    elif failure == "sends garbage":
        monkeypatch.setattr(tasks, "document_message", lambda model, document: {"probabilities": [1]})
    else:
        monkeypatch.setattr(tasks, "document_message", lambda model, document: {"expert": "nobody"})
    same(run_to_end(apply_model_task(load_model(DEFAULT_MODEL), corpus, n_jobs=2)),
         run_to_end(apply_model_task(load_model(DEFAULT_MODEL), corpus, n_jobs=1)))
