"""Leftovers of a window that was stopped: SIGTERM and SIGINT take the normal close path (steps cancelled, children
ended, every temporary directory removed, exit status 128 + the signal); after SIGKILL, the next window removes
every ``segviz-engine-*``, ``-shot-*`` and ``-bench-*`` directory of this user whose owner
process is gone, and nothing else.

No clock: each run is stopped once the evidence of the state it must be in is on disk (the language models the
training fitted are in the engine's working directory: feature induction is under way), and waits only for the
process to end (the bound keeps a broken run from hanging the suite).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from segviz.service.temp_dirs import OWNER_FILE, PREFIXES, owned_directory, remove_abandoned, remove_owned
from tests.conftest import ROOT

CHOI_DIR = ROOT / "sample_corpora" / "choi"


def wait_for(condition, what: str, process=None, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the window ended before {what}: {process.stderr.read()[-2000:]}")
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def window_training(tmp_path) -> tuple[subprocess.Popen, Path]:
    """An interactive window (offscreen) training on the Choi sample, with its own temporary directory; returns
    once the training's language models are in the engine's working directory (induction has started)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "QT_QPA_PLATFORM": "offscreen"}
    process = subprocess.Popen([sys.executable, "-m", "segviz", "gui", str(CHOI_DIR), "--train", "50"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: any(p.name.startswith("segviz-engine-") and any(p.glob("lm-train-*.segviz"))
                         for p in temporary.iterdir()),
             "the training to start", process)
    return process, temporary


@pytest.mark.slow
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_closes_the_window_as_its_close_button_does(tmp_path, number):
    process, temporary = window_training(tmp_path)
    process.send_signal(number)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 128 + number, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert list(temporary.iterdir()) == []   # the engine's working directory, the training's language models in it: gone


@pytest.mark.slow
def test_the_next_window_removes_what_a_killed_one_left(tmp_path):
    process, temporary = window_training(tmp_path)
    process.kill()
    process.communicate(timeout=300)
    left = sorted(p.name.split("-")[1] for p in temporary.iterdir())
    assert "engine" in left   # SIGKILL cannot be cleaned up after...
    assert all((p / OWNER_FILE).read_text() == str(process.pid) for p in temporary.iterdir())
    assert remove_abandoned(temporary) and list(temporary.iterdir()) == []   # ...the next window does it


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_every_abandoned_directory_of_a_window_is_removed_and_nothing_else(tmp_path):
    def directory(name: str, owner: str | None = None) -> Path:
        d = tmp_path / name
        d.mkdir()
        (d / "work.bin").write_bytes(b"x")
        if owner is not None:
            (d / OWNER_FILE).write_text(owner)
        return d

    dead = str(_dead_pid())
    abandoned = [directory(prefix + "dead", dead) for prefix in PREFIXES]
    kept = [directory(PREFIXES[0] + "alive", str(os.getppid())), directory(PREFIXES[1] + "ours", str(os.getpid())),
            directory(PREFIXES[2] + "no-owner"), directory(PREFIXES[2] + "garbled", "not a pid"),
            directory(PREFIXES[0] + "negative", "-5"), directory("segviz-other-dead", dead),
            directory("unrelated", dead)]
    fifo_owner = directory(PREFIXES[1] + "fifo-owner")
    os.mkfifo(fifo_owner / OWNER_FILE)
    zero_owner = directory(PREFIXES[0] + "zero-owner")
    (zero_owner / OWNER_FILE).symlink_to("/dev/zero")
    linked_owner = directory(PREFIXES[1] + "linked-owner")
    (tmp_path / "pid.txt").write_text(dead)
    (linked_owner / OWNER_FILE).symlink_to(tmp_path / "pid.txt")
    elsewhere = directory("elsewhere", dead)
    (tmp_path / (PREFIXES[2] + "link")).symlink_to(elsewhere, target_is_directory=True)
    kept += [fifo_owner, zero_owner, linked_owner, elsewhere]

    assert sorted(remove_abandoned(tmp_path)) == sorted(abandoned)
    assert not any(d.exists() for d in abandoned)
    assert all((d / "work.bin").exists() for d in kept)


def test_a_window_leaving_in_a_hurry_removes_the_directories_it_made(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made = [owned_directory(prefix) for prefix in ("segviz-engine-", "segviz-shot-")]
    assert all((Path(d) / OWNER_FILE).read_text() == str(os.getpid()) for d in made)
    remove_owned()
    assert list(tmp_path.iterdir()) == []
