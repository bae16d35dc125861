"""Bad input on the command line: one line ``segviz: error: ...``, exit status 2, never a traceback, nothing
read or written first.  The matrix of docs/reliability.md for the commands in segviz/commands."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from segviz.bundle import read_bundle
from segviz.cli import main

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi"
REF = CHOI / "3-11_0.ref"

pytestmark = pytest.mark.skipif(not CHOI.is_dir(), reason="needs sample_corpora/choi")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A tiny LM, a model, one-sentence inputs and awkward output paths, made once."""
    root = tmp_path_factory.mktemp("matrix")
    lm = root / "tiny.lm"
    assert main(["lm", "train", str(CHOI), "--out", str(lm), "--vocab", "200", "--triggers", "50",
                 "--trigger-vocab", "100", "--max-iter", "2"]) == 0
    model = root / "tiny.seg"
    assert main(["train", str(CHOI), "--heldout", str(CHOI), "--families", "vocabulary,cohesion", "--features", "2",
                 "--vocabulary", "100", "--out", str(model), "--quiet", "--show", "0"]) == 0
    one = root / "one.txt"
    one.write_text("just one sentence here\n")
    long_line = root / "long.txt"
    long_line.write_text("word " * 200_000 + "\n")          # a single 10^6-character line
    a_file = root / "a_file"
    a_file.write_text("x\n")
    readonly = root / "readonly.out"
    readonly.write_text("keep me\n")
    readonly.chmod(0o444)
    json_model = root / "model.json"        # the earlier layout: the segmenter's document as a JSON file
    json_model.write_text(json.dumps(read_bundle(model).document("segmenter")))
    return {"LM": str(lm), "MODEL": str(model), "JSON_MODEL": str(json_model), "ONE": str(one),
            "LONG": str(long_line), "REF": str(REF),
            "CHOI": str(CHOI), "DIR": str(root), "UNDER_FILE": str(a_file / "out"),
            "MISSING_PARENT": str(root / "no" / "such" / "out"), "READONLY": str(readonly), "ROOT": str(root)}


def _fill(argv, files):
    return [a.format(**files) for a in argv]


# (command line, a word the one-line message must contain)
MATRIX = [
    # seeds >= 0
    (["baselines", "{REF}", "--seed", "-1"], "seed"),
    (["evaluate", "{REF}", "{REF}", "--seed", "-1"], "seed"),
    (["compare", "{REF}", "--seed", "-1"], "seed"),
    (["reproduce", "reuters", "--seed", "-1"], "seed"),
    (["baselines", "{REF}", "--seed", "abc"], "integer"),
    # counts >= 1, checked before any reading
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--features", "0"], "--features"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--vocabulary", "0"], "--vocabulary"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--min-support", "0"], "--min-support"),
    (["reproduce", "--vocabulary", "0"], "--vocabulary"),
    (["reproduce", "--features", "-1"], "--features"),
    (["reproduce", "--param", "n_featurs=3"], "no parameter"),
    (["reproduce", "longform", "--category", "poetry"], "poetry"),
    (["reproduce", "wiki", "--score", "{MODEL}"], "NAME=MODEL"),
    (["reproduce", "wiki", "--score", "m={ROOT}/absent.seg"], "no such model file"),
    (["lm", "triggers", "{LM}", "--top", "-1"], "--top"),
    (["lm", "triggers", "{LM}", "--top", "0"], "--top"),
    (["lm", "train", "{CHOI}", "--out", "{ROOT}/l1", "--vocab", "0"], "--vocab"),
    (["lm", "train", "{CHOI}", "--out", "{ROOT}/l1", "--prior-variance", "inf"], "finite"),
    (["lm", "train", "{CHOI}", "--out", "{ROOT}/l1", "--prior-variance", "0"], "--prior-variance"),
    (["lm", "train", "{CHOI}", "--out", "{ROOT}/l1", "--heldout", "1.5"], "--heldout"),
    (["relevance", "{CHOI}", "--lm", "{LM}", "--before", "-1"], "--before"),
    (["relevance", "{CHOI}", "--lm", "{LM}", "--after", "100000000"], "--after"),
    # decision-rule overrides in range
    (["evaluate", "--model", "{MODEL}", "{CHOI}", "--alpha", "2"], "--alpha"),
    (["evaluate", "--model", "{MODEL}", "{CHOI}", "--alpha", "nan"], "finite"),
    (["evaluate", "--model", "{MODEL}", "{CHOI}", "--epsilon", "0"], "--epsilon"),
    (["segment", "{REF}", "--model", "{MODEL}", "--segments", "0"], "--segments"),
    (["evaluate", "--model", "{MODEL}", "{CHOI}", "--mean-length", "0.5"], "--mean-length"),
    (["compare", "{REF}", "--model", "{MODEL}", "--segments", "2", "--alpha", "0.3"], "two different rules"),
    (["segment", "{REF}", "--model", "{MODEL}", "--segments", "2", "--mean-length", "3"], "not both"),
    (["evaluate", "{REF}", "{REF}", "--segments", "2"], "apply to a model"),
    # the decision rule and the candidate families to train with
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--rule", "magic"], "--rule"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--length-unit", "words"], "give --rule length_prior"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--rule", "length_prior", "--length-unit", "pages"], "--length-unit"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--families", "vocabulary,nope"], "unknown candidate family nope"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--param", "rule={{\"kind\": \"magic\"}}"], "unknown decision rule"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--param", "alphas=[0.5]"], "no parameter 'alphas'"),
    (["reproduce", "--param", "use_relevance=false"], "no parameter 'use_relevance'"),
    # removed options and forms
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--no-relevance"], "unrecognized arguments: --no-relevance"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--no-cohesion"], "unrecognized arguments: --no-cohesion"),
    (["train", "{CHOI}", "--out", "{ROOT}/m1", "--peer-evidence"], "unrecognized arguments: --peer-evidence"),
    (["reproduce", "--no-peer-evidence"], "unrecognized arguments: --no-peer-evidence"),
    (["segment", "{MODEL}", "{REF}"], "looks like a binary file, not a text corpus"),
    (["evaluate", "{MODEL}", "{CHOI}"], "looks like a binary file, not a text corpus"),
    (["segment", "{REF}", "--model", "{JSON_MODEL}"], "model.json: not a segviz model archive"),
    (["evaluate", "--model", "{JSON_MODEL}", "{CHOI}"], "model.json: not a segviz model archive"),
    (["compare", "{REF}", "--model", "{JSON_MODEL}"], "model.json: not a segviz model archive"),
    # names
    (["compare", "{REF}", "--peers", "bogus"], "unknown peer bogus"),
    (["compare", "{REF}", "--baselines", "oracle"], "unknown baseline"),
    # the app's arguments, checked before Qt starts
    (["gui", "--size", "abc"], "WIDTHxHEIGHT"),
    (["gui", "--size", "100000x100000"], "--size"),
    (["gui", "--train", "-1"], "--train"),
    # output paths: a directory, under a file, a missing parent, a read-only file
    (["train", "{CHOI}", "--families", "vocabulary,cohesion", "--out", "{DIR}"], "directory"),
    (["train", "{CHOI}", "--families", "vocabulary,cohesion", "--out", "{UNDER_FILE}"], "not a directory"),
    (["train", "{CHOI}", "--families", "vocabulary,cohesion", "--out", "{MISSING_PARENT}"], "--parents"),
    (["train", "{CHOI}", "--families", "vocabulary,cohesion", "--out", "{READONLY}"], "read-only"),
    (["lm", "train", "{CHOI}", "--out", "{DIR}"], "directory"),
    (["lm", "train", "{CHOI}", "--out", "{UNDER_FILE}"], "not a directory"),
    (["lm", "train", "{CHOI}", "--out", "{MISSING_PARENT}"], "--parents"),
    (["lm", "export-arpa", "{LM}", "{DIR}"], "directory"),
    (["lm", "export-arpa", "{LM}", "{UNDER_FILE}"], "not a directory"),
    (["lm", "export-arpa", "{LM}", "{READONLY}"], "read-only"),
    (["reproduce", "--data", "{ROOT}", "--out", "{READONLY}"], "not a directory"),
    (["reproduce", "--data", "{ROOT}", "--out", "{UNDER_FILE}"], "not a directory"),
    (["reproduce", "--data", "{ROOT}", "--out", "{MISSING_PARENT}"], "--parents"),
    # one sentence is nothing to segment, in every command
    (["baselines", "{ONE}"], "nothing to segment"),
    (["compare", "{ONE}"], "nothing to segment"),
    (["evaluate", "{ONE}", "{ONE}"], "nothing to segment"),
    (["evaluate", "--model", "{MODEL}", "{ONE}"], "nothing to segment"),
    (["train", "{ONE}", "--preset", "paper", "--families", "vocabulary,cohesion", "--out", "{ROOT}/m2"],
     "nothing to segment"),
    (["lm", "train", "{ONE}", "--out", "{ROOT}/l2"], "nothing to segment"),
    (["lm", "eval", "{LM}", "{ONE}"], "nothing to segment"),
    (["relevance", "{ONE}", "--lm", "{LM}"], "nothing to segment"),
    # (a single 10^6-character line is not one sentence: every reader cuts sentences longer than 10,000
    # characters into pieces, with a note -- tests/test_readers_formats.py)
    # missing inputs
    (["evaluate", "--model", "{ROOT}/absent.seg", "{CHOI}"], "not found"),
    (["train", "{CHOI}", "--lm", "{ROOT}/absent.lm", "--out", "{ROOT}/m3"], "absent.lm"),
    (["reproduce", "--data", "{ROOT}/absent"], "not found"),
]


#: the work a command does once its input is accepted -- training, segmenting, scoring, exporting -- by where the
#: commands look it up: (module, attribute holding it, its method or None)
WORK = [
    ("segviz.lm.models", "LanguageModels", "fit"), ("segviz.lm.models", "LanguageModels", "fit_iter"),
    ("segviz.lm.models", "LanguageModels", "evaluate"), ("segviz.lm.trigram", "TrigramLM", "to_arpa"),
    ("segviz.lm.triggers", "TriggerLM", "pairs_table"),
    ("segviz.segmenter", "Segmenter", "fit"), ("segviz.segmenter", "Segmenter", "fit_iter"),
    ("segviz.segmenter", "Segmenter", "apply"), ("segviz.model_protocol", "SegmentationModel", "segment_iter"),
    ("segviz.selection", "select_iter", None), ("segviz.relevance", "relevance_profile", None),
    ("segviz.evaluation", "compare_segmenters", None), ("segviz.evaluation", "score_segmenters", None),
    ("segviz.commands.compare", "compare_segmenters", None), ("segviz.commands.evaluate", "score_segmenters", None),
    ("segviz.commands.scoring", "score_segmenters", None),
    ("segviz.commands.segment", "segment_documents_iter", None),
    ("segviz.protocols", "reproduce", None), ("segviz.protocols", "score_models", None),
    ("segviz.default_model", "build_iter", None),
]


@pytest.fixture
def work_started(monkeypatch):
    """The names of the pieces of :data:`WORK` a command started (each stops the command at once instead)."""
    import importlib

    started = []

    def spy(name):
        def refuse(*args, **kwargs):
            started.append(name)
            raise AssertionError(f"{name} started: the input was not refused up front")
        return refuse

    for module_name, attribute, method in WORK:
        module = importlib.import_module(module_name)
        if method is None:
            monkeypatch.setattr(module, attribute, spy(f"{module_name}.{attribute}"))
        else:
            monkeypatch.setattr(getattr(module, attribute), method, spy(f"{attribute}.{method}"))
    return started


@pytest.mark.parametrize("argv,word", MATRIX, ids=[" ".join(a[:3]) + " " + w for a, w in MATRIX])
def test_bad_input_is_one_line_and_exit_2(argv, word, files, capsys, work_started):
    assert main(_fill(argv, files)) == 2
    err = capsys.readouterr().err
    assert err.startswith("segviz: error:"), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert word in err, err
    assert not work_started   # refused up front, not after the work


def test_a_language_model_directory_is_refused_before_reading(files, capsys):
    """The earlier LM layout (a folder) is no language-model file: refused up front, nothing read."""
    argv = ["train", "{CHOI}", "--lm", "{DIR}", "--preset", "paper", "--out", "{ROOT}/m5", "--quiet"]
    assert main(_fill(argv, files)) == 2
    err = capsys.readouterr().err
    # one line and no "read FILE as ..." report: refused before the corpus was read
    assert err.startswith("segviz: error:") and err.count("\n") == 1 and " as " not in err, err
    assert files["DIR"] in err


def test_refusals_leave_outputs_alone(files):
    assert Path(files["READONLY"]).read_text() == "keep me\n"
    assert not Path(files["ROOT"], "m1").exists() and not Path(files["ROOT"], "l1").exists()
    assert not Path(files["MISSING_PARENT"]).parent.exists()


def test_min_support_above_every_count(files, capsys):
    assert main(_fill(["train", "{CHOI}", "--families", "vocabulary,cohesion", "--min-support", "1000000000", "--out",
                       "{ROOT}/m4", "--quiet"], files)) == 2
    assert "min-support" in capsys.readouterr().err


def test_export_arpa_to_stdout_like_segment(files, capsys):
    assert main(["lm", "export-arpa", files["LM"], "-"]) == 0
    out = capsys.readouterr().out
    assert out.lstrip().startswith("\\data\\") and out.rstrip().endswith("\\end\\")
    assert not Path("-").exists()
    target = Path(files["ROOT"]) / "tri.arpa"
    assert main(["lm", "export-arpa", files["LM"], str(target)]) == 0
    assert target.read_text() == out


def test_parents_creates_missing_directories_only_when_asked(files, capsys):
    target = Path(files["ROOT"]) / "new" / "dir" / "tri.arpa"
    assert main(["lm", "export-arpa", files["LM"], str(target), "--parents"]) == 0
    assert target.is_file()


def _limit_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 ** 3, 2 * 1024 ** 3))


@pytest.mark.parametrize("argv", [["baselines", "/dev/zero"], ["compare", "/dev/zero"],
                                  ["lm", "train", "/dev/zero", "--out", "lm.out"]])
def test_device_input_is_refused_without_reading_it(argv, tmp_path):
    """/dev/zero never ends: it must be refused at once, not read until memory runs out (the child runs
    under a 2 GB address-space limit, so a reader that tries cannot hurt the machine)."""
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    proc = subprocess.run([sys.executable, "-m", "segviz", *argv], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_limit_memory)
    assert proc.returncode == 2 and proc.stderr.startswith("segviz: error:") and proc.stderr.count("\n") == 1
    # refused for what it is (a device, told by fstat before a byte is read), not for what reading it did
    assert "/dev/zero: is a device" in proc.stderr and "memory" not in proc.stderr, proc.stderr
    assert not list(tmp_path.iterdir())   # and nothing was written


def test_as_a_program_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "segviz", "compare", str(REF), "--seed", "-1"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("segviz: error: compare: argument --seed: must be an integer from 0 to 4294967295, "
                           "got -1\n")
