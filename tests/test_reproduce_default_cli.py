"""``reproduce default --reuse NAME=MODEL``: an expert taken from a model this recipe built, checked before training."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_MODEL = ROOT / "resources" / "sample_model.segviz"
DEFAULT_MODEL = ROOT / "resources" / "default_model.segviz"


def _run(*args, tmp_path):
    return subprocess.run([sys.executable, "-m", "segviz", "reproduce", "default", "--out", str(tmp_path / "out"),
                           "--data", str(tmp_path), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("reuse, message", [
    (lambda: f"nonsense={SAMPLE_MODEL}", "no such expert"),
    (lambda: f"chapters={DEFAULT_MODEL}", "holds 5 segmenters"),
    (lambda: "chapters=/no/such/file.segviz", "no such model file"),
])
def test_a_reused_expert_is_checked_before_anything_is_read(reuse, message, tmp_path):
    proc = _run("--reuse", reuse(), tmp_path=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()
