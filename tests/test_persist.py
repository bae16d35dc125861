"""Atomic, pickle-free persistence: nothing half-written survives a crash, corrupt files give clear errors."""
from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.persist import (
    atomic_save_npz,
    atomic_write_json,
    atomic_write_text,
    load_json,
    load_npz,
    read_bytes_limited,
)


def test_json_roundtrip_and_format_check(tmp_path):
    path = tmp_path / "sub" / "m.json"
    with pytest.raises(SegvizError, match="no such directory"):
        atomic_write_json(path, {"format": "segviz-x"})
    assert not path.parent.exists()
    atomic_write_json(path, {"format": "segviz-x", "version": 1, "w": [1.5, 2.0]}, parents=True)
    assert load_json(path, expected_format="segviz-x")["w"] == [1.5, 2.0]
    with pytest.raises(SegvizError, match="not a segviz-y file"):
        load_json(path, expected_format="segviz-y")


def test_written_files_get_ordinary_permissions(tmp_path):
    path = atomic_write_text(tmp_path / "a.txt", "x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_failed_write_keeps_previous_file_and_leaves_no_temp(tmp_path):
    path = tmp_path / "m.json"
    atomic_write_json(path, {"ok": 1})

    class Boom:
        pass

    with pytest.raises(TypeError):
        atomic_write_json(path, {"bad": Boom()})
    assert load_json(path) == {"ok": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_npz_roundtrip_refuses_objects_and_detects_corruption(tmp_path):
    path = tmp_path / "a.npz"
    atomic_save_npz(path, x=np.arange(5), y=np.eye(2))
    arrays = load_npz(path, required=("x", "y"))
    assert arrays["x"].tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(SegvizError, match="missing arrays z"):
        load_npz(path, required=("z",))
    with pytest.raises(TypeError, match="never pickles"):
        atomic_save_npz(tmp_path / "b.npz", o=np.array([{"a": 1}], dtype=object))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(SegvizError, match="corrupt"):
        load_npz(bad)
    with pytest.raises(SegvizError, match="no such file"):
        load_npz(tmp_path / "none.npz")


@pytest.mark.parametrize("content,match", [("{", "corrupt JSON"), ("[1, 2]", "expected a JSON object")])
def test_bad_json(tmp_path, content, match):
    path = tmp_path / "m.json"
    path.write_text(content)
    with pytest.raises(SegvizError, match=match):
        load_json(path)
    with pytest.raises(SegvizError, match="no such file"):
        load_json(tmp_path / "missing.json")


def test_never_replaces_what_is_not_a_regular_file(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("keep")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with pytest.raises(SegvizError, match="symbolic link"):
        atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "keep"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(SegvizError, match="FIFO"):
        atomic_write_text(fifo, "new")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(SegvizError, match="directory"):
        atomic_write_text(tmp_path, "new")
    with pytest.raises(SegvizError, match="device"):
        atomic_write_text("/dev/null", "new")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    parent_is_file = tmp_path / "target.txt" / "x.json"
    with pytest.raises(SegvizError, match="is a file, not a directory"):
        atomic_write_text(parent_is_file, "new", parents=True)


def test_replacing_keeps_the_mode_and_refuses_read_only_files(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("old")
    os.chmod(path, 0o640)
    atomic_write_text(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    os.chmod(path, 0o444)
    with pytest.raises(SegvizError, match="read-only"):
        atomic_write_text(path, "newer")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_bounded_reads_refuse_devices_fifos_and_big_files(tmp_path):
    with pytest.raises(SegvizError, match="device"):
        read_bytes_limited("/dev/zero", 1000)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(SegvizError, match="FIFO"):
        read_bytes_limited(fifo, 1000)          # returns at once: opened without blocking
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 2000)
    with pytest.raises(SegvizError, match="more than the 1,000"):
        read_bytes_limited(big, 1000)
    with pytest.raises(SegvizError, match="more than"):
        load_json(big, max_bytes=1000)
    with pytest.raises(SegvizError, match="directory"):
        read_bytes_limited(tmp_path, 1000)
    nan = tmp_path / "nan.json"
    nan.write_text('{"a": NaN}')
    with pytest.raises(SegvizError, match="NaN"):
        load_json(nan)
