"""Files that cannot hurt: atomic, pickle-free writes and bounded, validated reads.

Writes
    Every file segviz writes goes to a temporary file in the target's directory first, is flushed to disk, and
    is then moved into place with one :func:`os.replace`, so a reader (or a crash, a SIGINT, a SIGKILL) sees the
    old file or the new one, never a mix or a torn file.  Two writers to one path: the last complete one wins;
    both files are whole.  What is already at the output path is checked first (:func:`check_output_path`):

    * a regular file is replaced and keeps its permission bits;
    * a read-only regular file, a symbolic link, a directory, a FIFO, a socket or a device is *refused* with one
      line (a symlink is refused rather than written through: the user names the file they mean);
    * a missing parent directory is refused unless the caller asks for it (``parents=True``, the CLI's
      ``--parents``);
    * a path that is one of the caller's ``inputs`` (the same file, also through a symbolic or hard link) is
      refused: ``segviz train a.ref --out a.ref`` would turn the corpus into a model;
    * a file name longer than the file system allows is refused before any work, and the temporary name is
      never longer than the target's (``.NAME.XXXXXXXX.tmp`` with NAME shortened to fit).

    A SIGTERM handled by the caller as an exception (the CLI does, :func:`segviz.cli.main`) removes the
    temporary file like any other interruption; only a SIGKILL can leave one behind.

Reads
    :func:`read_bytes_limited` refuses anything that is not a regular file (``/dev/zero`` is refused at once, a
    FIFO never blocks) and anything larger than a stated limit, before reading it.  JSON is parsed from at most
    :data:`MAX_JSON_BYTES`; arrays are never unpickled.
"""
from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from .errors import SegvizError

#: the largest JSON document segviz reads (a model's JSON is ~100 kB; a segmentation with 10^6 sentences ~30 MB)
MAX_JSON_BYTES = 256 * 1024 * 1024


def _default_mode() -> int:
    """The permissions an ordinary ``open(path, "w")`` would give (mkstemp's 0600 would hide shared models)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


#: the longest file name (in bytes) when the file system does not say
DEFAULT_NAME_MAX = 255
#: the part of a temporary name that is not the target's: ``.``, ``.``, mkstemp's 8 characters and ``.tmp``
_TEMP_EXTRA = 1 + 1 + 8 + 4


def _name_max(directory: Path) -> int:
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return DEFAULT_NAME_MAX


def _temp_prefix(name: str, name_max: int) -> str:
    """``.NAME.`` with NAME shortened (by whole characters) so that the temporary name fits the file system: a
    legal 250-character target must not fail after hours of training on its longer temporary name."""
    room = max(1, name_max - _TEMP_EXTRA)
    stem = name
    while len(os.fsencode(stem)) > room:
        stem = stem[:-1]
    return f".{stem}."


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Are ``a`` and ``b`` one file (following symbolic links; hard links are one file too)?  False when either
    is missing."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def check_output_path(path: str | os.PathLike, *, parents: bool = False,
                      inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Refuse, with one line, an output path segviz must not write; return it as a :class:`Path`.

    Checked before any work is done, so a long training run cannot fail at its very end on a bad ``--out``.
    ``inputs`` are the files the work reads (corpus files, models): the output may not be one of them."""
    path = Path(path)
    if not path.name or path.name in (".", ".."):
        raise SegvizError(f"{path}: not a file name")
    _check_name_length(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise SegvizError(f"{path}: a part of this path is a file, not a directory") from None
    except OSError as exc:
        raise SegvizError(f"{path}: cannot write here ({exc.strerror or exc})") from None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise SegvizError(f"{path}: is {_kind_of(st.st_mode)}; segviz only writes regular files "
                              "(give another output path)")
        # the mode bits, not os.access: root may write anything, yet a read-only file says "keep me"
        if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
            raise SegvizError(f"{path}: is read-only; not replacing it")
        for source in inputs:
            if same_file(path, source):
                also = "" if os.fspath(source) == os.fspath(path) else f" ({source})"
                raise SegvizError(f"{path}: is also an input{also}; segviz does not write over what it reads "
                                  "(give another output path)")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        if parent.is_symlink():
            raise SegvizError(f"{parent}: is a dangling symbolic link")
        if not parents:
            raise SegvizError(f"{parent}: no such directory (create it first, or pass --parents)")
        ancestor = parent
        while not ancestor.exists():
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise SegvizError(f"{ancestor}: is not a directory, cannot create {parent} inside it")
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SegvizError(f"{parent}: cannot create directory ({exc.strerror or exc})") from None
    elif not parent.is_dir():
        raise SegvizError(f"{parent}: is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SegvizError(f"{parent}: directory is not writable")
    return path


def _check_name_length(path: Path) -> None:
    """A name the file system cannot hold, refused before any work (not by the write after it)."""
    parent = path.parent if str(path.parent) else Path(".")
    try:
        name_max = _name_max(parent) if parent.is_dir() else DEFAULT_NAME_MAX
    except OSError:   # a parent path that is itself too long, say
        name_max = DEFAULT_NAME_MAX
    size = len(os.fsencode(path.name))
    if size > name_max:
        raise SegvizError(f"{path.parent / (path.name[:40] + '...')}: a file name of {size} bytes, longer than the "
                          f"{name_max} this file system allows")


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_output(path: str | os.PathLike, *, parents: bool = False) -> Iterator[BinaryIO]:
    """A binary file object whose content replaces ``path`` in one atomic step when the ``with`` block ends
    without an exception (see the module doc); on any exception the temporary file is removed and ``path`` is
    untouched.  For output written a piece at a time (``segviz segment --scheduler``)."""
    path = check_output_path(path, parents=parents)
    directory = path.parent if str(path.parent) else Path(".")
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = _default_mode()
    tmp = None
    try:
        # inside the try: a signal turned into an exception (SIGINT, the CLI's SIGTERM) from here on removes the
        # temporary file below
        try:
            fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path.name, _name_max(directory)), suffix=".tmp",
                                       dir=directory)
        except OSError as exc:
            raise SegvizError(f"{path}: cannot write ({exc.strerror or exc})") from None
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        if isinstance(exc, OSError):
            raise SegvizError(f"{path}: cannot write ({exc.strerror or exc}); the previous file is untouched") \
                from None
        raise
    _fsync_directory(directory)


def atomic_write(path: str | os.PathLike, write: Callable[[Any], None], *, parents: bool = False) -> Path:
    """Write ``path`` with ``write(handle)`` (a binary file object) as one atomic replacement (see the module doc)."""
    with atomic_output(path, parents=parents) as handle:
        write(handle)
    return Path(path)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, parents: bool = False) -> Path:
    return atomic_write(path, lambda handle: handle.write(data), parents=parents)


def atomic_write_text(path: str | os.PathLike, text: str, *, parents: bool = False) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"), parents=parents)


def atomic_write_json(path: str | os.PathLike, obj: Any, *, indent: int | None = 1, parents: bool = False) -> Path:
    # serialised before the file is touched: a value JSON cannot hold (NaN, an object) leaves the old file alone
    text = json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"
    return atomic_write_text(path, text, parents=parents)


def read_bytes_limited(path: str | os.PathLike, max_bytes: int, *, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; one-line errors for anything else.

    The file is opened without blocking (a FIFO would otherwise wait for a writer forever) and checked with
    ``fstat`` before a byte is read, so ``/dev/zero`` or a 40 GB file are refused at once."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise SegvizError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SegvizError(f"{path}: is a directory, expected a {what}") from None
    except OSError as exc:
        raise SegvizError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SegvizError(f"{path}: is {_kind_of(st.st_mode)}, expected a {what}")
        if st.st_size > max_bytes:
            raise SegvizError(f"{path}: {st.st_size:,} bytes is more than the {max_bytes:,} a {what} may have")
        # at most the size fstat gave, plus one byte to see growth: read(max_bytes + 1) reserved the whole limit
        # (2 GiB for a model file) before reading a byte, refused outright under a memory limit
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(min(st.st_size, max_bytes) + 1)
            if len(data) > st.st_size:   # it grew, or says size 0 (/proc): the rest in bounded chunks
                parts, size = [data], len(data)
                while size <= max_bytes:
                    chunk = handle.read(min(1 << 20, max_bytes + 1 - size))
                    if not chunk:
                        break
                    parts.append(chunk)
                    size += len(chunk)
                data = b"".join(parts)
    except OSError as exc:
        raise SegvizError(f"{path}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise SegvizError(f"{path}: grew beyond the {max_bytes:,} bytes a {what} may have while being read")
    return data


def parse_json_object(data: bytes, *, source: str, expected_format: str | None = None) -> dict:
    """Parse a JSON object from ``data`` (UTF-8), checking its ``format`` field; errors name ``source``."""
    try:
        obj = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise SegvizError(f"{source}: not UTF-8 text, so not a JSON file") from None
    except json.JSONDecodeError as exc:
        raise SegvizError(f"{source}: corrupt JSON ({exc.msg} at line {exc.lineno})") from None
    except (ValueError, RecursionError) as exc:
        raise SegvizError(f"{source}: unusable JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise SegvizError(f"{source}: expected a JSON object, found {type(obj).__name__}")
    if expected_format is not None and obj.get("format") != expected_format:
        raise SegvizError(f"{source}: not a {expected_format} file (format field is {obj.get('format')!r})")
    return obj


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def load_json(path: str | os.PathLike, *, expected_format: str | None = None,
              max_bytes: int = MAX_JSON_BYTES) -> dict:
    """Read a JSON object, with a clear :class:`SegvizError` for a missing, oversized, corrupt or foreign file."""
    data = read_bytes_limited(path, max_bytes, what="JSON file")
    return parse_json_object(data, source=str(path), expected_format=expected_format)


