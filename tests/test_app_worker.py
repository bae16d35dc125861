"""The worker thread: Step adds exactly one row, Pause/Run, cancel stops, closing the window stops training."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from segviz.app import engine  # noqa: E402
from segviz.app.worker import GeneratorWorker  # noqa: E402
from segviz.events import Progress  # noqa: E402
from segviz.features import Window, WordQuestion  # noqa: E402
from segviz.induction import FeatureAdded  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
WORDS = ["the", "he", "said", "mr.", "also", "point"]


def fake_session(corpus, *, n_features=30, forever=False, **_):
    """A stand-in for engine.training_session: the same event protocol, no real training."""
    n = corpus.n_sentences

    def run():
        yield Progress("training language models", 0, 0)
        yield engine.RelevanceReady(np.linspace(-1, 1, n), {"offsets": np.arange(-3, 4), "mean": np.zeros(7)})
        r = 0
        while forever or r < n_features:
            r += 1
            yield Progress("inducing features", r - 1, n_features)
            spec = WordQuestion("sentences", WORDS[r % len(WORDS)], Window("sentence", 0, 1 + r % 5))
            added = FeatureAdded(r, spec, 1.0 / r, tuple([1.5] * r), -50.0 + r, 0.6 + 0.01 * r)
            yield engine.CurveUpdate(added, np.full(n - 1, min(0.05 * r, 1.0)), 0.3, 2)
        return None

    return run


@pytest.fixture
def loaded(window, qtbot, monkeypatch):
    monkeypatch.setattr(engine, "has_segmenter", lambda: True)
    monkeypatch.setattr(engine, "training_session", fake_session)
    window.train_in_process = False   # the fake runs on the worker thread
    assert window.open_corpus(str(CHOI))
    qtbot.waitUntil(lambda: not window.busy, timeout=30000)
    return window


def rows(win) -> int:
    return win.features.model.rowCount()


def test_step_adds_exactly_one_row(loaded, qtbot):
    win = loaded
    # signals are armed before the work starts (a queued emission is only delivered to earlier connections)
    with qtbot.waitSignal(win.roundShown, timeout=10000) as shown:
        worker = win.start_training(5, step=True)
    assert shown.args == [1]
    qtbot.waitUntil(lambda: worker.is_paused, timeout=10000)
    assert rows(win) == 1 and len(win.state.rounds) == 1
    # the curve of round 1 is shown at once
    np.testing.assert_allclose(win.state.probabilities, 0.05)
    for expected in (2, 3):
        with qtbot.waitSignal(win.roundShown, timeout=10000):
            win.features.step_button.click()
        qtbot.waitUntil(lambda: worker.is_paused, timeout=10000)
        assert rows(win) == expected
    assert win.features.step_button.isEnabled() and not win.features.pause_button.isEnabled()
    with qtbot.waitSignal(win.trainingFinished, timeout=10000) as done:
        win.features.run_button.click()
    assert done.args == ["done"]
    assert rows(win) == 5
    qtbot.waitUntil(lambda: not win.busy, timeout=10000)
    # per-round plots received every round
    x, y = win.features.loglik_curve.getData()
    assert list(x) == [1, 2, 3, 4, 5] and list(y) == [-49.0, -48.0, -47.0, -46.0, -45.0]


def test_pause_then_run(loaded, qtbot):
    win = loaded
    with qtbot.waitSignal(win.roundShown, timeout=10000):
        worker = win.start_training(1000)
    win.features.pause_button.click()
    qtbot.waitUntil(lambda: worker.is_paused, timeout=10000)
    n = rows(win)
    assert worker.is_paused and n >= 1
    with qtbot.waitSignal(win.trainingFinished, timeout=10000) as done:
        win.features.stop_button.click()
    assert done.args == ["cancelled"]
    assert rows(win) == n   # nothing added after the pause
    qtbot.waitUntil(lambda: not win.busy, timeout=10000)


def test_cancel_stops_a_running_worker(loaded, qtbot, monkeypatch):
    win = loaded
    monkeypatch.setattr(engine, "training_session",
                        lambda corpus, **kw: fake_session(corpus, forever=True))
    with qtbot.waitSignal(win.roundShown, timeout=10000):
        worker = win.start_training(10)
    with qtbot.waitSignal(win.trainingFinished, timeout=10000) as done:
        win.cancel_button.click()
    assert done.args == ["cancelled"] and worker.is_aborted
    qtbot.waitUntil(lambda: not win.busy, timeout=10000)
    assert win.training_worker is None
    assert win.features.train_button.isEnabled()


def test_closing_the_window_stops_training(loaded, qtbot, monkeypatch):
    win = loaded
    monkeypatch.setattr(engine, "training_session",
                        lambda corpus, **kw: fake_session(corpus, forever=True))
    with qtbot.waitSignal(win.roundShown, timeout=10000):
        win.start_training(10)
    with qtbot.waitSignal(win.busyChanged, timeout=10000, check_params_cb=lambda busy: not busy):
        win.close()
    qtbot.waitUntil(lambda: not win.busy, timeout=10000)
    assert not win.isVisible()


def test_worker_errors_become_dialogs(loaded, qtbot, monkeypatch):
    win = loaded

    def broken(corpus, **kw):
        def run():
            yield Progress("training language models", 0, 0)
            raise ValueError("vocabulary is empty")
        return run

    monkeypatch.setattr(engine, "training_session", broken)
    with qtbot.waitSignal(win.trainingFinished, timeout=10000) as done:
        win.start_training(3)
    assert "vocabulary is empty" in done.args[0]
    assert win.dialogs and win.dialogs[-1][0] == "Training failed"
    qtbot.waitUntil(lambda: not win.busy, timeout=10000)
    assert win.state.corpus is not None


def test_generator_worker_signals_in_order(qtbot, no_leaked_workers):
    def gen():
        for i in range(3):
            yield i
        return "done"

    worker = GeneratorWorker(gen)
    seen = []
    worker.yielded.connect(seen.append)
    with qtbot.waitSignals([worker.returned, worker.finished], order="strict", timeout=5000):
        worker.start()
    assert seen == [0, 1, 2] and worker.result == "done"


def test_feature_click_highlights_where_it_fires(loaded, qtbot):
    win = loaded
    with qtbot.waitSignal(win.trainingFinished, timeout=10000):
        win.start_training(2)
    qtbot.waitUntil(lambda: not win.busy, timeout=10000)
    win.features.table.selectRow(1)
    spec = win.state.rounds[1].feature
    from segviz.features import FeatureContext, evaluate_features
    context = FeatureContext.from_corpus(win.state.corpus, relevance=win.state.relevance)
    expected = evaluate_features([spec], context).tocsc().indices + 1
    x, _ = win.block_view.highlight.getData()
    np.testing.assert_array_equal(np.sort(x), np.sort(expected))


def test_the_leak_check_sees_a_running_worker(qtbot):
    """The no_leaked_workers fixture can fail: a blocked worker is reported as running until it ends."""
    import threading

    from tests.app_fixtures import _running_workers

    gate = threading.Event()

    def blocked():
        gate.wait(10)
        yield 1

    worker = GeneratorWorker(blocked, name="blocked")
    with qtbot.waitSignal(worker.started, timeout=5000):
        worker.start()
    assert worker in _running_workers()
    gate.set()
    qtbot.waitUntil(lambda: worker not in _running_workers(), timeout=10000)
