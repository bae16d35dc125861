"""`segviz` without a screen: a clear one-line error, and --screenshot falls back to offscreen by itself."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _env_without_display():
    env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}}
    return env


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY semantics are X11/Wayland (Linux)")
def test_no_display_gives_clear_error():
    proc = subprocess.run([sys.executable, "-m", "segviz"], env=_env_without_display(), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("segviz: error: no display")
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY semantics are X11/Wayland (Linux)")
def test_screenshot_without_display_renders_offscreen(tmp_path, sample_dir):
    out = tmp_path / "shot.png"
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "segviz", "gui", str(sample_dir / "choi" / "3-11_0.ref"), "--screenshot", str(out),
         "--size", "800x600"],
        env={**_env_without_display(), "TMPDIR": str(temporary)}, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 10_000
    assert not list(temporary.iterdir())   # the session's reading cache went with it


def test_about_names_the_data_terms(qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from segviz.app.main_window import MainWindow

    shown = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: shown.append(text))
    window = MainWindow.__new__(MainWindow)  # the text is a class attribute; no window needed
    MainWindow.show_about(window)
    assert shown and "research purposes only" in shown[0] and "Reuters-21578" in shown[0]


BENCHMARK_KEYS = ("sentences", "open_to_segmentation_s", "max_gap_ms", "alpha_ms", "epsilon_ms", "block_ms",
                  "document_ms", "zoom_ms", "close_exit_s", "peak_rss_mb")


def _engine_children() -> set[int]:
    """Processes running the app's engine child (training, peers), found by their command line."""
    pids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if b"segviz.app.engine_child" in fh.read():
                        pids.add(int(entry))
            except OSError:
                pass
    return pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_builtin_benchmark_on_the_sample_closes_cleanly(tmp_path):
    """`segviz gui --benchmark`: the scripted session runs, writes every key, and closing during training exits
    at once leaving no engine child behind (timings are recorded, not asserted)."""
    out = tmp_path / "bench.json"
    before = _engine_children()
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TMPDIR=str(temporary))
    proc = subprocess.run([sys.executable, "-m", "segviz", "gui", "--benchmark", str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "QThread" not in proc.stderr
    import json

    result = json.loads(out.read_text())
    for key in BENCHMARK_KEYS:
        assert result[key] is not None, key
    assert result["sentences"] == 1877
    for key in ("alpha_ms", "epsilon_ms", "block_ms", "document_ms", "zoom_ms"):
        assert set(result[key]) >= {"median", "p95", "max"} and result[key]["n"] > 0, key
    assert result["alpha_ms"]["n"] == 30 and result["epsilon_ms"]["n"] == 10 and result["block_ms"]["n"] == 20
    assert result["features_shown"] >= 3 and result["close_exit_s"] < 10 and not result["notes"]
    assert not list(temporary.glob("segviz-reading-*"))   # the session's parses went with the session
    import time

    deadline = time.time() + 5
    while _engine_children() - before and time.time() < deadline:
        time.sleep(0.1)
    assert not _engine_children() - before, "an engine child outlived the app"


def test_benchmark_and_screenshot_arguments_are_checked_first(tmp_path):
    from segviz.cli import main

    assert main(["gui", "--benchmark", str(tmp_path / "out.txt")]) == 2
    assert main(["gui", "--benchmark", str(tmp_path / "missing" / "out.json")]) == 2
    assert main(["gui", "--screenshot", str(tmp_path / "x.png"), "--size", "abc"]) == 2
    assert main(["gui", "--screenshot", str(tmp_path / "x.png"), "--size", "100000x100000"]) == 2
    assert main(["gui", "--train", "-1", "--screenshot", str(tmp_path / "x.png")]) == 2
    assert main(["gui", str(tmp_path / "no-such-corpus"), "--screenshot", str(tmp_path / "x.png")]) == 2
    assert not (tmp_path / "x.png").exists()
