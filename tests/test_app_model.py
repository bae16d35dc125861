"""The app with the real engine: bundled model, missing LMs, live training on a small corpus, headless run."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from segviz.app import engine  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
MODEL = ROOT / "resources" / "sample_model.json"

needs_engine = pytest.mark.skipif(not engine.has_segmenter(), reason="segviz.segmenter not available")


@needs_engine
def test_bundled_model_applies_engine_probabilities(window, qtbot):
    from segviz.segmenter import Segmenter

    assert window.open_corpus(str(CHOI))
    with qtbot.waitSignal(window.modelApplied, timeout=60000):
        assert window.open_model(str(MODEL))
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    seg = Segmenter.load(MODEL)
    expected = seg.boundary_probabilities(window.state.corpus)
    np.testing.assert_allclose(window.state.probabilities, expected)
    assert window.state.alpha == pytest.approx(seg.alpha_) and window.state.epsilon == seg.epsilon_
    # the loaded model's features fill the table, with their final e^λ
    assert window.features.model.rowCount() == len(seg.features_)
    assert window.features.model.data(window.features.model.index(0, 3)) == f"{seg.weights_[0]:.3g}"
    # the context panel explains a position with the features active there
    b = int(np.argmax(window.state.probabilities)) + 1
    window.context.show_position(b)
    text = window.context.toPlainText()
    assert "active features" in text
    for feature, factor in seg.active_features(window.state.corpus, b):
        assert feature.description in text and f"{factor:.3g}" in text
    # the relevance trace and profile come from the model's LMs
    assert window.state.relevance is not None and window.state.relevance.shape == (window.state.n_sentences,)
    assert window.block_view.rel_plot.isVisible()


@needs_engine
def test_model_with_missing_lm_shows_dialog(window, qtbot, tmp_path):
    assert window.open_corpus(str(CHOI))
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    d = json.loads(MODEL.read_text())
    d["lm_dir"] = "no_such_lm_dir"
    d["features"].append({"kind": "relevance", "word": None, "window": {"unit": "sentence", "start": 0, "end": 1},
                          "low": "-inf", "high": 0.0})
    d["lambdas"].append(0.5)
    d["weights"].append(float(np.exp(0.5)))
    bad = tmp_path / "lm_missing.json"
    bad.write_text(json.dumps(d))
    before = window.state.probabilities
    assert not window.open_model(str(bad))
    assert window.dialogs and "language models are missing" in window.dialogs[-1][1]
    assert window.state.probabilities is before and window.state.corpus is not None


@needs_engine
def test_live_training_step_then_run(window, qtbot, monkeypatch):
    # a small LM keeps this test fast; the induction is the engine's own, in the child process
    window.training_params = dict(lm_params=dict(vocab_size=2000, n_triggers=500, trigger_vocab=500, max_iter=2))
    corpus_dir = ROOT / "sample_corpora" / "choi"
    assert window.open_corpus(str(corpus_dir))
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    with qtbot.waitSignal(window.roundShown, timeout=120000):
        worker = window.start_training(3, step=True)
    qtbot.waitUntil(lambda: worker.is_paused, timeout=30000)
    assert window.features.model.rowCount() == 1
    assert window.state.probabilities is not None and window.state.relevance is not None
    with qtbot.waitSignal(window.trainingFinished, timeout=120000) as done:
        window.features.run_button.click()
    assert done.args == ["done"]
    qtbot.waitUntil(lambda: not window.busy, timeout=30000)
    seg = window.state.segmenter
    assert seg is not None and 1 <= len(seg.features_) <= 3
    # the curve after the last round is the trained segmenter's
    np.testing.assert_allclose(window.state.probabilities, seg.boundary_probabilities(window.state.corpus),
                               atol=1e-9)


def test_headless_screenshot_subprocess(tmp_path):
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-m", "segviz", "gui", str(CHOI), "--screenshot", str(out),
                           "--size", "1200x800"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)
    # a real render: many distinct colours, not a blank window
    pixels = np.frombuffer(image.convertToFormat(QImage.Format_RGB32).constBits(), dtype=np.uint32)
    assert len(np.unique(pixels[:: 7])) > 50


def test_headless_screenshot_bad_corpus_fails_cleanly(tmp_path):
    bad = tmp_path / "bad.ref"
    bad.write_bytes(b"\x00\xff" * 100)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-m", "segviz", "gui", str(bad), "--screenshot",
                           str(tmp_path / "x.png")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("segviz: error:") and "Traceback" not in proc.stderr
    assert "bad.ref" in proc.stderr and not (tmp_path / "x.png").exists()


@needs_engine
def test_cancel_terminates_the_training_process(window, qtbot, monkeypatch):
    import subprocess as sp

    started = []

    class Recording(sp.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(sp, "Popen", Recording)
    window.training_params = dict(lm_params=dict(vocab_size=2000, n_triggers=500, trigger_vocab=500, max_iter=2))
    assert window.open_corpus(str(ROOT / "sample_corpora" / "choi"))
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    with qtbot.waitSignal(window.roundShown, timeout=120000):
        window.start_training(200)
    with qtbot.waitSignal(window.trainingFinished, timeout=30000) as done:
        window.features.stop_button.click()
    assert done.args == ["cancelled"]
    qtbot.waitUntil(lambda: not window.busy, timeout=30000)
    assert len(started) == 1 and started[0].poll() is not None   # the child is gone
    assert 1 <= window.features.model.rowCount() < 200


@needs_engine
def test_save_model_round_trip_and_drop_to_open(window, qtbot, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    assert window.open_corpus(str(CHOI))
    with qtbot.waitSignal(window.modelApplied, timeout=60000):
        window.open_model(str(MODEL))
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    probs = window.state.probabilities.copy()
    saved = tmp_path / "copy.json"
    assert window.save_model(str(saved))
    lm_dir = json.loads(saved.read_text())["lm_dir"]
    assert lm_dir and (saved.parent / lm_dir).resolve().is_dir()   # the saved model finds its LMs

    # dropping the saved model on the window opens it; dropping a corpus file opens the corpus
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(saved))])
    event = QDropEvent(QPointF(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier)
    with qtbot.waitSignal(window.modelApplied, timeout=60000):
        window.dropEvent(event)
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    np.testing.assert_allclose(window.state.probabilities, probs)
    other = ROOT / "sample_corpora" / "choi" / "3-11_2.ref"
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(other))])
    with qtbot.waitSignal(window.corpusLoaded, timeout=10000):
        window.dropEvent(QDropEvent(QPointF(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier))
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    assert window.state.corpus_path == str(other)
    assert window.state.probabilities is not None   # the open model is applied to the new corpus
    assert not window.dialogs


@needs_engine
def test_tune_restores_a_loaded_models_heldout_values(window, qtbot):
    assert window.open_corpus(str(CHOI))
    with qtbot.waitSignal(window.modelApplied, timeout=60000):
        window.open_model(str(MODEL))
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    seg = window.state.segmenter
    window.state.set_decision(0.9, 7)
    window.tune_action.trigger()
    assert (window.state.alpha, window.state.epsilon) == (pytest.approx(seg.alpha_), seg.epsilon_)
