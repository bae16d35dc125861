"""The README's "Use from Python" snippets run exactly as printed."""
from __future__ import annotations

import ast
import contextlib
import io
import os
import re
from pathlib import Path

from segviz import read_corpus

ROOT = Path(__file__).resolve().parents[1]


def _snippets() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use from Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "the section holds two python blocks: the default model, then training"
    return blocks


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    return out.getvalue()


def _one_tuple_per_document(line: str, path: str) -> None:
    """A printed ``predict``: a list holding one tuple of segment lengths per document of ``path``."""
    printed = ast.literal_eval(line)
    corpus = read_corpus(ROOT / path)
    assert isinstance(printed, list) and len(printed) == len(corpus.by_file()) == 1
    assert all(isinstance(m, int) and m > 0 for m in printed[0]) and sum(printed[0]) == corpus.n_sentences


def test_readme_default_model_snippet_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    text = _run(_snippets()[0])
    [line] = text.splitlines()
    _one_tuple_per_document(line, "sample_corpora/choi/3-11_0.ref")
    assert os.getcwd() == str(ROOT)


def test_readme_python_snippet_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    text = _run(_snippets()[1])
    lines = text.splitlines()
    _one_tuple_per_document(lines[0], "sample_corpora/choi/3-11_4.ref")
    assert "'p_mu'" in text and "'f1'" in text
    rounds = [line.split()[0] for line in lines if "e^lambda" in line]
    assert rounds == ["1", "2", "3"]
    assert os.getcwd() == str(ROOT)
