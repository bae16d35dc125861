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
import threading
import weakref

__all__ = ["fork_is_safe", "mark_quiet"]

_QUIET: "weakref.WeakSet[threading.Thread]" = weakref.WeakSet()
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
    return all(thread is me or thread in quiet or not thread.is_alive() for thread in threading.enumerate())
