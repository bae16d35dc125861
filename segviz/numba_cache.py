"""Where numba keeps the machine code it compiles for segviz: a directory it can write, or a private one.

segviz's compiled kernels ask numba to cache their machine code on disk (``@njit(cache=True)``), which numba
writes beside the package (``__pycache__``) or in the user's cache directory (``~/.cache/numba``).  When it can
write neither -- a service account without a writable home, segviz installed read-only -- numba refuses to
compile at all (``RuntimeError: cannot cache function ...``) and every command, ``--version`` included, would
end in that traceback.  :func:`ensure_writable_cache` runs when the package is imported, before numba is: when
neither place is writable it points numba (``NUMBA_CACHE_DIR``, inherited by the app's engine process and the
forked workers) at a directory of this user's own in the temporary directory, so the kernels still compile and
are cached for the next run.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def _writable(directory: Path) -> bool:
    """Whether numba could cache here: it creates the directory and a temporary file in it, as numba does."""
    try:
        os.makedirs(directory, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
        return True
    except OSError:
        return False


def _user_cache() -> Path:
    """numba's user-wide cache directory (``appdirs``' user cache directory of the application "numba")."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "numba"
    if sys.platform.startswith("win"):
        return Path(os.environ.get("LOCALAPPDATA") or Path.home()) / "numba" / "cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba"


def _in_tree_writable() -> bool:
    """Whether every package directory of segviz has a writable ``__pycache__`` (numba's first choice)."""
    directories = [PACKAGE] + [entry for entry in PACKAGE.iterdir() if (entry / "__init__.py").is_file()]
    return all(_writable(directory / "__pycache__") for directory in directories)


def _private_directory() -> str:
    """``TMPDIR/segviz-numba-UID``, this user's own (a directory, not a link, writable by no one else); a fresh
    temporary directory when that name is taken by anything else."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    path = os.path.join(tempfile.gettempdir(), f"segviz-numba-{uid}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return tempfile.mkdtemp(prefix="segviz-numba-")
    info = os.lstat(path)
    own = stat.S_ISDIR(info.st_mode) and (not hasattr(os, "getuid") or info.st_uid == uid)
    if not own or info.st_mode & 0o022 or not _writable(Path(path)):
        return tempfile.mkdtemp(prefix="segviz-numba-")
    return path


def ensure_writable_cache() -> str | None:
    """Set ``NUMBA_CACHE_DIR`` to a private directory when numba could write its cache neither beside the
    package nor in the user's cache directory; returns the directory chosen (None: numba's own choice stands,
    or the user named one).  Never raises: without any writable directory numba's own message stands."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    try:
        if _in_tree_writable():
            return None
        if _writable(_user_cache()):
            return None
        path = _private_directory()
    except (OSError, RuntimeError):   # no home directory at all, no temporary directory: nothing better to offer
        return None
    os.environ["NUMBA_CACHE_DIR"] = path
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None:   # numba was imported first (by the caller): tell it too
        numba_config.CACHE_DIR = path
    return path
