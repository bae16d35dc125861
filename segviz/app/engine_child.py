"""Entry point of the app's engine child process (see :mod:`segviz.app.child_process`).

Qt-free: it imports only the engine.  The first line on its stdin names the job (``{"job": "train", ...}``,
``{"job": "peers", ...}`` or ``{"job": "apply", ...}``) and carries its settings; what follows is the job's own
exchange.  Replies go to a private copy of the original stdout, while fd 1 is pointed at stderr so that nothing
the engine prints can corrupt the JSON stream.
"""
from __future__ import annotations

import json
import os
import sys


def _die_with_parent() -> None:
    """Ask Linux to end this process when the parent dies (a crashed GUI must not leave work running)."""
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
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    commands = sys.stdin.buffer
    with replies:
        try:
            config = json.loads(commands.readline())
            job = config["job"]
        except (ValueError, TypeError, KeyError) as exc:
            replies.write(json.dumps({"type": "error", "message": f"engine process: bad job ({exc})"}).encode()
                          + b"\n")
            return 1
        if job == "train":
            from .training_job import serve
        elif job == "peers":
            from .peers_job import serve
        elif job == "apply":
            from .apply_job import serve
        else:
            replies.write(json.dumps({"type": "error", "message": f"engine process: unknown job {job!r}"}).encode()
                          + b"\n")
            return 1
        return serve(config, commands, replies)


if __name__ == "__main__":
    sys.exit(main())
