"""Entry point of the training child process (see :mod:`segviz.app.training_job`).

Qt-free: it imports only the engine.  Its stdin carries the job and the corpus, then one ``next`` per wanted
event; its replies go to a private copy of the original stdout, while fd 1 is pointed at stderr so that nothing
the engine prints can corrupt the JSON stream.
"""
from __future__ import annotations

import os
import sys

from .training_job import serve


def _die_with_parent() -> None:
    """Ask Linux to end this process when the parent dies (a crashed GUI must not leave training running)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def main() -> int:
    _die_with_parent()
    if os.getppid() == 1:   # the parent died before the request above took effect
        return 0
    try:
        os.nice(5)   # the window the user is looking at comes first
    except OSError:
        pass
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with replies:
        return serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    sys.exit(main())
