"""The fault matrix, round three (issue 43): crafted or damaged models, arguments and memory.

Every crafted input is generated here (none is committed).  A bad model is a *valid* archive whose checksums are
recomputed, so the change reaches the validators.  Each case must give exactly one line ``segviz: error: ...``
and exit status 2 (or work correctly); memory bounds are checked in a child process under a resource limit and
by the child's own peak, never by timing."""
from __future__ import annotations

import copy
import hashlib
import io
import json
import struct
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

from segviz.bundle import FORMAT, INDEX, VERSION, encode_bundle, read_bundle
from segviz.cli import main
from segviz.errors import SegvizError
from segviz.model_schema import SEGMENTER_PARAMS, param_from_json, validate_model_document
from segviz.models import load_model
from segviz.segmenter import Segmenter

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_MODEL = ROOT / "resources" / "sample_model.segviz"
DEFAULT_MODEL = ROOT / "resources" / "default_model.segviz"
CHOI = ROOT / "sample_corpora" / "choi"
TEXT = CHOI / "3-11_0.ref"
#: a JSON integer of 4,000 digits: under Python's 4,300-digit limit on int(str), beyond any float
HUGE = int("9" * 4000)


def _one_error_line(err: str, *words: str) -> None:
    assert err.startswith("segviz: error:"), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err


def _rewrite(source: Path, out: Path, change) -> Path:
    """``source`` re-encoded after ``change(documents, arrays)`` edits its contents, checksums recomputed."""
    bundle = read_bundle(source)
    documents, arrays = copy.deepcopy(bundle.documents), dict(bundle.arrays)
    change(documents, arrays)
    data, _ = encode_bundle(bundle.kind, documents, arrays)
    out.write_bytes(data)
    return out


def _refused(capsys, model: Path, *words: str) -> None:
    assert main(["segment", str(TEXT), "--model", str(model), "--quiet"]) == 2
    _one_error_line(capsys.readouterr().err, str(model), *words)


# ------------------------------------------------------------------ a 4,000-digit integer in a float field

def _set_path(doc: dict, path: tuple, value) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


@pytest.mark.parametrize("path,word", [
    (("prior",), "prior"), (("mu",), "mu"), (("lambdas", 0), "lambdas[0]"), (("rule", "alpha"), "alpha"),
    (("rule", "alphas", 3), "alphas"), (("params", "l2"), "params.l2"), (("params", "lambda_max"), "lambda_max"),
    (("params", "n_features"), "params.n_features"), (("features", 0, "low"), "features[0]"),
    (("features", 0, "window", "start"), "features[0].window"), (("history",), "history"),
    (("info", "seconds"), "info.seconds"),
], ids=lambda v: ".".join(map(str, v)) if isinstance(v, tuple) else None)
def test_a_4000_digit_integer_in_a_segmenter_field_is_one_line(tmp_path, capsys, path, word):
    def change(documents, arrays):
        value = [{"gain": HUGE}] if path == ("history",) else HUGE
        _set_path(documents["segmenter"], path, value)

    _refused(capsys, _rewrite(SAMPLE_MODEL, tmp_path / "m.segviz", change), word)


@pytest.mark.parametrize("value", ["0.5", [0.5], True, None, {"x": 1}, 1e308, -0.0, HUGE, -HUGE])
def test_the_schema_checks_types_before_values(value):
    """A string, a list, a bool, null or an out-of-range number where a number belongs is refused, naming it."""
    doc = copy.deepcopy(read_bundle(SAMPLE_MODEL).document("segmenter"))
    for field in ("prior", "mu"):
        bad = dict(doc, **{field: value})
        with pytest.raises(SegvizError, match=field) as info:
            validate_model_document(bad, source="m.segviz", known_params=Segmenter._param_names())
        assert "\n" not in str(info.value)


def test_a_4000_digit_router_threshold_is_one_line(tmp_path, capsys):
    def change(documents, arrays):
        documents["router"]["thresholds"][0] = HUGE

    model = _rewrite(DEFAULT_MODEL, tmp_path / "router.segviz", change)
    _refused(capsys, model, "thresholds[0]")

    def grid(documents, arrays):
        documents["router"]["params"]["thresholds"][2] = "12"

    _refused(capsys, _rewrite(DEFAULT_MODEL, tmp_path / "grid.segviz", grid), "params.thresholds[2]")


def _language_models(tmp_path: Path, change) -> Path:
    """The sample model's language models as a stand-alone file, after ``change(description)``."""
    bundle = read_bundle(SAMPLE_MODEL)
    documents = {k: copy.deepcopy(v) for k, v in bundle.documents.items() if k.startswith("lm/")}
    arrays = {k: v for k, v in bundle.arrays.items() if k.startswith("lm/")}
    change(documents["lm/models"])
    data, _ = encode_bundle("language-models", documents, arrays)
    out = tmp_path / "lm.segviz-lm"
    out.write_bytes(data)
    return out


@pytest.mark.parametrize("section,path,word", [
    ("trigram", ("discounts", "2", 1), "discounts.2[1]"), ("trigram", ("min_leftover",), "min_leftover"),
    ("trigram", ("vocab_size",), "vocab_size"), ("trigger", ("prior_variance",), "prior_variance"),
    ("trigger", ("window",), "window"), ("trigger", ("min_cooccurrence",), "min_cooccurrence"),
])
def test_a_4000_digit_integer_in_a_language_model_is_one_line(tmp_path, capsys, section, path, word):
    lm = _language_models(tmp_path, lambda d: _set_path(d[section], path, HUGE))
    assert main(["lm", "eval", str(lm), str(TEXT)]) == 2
    _one_error_line(capsys.readouterr().err, str(lm), word)


@pytest.mark.parametrize("value", ["5", "1000", [5], True, None])
def test_a_language_model_field_of_the_wrong_type_is_one_line(tmp_path, capsys, value):
    lm = _language_models(tmp_path, lambda d: _set_path(d["trigger"], ("window",), value))
    assert main(["lm", "eval", str(lm), str(TEXT)]) == 2
    _one_error_line(capsys.readouterr().err, str(lm), "window")


# ------------------------------------------------------------------ a rule whose kind is a list

@pytest.mark.parametrize("kind", [["threshold"], {"a": 1}, 3, None, True, "thresh"])
def test_a_rule_kind_that_is_no_rule_name_is_one_line(tmp_path, capsys, kind):
    """`TypeError: unhashable type: 'list'` in rule_from_dict, found by the suite's hypothesis test."""
    def change(documents, arrays):
        documents["segmenter"]["rule"]["kind"] = kind

    _refused(capsys, _rewrite(SAMPLE_MODEL, tmp_path / "m.segviz", change), "decision rule")

    def in_params(documents, arrays):
        documents["segmenter"]["params"]["rule"] = {"kind": kind}

    _refused(capsys, _rewrite(SAMPLE_MODEL, tmp_path / "p.segviz", in_params), "params.rule")


# ------------------------------------------------------------------ a feature window written as a string

def _windowed(doc: dict) -> int:
    return next(i for i, f in enumerate(doc["features"]) if isinstance(f.get("window"), dict))


@pytest.mark.parametrize("value", ["-1000000000", "-5", -5.0, True, None, [-5], -(10 ** 9), HUGE])
def test_a_window_offset_that_is_no_small_integer_is_refused_before_use(tmp_path, capsys, value):
    """`"-1000000000"` skipped the +-10,000 check and was converted with int(): 7.4 GB and 16 s before a late
    refusal.  Now refused at load, by type, before a question is built."""
    def change(documents, arrays):
        doc = documents["segmenter"]
        doc["features"][_windowed(doc)]["window"]["start"] = value

    model = _rewrite(SAMPLE_MODEL, tmp_path / "m.segviz", change)
    _refused(capsys, model, "window.start")


def test_an_interval_end_written_as_a_number_string_is_refused(tmp_path, capsys):
    def change(documents, arrays):
        doc = documents["segmenter"]
        interval = next(f for f in doc["features"] if "low" in f)
        interval["high"] = "5e9"

    _refused(capsys, _rewrite(SAMPLE_MODEL, tmp_path / "m.segviz", change), ".high")


def test_the_string_window_model_is_refused_under_a_1_gb_memory_limit(tmp_path):
    def change(documents, arrays):
        doc = documents["segmenter"]
        doc["features"][_windowed(doc)]["window"]["start"] = "-1000000000"

    model = _rewrite(SAMPLE_MODEL, tmp_path / "m.segviz", change)
    result = _limited_run(["segment", str(TEXT), "--model", str(model), "--quiet"], tmp_path)
    assert result.returncode == 2, result.stderr
    _one_error_line(result.stderr.split("PEAK")[0], "window.start")


# ------------------------------------------------------------------ zip features segviz never writes

def _patch_central_directory(data: bytes, member: str, *, flags: int = 0, version: int | None = None) -> bytes:
    raw, found, at = bytearray(data), False, 0
    while (at := raw.find(b"PK\x01\x02", at)) >= 0:
        size = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46:at + 46 + size].decode() == member:
            struct.pack_into("<H", raw, at + 8, struct.unpack_from("<H", raw, at + 8)[0] | flags)
            if version is not None:
                struct.pack_into("<H", raw, at + 6, version)
            found = True
        at += 4
    assert found
    return bytes(raw)


@pytest.mark.parametrize("member", ["segmenter.json", "lm/trigram/uni_logp.npy", INDEX])
@pytest.mark.parametrize("damage", ["encrypted", "version 23.5", "method 99", "garbage directory"])
def test_zip_features_segviz_never_writes_are_not_a_model_archive(tmp_path, capsys, member, damage):
    data = SAMPLE_MODEL.read_bytes()
    if damage == "encrypted":
        data = _patch_central_directory(data, member, flags=0x1)
    elif damage == "version 23.5":
        data = _patch_central_directory(data, member, version=235)
    elif damage == "method 99":
        raw, at = bytearray(data), 0
        while (at := raw.find(b"PK\x01\x02", at)) >= 0:
            size = struct.unpack_from("<H", raw, at + 28)[0]
            if raw[at + 46:at + 46 + size].decode() == member:
                struct.pack_into("<H", raw, at + 10, 99)
            at += 4
        data = bytes(raw)
    else:
        at = data.rfind(b"PK\x01\x02")
        data = data[:at + 10] + bytes(range(200, 236)) + data[at + 46:]
    model = tmp_path / "m.segviz"
    model.write_bytes(data)
    _refused(capsys, model, "not a segviz model archive")


def test_an_encrypted_member_is_refused_by_the_library_too(tmp_path):
    model = tmp_path / "m.segviz"
    model.write_bytes(_patch_central_directory(SAMPLE_MODEL.read_bytes(), "segmenter.json", flags=0x1))
    with pytest.raises(SegvizError, match="not a segviz model archive.*encrypted"):
        load_model(model)


# ------------------------------------------------------------------ what a model takes once loaded

def _write_member(archive: zipfile.ZipFile, name: str, header: bytes, chunks) -> str:
    digest = hashlib.sha256(header)
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with archive.open(info, "w", force_zip64=True) as handle:
        handle.write(header)
        for chunk in chunks:
            digest.update(chunk)
            handle.write(chunk)
    return digest.hexdigest()


def _npy_header(dtype: str, shape: tuple) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def _crafted_bundle(path: Path, extra: dict[str, tuple[str, tuple, object]]) -> Path:
    """The sample model with ``extra`` arrays (name -> (dtype, shape, chunks)), streamed: never held whole."""
    bundle = read_bundle(SAMPLE_MODEL)
    data, _ = encode_bundle(bundle.kind, bundle.documents, bundle.arrays)
    members = {}
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            if info.filename != INDEX:
                payload = source.read(info)
                out.writestr(info.filename, payload)
                members[info.filename] = hashlib.sha256(payload).hexdigest()
        for name, (dtype, shape, chunks) in extra.items():
            members[f"{name}.npy"] = _write_member(out, f"{name}.npy", _npy_header(dtype, shape), chunks)
        out.writestr(INDEX, json.dumps({"format": FORMAT, "version": VERSION, "kind": bundle.kind,
                                        "members": members}))
    return path


def _chunks(total: int, fill) -> object:
    step = 1 << 22
    for start in range(0, total, step):
        yield fill(min(step, total - start))


def _limited_run(argv: list[str], cwd: Path, limit: int = 1 << 30) -> subprocess.CompletedProcess:
    """``segviz ARGV`` in a child whose data segment may not grow beyond ``limit`` bytes; the child prints its
    own peak resident size (``PEAK n``, in kB, from /proc) after the command's output."""
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_DATA, ({limit}, {limit}))
        from segviz.cli import main
        try:
            status = main({argv!r})
        finally:
            # VmHWM, the peak of this process's own memory: ru_maxrss also counts the parent's, whose pages a
            # forked child shares until it executes Python
            with open("/proc/self/status") as status_file:
                peak = next(line.split()[1] for line in status_file if line.startswith("VmHWM:"))
            print("PEAK", peak, file=sys.stderr)
        sys.exit(status)
    """)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "HOME": str(cwd), "NUMBA_CACHE_DIR": str(cwd / "numba")}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)


def _peak_kb(stderr: str) -> int:
    return int(stderr.rsplit("PEAK", 1)[1].split()[0])


@pytest.mark.slow
def test_an_unused_uint8_member_is_counted_as_loaded_and_refused_under_1_gb(tmp_path):
    """A 7 MB model with an unused 512 MiB uint8 member (deflated to almost nothing, 7 MB of noise beside it so
    that the declared sizes pass) used to load it as int64: 4.9 GB, exit 0.  The budget counts loaded bytes."""
    rng = np.random.default_rng(0)
    model = _crafted_bundle(tmp_path / "big.segviz", {
        "lm/noise": ("|u1", (7 << 20,), _chunks(7 << 20, lambda n: rng.integers(0, 256, n, dtype=np.uint8)
                                                    .tobytes())),
        "lm/unused": ("|u1", (512 << 20,), _chunks(512 << 20, bytes)),
    })
    assert 7 << 20 < model.stat().st_size < 9 << 20
    result = _limited_run(["segment", str(TEXT), "--model", str(model), "--quiet"], tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    _one_error_line(result.stderr.split("PEAK")[0], "lm/unused", "once loaded as int64")
    assert _peak_kb(result.stderr) < 1_000_000


def test_arrays_loaded_within_the_budget_still_load(tmp_path):
    model = _crafted_bundle(tmp_path / "ok.segviz", {"lm/small": ("|u1", (1 << 20,), _chunks(1 << 20, bytes))})
    bundle = read_bundle(model)
    assert bundle.arrays["lm/small"].dtype == np.int64 and bundle.arrays["lm/small"].shape == (1 << 20,)


# ------------------------------------------------------------------ --param NAME=VALUE

@pytest.mark.parametrize("param,word", [
    ("l2=" + "[" * 50_000 + "]" * 50_000, "nested"), ("l2=" + "{\"a\":" * 50_000 + "1" + "}" * 50_000, "nested"),
    ("relevance_edges=0", "relevance_edges"), ("relevance_edges=NaN", "relevance_edges"),
    ('relevance_edges="abc"', "relevance_edges"), ("relevance_edges=null", "relevance_edges"),
    ("relevance_edges=abc", "relevance_edges"), ("relevance_edges=[1, 1]", "distinct"),
    ("relevance_edges=[" + ",".join(str(i) for i in range(500)) + "]", "relevance_edges"),
    (f"l2={HUGE}", "l2"), ("l2=1e999", "l2"), ('l2="0.5"', "l2"), ("l2=[0.5]", "l2"), ("l2=true", "l2"),
    ("n_features=2.5", "n_features"), ("mu=0", "mu"), ("stopping=[\"last\"]", "stopping"),
    ('rule={"kind": ["threshold"]}', "rule"), ('rule={"kind": "threshold", "alpha": "0.5"}', "alpha"),
    ("families=[1]", "families"), ('templates={"a": 1}', "templates"), ("tuning_metric=[]", "tuning_metric"),
])
@pytest.mark.parametrize("command", ["train", "reproduce"])
def test_bad_param_values_are_refused_before_any_work(tmp_path, monkeypatch, capsys, param, word, command):
    monkeypatch.chdir(tmp_path)
    argv = (["train", str(TEXT), "--heldout", str(TEXT), "--out", "m.segviz", "--quiet"] if command == "train"
            else ["reproduce", "choi", "--out", "out"])
    assert main([*argv, "--param", param]) == 2
    _one_error_line(capsys.readouterr().err, "--param", word)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", sorted(SEGMENTER_PARAMS))
def test_param_from_json_and_the_estimator_share_one_declaration(name):
    """Each default the estimator holds passes the declared constraint, from Python and as its JSON form."""
    default = Segmenter().get_params()[name]
    Segmenter.check_param(name, default)
    if name not in ("templates", "rule") and default is not None:
        as_json = [x if np.isfinite(x) else ("inf" if x > 0 else "-inf") for x in default] \
            if isinstance(default, tuple) else default
        param_from_json(name, json.loads(json.dumps(as_json)), source="--param")
    with pytest.raises(SegvizError):
        param_from_json(name, {"not": ["a", "value"]}, source="--param")


def test_good_param_values_still_train(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["train", str(CHOI / "3-11_0.ref"), "--heldout", str(CHOI / "3-11_1.ref"), "--out", "m.segviz",
                 "--features", "2", "--vocabulary", "200", "--quiet", "--show", "0",
                 "--param", "relevance_edges=[\"-inf\", -1, 0, 1, \"inf\"]", "--param", "l2=0.5",
                 "--param", 'rule={"kind": "threshold", "alphas": [0.3, 0.5], "epsilons": [1, 2]}']) == 0
    model = Segmenter.load(tmp_path / "m.segviz")
    assert model.relevance_edges == (-np.inf, -1.0, 0.0, 1.0, np.inf) and model.l2 == 0.5


# ------------------------------------------------------------------ reproduce: data folders and outputs

def _brown_zip(path: Path, members: dict[str, bytes], *, method: int = zipfile.ZIP_DEFLATED) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


_BROWN = {"brown/cats.txt": b"ca01 news\nca02 news\n",
          "brown/ca01": b"\n\tThe/at jury/nn said/vbd ./.\n" * 50, "brown/ca02": b"\n\tA/at man/nn came/vbd ./.\n" * 50}


def _crafted_data(tmp_path: Path, case: str) -> Path:
    import os

    data = tmp_path / "data"
    target = data / "brown_nltk" / "brown.zip"
    target.parent.mkdir(parents=True)
    if case == "fifo":
        os.mkfifo(target)
    elif case == "directory":
        target.mkdir()
    elif case == "dev-zero":
        target.symlink_to("/dev/zero")
    elif case == "not-ascii-cats":
        _brown_zip(target, dict(_BROWN, **{"brown/cats.txt": "ca01 caf\u00e9\n".encode()}))
    elif case == "bad-crc":
        _brown_zip(target, _BROWN, method=zipfile.ZIP_STORED)
        raw = bytearray(target.read_bytes())
        at = raw.find(b"jury")
        raw[at] ^= 0x20
        target.write_bytes(bytes(raw))
    elif case == "encrypted":
        _brown_zip(target, _BROWN)
        target.write_bytes(_patch_central_directory(target.read_bytes(), "brown/ca01", flags=0x1))
    elif case == "huge-member":   # 200 MB of zeros, deflated to 0.2 MB: beyond the 64 MiB of a corpus file
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("brown/cats.txt", _BROWN["brown/cats.txt"])
            with archive.open("brown/ca01", "w", force_zip64=True) as handle:
                for _ in range(200):
                    handle.write(bytes(1 << 20))
    elif case == "lying-size":    # declares 1 kB, inflates to 200 MB: unpacked only as far as it declares
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("brown/cats.txt", _BROWN["brown/cats.txt"])
            with archive.open("brown/ca01", "w", force_zip64=True) as handle:
                for _ in range(200):
                    handle.write(bytes(1 << 20))
        raw, at = bytearray(target.read_bytes()), 0
        while (at := raw.find(b"PK\x01\x02", at)) >= 0:
            size = struct.unpack_from("<H", raw, at + 28)[0]
            if raw[at + 46:at + 46 + size] == b"brown/ca01":
                struct.pack_into("<I", raw, at + 24, 1024)   # the central directory's uncompressed size
            at += 4
        target.write_bytes(bytes(raw))
    elif case == "garbage":
        target.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 10)
    return data


@pytest.mark.parametrize("case", ["fifo", "directory", "dev-zero", "not-ascii-cats", "bad-crc", "encrypted",
                                  "huge-member", "lying-size", "garbage"])
def test_a_crafted_brown_zip_is_one_line_within_bounded_memory(tmp_path, case):
    """A FIFO hung; a directory, a non-ASCII cats.txt, a bad CRC or an encrypted member gave tracebacks; a link
    to /dev/zero or a 3 GB deflated member ran to 7 GB.  The data folder is read with the checks of any input."""
    data = _crafted_data(tmp_path, case)
    result = _limited_run(["reproduce", "longform", "--data", str(data)], tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    _one_error_line(result.stderr.split("PEAK")[0], "brown")
    assert _peak_kb(result.stderr) < 1_000_000


def test_a_dangling_link_at_the_language_model_cache_is_refused_before_any_work(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "lm-choi").symlink_to(tmp_path / "nowhere")
    data = tmp_path / "data"
    data.mkdir()   # empty: reading it would fail; the output check comes first
    assert main(["reproduce", "choi", "--data", str(data), "--out", str(out)]) == 2
    _one_error_line(capsys.readouterr().err, "lm-choi", "symbolic link")
    assert sorted(p.name for p in out.iterdir()) == ["lm-choi"]


@pytest.mark.parametrize("which,cache", [("longform", "lm-longform-all"), ("wiki", "lm-wiki"),
                                         ("choi-disjoint", "lm-choi"), ("reuters", "lm-reuters")])
def test_every_language_model_cache_is_checked_before_any_work(tmp_path, capsys, which, cache):
    out = tmp_path / "out"
    out.mkdir()
    (out / cache).mkdir()   # a directory where a cache file would be read
    data = tmp_path / "data"
    data.mkdir()
    assert main(["reproduce", which, "--data", str(data), "--out", str(out)]) == 2
    _one_error_line(capsys.readouterr().err, cache)


# ------------------------------------------------------------------ memory: a corpus within the limits

def _one_word_lines(path: Path, size: int) -> Path:
    """At most ``size`` bytes of one-word sentences, one a line, written in pieces."""
    rng = np.random.default_rng(0)
    words = ["".join(chr(97 + c) for c in rng.integers(0, 26, rng.integers(3, 10))).capitalize() + ".\n"
             for _ in range(5000)]
    total = 0
    with open(path, "w") as handle:
        while total < size:
            piece = "".join(words[k] for k in rng.integers(0, len(words), 100_000))
            piece = piece[:max(0, size - total)]
            piece = piece[:piece.rfind("\n") + 1]
            if not piece:
                break
            handle.write(piece)
            total += len(piece)
    return path


@pytest.mark.slow
def test_64_mib_of_one_word_sentences_is_refused_up_front_under_1_gb(tmp_path):
    """64 MiB of one-word lines (inside the 64 MiB file limit) ran 212 s to 7.3 GB and out of memory; the line
    limit refuses it before the text is laid out."""
    from segviz.readers.source import MAX_FILE_BYTES, MAX_FILE_LINES

    corpus = _one_word_lines(tmp_path / "words.txt", MAX_FILE_BYTES)
    assert corpus.stat().st_size > MAX_FILE_BYTES - 100
    result = _limited_run(["segment", str(corpus), "-o", str(tmp_path / "out.jsonl"), "--quiet"], tmp_path,
                          limit=4 << 30)
    assert result.returncode == 2, result.stderr[-2000:]
    _one_error_line(result.stderr.split("PEAK")[0], "words.txt", f"{MAX_FILE_LINES:,}", "lines")
    assert _peak_kb(result.stderr) < 1_000_000, result.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_a_file_beyond_the_sentence_limit_is_refused_before_its_sentences_are_tokenised(tmp_path, monkeypatch,
                                                                                        capsys):
    from segviz.readers import sentences

    monkeypatch.setattr(sentences, "MAX_FILE_SENTENCES", 1000)
    tokenised = []
    real = sentences.tokenize
    monkeypatch.setattr(sentences, "tokenize", lambda text: tokenised.append(text) or real(text))
    for text, fmt in (("Word. " * 1001, "text"), ("Word.\n" * 1001, "lines"),
                      ("A b c.\n" * 600 + "\n" + "D e.\n" * 401, "lines")):
        tokenised.clear()
        path = tmp_path / "many.txt"
        path.write_text(text)
        assert main(["inspect", str(path), "--format", fmt]) == 2
        _one_error_line(capsys.readouterr().err, "many.txt", "1,000 sentences")
        assert len(tokenised) <= 600
    monkeypatch.setattr(sentences, "MAX_FILE_SENTENCES", 1001)
    assert main(["inspect", str(path), "--format", "lines"]) == 0


@pytest.mark.slow
def test_segmenting_one_word_sentences_takes_memory_linear_in_the_sentences(tmp_path):
    """The bound docs/reliability.md states: the default model segments a file of n one-word sentences (the
    worst case measured) in about 0.3 GB + 1.3 GB per million sentences (2.7 GB at the 2,000,000-sentence limit).
    Checked at 300,000 sentences (0.7 GB measured), with room for the machine."""
    corpus = _one_word_lines(tmp_path / "words.txt", 2_400_000)
    result = _limited_run(["segment", str(corpus), "-o", str(tmp_path / "out.jsonl"), "--quiet"], tmp_path,
                          limit=4 << 30)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "300,942 sentences" in result.stderr, result.stderr[-500:]
    assert _peak_kb(result.stderr) < 1_000_000
