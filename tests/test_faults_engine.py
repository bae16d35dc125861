"""The fault matrix, round two (issue 22), engine and command-line half: crafted inputs that used to give a
traceback, a hang or a replaced file.  Every crafted file is made here, by the test; none costs more than a few
hundred megabytes.  Each bad input must give exactly one line ``segviz: error: ...`` and exit status 2."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from segviz.cli import main
from segviz.readers import reuters
from segviz.readers.sentences import cut_long

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi"
#: a hang guard only (no assertion on time): the crafted inputs take well under a second each when the readers
#: are linear, and hours when they are quadratic
HANG_GUARD_SECONDS = 600


def _one_error_line(err: str, *words: str) -> None:
    assert err.startswith("segviz: error:"), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err


# ---------------------------------------------------------------------------------------------- item 3: digits

BIG = "9" * 5000   # beyond Python's 4,300-digit limit on int(str)


@pytest.mark.parametrize("name,content,words", [
    ("first.jsonl", '{"sentences": ["One here.", "Two here."], "segments": [' + BIG + "]}\n", ("line 1", "digits")),
    ("later.jsonl", '{"sentences": ["One here.", "Two here."]}\n{"sentences": ["x y."], "id": ' + BIG + "}\n",
     ("line 2", "digits")),
    ("wiki.txt", "========," + BIG + ",Title.\nSome sentence here.\nAnother one here.\n", ("level", "digits")),
], ids=["jsonl-first-line", "jsonl-later-line", "wiki-header"])
def test_integers_beyond_python_digit_limit_are_one_line(tmp_path, capsys, name, content, words):
    path = tmp_path / name
    path.write_text(content)
    for command in (["inspect"], ["baselines"]):
        assert main([*command, str(path)]) == 2
        _one_error_line(capsys.readouterr().err, str(path), *words)


# ------------------------------------------------------------------------------------- item 7: Reuters, linear

def test_reuters_scan_matches_the_elements_regex():
    """The linear scan finds exactly what ``<REUTERS\\b([^>]*)>(.*?)</REUTERS>`` found, on awkward inputs."""
    import re

    old = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
    samples = ['<REUTERS NEWID="1">a</REUTERS>', "<REUTERSX>a</REUTERS>", "<REUTERS a <REUTERS b>c</REUTERS>",
               "<REUTERS>x<REUTERS>y</REUTERS>z</REUTERS>", "<REUTERS", "<REUTERS>", "<REUTERS>a</REUTERS><REUTERS>",
               "<REUTERS\n NEWID='2'\n>b</REUTERS>", ""]
    for text in samples:
        assert list(reuters._elements(text)) == old.findall(text), text


@pytest.mark.parametrize("body,expected", [
    ("Text here.\nReuter", "Text here."), ("Text here.\n REUTER^M\n", "Text here."),
    ("Text here. Reuters...", "Text here."), ("Text here.\nMORE\nReuter\n", "Text here."),
    ("Text here.\n  more -\n", "Text here."), ("Furthermore", "Furthermore"), ("Text mreuter", "Text mreuter"),
    ("Text reuterm", "Text reuterm"), ("Reuter", ""),
])
def test_sign_offs_are_stripped_as_before(body, expected):
    assert reuters.clean_body(body) == expected


#: crafted corpus files on which a reader was quadratic, and the format to read each as
CRAFTED = {
    "unclosed-elements.sgm": ("<REUTERS>x" * 200_000, "reuters"),                       # 46 s at 200 kB
    "unclosed-bodies.sgm": ('<REUTERS NEWID="1">' + "<BODY>" * 200_000 + "</REUTERS>", "reuters"),
    "unclosed-body.sgm": ('<REUTERS NEWID="1"><BODY>' + "Some words. " * 100_000 + "</REUTERS>", "reuters"),
    "sign-offs.sgm": ('<REUTERS NEWID="1"><BODY>Some text here. ' + "Reuter\n" * 170_000 + "</BODY></REUTERS>",
                      "reuters"),
    "letters.txt": ("x" * 300_000 + "\n", "auto"),      # the prose detector's regex, from every position
    "line.txt": ("word " * 400_000 + "\n", "auto"),     # a single 2 MB line
}

_READ_ALL = """
import json, sys
from segviz.errors import SegvizError
from segviz.readers import read_file
out = {}
for path, format in json.loads(sys.argv[1]).items():
    try:
        parsed, reading = read_file(path, format=format)
        out[path] = {"sentences": reading.sentences, "notes": list(reading.notes)}
    except SegvizError as exc:
        out[path] = {"error": str(exc)}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def crafted_readings(tmp_path_factory):
    """What the readers make of :data:`CRAFTED`, read in one child process whose timeout is only a guard
    against a hang (no assertion on time: linear readers take about a second for all, quadratic ones hours)."""
    import json

    root = tmp_path_factory.mktemp("crafted")
    formats = {}
    for name, (content, format) in CRAFTED.items():
        (root / name).write_text(content, encoding="latin-1" if format == "reuters" else "utf-8")
        formats[str(root / name)] = format
    proc = subprocess.run([sys.executable, "-c", _READ_ALL, json.dumps(formats)], capture_output=True, text=True,
                          cwd=root, timeout=HANG_GUARD_SECONDS, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    return {Path(k).name: v for k, v in json.loads(proc.stdout).items()}


@pytest.mark.parametrize("name", [n for n in CRAFTED if n.endswith(".sgm")])
def test_reuters_reader_is_linear_on_crafted_files(crafted_readings, name):
    """Inputs on which the lazy regexes were quadratic (46 s for 200 kB; a 1.2 MB unclosed <BODY> never
    finished) are read, or refused with one line."""
    reading = crafted_readings[name]
    if "error" in reading:
        assert "\n" not in reading["error"] and name in reading["error"]
    else:
        assert reading["sentences"] >= 1


# ------------------------------------------------------------------------------ item 11: a 50 MB single line

class _CountingStr(str):
    """A string that adds up the lengths of the slices taken of it."""

    sliced = 0

    def __getitem__(self, key):
        part = str.__getitem__(self, key)
        if isinstance(key, slice):
            type(self).sliced += len(part)
        return part


def test_cutting_a_long_line_copies_it_about_once():
    """Cutting a line into 10,000-character sentences copies each character a bounded number of times (it used to
    copy the rest of the line once per piece: quadratic, 98 s on a 50 MB line)."""
    line = _CountingStr("word " * 400_000)
    _CountingStr.sliced = 0
    pieces = cut_long(line)
    assert len(pieces) >= 200 and all(len(p) <= 10_000 for p in pieces)
    assert " ".join(pieces).split() == line.split()
    assert _CountingStr.sliced <= 2 * len(line) + 10_000 * len(pieces) // 100


def test_a_long_run_of_letters_is_detected_in_linear_time(crafted_readings):
    """A 256 kB head of letters without a space: the prose detector's sentence-end regex was tried from every
    position of the run (quadratic).  The file is read as lines, the cut noted."""
    reading = crafted_readings["letters.txt"]
    assert reading["sentences"] == 30
    assert any("longer than 10,000 characters were cut" in note for note in reading["notes"]), reading


def test_inspect_on_a_single_long_line_cuts_it_with_a_warning(tmp_path, capsys):
    import json

    path = tmp_path / "line.txt"
    path.write_text("word " * 400_000 + "\n")
    assert main(["inspect", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sentences"] == 200
    assert any("longer than 10,000 characters were cut" in w for w in report["warnings"]), report["warnings"]
