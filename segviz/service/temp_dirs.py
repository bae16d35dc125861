"""The window's temporary directories: each names the process that owns it, and the next window removes those of
owners that are gone (Qt-free).

A window makes private directories under the system's temporary directory: its engine process's working directory (``segviz-engine-*``, with the language models a
training fitted), a headless run's throw-away settings (``segviz-shot-*``) and the benchmark's exports
(``segviz-bench-*``).  Each is removed when its step ends or the window closes -- SIGTERM and SIGINT take the
window's normal close path -- but a window killed
outright (SIGKILL, a crash) cannot remove them.  So every one holds :data:`OWNER_FILE`, the id of the window
process, and :func:`remove_abandoned` (run as each window starts) removes the directories of this user whose
owner no longer runs.
"""
from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

from ..errors import SegvizError
from ..persist import read_bytes_limited

#: the name prefixes of every temporary directory a window makes
PREFIXES = ("segviz-engine-", "segviz-shot-", "segviz-bench-")
#: the file in each that names the window process owning it
OWNER_FILE = "owner.pid"
#: the largest process-id file read (a directory's owner)
MAX_PID_BYTES = 64


#: every directory this process made and may not have removed yet (see :func:`remove_owned`)
_owned: set[str] = set()
_owned_lock = threading.Lock()


def _write_owner(directory: str) -> None:
    with _owned_lock:
        _owned.add(directory)
    try:
        (Path(directory) / OWNER_FILE).write_text(str(os.getpid()), encoding="ascii")
    except OSError:
        pass   # without the owner file a later window leaves this directory alone: nothing worse


def owned_directory(prefix: str) -> str:
    """A new private directory (0700, like :func:`tempfile.mkdtemp`) naming this process as its owner; the caller
    removes it."""
    directory = tempfile.mkdtemp(prefix=prefix)
    _write_owner(directory)
    return directory


def owned_temporary_directory(prefix: str) -> tempfile.TemporaryDirectory:
    """:class:`tempfile.TemporaryDirectory` (removed on ``cleanup`` or at the end of a ``with``) naming this
    process as its owner."""
    directory = tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True)
    _write_owner(directory.name)
    return directory


def remove_owned() -> None:
    """Remove every directory this process made that is still there: the last act of a window leaving in a hurry
    (its steps' own clean-up never runs when the process ends from under them)."""
    with _owned_lock:
        directories = list(_owned)
        _owned.clear()
    for directory in directories:
        shutil.rmtree(directory, ignore_errors=True)


def read_regular(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (not a link, FIFO or device) of at most ``max_bytes``;
    None otherwise.  Never blocks (a FIFO) and never reads more than the bound (a link to /dev/zero)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return read_bytes_limited(path, max_bytes)
    except (OSError, SegvizError):
        return None


def read_pid(path: Path) -> int | None:
    """The process id written in ``path`` (an owner or a claim file), or None."""
    raw = read_regular(path, MAX_PID_BYTES)
    if raw is None:
        return None
    try:
        pid = int(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None
    return pid if 0 < pid < 2 ** 31 else None


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError as exc:   # alive but not ours to signal
        return exc.errno == errno.EPERM
    # a killed process whose parent has not yet collected it (a zombie) still answers the signal
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace").rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def remove_abandoned(parent: str | os.PathLike | None = None, prefixes: tuple[str, ...] = PREFIXES) -> list[Path]:
    """Remove the window directories under ``parent`` (default: the temporary directory) whose owning process has
    died, e.g. killed outright before it could remove its own; returns what was removed.

    Only real directories of this user with an owner file naming a process that no longer exists are removed;
    a symbolic link, another user's directory, one without an owner file or one whose owner lives is left
    alone (a reused process id keeps a directory, never the reverse)."""
    removed = []
    try:
        candidates = [entry for entry in Path(parent or tempfile.gettempdir()).iterdir()
                      if entry.name.startswith(prefixes)]
    except OSError:
        return removed
    for directory in sorted(candidates):
        try:
            info = os.lstat(directory)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        pid = read_pid(directory / OWNER_FILE)
        if pid is None or pid == os.getpid() or process_alive(pid):
            continue
        shutil.rmtree(directory, ignore_errors=True)
        if not directory.exists():
            removed.append(directory)
    return removed


__all__ = ["PREFIXES", "OWNER_FILE", "owned_directory", "owned_temporary_directory", "remove_owned", "read_regular",
           "read_pid", "process_alive", "remove_abandoned"]
