"""The features package answers every question exactly as the single-module implementation did.

``tests/data/features_reference.json`` was recorded with the earlier implementation (segviz ec6393b: one module
for vocabulary and relevance questions, two more for cohesion and peer evidence): checksums of the candidate
matrix and of its questions' descriptions on the bundled Reuters and Choi samples, the JSON form those modules
saved interval questions in, and the probabilities of the sample model bundled then (rebuilt here from its
saved features and weights) on the Reuters sample.  Relevance is a deterministic stand-in (no language model), so
only the features are under test.

One deliberate change since: the content-word cohesion windows stop at the edges of source units (a file), so on
the Choi sample's five files the cohesion answers within 10 gaps of a file edge changed.  The three digests that
cover them (the Choi matrix and its count of ones, and the Reuters questions evaluated on the Choi sample) were
recorded again then, after checking that every cell that moved is a cohesion question's, within 10 gaps of a
file edge; every other digest is the earlier implementation's.
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


#: The bundled sample model the probabilities were recorded with (``resources/sample_model.json`` until the
#: sample model was retrained as ``sample_model.segviz``): its 40 features (kind, word, window (unit, start, end),
#: weight lambda, and the window a ``sentences_not`` question excludes), its prior and mu, and its tuned rule
#: (alpha 0.22, epsilon 2).  No relevance question among them, so the model is rebuilt exactly without its
#: language models.
RECORDED_MODEL_FEATURES = [
    ('words', 'vs', ('word', 0, 5), 10.0),
    ('words', 'inc', ('word', 0, 5), 7.4147596679835726),
    ('words', 'corp', ('word', 0, 5), 8.542854625935206),
    ('words', '.', ('word', -5, 0), -3.7246635609562775),
    ('sentences', 'vs', ('sentence', -1, 0), 2.867961514441062),
    ('words', 'co', ('word', 0, 5), 5.767333196707349),
    ('sentences', 'ltd', ('sentence', 0, 1), 3.737377410643024),
    ('sentences', 'shr', ('sentence', 0, 1), 10.0),
    ('sentences', 'said', ('sentence', 0, 1), 3.3434718015248452),
    ('sentences', 'told', ('sentence', 0, 2), 3.0185104806876657),
    ('words', '"', ('word', 0, 5), -10.0),
    ('words', 'said', ('word', 0, 5), -2.506543568229389),
    ('words', 'president', ('word', 0, 1), 7.262336154274872),
    ('words', ',', ('word', 0, 5), -2.016622268607476),
    ('sentences', 'european', ('sentence', 0, 1), 2.9256196215432),
    ('sentences', 'its', ('sentence', 0, 1), 1.8067768306455418),
    ('words', 'in', ('word', 0, 1), -10.0),
    ('sentences', 'also', ('sentence', 0, 1), -3.435524775545137),
    ('begins_previous', 'it', ('sentence', -1, -1), 2.112371207222542),
    ('sentences', 'company', ('sentence', 0, 1), -1.7857158503612167),
    ('sentences', 'he', ('sentence', 0, 1), -2.7956026189217007),
    ('sentences', 'motor', ('sentence', -5, 0), -3.0251778733734613),
    ('sentences', 'but', ('sentence', 0, 1), -2.3857597656150324),
    ('sentences', 'st', ('sentence', 0, 1), 10.0),
    ('words', 'white', ('word', 0, 5), 6.754533045458214),
    ('sentences', 'agriculture', ('sentence', 0, 1), 2.7915471955726887),
    ('sentences', 'membership', ('sentence', 0, 1), 6.706308411638181),
    ('sentences', 'div', ('sentence', 0, 1), 10.0),
    ('sentences', 'subcommittee', ('sentence', 0, 2), 4.582444142618776),
    ('sentences', 'federal', ('sentence', 0, 2), 1.8194547779048322),
    ('sentences_not', 'world', ('sentence', 0, 5), 1.8728798981925048, ('sentence', -5, 0)),
    ('sentences', 'commerce', ('sentence', 0, 1), 10.0),
    ('sentences', 'ready', ('sentence', -5, 0), -10.0),
    ('sentences', 'investor', ('sentence', -3, 0), 3.260976667692244),
    ('sentences', 'comment', ('sentence', -1, 0), -10.0),
    ('words', 'texas', ('word', 0, 1), 10.0),
    ('sentences', 'checkoff', ('sentence', 0, 1), 5.433337017127227),
    ('sentences', 'curbs', ('sentence', 0, 1), 6.162875823358952),
    ('sentences', 'at', ('sentence', 0, 2), 0.9031677958965263),
    ('words', 'webster', ('word', 0, 5), 8.222732288757907),
]
RECORDED_MODEL = {"prior": 0.21693430656934307, "mu": 0.2171628721541156, "alpha": 0.22, "epsilon": 2}


def test_the_recorded_model_gives_the_recorded_probabilities():
    from segviz.model_protocol import stream_masses
    from segviz.rules import ThresholdRule
    from segviz.segmenter import Segmenter

    want = REFERENCE["sample_model"]

    def saved(kind, word, window, _lam, not_window=None):
        out = {"kind": kind, "word": word, "window": dict(zip(("unit", "start", "end"), window))}
        if not_window is not None:
            out["not_window"] = dict(zip(("unit", "start", "end"), not_window))
        return out

    features = [FeatureSpec.from_dict(json.loads(json.dumps(saved(*row)))) for row in RECORDED_MODEL_FEATURES]
    model = Segmenter.from_weights(features, [row[3] for row in RECORDED_MODEL_FEATURES],
                                   prior=RECORDED_MODEL["prior"], mu=RECORDED_MODEL["mu"],
                                   rule=ThresholdRule(alpha=RECORDED_MODEL["alpha"],
                                                      epsilon=RECORDED_MODEL["epsilon"]))
    corpus = read_corpus(ROOT / want["corpus"])
    # not exact: the recorded values used 0.5 (1 + tanh(s/2)) for the logistic, which carries an absolute
    # rounding error of ~1e-17 (large relative to q = 1e-10); scipy's expit does not.  Any change of a feature
    # or a weight moves the probabilities by far more than these tolerances.
    np.testing.assert_allclose(model.predict_proba(corpus), want["predict_proba"], rtol=1e-9, atol=1e-15)
    predicted = model.predict(corpus)
    assert len(predicted) == len(corpus.by_file()) == 1          # one document: its masses are the stream's
    assert list(stream_masses(predicted)) == want["predict"]


def test_the_bundled_sample_model_loads_and_applies_its_own_rule():
    """The sample model (retrained as one .segviz file since the recording) applies its features and weights."""
    from segviz.model_protocol import stream_masses
    from segviz.rules import ThresholdRule
    from segviz.segmenter import Segmenter

    model = Segmenter.load(ROOT / "resources" / "sample_model.segviz")
    corpus = read_corpus(ROOT / REFERENCE["sample_model"]["corpus"])
    assert isinstance(model.rule_, ThresholdRule)
    rebuilt = Segmenter.from_weights(model.features_, model.lambdas_, prior=model.prior_, mu=model.mu_,
                                     rule=model.rule_, lms=model.lms_)
    proba = model.predict_proba(corpus)
    np.testing.assert_array_equal(proba, rebuilt.predict_proba(corpus))
    assert proba[0] == 1.0 and proba.shape == (corpus.n_sentences,)
    masses = stream_masses(model.predict(corpus))
    assert np.cumsum(masses)[:-1].tolist() == model.rule_.decide(proba[1:]).tolist()
