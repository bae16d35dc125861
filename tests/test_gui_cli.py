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
    proc = subprocess.run(
        [sys.executable, "-m", "segviz", "gui", str(sample_dir / "choi" / "3-11_0.ref"), "--screenshot", str(out),
         "--size", "800x600"],
        env=_env_without_display(), capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 10_000


def test_about_names_the_data_terms(qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from segviz.app.main_window import MainWindow

    shown = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: shown.append(text))
    window = MainWindow.__new__(MainWindow)  # the text is a class attribute; no window needed
    MainWindow.show_about(window)
    assert shown and "research purposes only" in shown[0] and "Reuters-21578" in shown[0]
