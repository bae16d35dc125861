"""The window's relevance trace and profile with a model that has no language models (the bundled default model):
they come from the bundled general-English language models, computed in the background after the curve, and the
window says so; a model's own language models win."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from segviz import read_corpus  # noqa: E402
from segviz.errors import SegvizError  # noqa: E402
from segviz.general_lm import GENERAL_LM_LABEL, MODEL_LM_LABEL, general_language_models  # noqa: E402
from segviz.relevance import sentence_relevance  # noqa: E402
from segviz.service.engine_process import EngineProcess  # noqa: E402
from segviz.service.general_relevance import (  # noqa: E402
    GeneralRelevanceJob,
    general_relevance_task,
    relevance_from_json,
    relevance_to_json,
)
from tests.app_fixtures import app_settings, no_leaked_workers, shown_corpus, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
MODEL = ROOT / "resources" / "sample_model.segviz"


def drain(gen):
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


def test_the_task_scores_the_corpus_with_the_general_models():
    corpus = read_corpus(str(CHOI))
    result = drain(general_relevance_task(corpus))
    np.testing.assert_allclose(result.relevance, sentence_relevance(general_language_models(), corpus.sentences()))
    assert result.source == GENERAL_LM_LABEL and result.profile["offsets"][0] == -10


def test_the_engine_gives_the_same_relevance_on_the_corpus_it_read():
    corpus = read_corpus(str(CHOI))
    engine = EngineProcess("a test engine")
    try:
        n, result = drain(GeneralRelevanceJob([CHOI], engine=engine).events())
        pid = engine.pid
        again = drain(GeneralRelevanceJob([CHOI], engine=engine).events())   # the engine's reading, kept
        assert engine.pid == pid and engine.running
    finally:
        engine.close()
    assert n == corpus.n_sentences and result.source == GENERAL_LM_LABEL
    np.testing.assert_allclose(result.relevance, drain(general_relevance_task(corpus)).relevance)
    np.testing.assert_array_equal(again[1].relevance, result.relevance)
    assert result.profile == drain(general_relevance_task(corpus)).profile


def test_a_cancelled_relevance_job_returns_nothing():
    job = GeneralRelevanceJob([CHOI])
    events = job.events()
    job.close()
    assert drain(events) is None


@pytest.mark.parametrize("change", [
    {"sentences": 3},                                   # the array's shape does not match
    {"relevance": {"shape": [2], "f8": "AAAA"}},        # data of the wrong size
    {"source": ["not", "text"]},
    {"profile": {"offsets": [1], "mean": [0.1, 0.2], "count": [1]}},
    {"sentences": "many"},
])
def test_a_malformed_relevance_result_is_one_error(change):
    corpus = read_corpus(str(CHOI))
    message = relevance_to_json(corpus.n_sentences, drain(general_relevance_task(corpus)))
    message.update(change)
    with pytest.raises(SegvizError, match="relevance process|malformed|does not match"):
        relevance_from_json(message)


@pytest.mark.slow
def test_default_model_shows_general_relevance_then_a_models_own_wins(window, qtbot):
    with qtbot.waitSignal(window.modelApplied, timeout=120000):
        assert window.open_corpus(str(CHOI))   # no model open: the bundled default model (no LMs) is applied
    qtbot.waitUntil(lambda: not window.busy, timeout=120000)
    state = window.state
    assert all(s.lms_ is None for s in state.opened_model.segmenters().values())
    assert state.relevance is not None and state.relevance.shape == (state.n_sentences,)
    assert state.relevance_source == GENERAL_LM_LABEL and state.relevance_profile
    assert GENERAL_LM_LABEL in window.block_view.relevance_note()
    assert GENERAL_LM_LABEL in window.profile.getPlotItem().titleLabel.text
    # a model with its own language models replaces them, and the window says whose they are
    with qtbot.waitSignal(window.modelApplied, timeout=120000):
        assert window.open_model(str(MODEL))
    qtbot.waitUntil(lambda: not window.busy, timeout=120000)
    assert state.relevance_source is None
    np.testing.assert_allclose(state.relevance, sentence_relevance(state.segmenter.lms_, shown_corpus(window).sentences()))
    assert MODEL_LM_LABEL in window.block_view.relevance_note()


@pytest.mark.slow
def test_training_cancels_the_general_relevance_it_replaces(window, qtbot, monkeypatch):
    """Train brings the trace of its own language models: a general-English relevance still being computed for the
    model shown before is cancelled (it would be dropped anyway, and it ran beside the language models' fitting)."""
    from segviz.app import main_window
    from segviz.events import Progress
    from segviz.service.general_relevance import TASK

    closed = []

    class Unending:
        """A relevance job that never ends by itself (its progress keeps coming until it is closed)."""

        def __init__(self, *args, **kwargs):
            self.open = True

        def events(self):
            while self.open:
                yield Progress("relevance (never ends)", 0, 1)
                time.sleep(0.005)   # a worker thread: not the GUI's

        def close(self):
            self.open = False
            closed.append(True)

    monkeypatch.setattr(main_window, "GeneralRelevanceJob", Unending)
    assert window.open_corpus(str(CHOI))   # the bundled default model (no LMs): the general relevance follows
    qtbot.waitUntil(lambda: window.background.is_running(TASK), timeout=120000)
    with qtbot.waitSignal(window.trainingFinished, timeout=120000):
        assert window.start_training(1) is not None
        assert not window.background.is_running(TASK) and closed == [True]
    qtbot.waitUntil(lambda: not window.busy, timeout=120000)
    assert window.state.relevance is not None and window.state.relevance_source is None   # the training's own
