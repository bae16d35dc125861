"""The fault matrix, round three (issue 43): names and standard streams.  Every file, name and stream is made
here, by the test.

* a file name holding a newline, a carriage return or an ANSI escape is shown escaped in every message and in the
  human-readable outputs: one line, no control character reaches the terminal;
* a file name that is not UTF-8 is written as ``\\xNN`` in every output format (JSON Lines, CSV, text, Choi), in
  ``gui --export-segments`` and in a trained model, never a ``UnicodeEncodeError``;
* a closed or full standard output is one line and exit status 2, ``--help`` and ``--version`` included; a closed
  standard error loses the messages, not the command.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from segviz.cli import main
from segviz.printable import portable, printable

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
#: a hang guard only, never a measurement
GUARD_S = 600

TEXT = ("The cat sat on the mat by the door. It was happy there all day.\n\n"
        "Dogs bark at night in the village. The moon rises slowly over the hills.\n\n"
        "Rain fell on the roofs of the town. Nobody went outside until noon.\n")

#: names that would forge a line, overwrite one, or change the terminal's colour
HOSTILE = {"newline": "a\nsegviz: error: forged.txt", "return": "b\rc.txt", "escape": "d\x1b[31mred\x1b[0m.txt",
           "bidi": "e\u202etxt.exe"}
CONTROL_CHARS = [chr(c) for c in range(32) if chr(c) != "\n"] + ["\x1b", "\x7f", "\u202e"]


def _run(args, *, cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw):
    return subprocess.run([sys.executable, "-m", "segviz", *args], stdout=stdout, stderr=stderr, cwd=cwd,
                          env=ENV, timeout=GUARD_S, **kw)


def _no_controls(text: str) -> None:
    for char in CONTROL_CHARS:
        assert char not in text, repr(text)


def _non_utf8_file(tmp_path: Path) -> Path:
    raw = os.fsencode(tmp_path) + b"/caf\xe9-\xff.txt"
    try:
        with open(raw, "wb") as handle:
            handle.write(TEXT.encode())
    except (OSError, UnicodeError):
        pytest.skip("this file system does not hold names that are not UTF-8")
    return Path(os.fsdecode(raw))


# ------------------------------------------------------------------------------------------- the two functions

def test_printable_shows_every_control_character_and_keeps_text():
    assert printable("a\nb\rc\td\x1b[31m\x7f\u202e") == "a\\nb\\rc\\td\\x1b[31m\\x7f\\u202e"
    assert printable("Übersetzung — café.txt") == "Übersetzung — café.txt"
    name = os.fsdecode(b"caf\xe9.txt")
    assert portable(name) == printable(name) == "caf\\xe9.txt"
    assert portable(Path(name)) == "caf\\xe9.txt" and portable(b"\xff") == "\\xff"
    assert portable("\ud800x") == "\\ud800x"      # a surrogate no byte decoded to
    "".join(portable(name)).encode("utf-8")        # always writable as UTF-8


# ------------------------------------------------------------------------------------------ names in messages

@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_missing_file_with_a_hostile_name_is_one_escaped_line(tmp_path, kind):
    proc = _run(["inspect", HOSTILE[kind]], cwd=tmp_path, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("segviz: error: "), repr(proc.stderr)
    _no_controls(proc.stderr)
    assert printable(HOSTILE[kind]) in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_name_read_is_shown_escaped_in_notes_and_reports(tmp_path, kind):
    (tmp_path / HOSTILE[kind]).write_text(TEXT)
    proc = _run(["inspect", HOSTILE[kind]], cwd=tmp_path, text=True)
    assert proc.returncode == 0, proc.stderr
    _no_controls(proc.stdout)
    assert f"  {printable(HOSTILE[kind])}: text (detected)" in proc.stdout
    assert not [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("segviz: error")]
    proc = _run(["segment", HOSTILE[kind], "-o", "out.txt"], cwd=tmp_path, text=True)
    assert proc.returncode == 0, proc.stderr
    _no_controls(proc.stderr)
    assert printable(HOSTILE[kind]) in proc.stderr
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert lines[0] == f"======== {printable(HOSTILE[kind])} ========"   # the name stays on its line
    record = json.loads(_run(["segment", HOSTILE[kind], "-o", "-", "--output-format", "jsonl"], cwd=tmp_path,
                             text=True).stdout.splitlines()[0])
    assert record["document"] == HOSTILE[kind]   # JSON holds the name itself, escaped by JSON


def test_an_argument_error_naming_a_hostile_value_is_one_line(tmp_path):
    proc = _run(["segment", str(CHOI / "3-11_0.ref"), "--format", "x\nsegviz: error: y"], cwd=tmp_path, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, repr(proc.stderr)
    _no_controls(proc.stderr)


# ----------------------------------------------------------------------------------- names that are not UTF-8

@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".txt", ".ref"])
def test_a_name_that_is_not_utf8_is_written_as_escapes_in_every_format(tmp_path, suffix):
    source = _non_utf8_file(tmp_path)
    out = tmp_path / f"out{suffix}"
    assert main(["segment", str(source), "-o", str(out), "--quiet"]) == 0
    text = out.read_bytes().decode("utf-8")        # the output is UTF-8, whatever the name
    if suffix in (".csv", ".txt"):                 # Choi output names no document
        assert "caf\\xe9-\\xff.txt" in text
    if suffix == ".jsonl":
        assert json.loads(text.splitlines()[0])["document"].endswith("caf\\xe9-\\xff.txt")


def test_a_name_that_is_not_utf8_is_one_escaped_name_in_messages_and_inspect(tmp_path, capsys):
    source = _non_utf8_file(tmp_path)
    assert main(["inspect", str(source)]) == 0
    out = capsys.readouterr().out
    assert "caf\\xe9-\\xff.txt: text (detected)" in out
    assert main(["inspect", str(source), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"][0]["path"].endswith("caf\\xe9-\\xff.txt")


@pytest.mark.slow
def test_a_heldout_file_whose_name_is_not_utf8_goes_into_the_model(tmp_path):
    raw = os.fsencode(tmp_path) + b"/held\xff.ref"
    try:
        with open(raw, "wb") as handle:
            handle.write((CHOI / "3-11_3.ref").read_bytes())
    except (OSError, UnicodeError):
        pytest.skip("this file system does not hold names that are not UTF-8")
    proc = _run(["train", str(CHOI / "3-11_0.ref"), str(CHOI / "3-11_1.ref"), "--heldout", os.fsdecode(raw),
                 "--out", "m.segviz", "--features", "2", "--vocabulary", "500"], cwd=tmp_path, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    from segviz import load_model

    load_model(tmp_path / "m.segviz")


@pytest.mark.slow
def test_gui_exports_a_name_that_is_not_utf8(tmp_path):
    pytest.importorskip("PySide6")
    source = _non_utf8_file(tmp_path)
    proc = _run(["gui", os.fspath(source), "--export-segments", "out.jsonl"], cwd=tmp_path, text=True)
    assert proc.returncode == 0, proc.stderr
    record = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert record["document"].endswith("caf\\xe9-\\xff.txt")


# --------------------------------------------------------------------------------------------- the streams

CLOSED_ERROR = "segviz: error: cannot write to standard output (it is closed)\n"


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["inspect", "--help"],
                                  ["inspect", str(CHOI / "3-11_0.ref")], ["baselines", str(CHOI / "3-11_0.ref")]])
@pytest.mark.slow
def test_a_closed_standard_output_is_one_line_and_status_2(tmp_path, args):
    proc = _run(args, cwd=tmp_path, text=True, stdout=subprocess.DEVNULL, close_fds=True,
                preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.endswith(CLOSED_ERROR) and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("segviz: error:") == 1


@pytest.mark.slow
def test_a_command_that_writes_only_a_file_works_with_standard_output_closed(tmp_path):
    proc = _run(["segment", str(CHOI / "3-11_0.ref"), "-o", "out.ref", "--quiet"], cwd=tmp_path, text=True,
                stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.ref").read_text().startswith("==========")


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--version"], ["--help"], ["segment", "--help"]])
def test_help_and_version_to_a_full_device_are_one_line_and_status_2(tmp_path, args):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        proc = _run(args, cwd=tmp_path, text=True, stdout=full)
    assert proc.returncode == 2
    assert proc.stderr == "segviz: error: cannot write to standard output (No space left on device)\n"


@pytest.mark.slow
def test_a_closed_standard_error_loses_the_messages_not_the_command(tmp_path):
    proc = _run(["segment", str(CHOI / "3-11_0.ref"), "-o", "out.ref"], cwd=tmp_path, text=True,
                stderr=subprocess.DEVNULL, preexec_fn=lambda: os.close(2))
    assert proc.returncode == 0
    assert proc.stdout == ""          # the notes did not move to standard output
    proc = _run(["inspect", "missing.txt"], cwd=tmp_path, text=True, stderr=subprocess.DEVNULL,
                preexec_fn=lambda: os.close(2))
    assert proc.returncode == 2 and proc.stdout == ""
