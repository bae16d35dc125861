"""When this process may fork: only while no other thread could hold something the forked child needs.

``os.fork`` copies the calling thread alone.  A lock another thread holds at that moment -- a module's import lock
while it imports nltk, numba's compilation lock, a handler's lock -- stays held for ever in the child, and a child
that needs it hangs (its parent then waits for it).  The engine process runs its jobs on threads, so the two places
that fork a share of the work (:mod:`segviz.features.parallel`, :mod:`segviz.service.forked_worker`) ask
:func:`fork_is_safe` first and do the whole work in process when it says no: slower, never stuck.

Threads that only wait on a file descriptor the child never touches -- the engine's command reader, a forked
worker's collector -- are marked with :func:`mark_quiet` and do not count.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import weakref

__all__ = ["fork_is_safe", "mark_quiet", "die_with_parent", "become_subreaper"]

_QUIET: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_QUIET_LOCK = threading.Lock()


def mark_quiet(thread: threading.Thread | None = None) -> threading.Thread:
    """Declare ``thread`` (default: the calling one) one that a forked child never waits for: it only blocks on
    its own file descriptors and holds no lock the child's work takes.  Returns the thread."""
    thread = threading.current_thread() if thread is None else thread
    with _QUIET_LOCK:
        _QUIET.add(thread)
    return thread


def fork_is_safe() -> bool:
    """Whether ``os.fork`` exists here and every other live thread of this process is marked quiet."""
    if not hasattr(os, "fork"):
        return False
    me = threading.current_thread()
    with _QUIET_LOCK:
        quiet = set(_QUIET)
    return all(thread is me or thread in quiet or not _running(thread) for thread in threading.enumerate())


def _running(thread: threading.Thread) -> bool:
    """Whether ``thread`` still runs.  A thread Python did not start (one of Qt's, say) that once ran Python code
    stays listed, and "alive", after its system thread has ended; on Linux the system's own list of this process's
    threads says whether it is still there."""
    if not thread.is_alive():
        return False
    native = getattr(thread, "native_id", None)
    if native is None or not os.path.isdir(_TASKS):
        return True
    return os.path.exists(os.path.join(_TASKS, str(native)))


#: this process's threads, one entry per system thread id (Linux)
_TASKS = "/proc/self/task"


def die_with_parent() -> None:
    """In a forked child: ask Linux to kill it when the thread that forked it ends (its parent's job, or the
    whole engine when the window closes it), so no forked worker outlives the process it works for -- and keeps
    its parent's pipes open meanwhile.  Nothing elsewhere."""
    if _PRCTL is None:
        return
    try:
        _PRCTL(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def become_subreaper() -> bool:
    """Ask Linux to make this process the parent of its descendants that lose theirs (a forked worker whose engine
    was killed), so that it can reap them itself (``os.waitpid``) instead of leaving them to the init process,
    which may take a second to; True when it did.  Nothing elsewhere."""
    if _PRCTL is None:
        return False
    try:
        return _PRCTL(36, 1, 0, 0, 0) == 0   # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _prctl():
    # looked up when this module is imported, never in a forked child (an import there could wait on a lock)
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()
