"""The app with the real engine: bundled model, bad models, live training in the child process, headless runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from segviz import Segmenter  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, shown_corpus, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
CHOI_DIR = ROOT / "sample_corpora" / "choi"
MODEL = ROOT / "resources" / "sample_model.segviz"
SMALL_LM = dict(vocab_size=2000, n_triggers=500, trigger_vocab=500, max_iter=2)


def first_rounds(model, k):
    """A smaller model: the first ``k`` features with their final weights."""
    return Segmenter.from_weights(model.features_[:k], model.lambdas_[:k], prior=model.prior_, rule=model.rule_,
                                  mu=model.mu_, lms=model.lms_)


def open_corpus(win, qtbot, path=CHOI):
    with qtbot.waitSignal(win.corpusLoaded, timeout=300000):
        assert win.open_corpus(str(path))
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


def apply_model(win, qtbot, path=MODEL):
    with qtbot.waitSignal(win.modelApplied, timeout=300000):
        assert win.open_model(str(path))
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


@pytest.mark.slow
def test_bundled_model_applies_engine_probabilities(window, qtbot):
    open_corpus(window, qtbot)
    apply_model(window, qtbot)
    seg = Segmenter.load(MODEL)
    expected = seg.boundary_probabilities(shown_corpus(window))
    np.testing.assert_allclose(window.state.probabilities, expected)
    assert window.state.alpha == pytest.approx(seg.rule_.alpha) and window.state.epsilon == seg.rule_.epsilon
    # the loaded model's features fill the table, with their final e^λ
    assert window.features.model.rowCount() == len(seg.features_)
    shown = window.features.model.data(window.features.model.index(0, 3))
    assert shown.startswith(f"{seg.weights_[0]:.3g}")
    # the context panel explains a position with the features active there
    b = int(np.argmax(window.state.probabilities)) + 1
    window.context.show_position(b)
    text = window.context.toPlainText()
    assert "active features" in text
    for feature, factor in seg.active_features(shown_corpus(window), b):
        assert feature.description in text and f"{factor:.3g}" in text
    # the relevance trace and profile come from the model's LMs
    from segviz.relevance import sentence_relevance

    np.testing.assert_allclose(window.state.relevance, sentence_relevance(seg.lms_, shown_corpus(window).sentences()))
    assert window.block_view.rel_plot.isVisible()


@pytest.mark.slow
def test_a_capped_weight_is_marked(window, qtbot):
    open_corpus(window, qtbot)
    apply_model(window, qtbot)
    model = window.features.model
    seg = window.state.segmenter
    capped = [i for i, lam in enumerate(seg.lambdas_) if abs(lam) >= seg.lambda_max - 1e-9]
    assert capped, "the bundled model has features at the cap e^10"
    for i in range(len(seg.lambdas_)):
        text = model.data(model.index(i, 3))
        assert text.endswith("(cap)") == (i in capped), (i, text)


@pytest.mark.slow
def test_a_model_in_an_old_layout_shows_dialog(window, qtbot, tmp_path):
    """A JSON model of an earlier version (a segmenter document naming an LM folder) is not read: one dialog,
    and the shown model stays."""
    open_corpus(window, qtbot)
    apply_model(window, qtbot)
    bad = tmp_path / "old.segviz"
    bad.write_text(json.dumps({"format": "segviz-segmenter", "version": 1, "lm_dir": "model.lm", "alpha": 0.5}))
    before, segmenter = window.state.probabilities, window.state.segmenter
    window.open_model(str(bad))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert window.dialogs and "not a segviz model archive" in window.dialogs[-1][1]
    assert window.state.probabilities is before and window.state.segmenter is segmenter


@pytest.mark.slow
def test_a_model_whose_weights_give_no_curve_is_refused_whole(window, qtbot, tmp_path):
    """A model that loads but cannot be applied: a dialog, and the shown model, curve and metrics stay."""
    open_corpus(window, qtbot)
    apply_model(window, qtbot)
    before = (window.state.probabilities, window.state.segmenter, dict(window.state.metrics["model"]))
    broken = Segmenter.load(MODEL)
    broken.lambdas_ = np.full_like(broken.lambdas_, np.nan)
    window.apply_model(broken, "broken.segviz")
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert window.dialogs and window.dialogs[-1][0] == "Cannot apply model"
    assert (window.state.probabilities, window.state.segmenter, window.state.metrics["model"]) == before


@pytest.mark.slow
def test_two_applies_do_not_race(window, qtbot):
    """The newer apply supersedes the older: the curve is the last model's, whatever finishes first."""
    open_corpus(window, qtbot)
    first = Segmenter.load(MODEL)
    second = first_rounds(first, 5)
    with qtbot.waitSignal(window.modelApplied, timeout=300000):
        window.apply_model(first, "first")
        window.apply_model(second, "second")
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert window.state.segmenter is second and window.state.model_path == "second"
    np.testing.assert_allclose(window.state.probabilities, second.boundary_probabilities(shown_corpus(window)))


@pytest.mark.slow
def test_live_training_step_pause_run(window, qtbot):
    """The real engine in the child: Step adds one feature, Pause stops at the next round, Run finishes."""
    window.training.params = dict(lm_params=SMALL_LM)
    open_corpus(window, qtbot, CHOI_DIR)
    apply_model(window, qtbot)
    finished = []
    window.trainingFinished.connect(finished.append)
    with qtbot.waitSignal(window.roundShown, timeout=300000):
        worker = window.start_training(12, step=True)
        # the old model's curve, metrics and features go at once
        assert window.state.probabilities is None and "model" not in window.state.metrics
        assert window.features.model.rowCount() == 0
    qtbot.waitUntil(lambda: window.features.run_button.isEnabled(), timeout=300000)   # paused, and shown so
    assert worker.is_paused and window.features.model.rowCount() == 1
    assert window.state.probabilities is not None and window.state.relevance is not None
    window.features.run_button.click()
    with qtbot.waitSignal(window.roundShown, timeout=300000):
        pass
    window.features.pause_button.click()
    shown = window.features.model.rowCount()
    qtbot.waitUntil(lambda: window.features.run_button.isEnabled() or bool(finished), timeout=300000)
    assert window.features.model.rowCount() <= shown + 1      # at most the round in progress
    if not finished:
        window.features.run_button.click()
    qtbot.waitUntil(lambda: bool(finished), timeout=300000)
    assert finished == ["done"]
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    seg = window.state.segmenter
    assert seg is not None and 1 <= len(seg.features_) <= 12 and seg.lms_ is not None
    # the curve after the last round is the trained segmenter's
    np.testing.assert_allclose(window.state.probabilities, seg.boundary_probabilities(shown_corpus(window)),
                               atol=1e-9)
    assert (window.state.alpha, window.state.epsilon) == (pytest.approx(seg.rule_.alpha), seg.rule_.epsilon)
    assert "partly in-sample" in window.decision.reference_label.text()


@pytest.mark.slow
def test_stop_keeps_the_last_round_and_ends_the_job_not_the_engine(window, qtbot):
    window.training.params = dict(lm_params=SMALL_LM)
    open_corpus(window, qtbot, CHOI_DIR)
    with qtbot.waitSignal(window.roundShown, timeout=300000):
        window.start_training(200)
    job = window.training.job
    pid = job.process_id
    with qtbot.waitSignal(window.trainingFinished, timeout=300000) as done:
        window.features.stop_button.click()
    assert done.args == ["cancelled"]
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    # the job's channel is gone; the window's engine goes on, ready for the next job
    assert window.engine.pid == pid and window.engine.running and not window.engine._channels
    rows = window.features.model.rowCount()
    assert 1 <= rows < 200
    seg = window.state.segmenter
    assert seg is not None and len(seg.features_) in (rows, rows - 1, rows + 1)
    assert window.features.train_button.isEnabled()


@pytest.mark.slow
def test_a_model_trained_here_is_applied_in_the_engine_to_the_next_corpus(window, qtbot):
    """No thread does the engine's work: the model trained in the window crosses to the engine as its JSON with
    its language models' file, for the next corpus's curve and for the feature columns."""
    window.training.params = dict(lm_params=SMALL_LM)
    open_corpus(window, qtbot, CHOI_DIR)
    with qtbot.waitSignal(window.trainingFinished, timeout=300000):
        window.start_training(2)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    trained = window.state.segmenter
    assert trained is not None and trained.lms_ is not None and window.state.model_path is None
    # the rounds bring no feature columns: the context panel's are evaluated in the engine, from the model's JSON
    assert window.model_control.feature_columns() is None
    qtbot.waitUntil(lambda: window.model_control.feature_columns() is not None, timeout=300000)
    want = trained.feature_matrix(shown_corpus(window))
    got = window.model_control.feature_columns()
    assert got.shape == want.shape and (got != want).nnz == 0
    pid = window.engine.pid
    with qtbot.waitSignal(window.modelApplied, timeout=300000):
        assert window.open_corpus(str(CHOI))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    state = window.state
    assert state.segmenter is not None and state.model_path is None and window.engine.pid == pid
    np.testing.assert_allclose(state.probabilities, state.segmenter.boundary_probabilities(shown_corpus(window)), atol=1e-12)
    want = state.segmenter.feature_matrix(shown_corpus(window))   # with the apply's result
    got = window.model_control.feature_columns()
    assert got.shape == want.shape and (got != want).nnz == 0


@pytest.mark.slow
def test_save_model_round_trip_and_drop_to_open(window, qtbot, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    open_corpus(window, qtbot)
    apply_model(window, qtbot)
    probs = window.state.probabilities.copy()
    saved = tmp_path / "copy.segviz"
    with qtbot.waitSignal(window.saved, timeout=300000):
        assert window.save_model(str(saved))
    again = Segmenter.load(saved)   # one file: the language models travel inside it
    assert again.lms_ is not None

    # dropping the saved model on the window opens it; dropping corpus files opens them all, together
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(saved))])
    event = QDropEvent(QPointF(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier)
    with qtbot.waitSignal(window.modelApplied, timeout=300000):
        window.dropEvent(event)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    np.testing.assert_allclose(window.state.probabilities, probs)
    files = [CHOI_DIR / "3-11_1.ref", CHOI_DIR / "3-11_2.ref"]
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(f)) for f in files])
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        window.dropEvent(QDropEvent(QPointF(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    from segviz import read_corpus

    assert window.state.corpus_paths == tuple(str(f) for f in files)
    assert window.state.n_sentences == sum(read_corpus(f).n_sentences for f in files)
    assert window.state.probabilities is not None   # the open model is applied to the new corpus
    assert not window.dialogs


@pytest.mark.slow
def test_tune_restores_a_loaded_models_heldout_values(window, qtbot):
    open_corpus(window, qtbot)
    apply_model(window, qtbot)
    seg = window.state.segmenter
    window.state.set_decision(0.9, 7)
    window.tune_action.trigger()
    assert (window.state.alpha, window.state.epsilon) == (pytest.approx(seg.rule_.alpha), seg.rule_.epsilon)


def run_gui(*args, timeout=300, **kwargs):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "segviz", "gui", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


@pytest.mark.slow
def test_headless_screenshot_subprocess(tmp_path):
    out = tmp_path / "shot.png"
    proc = run_gui(CHOI, "--model", MODEL, "--screenshot", out, "--size", "1200x800")
    assert proc.returncode == 0, proc.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)
    # a real render: many distinct colours, not a blank window
    pixels = np.frombuffer(image.convertToFormat(QImage.Format_RGB32).constBits(), dtype=np.uint32)
    assert len(np.unique(pixels[:: 7])) > 50
    # shot once the model's segmentation is on it: the probability curve's colour (drawn without antialiasing)
    from segviz.app.block_view import CURVE_COLOR

    curve = np.uint32(0xFF000000 | int(CURVE_COLOR.lstrip("#")[:6], 16))
    assert np.count_nonzero(pixels == curve) > 200


@pytest.mark.slow
def test_headless_screenshot_bad_corpus_fails_cleanly(tmp_path):
    bad = tmp_path / "bad.ref"
    bad.write_bytes(b"\x00\xff" * 100)
    proc = run_gui(bad, "--screenshot", tmp_path / "x.png")
    assert proc.returncode == 2
    assert proc.stderr.startswith("segviz: error:") and "Traceback" not in proc.stderr
    assert "bad.ref" in proc.stderr and not (tmp_path / "x.png").exists()


@pytest.mark.slow
def test_headless_bad_model_fails_cleanly(tmp_path):
    bad = tmp_path / "bad.segviz"
    bad.write_text('{"format": "segviz-segmenter", "version": 1, "alpha": "NaN"}')
    proc = run_gui(CHOI, "--model", bad, "--screenshot", tmp_path / "x.png")
    assert proc.returncode == 2, proc.stderr
    assert "segviz: error:" in proc.stderr and "Traceback" not in proc.stderr
    assert "QThread" not in proc.stderr and not (tmp_path / "x.png").exists()


@pytest.mark.slow
def test_model_without_corpus_opens_the_sample_with_that_model_only(tmp_path):
    """``segviz gui --model M``: the bundled sample corpus with M applied, not the bundled model too."""
    copy = tmp_path / "mine.segviz"
    first_rounds(Segmenter.load(MODEL), 3).save(copy)
    code = (
        "import sys, os\n"
        "from segviz.app import model_control\n"
        "applied = []\n"
        "real = model_control.ModelControl.apply_model\n"
        "def spy(self, seg, path=None):\n"
        "    applied.append(path)\n"
        "    return real(self, seg, path)\n"
        "model_control.ModelControl.apply_model = spy\n"
        "import atexit\n"
        "atexit.register(lambda: print('APPLIED', applied))\n"
        "from segviz.cli import main\n"
        f"sys.exit(main(['gui', '--model', {str(copy)!r}, '--screenshot', {str(tmp_path / 's.png')!r}]))\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    line = [x for x in proc.stdout.splitlines() if x.startswith("APPLIED")][-1]
    assert str(copy) in line and "sample_model" not in line
