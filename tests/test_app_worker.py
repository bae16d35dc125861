"""The worker thread: Step adds exactly one row, Pause/Run, cancel stops, closing the window stops training."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from segviz import FeatureAdded, Segmenter, ThresholdRule  # noqa: E402
from segviz.app import training_control  # noqa: E402
from segviz.app.worker import GeneratorWorker  # noqa: E402
from segviz.events import Progress  # noqa: E402
from segviz.features import Window, WordQuestion  # noqa: E402
from segviz.service.training_job import CurveUpdate, RelevanceReady, TrainingFinished, heldout_documents  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, shown_corpus, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
WORDS = ["the", "he", "said", "mr.", "also", "point"]


class FakeJob:
    """A stand-in for TrainingJob: the same events and interface, no child process, no real training."""

    forever = False
    broken = False

    def __init__(self, corpus, paths, *, read_options=None, n_features=30, **_):
        self.corpus, self.n_features = corpus, n_features
        self.train_documents = len(corpus) - heldout_documents(len(corpus))
        self.model = None
        self.cancelled = False

    @property
    def heldout_start(self):
        return sum(self.corpus.document_masses()[:self.train_documents])

    def close(self):
        self.cancelled = True

    def events(self):
        n = self.corpus.n_sentences
        yield Progress("training language models", 0, 0)
        if self.broken:
            raise ValueError("vocabulary is empty")
        yield RelevanceReady(np.linspace(-1, 1, n), {"offsets": list(range(-3, 4)), "mean": [0.0] * 7})
        r = 0
        features = []
        while self.forever or r < self.n_features:
            if self.cancelled:
                return
            r += 1
            yield Progress("inducing features", r - 1, self.n_features)
            spec = WordQuestion("sentences", WORDS[r % len(WORDS)], Window("sentence", 0, 1 + r % 5))
            features.append(spec)
            model = Segmenter.from_weights(features, [0.4] * r, prior=0.2, mu=0.1, rule=ThresholdRule(alpha=0.3, epsilon=2))
            self.model = model
            added = FeatureAdded(r, spec, 1.0 / r, tuple([1.5] * r), -50.0 + r, 0.6 + 0.01 * r)
            yield CurveUpdate(added, np.full(n - 1, min(0.05 * r, 1.0)), model)
        yield TrainingFinished(self.model, "n_features")


@pytest.fixture
def loaded(window, qtbot, monkeypatch):
    monkeypatch.setattr(training_control, "TrainingJob", FakeJob)
    monkeypatch.setattr(FakeJob, "forever", False)
    monkeypatch.setattr(FakeJob, "broken", False)
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        assert window.open_corpus(str(CHOI))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    return window


def rows(win) -> int:
    return win.features.model.rowCount()


@pytest.mark.slow
def test_step_adds_exactly_one_row(loaded, qtbot):
    win = loaded
    # signals are armed before the work starts (a queued emission is only delivered to earlier connections)
    with qtbot.waitSignal(win.roundShown, timeout=300000) as shown:
        worker = win.start_training(5, step=True)
    assert shown.args == [1]
    qtbot.waitUntil(lambda: win.features.step_button.isEnabled(), timeout=300000)   # paused, and shown so
    assert worker.is_paused and rows(win) == 1 and len(win.state.rounds) == 1
    assert win.state.segmenter is not None and len(win.state.segmenter.features_) == 1
    # the curve of round 1 is shown at once
    np.testing.assert_allclose(win.state.probabilities, 0.05)
    for expected in (2, 3):
        with qtbot.waitSignal(win.roundShown, timeout=300000):
            win.features.step_button.click()
        qtbot.waitUntil(lambda: win.features.step_button.isEnabled(), timeout=300000)
        assert rows(win) == expected
    assert win.features.step_button.isEnabled() and not win.features.pause_button.isEnabled()
    with qtbot.waitSignal(win.trainingFinished, timeout=300000) as done:
        win.features.run_button.click()
    assert done.args == ["done"]
    assert rows(win) == 5
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)
    # per-round plots received every round
    x, y = win.features.loglik_curve.getData()
    assert list(x) == [1, 2, 3, 4, 5] and list(y) == [-49.0, -48.0, -47.0, -46.0, -45.0]


@pytest.mark.slow
@pytest.mark.parametrize("mid_round", [False, True], ids=["between-rounds", "mid-round"])
def test_pause_stops_at_the_next_round_boundary(loaded, qtbot, monkeypatch, mid_round):
    """Pause never overshoots: at most the round being computed when it was pressed is added.

    ``mid-round``: Pause is pressed while the generator is inside round 3 -- held there by a gate until the click
    has happened, not by a sleep that hopes to be long enough -- and exactly that round is added."""
    import threading

    win = loaded
    real = FakeJob.events
    computing, gate = threading.Event(), threading.Event()
    produced = []

    def gated(self):
        for event in real(self):
            if mid_round and isinstance(event, CurveUpdate) and event.added.round == 3:
                computing.set()          # round 3 is being computed ...
                assert gate.wait(120)    # ... until Pause has been pressed (the timeout only guards a hang)
            produced.append(event)
            yield event

    monkeypatch.setattr(FakeJob, "events", gated)
    with qtbot.waitSignal(win.roundShown, timeout=300000):
        worker = win.start_training(1000)
    if mid_round:
        qtbot.waitUntil(computing.is_set, timeout=300000)
    else:
        qtbot.waitUntil(lambda: rows(win) >= 2, timeout=300000)
    at_click = rows(win)
    win.features.pause_button.click()
    gate.set()
    qtbot.waitUntil(lambda: win.features.run_button.isEnabled(), timeout=300000)
    n = rows(win)
    assert worker.is_paused and at_click <= n <= at_click + 1
    if mid_round:
        assert n == 3   # the round being computed when Pause was pressed, and no more
    # paused: the generator was not asked for anything after the round shown last, so nothing more can arrive
    assert isinstance(produced[-1], CurveUpdate) and produced[-1].added.round == n
    with qtbot.waitSignal(win.roundShown, timeout=300000):
        win.features.run_button.click()   # Run continues from there
    with qtbot.waitSignal(win.trainingFinished, timeout=300000) as done:
        win.features.stop_button.click()
    assert done.args == ["cancelled"]
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)
    assert win.state.segmenter is not None and win.training_worker is None


@pytest.mark.slow
def test_cancel_stops_a_running_worker(loaded, qtbot, monkeypatch):
    win = loaded
    monkeypatch.setattr(FakeJob, "forever", True)
    with qtbot.waitSignal(win.roundShown, timeout=300000):
        worker = win.start_training(10)
    with qtbot.waitSignal(win.trainingFinished, timeout=300000) as done:
        win.cancel_button.click()
    assert done.args == ["cancelled"] and worker.is_aborted
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)
    assert win.training_worker is None
    assert win.features.train_button.isEnabled()


@pytest.mark.slow
def test_closing_the_window_stops_training(loaded, qtbot, monkeypatch):
    win = loaded
    monkeypatch.setattr(FakeJob, "forever", True)
    with qtbot.waitSignal(win.roundShown, timeout=300000):
        win.start_training(10)
    with qtbot.waitSignal(win.busyChanged, timeout=300000, check_params_cb=lambda busy: not busy):
        win.close()
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)
    assert not win.isVisible()


@pytest.mark.slow
def test_worker_errors_become_dialogs(loaded, qtbot, monkeypatch):
    win = loaded
    monkeypatch.setattr(FakeJob, "broken", True)
    with qtbot.waitSignal(win.trainingFinished, timeout=300000) as done:
        win.start_training(3)
    assert "vocabulary is empty" in done.args[0]
    assert win.dialogs and win.dialogs[-1][0] == "Training failed"
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)
    assert win.state.corpus is not None


def test_generator_worker_signals_in_order(qtbot, no_leaked_workers):
    def gen():
        yield from range(3)
        return "done"

    worker = GeneratorWorker(gen)
    seen, ended_at_return = [], []
    worker.yielded.connect(seen.append)
    worker.returned.connect(lambda _: ended_at_return.append(worker.ended))
    with qtbot.waitSignals([worker.returned, worker.finished], order="strict", timeout=300000):
        worker.start()
    assert seen == [0, 1, 2] and worker.result == "done"
    # marked ended before the last signal reaches the GUI (the leak check lets such a thread finish exiting)
    assert ended_at_return == [True]


@pytest.mark.slow
def test_feature_click_highlights_where_it_fires(loaded, qtbot):
    win = loaded
    with qtbot.waitSignal(win.trainingFinished, timeout=300000):
        win.start_training(2)
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)
    win.block_view.zoom_all()
    win.features.table.selectRow(1)
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)   # the model's columns are evaluated in the background
    seg = win.state.segmenter
    expected = seg.feature_matrix(shown_corpus(win)).tocsc()[:, 1].nonzero()[0] + 1
    x, _ = win.block_view.highlight.getData()
    assert len(expected) and "fires at" in win.info_label.text()
    np.testing.assert_array_equal(np.sort(x), np.sort(expected))


def test_the_leak_check_sees_a_running_worker(qtbot):
    """The no_leaked_workers fixture can fail: a blocked worker is reported as running until it ends."""
    import threading

    from tests.app_fixtures import _running_workers

    gate = threading.Event()

    def blocked():
        assert gate.wait(120)   # the bound only guards a hang
        yield 1

    worker = GeneratorWorker(blocked, name="blocked")
    with qtbot.waitSignal(worker.started, timeout=300000):
        worker.start()
    assert worker in _running_workers() and not worker.ended   # work not done: a leak if a test ended here
    gate.set()
    qtbot.waitUntil(lambda: worker not in _running_workers(), timeout=300000)
