"""Atomic, pickle-free persistence: nothing half-written survives a crash, corrupt files give clear errors."""
from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.persist import atomic_save_npz, atomic_write_json, atomic_write_text, load_json, load_npz


def test_json_roundtrip_and_format_check(tmp_path):
    path = tmp_path / "sub" / "m.json"
    atomic_write_json(path, {"format": "segviz-x", "version": 1, "w": [1.5, 2.0]})
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
