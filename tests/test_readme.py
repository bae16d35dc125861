"""The README's "Use from Python" snippet runs exactly as printed."""
from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use from Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the section holds exactly one python block"
    return blocks[0]


def test_readme_python_snippet_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_snippet(), "README.md", "exec"), {"__name__": "readme"})
    text = out.getvalue()
    assert text.startswith("(") and "'p_mu'" in text and "'f1'" in text
    rounds = [line.split()[0] for line in text.splitlines() if "e^lambda" in line]
    assert rounds == ["1", "2", "3"]
    assert os.getcwd() == str(ROOT)
