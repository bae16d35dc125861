"""The foundation's CLI: baselines and evaluate, errors as one line, and the engine's independence of Qt."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from segviz.cli import main
from segviz.corpus import read_corpus, write_choi


def test_help_lists_commands(capsys):
    assert main(["--help"]) == 0   # a status, like every command: main() flushes the help first
    out = capsys.readouterr().out
    assert "baselines" in out and "evaluate" in out


def test_baselines_json(capsys, sample_dir):
    assert main(["baselines", str(sample_dir / "reuters_sample.sgm"), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["reference_segments"] == 300
    for row in ("random", "all", "none", "even"):
        assert set(payload[row]) >= {"hypothesis_segments", "p_mu", "p_k", "window_diff", "precision", "recall", "f1"}
    assert payload["all"]["recall"] == 1.0 and payload["none"]["hypothesis_segments"] == 1


def test_baselines_table_and_per_file(capsys, sample_dir):
    assert main(["baselines", str(sample_dir / "choi"), "--per-file"]) == 0
    out = capsys.readouterr().out
    assert "mean over 5 files" in out and "P_mu" in out and "even" in out


def test_evaluate_ref_against_hyp(tmp_path, capsys, sample_dir):
    ref = read_corpus(sample_dir / "choi" / "3-11_1.ref")
    n = ref.n_sentences
    hyp_masses = (n // 2, n - n // 2)
    hyp = tmp_path / "hyp.ref"
    hyp.write_text(write_choi(hyp_masses, ref.sentence_texts()))
    assert main(["evaluate", str(sample_dir / "choi" / "3-11_1.ref"), str(hyp), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["hypothesis"]["hypothesis_segments"] == 2
    assert main(["evaluate", str(sample_dir / "choi" / "3-11_1.ref"), str(sample_dir / "choi" / "3-11_1.ref"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hypothesis"]["p_mu"] == pytest.approx(1.0)


def test_errors_are_one_line(tmp_path, capsys, sample_dir):
    bad = tmp_path / "bin.dat"
    bad.write_bytes(b"\x00\xff\x00")
    assert main(["baselines", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("segviz: error:") and "binary" in err and err.count("\n") == 1
    one = tmp_path / "one.txt"
    one.write_text("just one sentence\n")
    assert main(["baselines", str(one)]) == 2
    assert "nothing to segment" in capsys.readouterr().err
    assert main(["evaluate", str(sample_dir / "choi" / "3-11_0.ref"), str(sample_dir / "choi" / "3-11_1.ref")]) == 2
    assert "same text" in capsys.readouterr().err
    # the decision-rule options apply to a model only; one path without --model is no evaluation
    ref = str(sample_dir / "choi" / "3-11_1.ref")
    for options in (["--alpha", "0.5"], ["--segments", "3"], ["--mean-length", "7"]):
        assert main(["evaluate", ref, ref, *options]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "apply to a model (segviz evaluate --model MODEL CORPUS...)" in err
    assert main(["evaluate", ref]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give REF_CORPUS HYP_CORPUS, or --model MODEL CORPUS" in err


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "segviz", "--version"], capture_output=True, text=True, check=True)
    assert "segviz" in out.stdout


def engine_modules() -> list[str]:
    """Every module of the package outside ``segviz.app`` (walked, not a hand-kept list)."""
    import pkgutil

    import segviz

    names = ["segviz"]
    for info in pkgutil.walk_packages(segviz.__path__, prefix="segviz."):
        if info.name == "segviz.app" or info.name.startswith("segviz.app.") or info.name.endswith(".__main__"):
            continue
        names.append(info.name)
    return sorted(names)


def test_engine_module_walk_finds_the_layers():
    mods = engine_modules()
    for name in ("segviz.evaluation", "segviz.protocols", "segviz.commands.reproduce", "segviz.cli",
                 "segviz.rules", "segviz.tuning", "segviz.params", "segviz.model_protocol", "segviz.models",
                 "segviz.commands.rule_options"):
        assert name in mods
    assert not any(m.startswith("segviz.app") for m in mods)


@pytest.mark.slow
def test_engine_imports_no_qt():
    """The engine never imports Qt (napari's rule): importing every engine module leaves Qt unloaded."""
    code = (
        "import importlib, importlib.util, sys\n"
        f"mods = {engine_modules()!r}\n"
        "for m in mods:\n"
        "    importlib.import_module(m)\n"
        "from segviz.cli import build_parser; build_parser()\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('PySide6', 'pyqtgraph', 'superqt', 'shiboken6') or k.startswith('segviz.app'))\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
