"""The project's lint ([tool.ruff] in pyproject.toml) is clean: `ruff check .` from the project root, as .ci/run
runs it."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    try:
        import ruff  # noqa: F401  (the package ships the binary `python -m ruff` runs)
    except ImportError:
        if shutil.which("ruff") is None:
            pytest.skip("ruff is not installed (it is in the test extra)")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
