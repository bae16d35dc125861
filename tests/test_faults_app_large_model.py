"""A model with 100,000 features (the schema's limit) in the app: memory linear in the model.

The window used to keep, for every row of its feature table, a copy of all the model's weights (each induction
round's, or the loaded model's), so a 100,000-feature model asked for 10^10 floats and the process died.  The
model is built here from the bundled sample model's features, repeated; memory is measured with tracemalloc
(allocations, not time).
"""
from __future__ import annotations

import tracemalloc
from types import SimpleNamespace

import numpy as np
import pytest

from segviz import Segmenter
from segviz.app.state import SessionState
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: F401
from tests.conftest import ROOT

MODEL = ROOT / "resources" / "sample_model.segviz"
N_FEATURES = 100_000


@pytest.fixture(scope="module")
def large_model():
    small = Segmenter.load(MODEL)
    features = [small.features_[i % len(small.features_)] for i in range(N_FEATURES)]
    lambdas = np.linspace(-1e-3, 1e-3, N_FEATURES)
    return Segmenter.from_weights(features, lambdas, prior=small.prior_, rule=small.rule_, mu=small.mu_)


def peak_bytes(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_a_loaded_models_history_costs_memory_linear_in_its_features(large_model):
    state = SessionState()
    peak = peak_bytes(lambda: state.load_history(large_model))
    assert len(state.rounds) == N_FEATURES
    weights = state.current_weights()
    assert len(weights) == N_FEATURES
    np.testing.assert_allclose(weights, np.exp(large_model.lambdas_))
    assert [r.weight for r in state.rounds[:3]] == list(weights[:3])
    # a row and a weight each: well under a kilobyte per feature (a copy of the weights per row was 3.2 MB each)
    assert peak < 1000 * N_FEATURES


def test_live_rounds_keep_one_weight_vector_not_one_per_round(large_model):
    """Each round's event carries every weight so far; the state keeps the latest vector only."""
    state = SessionState()
    rounds = 3000
    features = large_model.features_[:rounds]
    events = [SimpleNamespace(round=i + 1, feature=features[i], gain=0.1, train_loglik=-1.0, heldout_p_mu=None,
                              weights=tuple(np.full(i + 1, 1.5).tolist())) for i in range(rounds)]

    def run():
        for event in events:
            state.add_round(event)

    peak = peak_bytes(run)
    assert len(state.rounds) == rounds and state.current_weights() == events[-1].weights
    # quadratic would be rounds^2 / 2 floats (over 100 MB); linear is a few hundred bytes a round
    assert peak < 2000 * rounds
    state.reset_rounds()
    assert state.current_weights() == ()


@pytest.mark.slow
def test_the_window_opens_a_100000_feature_model(window, qtbot, tmp_path, large_model):
    """End to end: saved, opened, applied in the engine's child; the table lists every feature."""
    path = tmp_path / "large.segviz"
    large_model.save(path)
    window.default_model = None
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        assert window.open_corpus(str(ROOT / "sample_corpora" / "choi" / "3-11_0.ref"))
    with qtbot.waitSignal(window.modelApplied, timeout=300000):
        assert window.open_model(str(path))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert not window.dialogs
    assert len(window.state.rounds) == N_FEATURES and len(window.state.current_weights()) == N_FEATURES
    assert window.features.table.model().rowCount() == N_FEATURES
    assert window.state.probabilities is not None and np.all(np.isfinite(window.state.probabilities))
