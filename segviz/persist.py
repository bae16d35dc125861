"""Atomic, pickle-free persistence.

Every file segviz writes goes to a temporary file in the target directory first and is then moved into place
with :func:`os.replace`, so a cancelled or crashed run never leaves a half-written model behind (and never
destroys the previous one).  Arrays are stored as ``.npz`` loaded with ``allow_pickle=False``; metadata as JSON.
"""
from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .errors import SegvizError


def _default_mode() -> int:
    """The permissions an ordinary ``open(path, "w")`` would give (mkstemp's 0600 would hide shared models)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _atomic_write(path: str | os.PathLike, write) -> Path:
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _default_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    return _atomic_write(path, lambda handle: handle.write(data))


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, obj: Any, *, indent: int | None = 1) -> Path:
    return atomic_write_text(path, json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False) + "\n")


def atomic_save_npz(path: str | os.PathLike, **arrays: np.ndarray) -> Path:
    """Save arrays compressed; refuses object arrays (they would need pickle to load)."""
    for name, value in arrays.items():
        if np.asarray(value).dtype == object:
            raise TypeError(f"array {name!r} has dtype object; segviz never pickles")
    return _atomic_write(path, lambda handle: np.savez_compressed(handle, **arrays))


def load_json(path: str | os.PathLike, *, expected_format: str | None = None) -> dict:
    """Read a JSON object, with a clear :class:`SegvizError` for a missing, corrupt or foreign file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SegvizError(f"{path}: no such file") from None
    except (UnicodeDecodeError, IsADirectoryError, PermissionError) as exc:
        raise SegvizError(f"{path}: cannot read as a JSON file ({exc.__class__.__name__})") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SegvizError(f"{path}: corrupt JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(obj, dict):
        raise SegvizError(f"{path}: expected a JSON object, found {type(obj).__name__}")
    if expected_format is not None and obj.get("format") != expected_format:
        raise SegvizError(
            f"{path}: not a {expected_format} file (format field is {obj.get('format')!r})"
        )
    return obj


def load_npz(path: str | os.PathLike, *, required: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """Load every array of an ``.npz`` eagerly, without pickle; clear errors for corrupt or foreign files."""
    path = Path(path)
    if not path.is_file():
        raise SegvizError(f"{path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise SegvizError(f"{path}: corrupt or not an .npz array file ({exc})") from None
    missing = [name for name in required if name not in arrays]
    if missing:
        raise SegvizError(f"{path}: missing arrays {', '.join(missing)} (foreign or outdated file)")
    return arrays
