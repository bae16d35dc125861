"""Atomic, pickle-free persistence: nothing half-written survives a crash, corrupt files give clear errors."""
from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from segviz import persist
from segviz.bundle import read_bundle, write_bundle
from segviz.errors import SegvizError
from segviz.persist import (
    atomic_write_json,
    atomic_write_text,
    load_json,
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


def test_arrays_roundtrip_in_a_bundle_refuse_objects_and_detect_corruption(tmp_path):
    """Arrays are stored in bundles (.npy members, never pickled); the npz helpers are gone."""
    assert not hasattr(persist, "load_npz") and not hasattr(persist, "atomic_save_npz")
    path = tmp_path / "a.segviz"
    write_bundle(path, "arrays", {"meta": {"n": 2}}, {"x": np.arange(5), "y": np.eye(2)})
    bundle = read_bundle(path, kind="arrays")
    assert bundle.arrays["x"].tolist() == [0, 1, 2, 3, 4] and bundle.arrays["y"].tolist() == [[1, 0], [0, 1]]
    assert bundle.document("meta") == {"n": 2}
    with pytest.raises(SegvizError, match="no z.json"):
        bundle.document("z")
    with pytest.raises(SegvizError, match="holds 'arrays', not 'segmenter'"):
        read_bundle(path, kind="segmenter")
    with pytest.raises(SegvizError, match="never pickles"):
        write_bundle(tmp_path / "b.segviz", "arrays", {}, {"o": np.array([{"a": 1}], dtype=object)})
    assert not (tmp_path / "b.segviz").exists()
    bad = tmp_path / "bad.segviz"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(SegvizError, match="not a segviz model archive"):
        read_bundle(bad)
    with pytest.raises(SegvizError, match="no such file"):
        read_bundle(tmp_path / "none.segviz")
    npz = tmp_path / "old.npz"                  # the earlier array files: a zip, but no bundle
    np.savez(npz, x=np.arange(3))
    with pytest.raises(SegvizError, match="not a segviz model archive"):
        read_bundle(npz)


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
