"""`segviz` without a screen: a clear one-line error, and --screenshot falls back to offscreen by itself."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

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


@pytest.mark.slow
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


#: runs ``argv[2:]`` as a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): whatever the command leaves running
#: when it exits is reparented to this process -- before the command's exit can be waited for -- so once the wait
#: returns, this process's children are exactly what the command left behind, alive or already dead (zombies).
#: They are written to ``argv[1]`` as JSON, then ended and reaped.
_SUBREAPER = textwrap.dedent("""
    import ctypes, json, os, signal, subprocess, sys

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:   # PR_SET_CHILD_SUBREAPER
        sys.exit(f"PR_SET_CHILD_SUBREAPER failed (errno {ctypes.get_errno()})")
    # the command dies with this process (PR_SET_PDEATHSIG; killed by the test's timeout, say)
    status = subprocess.call(sys.argv[2:], preexec_fn=lambda: libc.prctl(1, signal.SIGKILL, 0, 0, 0))
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                command = fh.read().replace(b"\\0", b" ").decode("utf-8", "replace")[:200]
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid():
            left.append({"pid": int(entry), "command": command or "(exited, not waited for)"})
    with open(sys.argv[1], "w") as fh:
        json.dump(left, fh)
    for process in left:
        try:
            os.kill(process["pid"], signal.SIGKILL)
        except OSError:
            pass
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    sys.exit(status)
""")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, PR_SET_CHILD_SUBREAPER")
def test_builtin_benchmark_on_the_sample_closes_cleanly(tmp_path):
    """`segviz gui --benchmark`: the scripted session runs, writes every key, and closing during training exits
    leaving no engine child behind (timings are recorded, not asserted).  The app runs under a subreaper, so a
    child it did not end and wait for is seen for certain when it exits, with no waiting and no clock."""
    out = tmp_path / "bench.json"
    left_file = tmp_path / "left.json"
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TMPDIR=str(temporary))
    proc = subprocess.run([sys.executable, "-c", _SUBREAPER, str(left_file),
                           sys.executable, "-m", "segviz", "gui", "--benchmark", str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "QThread" not in proc.stderr
    import json

    left = json.loads(left_file.read_text())
    assert not left, f"the app left processes behind (an engine child outlived the app): {left}"
    result = json.loads(out.read_text())
    for key in BENCHMARK_KEYS:
        assert result[key] is not None, key
    assert result["sentences"] == 1877
    for key in ("alpha_ms", "epsilon_ms", "block_ms", "document_ms", "zoom_ms"):
        assert set(result[key]) >= {"median", "p95", "max"} and result[key]["n"] > 0, key
    assert result["alpha_ms"]["n"] == 30 and result["epsilon_ms"]["n"] == 10 and result["block_ms"]["n"] == 20
    assert result["features_shown"] >= 3 and not result["notes"]
    assert 0 < result["training_started_s"] < result["first_feature_s"] <= result["three_features_s"]
    assert not list(temporary.iterdir())   # the engine's working directory went with the session


@pytest.mark.slow
def test_benchmark_can_leave_out_its_training_step(tmp_path):
    """`--train 0` with `--benchmark` (for corpora where training would take hours): the session runs to the
    export and closes, and says the step was left out; no training was timed."""
    out = tmp_path / "bench.json"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-m", "segviz", "gui", "--benchmark", str(out), "--train", "0"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    import json

    result = json.loads(out.read_text())
    assert result["notes"] == ["training step left out (--train 0)"]
    assert result["training_started_s"] is None and result["three_features_s"] is None
    assert result["first_feature_s"] is None
    assert result["alpha_ms"]["n"] == 30 and result["export_png_ms"] is not None and result["close_exit_s"] is not None


def test_benchmark_and_screenshot_arguments_are_checked_first(tmp_path):
    from segviz.cli import main

    assert main(["gui", "--benchmark", str(tmp_path / "out.txt")]) == 2
    assert main(["gui", "--benchmark", str(tmp_path / "missing" / "out.json")]) == 2
    assert main(["gui", "--screenshot", str(tmp_path / "x.png"), "--size", "abc"]) == 2
    assert main(["gui", "--screenshot", str(tmp_path / "x.png"), "--size", "100000x100000"]) == 2
    assert main(["gui", "--train", "-1", "--screenshot", str(tmp_path / "x.png")]) == 2
    assert main(["gui", "--train", "0", "--screenshot", str(tmp_path / "x.png")]) == 2   # 0: only for --benchmark
    assert main(["gui", str(tmp_path / "no-such-corpus"), "--screenshot", str(tmp_path / "x.png")]) == 2
    assert not (tmp_path / "x.png").exists()


def test_a_window_opens_the_bundled_model_with_its_first_corpus():
    """With no --model the bundled model is opened together with the corpus, as --model opens one, so the engine
    applies it while the window reads (the early apply: tests/test_app_apply_job.py)."""
    from segviz.app.launch import startup_model

    assert startup_model(None, Path("bundled.segviz")) == "bundled.segviz"
    assert startup_model("mine.segviz", Path("bundled.segviz")) == "mine.segviz"
    assert startup_model(None, None) is None


@pytest.mark.slow
def test_gui_reads_a_book_as_a_book_unless_told_otherwise(tmp_path):
    """``segviz gui book.txt`` reads a text that looks like a book by its chapters, as the command line does
    (``--export-segments`` writes what the window shows: titled segments); ``--no-headings`` reads it as plain
    prose, ``--headings`` always with its headings."""
    from segviz.app.launch import startup_read_options
    from segviz.cli import build_parser

    def options(*argv):
        return startup_read_options(build_parser().parse_args(["gui", "book.txt", *argv]))

    assert options() == {}   # the reader decides
    assert options("--no-headings") == {"headings": False}
    assert options("--headings", "--format", "text") == {"format": "text", "headings": True}

    book = tmp_path / "book.txt"
    paragraph = ("The harbour froze in the first week of December. Boats stayed in their sheds, and the men "
                 "mended nets by the stove and talked of the spring.")
    book.write_text("A Book\n\nby Somebody\n\n\n" + "\n\n\n".join(
        f"CHAPTER {n}\n\n" + "\n\n".join([paragraph] * 4) for n in ("I", "II", "III")))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    rows = {}
    for flag in ("", "--no-headings"):
        out = tmp_path / f"segments{flag}.jsonl"
        proc = subprocess.run([sys.executable, "-m", "segviz", "gui", str(book), *([flag] if flag else []),
                               "--export-segments", str(out)], env=env, capture_output=True, text=True, timeout=600,
                              check=False)
        assert proc.returncode == 0, proc.stderr
        rows[flag] = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[""][0]["title"] == "CHAPTER I" and all(r["title"].startswith("CHAPTER") for r in rows[""])
    assert not any("CHAPTER" in r["text"] or "Somebody" in r["text"] for r in rows[""])
    assert not any("title" in r for r in rows["--no-headings"])
    assert any("CHAPTER II" in r["text"] for r in rows["--no-headings"])
