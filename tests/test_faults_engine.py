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


# ------------------------------------------------------------------------ items 4 and 8: arrays and members

def _npy(descr: str, shape: tuple, data: bytes = b"") -> bytes:
    """A ``.npy`` member with any header, whatever numpy itself would write."""
    import struct

    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode("latin-1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def _write_bundle(path: Path, members: dict[str, bytes], kind: str = "arrays", *, compress=True) -> Path:
    """A bundle whose index lists ``members`` with their true checksums (so a crafted member reaches the
    checks behind the checksum)."""
    import hashlib
    import json
    import zipfile

    index = {"format": "segviz-bundle", "version": 1, "kind": kind,
             "members": {name: hashlib.sha256(data).hexdigest() for name, data in members.items()}}
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        archive.writestr("bundle.json", json.dumps(index))
        for name, data in members.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("descr,shape,data,words", [
    ("<f8", (2 ** 32, 2 ** 32), b"", ("beyond the limit",)),          # numpy's int64 product wraps to 0
    ("<f8", (-1,), b"", ("negative",)),
    ("<f8", (1,) * 70, b"\0" * 8, ("70 dimensions",)),
    ("<f8", (0, 2 ** 62), b"", ("beyond the limit",)),               # empty, yet numpy cannot make it
    ("<f8", (3, -2), b"", ("negative",)),
    ("<f2", (3,), b"\0" * 6, ("float16",)),
    ("<f16", (1,), b"\0" * 16, ("float128",)),
    ("<c16", (1,), b"\0" * 16, ("complex",)),
    ("<u8", (1,), b"\0" * 8, ("uint64",)),
    ("<f8", (4,), b"\0" * 8, ("truncated",)),
    ("<f8", (1,), b"\0" * 16, ("padded",)),
], ids=["overflowing", "negative", "70-dims", "0x2^62", "negative-2d", "float16", "longdouble", "complex",
        "uint64", "truncated", "padded"])
def test_npy_headers_beyond_what_a_model_holds_are_one_line(tmp_path, descr, shape, data, words):
    from segviz.bundle import read_bundle
    from segviz.errors import SegvizError

    path = _write_bundle(tmp_path / "a.segviz", {"x.npy": _npy(descr, shape, data)})
    with pytest.raises(SegvizError) as info:
        read_bundle(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and "'x'" in message, message
    assert any(w in message for w in words), message


def test_narrow_and_foreign_byte_order_arrays_load_as_int64_and_float64(tmp_path):
    import numpy as np

    from segviz.bundle import read_bundle

    members = {"i.npy": _npy(">i4", (3,), np.array([1, -2, 3], dtype=">i4").tobytes()),
               "f.npy": _npy(">f4", (2,), np.array([0.5, -1.5], dtype=">f4").tobytes()),
               "u.npy": _npy("|u1", (2,), bytes([7, 255])),
               "b.npy": _npy("|b1", (3,), bytes([0, 1, 2])),
               "m.npy": _npy("<f8", (2, 2), np.eye(2).tobytes())}
    bundle = read_bundle(_write_bundle(tmp_path / "a.segviz", members))
    arrays = bundle.arrays
    assert arrays["i"].dtype == np.int64 and arrays["i"].tolist() == [1, -2, 3]
    assert arrays["f"].dtype == np.float64 and arrays["f"].tolist() == [0.5, -1.5]
    assert arrays["u"].tolist() == [7, 255] and arrays["b"].tolist() == [False, True, True]
    assert arrays["b"].view(np.uint8).tolist() == [0, 1, 1]
    assert arrays["m"].tolist() == [[1, 0], [0, 1]]
    assert all(a.dtype.isnative for a in arrays.values())


def test_float16_arrays_are_neither_saved_nor_loaded(tmp_path):
    import numpy as np

    from segviz.bundle import write_bundle
    from segviz.errors import SegvizError

    with pytest.raises(SegvizError, match="float16"):
        write_bundle(tmp_path / "h.segviz", "arrays", {}, {"h": np.zeros(3, dtype=np.float16)})
    assert not (tmp_path / "h.segviz").exists()


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    path = tmp_path_factory.mktemp("lm") / "tiny.lm"
    assert main(["lm", "train", str(CHOI), "--out", str(path), "--vocab", "200", "--triggers", "50",
                 "--trigger-vocab", "100", "--max-iter", "2"]) == 0
    return path


def test_a_float16_language_model_array_is_refused_at_load(tiny_lm, tmp_path, capsys):
    """float16 trigger weights used to pass every check and break the trigger model's kernel later."""
    import zipfile

    with zipfile.ZipFile(tiny_lm) as archive:
        members = {i.filename: archive.read(i.filename) for i in archive.infolist() if i.filename != "bundle.json"}
    import io

    import numpy as np

    weights = np.load(io.BytesIO(members["lm/triggers/weights.npy"]))
    buffer = io.BytesIO()
    np.save(buffer, weights.astype(np.float16))
    members["lm/triggers/weights.npy"] = buffer.getvalue()
    crafted = _write_bundle(tmp_path / "half.lm", members, kind="language-models")
    assert main(["lm", "eval", str(crafted), str(CHOI / "3-11_0.ref")]) == 2
    _one_error_line(capsys.readouterr().err, "float16", "weights")


def test_a_zip_bomb_is_refused_before_anything_is_unpacked(tmp_path, monkeypatch):
    """A bundle of 300 MB of zeros (0.3 MB on disk) declares more than 100 times its size: refused on the
    declared sizes, no member unpacked (it used to cost gigabytes before its refusal)."""
    import hashlib
    import json
    import zipfile

    from segviz import bundle as bundle_module
    from segviz.errors import SegvizError

    path = tmp_path / "bomb.segviz"
    size, chunk = 300 * 1024 ** 2, bytes(1 << 20)
    digest = hashlib.sha256()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("x.npy", "w", force_zip64=True) as member:
            head = _npy("|u1", (size - 128,))
            assert len(head) == 128
            member.write(head)
            digest.update(head)
            for _ in range(size // len(chunk)):
                member.write(chunk)
                digest.update(chunk)
        archive.writestr("bundle.json", json.dumps({"format": "segviz-bundle", "version": 1, "kind": "arrays",
                                                    "members": {"x.npy": digest.hexdigest()}}))
    assert path.stat().st_size < 2 * 1024 ** 2

    def unpacked(*args):
        raise AssertionError("a member was unpacked")

    monkeypatch.setattr(bundle_module, "_unpack", unpacked)
    with pytest.raises(SegvizError, match="times the file"):
        bundle_module.read_bundle(path)


def test_a_member_is_never_unpacked_beyond_its_declared_size(tmp_path):
    """A member whose data runs on past the size its entry declares: zip stops at the declared size, and the
    checksum (or the CRC) refuses it; nothing beyond the declared size is held."""
    import zipfile

    import numpy as np

    from segviz.bundle import read_bundle
    from segviz.errors import SegvizError

    data = _npy("<f8", (4,), np.arange(4.0).tobytes())
    path = _write_bundle(tmp_path / "a.segviz", {"x.npy": data}, compress=False)
    raw = bytearray(path.read_bytes())
    # shrink the declared size in both headers (local and central): the stream must stop there
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("x.npy")
    old = len(data).to_bytes(4, "little")
    new = (len(data) - 8).to_bytes(4, "little")
    assert raw.count(old) >= 2
    path.write_bytes(bytes(raw).replace(old + old, new + new))
    assert info.file_size == len(data)
    with pytest.raises(SegvizError) as caught:
        read_bundle(path)
    assert "\n" not in str(caught.value)


# --------------------------------------------------------------------------- item 2: an output that is an input

@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tiny.segviz"
    assert main(["train", str(CHOI), "--heldout", str(CHOI), "--families", "vocabulary,cohesion", "--features", "2",
                 "--vocabulary", "100", "--out", str(path), "--quiet", "--show", "0"]) == 0
    return path


@pytest.fixture
def inputs(tmp_path, tiny_model, tiny_lm):
    """Copies of two corpus files, a model and a language model, with a symbolic and a hard link to them."""
    import shutil

    files = {"A": tmp_path / "a.ref", "B": tmp_path / "b.ref", "MODEL": tmp_path / "m.segviz",
             "LM": tmp_path / "l.lm"}
    shutil.copy(CHOI / "3-11_0.ref", files["A"])
    shutil.copy(CHOI / "3-11_1.ref", files["B"])
    shutil.copy(tiny_model, files["MODEL"])
    shutil.copy(tiny_lm, files["LM"])
    (tmp_path / "link.ref").symlink_to(files["A"])
    os.link(files["B"], tmp_path / "hard.ref")
    files.update({"LINK": tmp_path / "link.ref", "HARD": tmp_path / "hard.ref", "DIR": tmp_path})
    return {k: str(v) for k, v in files.items()}


SAME_FILE = [
    ["segment", "{A}", "-o", "{A}"],
    ["segment", "{LINK}", "-o", "{A}"],                        # the input through a symbolic link
    ["segment", "{A}", "--model", "{MODEL}", "-o", "{MODEL}"],
    ["segment", "{DIR}/*.ref", "-o", "{B}"],                   # one of the files of a glob
    ["train", "{A}", "{B}", "--out", "{A}", "--quiet"],
    ["train", "{A}", "--heldout", "{B}", "--out", "{HARD}", "--quiet"],   # the held-out file by a hard link
    ["train", "{A}", "{B}", "--lm", "{LM}", "--out", "{LM}", "--quiet"],
    ["lm", "train", "{DIR}", "--out", "{B}"],                  # a file of the directory
    ["lm", "export-arpa", "{LM}", "{LM}"],
]


@pytest.mark.parametrize("argv", SAME_FILE, ids=[" ".join(a) for a in SAME_FILE])
def test_an_output_that_is_an_input_is_refused_before_any_work(argv, inputs, capsys):
    before = {name: Path(p).read_bytes() for name, p in inputs.items() if name != "DIR"}
    assert main([a.format(**inputs) for a in argv]) == 2
    err = capsys.readouterr().err
    # one line and no "read FILE as ...": refused before anything was read
    _one_error_line(err, "is also an input")
    assert {name: Path(p).read_bytes() for name, p in inputs.items() if name != "DIR"} == before
    assert Path(inputs["LINK"]).is_symlink()


def test_check_output_path_takes_the_inputs(tmp_path):
    from segviz.errors import SegvizError
    from segviz.persist import atomic_write_text, check_output_path

    a = tmp_path / "a.txt"
    a.write_text("keep")
    with pytest.raises(SegvizError, match="is also an input"):
        check_output_path(a, inputs=[tmp_path / "." / "a.txt"])
    check_output_path(tmp_path / "b.txt", inputs=[a])         # a new file is never an input
    atomic_write_text(a, "new")                               # without inputs, a file is replaced as before
    assert a.read_text() == "new"


# ------------------------------------------------------------------------- item 13: long names, short temps

def test_a_legal_250_character_name_is_written(tiny_lm, tmp_path, capsys):
    """The temporary file's name is the target's shortened so that it always fits (a 250-character --out used
    to be refused after the work, on its 264-character temporary name)."""
    target = tmp_path / ("m" * 246 + ".arpa")
    assert len(target.name) == 251
    assert main(["lm", "export-arpa", str(tiny_lm), str(target)]) == 0
    assert target.read_text().lstrip().startswith("\\data\\")
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_the_longest_legal_name_is_written_and_a_longer_one_refused_before_work(tmp_path, capsys):
    from segviz.persist import atomic_write_text

    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    atomic_write_text(tmp_path / ("é" * (name_max // 2 - 1) + "x"), "fits")   # multi-byte: counted in bytes
    assert len(list(tmp_path.iterdir())) == 1
    too_long = tmp_path / ("n" * (name_max + 1))
    assert main(["train", str(CHOI), "--heldout", str(CHOI), "--out", str(too_long), "--quiet"]) == 2
    _one_error_line(capsys.readouterr().err, "longer than", str(name_max))


# ------------------------------------------------------------------- items 5 and 12: signals, standard output

_SLOW_SAVE = """
import os, sys, time
from segviz import persist
from segviz.cli import main

def fsync(fd):   # the moment of a save the parent interrupts: the temporary file is written, not yet renamed
    print("saving", flush=True)
    time.sleep(120)

persist.os.fsync = fsync
sys.exit(main(sys.argv[1:]))
"""


def test_sigterm_during_a_save_removes_the_temporary_file(tiny_lm, tmp_path):
    import signal

    target = tmp_path / "out.arpa"
    child = subprocess.Popen([sys.executable, "-c", _SLOW_SAVE, "lm", "export-arpa", str(tiny_lm), str(target)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert child.stdout.readline() == "saving\n"     # the temporary file exists now
        assert any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=HANG_GUARD_SECONDS)
    finally:
        child.kill()
    assert child.returncode == 143 and err == "segviz: terminated\n", err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["build_parser", "parse_args"])
def test_ctrl_c_before_the_command_starts_is_one_line(monkeypatch, capsys, where):
    """SIGINT in the first second (while the commands are imported and the arguments parsed) used to print a
    KeyboardInterrupt traceback."""
    import argparse

    from segviz import cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    if where == "build_parser":
        monkeypatch.setattr(cli, "build_parser", interrupted)
    else:
        monkeypatch.setattr(argparse.ArgumentParser, "parse_args", interrupted)
    assert main(["baselines", str(CHOI / "3-11_0.ref")]) == 130
    assert capsys.readouterr().err == "segviz: interrupted\n"


@pytest.mark.parametrize("argv", [["baselines", "{REF}"], ["baselines", "{REF}", "--json"],
                                  ["segment", "{REF}", "--quiet"], ["lm", "export-arpa", "{LM}", "-"]])
@pytest.mark.slow
def test_standard_output_that_cannot_be_written_is_one_line(argv, tiny_lm, tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    argv = [a.format(REF=CHOI / "3-11_0.ref", LM=tiny_lm) for a in argv]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "segviz", *argv], stdout=full, stderr=subprocess.PIPE,
                              text=True, cwd=tmp_path, timeout=HANG_GUARD_SECONDS,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("segviz: error:")]
    assert errors == ["segviz: error: cannot write to standard output (No space left on device)"], proc.stderr
    assert proc.stderr.endswith(errors[0] + "\n")


# ------------------------------------------------------------------ items 5 and 10: one source of limits

LIMITS = [
    (["train", str(CHOI), "--heldout", str(CHOI), "--param", "lambda_max=1e308", "--out", "m.segviz", "--quiet"], "lambda_max"),
    (["train", str(CHOI), "--heldout", str(CHOI), "--param", "l2=1e300", "--out", "m.segviz", "--quiet"], "l2"),
    (["train", str(CHOI), "--heldout", str(CHOI), "--features", "1000000", "--out", "m.segviz", "--quiet"], "--features"),
    (["reproduce", "choi", "--param", "lambda_max=1e308"], "lambda_max"),
    (["segment", str(CHOI / "3-11_0.ref"), "--epsilon", "1000000000"], "--epsilon"),
    (["evaluate", "--model", "{MODEL}", str(CHOI / "3-11_0.ref"), "--epsilon", "1000000000"], "--epsilon"),
    (["compare", str(CHOI / "3-11_0.ref"), "--segments", "1000000000"], "--segments"),
    (["lm", "train", str(CHOI), "--window", "1000000000", "--out", "l.lm"], "--window"),
    (["lm", "train", str(CHOI), "--vocab", "1000000000", "--out", "l.lm"], "--vocab"),
]


@pytest.mark.parametrize("argv,word", LIMITS, ids=[" ".join(a[:1] + a[-3:]) for a, _ in LIMITS])
def test_parameters_beyond_the_shared_limits_are_refused_before_work(argv, word, tiny_model, tmp_path,
                                                                        monkeypatch, capsys):
    """`--param lambda_max=1e308` used to end in a math domain error in induction; `--epsilon 10^9` cost 2 GB
    and `lm train --window 10^9` about 4 GB.  Each is refused up front, nothing read or written."""
    monkeypatch.chdir(tmp_path)
    assert main([a.format(MODEL=tiny_model) for a in argv]) == 2
    _one_error_line(capsys.readouterr().err, word)
    assert list(tmp_path.iterdir()) == []


def test_the_cli_the_estimators_and_the_schema_share_one_source_of_limits():
    from segviz import limits, model_schema, rules
    from segviz.errors import SegvizError
    from segviz.segmenter import Segmenter

    assert model_schema.MAX_FEATURES is limits.MAX_FEATURES and model_schema.MAX_ABS_LAMBDA is limits.MAX_ABS_LAMBDA
    assert rules.MAX_EPSILON is limits.MAX_EPSILON and rules.MAX_MEAN_LENGTH is limits.MAX_MEAN_LENGTH
    Segmenter(lambda_max=limits.MAX_ABS_LAMBDA, l2=limits.MAX_L2).check_params()        # the limits themselves
    for params in ({"lambda_max": 1e308}, {"lambda_max": limits.MAX_ABS_LAMBDA * 1.01}, {"l2": limits.MAX_L2 * 2},
                   {"n_features": limits.MAX_FEATURES + 1}, {"iis_tol": 2.0}):
        with pytest.raises(SegvizError):
            Segmenter(**params).check_params()
    with pytest.raises(SegvizError):
        rules.ThresholdRule(alpha=0.5, epsilon=limits.MAX_EPSILON + 1).check()
    # the language models from Python, not only `lm train` (nothing is read before the parameters are checked)
    from segviz.lm import LanguageModels

    with pytest.raises(SegvizError, match="window must be at most"):
        for _ in LanguageModels(window=limits.MAX_TRIGGER_WINDOW + 1).fit_iter([["a", "b"]] * 50):
            pass
