"""The features package answers every question exactly as the single-module implementation did.

``tests/data/features_reference.json`` was recorded with the earlier implementation (segviz ec6393b: one module
for vocabulary and relevance questions, two more for cohesion and peer evidence): checksums of the candidate
matrix and of its questions' descriptions on the bundled Reuters and Choi samples, the JSON form those modules
saved interval questions in, and the bundled model's probabilities on the Reuters sample.  Relevance is a
deterministic stand-in (no language model), so only the features are under test.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from segviz.corpus import read_corpus
from segviz.features import (
    EXTENDED_TEMPLATES,
    VOCABULARY_TEMPLATES,
    FeatureContext,
    FeatureSpec,
    build_candidates,
    evaluate_features,
)

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = json.loads((ROOT / "tests" / "data" / "features_reference.json").read_text(encoding="utf-8"))
SAMPLES = {"reuters": ROOT / "sample_corpora" / "reuters_sample.sgm", "choi": ROOT / "sample_corpora" / "choi"}


def _stand_in_relevance(sentences) -> np.ndarray:
    """Spans the whole relevance grid, from the sentences alone."""
    return np.array([((len(s) * 37 + len(s[0] if s else "") * 11) % 101) / 40.0 - 1.25 for s in sentences])


def _digest(X) -> str:
    X = X.tocsc()
    X.sort_indices()
    h = hashlib.sha256()
    for a in (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.int8)):
        h.update(a.tobytes())
    h.update(repr(X.shape).encode())
    return h.hexdigest()


def _text_digest(strings) -> str:
    return hashlib.sha256("\n".join(strings).encode()).hexdigest()


def _context(name: str) -> FeatureContext:
    corpus = read_corpus(SAMPLES[name])
    sentences = corpus.sentences()
    # the recorded matrices saw only sentences, relevance and source groups: no texts or paragraphs
    return FeatureContext(sentences, relevance=_stand_in_relevance(sentences), groups=corpus.source_groups())


@pytest.mark.parametrize("name,other", [("reuters", "choi"), ("choi", "reuters")])
def test_candidate_matrices_identical_to_the_recorded_ones(name, other):
    want = REFERENCE["candidates"][name]
    context = _context(name)
    X, specs = build_candidates(context, families=("vocabulary", "relevance", "cohesion", "peer"), vocabulary=500,
                                templates=EXTENDED_TEMPLATES)
    assert list(X.shape) == want["shape"] and X.nnz == want["nnz"]
    assert _digest(X) == want["matrix"]
    assert _text_digest(f.description for f in specs) == want["descriptions"]
    assert _text_digest(f.short for f in specs) == want["shorts"]
    # the same questions on a stream they were not built on
    assert _digest(evaluate_features(specs, _context(other))) == want["evaluated_on_other"]
    # the paper's 15 templates, no cohesion, min_support
    X2, specs2 = build_candidates(FeatureContext(context.sentences, groups=context.groups),
                                  families=("vocabulary", "relevance"), vocabulary=300,
                                  templates=VOCABULARY_TEMPLATES, min_support=3)
    assert list(X2.shape) == want["paper_min3"]["shape"] and _digest(X2) == want["paper_min3"]["matrix"]
    assert _text_digest(f.description for f in specs2) == want["paper_min3"]["descriptions"]


def test_interval_questions_saved_by_the_earlier_modules_load_unchanged():
    legacy = REFERENCE["legacy_interval_questions"]
    loaded = [FeatureSpec.from_dict(d) for d in legacy["dicts"]]
    assert _text_digest(q.description for q in loaded) == legacy["descriptions"]
    assert _text_digest(q.short for q in loaded) == legacy["shorts"]
    by_short = {q.short: q.description for q in loaded}
    for short, description in legacy["examples"].items():
        assert by_short[short] == description
    # they are the questions the package builds today, in the same order
    context = _context("choi")
    _, specs = build_candidates(context, families=("relevance", "cohesion", "peer"), drop_empty=False)
    assert loaded == specs
    # and the saved form round-trips
    assert [FeatureSpec.from_dict(json.loads(json.dumps(q.to_dict()))) for q in loaded] == loaded


def test_bundled_model_gives_the_recorded_probabilities():
    from segviz.segmenter import Segmenter

    want = REFERENCE["sample_model"]
    model = Segmenter.load(ROOT / "resources" / "sample_model.json")
    corpus = read_corpus(ROOT / want["corpus"])
    # not exact: the recorded values used 0.5 (1 + tanh(s/2)) for the logistic, which carries an absolute
    # rounding error of ~1e-17 (large relative to q = 1e-10); scipy's expit does not.  Any change of a feature
    # or a weight moves the probabilities by far more than these tolerances.
    np.testing.assert_allclose(model.predict_proba(corpus), want["predict_proba"], rtol=1e-9, atol=1e-15)
    assert list(model.predict(corpus)) == want["predict"]
