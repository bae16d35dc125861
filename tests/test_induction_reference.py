"""Feature induction against a recorded reference: the same features in the same order, the same weights.

``tests/data/induction_reference.json`` holds what induction computed on two fixed problems before the
induction was made faster (paper Section 4: the greedy rounds, their exact gains and the IIS refits); the
faster code must choose the same candidates in the same order, with every round's weights, gain and training
log-likelihood equal to 1e-9 relative.

The file was recorded by this module, run as a script, with the implementation it describes::

    python tests/test_induction_reference.py --record

Re-record only when what induction *computes* is meant to change.

Problems:

* ``sample`` -- the bundled Reuters sample (1,876 events), the paper's vocabulary questions with the extended
  templates over its 2,000 most frequent words plus relevance questions on a fixed pseudo-random relevance
  (30,765 candidates); 25 features by maximum likelihood (the paper) and 20 with a Gaussian prior.
* ``synthetic`` -- a random binary matrix with duplicate columns (ties that only the column order breaks),
  questions that fire only on boundaries or never on one (weights at the cap), and a never-firing column.
"""
from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "induction_reference.json"

# (problem, BoundaryModel parameters)
RUNS = (
    ("sample", dict(n_features=25, l2=0.0)),
    ("sample", dict(n_features=20, l2=0.5)),
    ("synthetic", dict(n_features=30, l2=0.0)),
    ("synthetic", dict(n_features=30, l2=0.2)),
)
RTOL = 1e-9


def sample_problem():
    """The bundled Reuters sample's candidate matrix, labels and question texts."""
    from segviz.corpus import read_corpus
    from segviz.features import EXTENDED_TEMPLATES, FeatureContext, boundary_labels, build_candidates

    corpus = read_corpus(ROOT / "sample_corpora" / "reuters_sample.sgm")
    sents = corpus.sentences()
    y = boundary_labels(corpus.masses())
    relevance = np.random.default_rng(0).normal(0, 0.3, size=len(sents))
    X, specs = build_candidates(FeatureContext(sents, relevance=relevance), families=("vocabulary", "relevance"),
                                vocabulary=2000, templates=EXTENDED_TEMPLATES)
    return X, y, [str(s) for s in specs]


def synthetic_problem():
    rng = np.random.default_rng(24)
    n, m = 3000, 4000
    density = np.exp(rng.uniform(np.log(0.0005), np.log(0.2), size=m))
    X = (rng.random((n, m)) < density).astype(np.int8)
    true = np.where(rng.random(m) < 0.05, rng.normal(0, 1.5, size=m), 0.0)
    y = rng.random(n) < 1 / (1 + np.exp(-(-1.6 + X @ true)))
    X[:, 11] = 0                                                # never fires
    X[:, 17] = 0
    X[y, 17] = rng.random(int(y.sum())) < 0.3                   # only on boundaries: optimum at +cap
    X[:, 23] = 0
    X[~y, 23] = rng.random(int((~y).sum())) < 0.2               # never on one: optimum at -cap
    for dst, src in ((101, 40), (202, 40), (303, 77), (404, 1000), (505, 2000)):
        X[:, dst] = X[:, src]                                   # duplicates: equal gains, the first wins
    return sp.csc_matrix(X), y, [f"column {j}" for j in range(m)]


PROBLEMS = {"sample": sample_problem, "synthetic": synthetic_problem}


def fingerprint(X, y) -> str:
    """A digest of the candidate matrix and labels (so a changed *problem* is told apart from changed induction)."""
    from segviz.induction_math import as_csc

    X = as_csc(X)
    h = hashlib.sha256()
    for a in (X.indptr.astype(np.int64), X.indices.astype(np.int64), np.asarray(y, dtype=np.int8)):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(repr(X.shape).encode())
    return h.hexdigest()


def run(problem: str, params: dict, cache: dict | None = None) -> dict:
    from segviz.induction import BoundaryModel, FeatureAdded

    if cache is not None and problem in cache:
        X, y, names = cache[problem]
    else:
        X, y, names = PROBLEMS[problem]()
        if cache is not None:
            cache[problem] = (X, y, names)
    rounds = []
    for ev in BoundaryModel(**params).induce(X, y):
        if isinstance(ev, FeatureAdded):
            rounds.append({"column": ev.column, "question": names[ev.column], "gain": ev.gain,
                           "lambdas": list(ev.lambdas), "train_loglik": ev.train_loglik,
                           "iis_iterations": ev.iis_iterations})
    return {"problem": problem, "params": params, "fingerprint": fingerprint(X, y),
            "candidates": int(X.shape[1]), "rounds": rounds}


def record(path: Path = REFERENCE) -> None:
    cache: dict = {}
    runs = [run(problem, params, cache) for problem, params in RUNS]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": runs}, indent=1) + "\n")
    print(f"wrote {path}: " + ", ".join(f"{r['problem']} l2={r['params']['l2']}: {len(r['rounds'])} rounds"
                                        for r in runs))


@pytest.fixture(scope="module")
def reference():
    return json.loads(REFERENCE.read_text())["runs"]


@pytest.fixture(scope="module")
def problems():
    return {}


@pytest.mark.parametrize("index", range(len(RUNS)))
def test_induction_reproduces_the_recorded_rounds(index, reference, problems):
    ref = reference[index]
    problem, params = RUNS[index]
    assert (ref["problem"], ref["params"]) == (problem, params)
    got = run(problem, params, problems)
    assert got["fingerprint"] == ref["fingerprint"], (
        f"the {problem} problem's candidate matrix is not the recorded one (the features changed, not induction)")
    assert [r["column"] for r in got["rounds"]] == [r["column"] for r in ref["rounds"]]
    assert [r["question"] for r in got["rounds"]] == [r["question"] for r in ref["rounds"]]
    for g, r in zip(got["rounds"], ref["rounds"]):
        np.testing.assert_allclose(g["lambdas"], r["lambdas"], rtol=RTOL, atol=0)
        assert math.isclose(g["gain"], r["gain"], rel_tol=RTOL)
        assert math.isclose(g["train_loglik"], r["train_loglik"], rel_tol=RTOL)


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        raise SystemExit("usage: python tests/test_induction_reference.py --record")
    sys.path.insert(0, str(ROOT))
    record()
