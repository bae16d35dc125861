"""Entry point of the app's engine process (see :mod:`segviz.service.engine_process` for the window's side).

Qt-free: it imports only the engine.  Every job of the window runs here on a *channel* of its own, each on its own
thread: a frame ``{"id": N, "size": S}`` followed by S bytes feeds channel N's input (its first line names the
job -- ``{"job": "train", ...}``, ``{"job": "peers", ...}``, ``{"job": "apply", ...}``, ``{"job": "relevance",
...}`` or ``{"job": "read", ...}`` -- and carries its
settings; what follows is the job's own exchange); ``{"id": N, "cancel": true}`` stops it at its next event and
``{"id": N, "close": true}`` ends its input.  Every reply line carries its channel's id, and a job that returns
says ``{"id": N, "type": "ended"}``.  Replies go to a private copy of the original stdout, while fd 1 is pointed
at stderr so that nothing the engine prints can corrupt the JSON stream.  The process ends when its input ends
(the window closed it) or its parent dies.
"""
from __future__ import annotations

import json
import os
import sys
import threading

from ..forking import mark_quiet
from .child_process import JobCancelled, dumps

#: the largest frame the window may send (its job lines are small: a trained model's JSON is the largest)
MAX_FRAME_BYTES = 256 * 1024 * 1024


class Inbox:
    """One job's input, read as lines: it ends when the window closes it, at once when it cancels it."""

    def __init__(self):
        self._buffer = bytearray()
        self._ready = threading.Condition()
        self._closed = False
        self.cancelled = False

    def feed(self, data: bytes) -> None:
        with self._ready:
            if not self._closed:
                self._buffer += data
            self._ready.notify_all()

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def cancel(self) -> None:
        with self._ready:
            self.cancelled = True
            self._closed = True
            self._buffer.clear()
            self._ready.notify_all()

    def readline(self) -> bytes:
        """The next line (with its end), what is left at the end of the input, or ``b""`` after it."""
        with self._ready:
            while True:
                end = self._buffer.find(b"\n")
                if end >= 0:
                    line = bytes(self._buffer[:end + 1])
                    del self._buffer[:end + 1]
                    return line
                if self._closed:
                    rest = bytes(self._buffer)
                    self._buffer.clear()
                    return rest
                self._ready.wait()

    def __iter__(self):
        while line := self.readline():
            yield line


def _serve_function(job: str):
    if job == "train":
        from .training_job import serve
    elif job == "peers":
        from .peers_job import serve
    elif job == "apply":
        from .apply_job import serve
    elif job == "relevance":
        from .general_relevance import serve
    elif job == "read":
        from .read_job import serve
    else:
        return None
    return serve


def _run_job(number: int, inbox: Inbox, write, jobs: dict) -> None:
    """Channel ``number``'s job: its first line names it; its replies carry the channel's id."""

    def send(message: dict) -> None:
        if inbox.cancelled:
            raise JobCancelled()
        write({"id": number, **message})

    try:
        try:
            config = json.loads(inbox.readline())
            serve = _serve_function(config["job"])
        except (ValueError, TypeError, KeyError) as exc:
            if not inbox.cancelled:
                write({"id": number, "type": "error", "message": f"engine process: bad job ({exc})"})
            return
        if serve is None:
            write({"id": number, "type": "error", "message": f"engine process: unknown job {config['job']!r:.60}"})
            return
        serve(config, inbox, send)
    except JobCancelled:   # cancelled while a job without its own guard was sending: the window asked for it
        pass
    finally:
        jobs.pop(number, None)
        try:
            write({"id": number, "type": "ended"})
        except (OSError, ValueError):
            pass


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
    lock = threading.Lock()
    jobs: dict[int, Inbox] = {}
    # this thread only reads frames, feeds inboxes and writes replies, none of which a forked worker of a job does
    mark_quiet()

    def write(message: dict) -> None:
        data = dumps(message).encode("utf-8") + b"\n"
        with lock:
            replies.write(data)
            replies.flush()

    with replies:
        while True:
            header = commands.readline()
            if not header:
                break
            try:
                frame = json.loads(header)
                number = frame["id"]
                size = frame.get("size")
                if isinstance(number, bool) or not isinstance(number, int) or number < 1 or (
                        size is not None and (isinstance(size, bool) or not isinstance(size, int)
                                              or not 0 <= size <= MAX_FRAME_BYTES)):
                    raise ValueError("a malformed frame")
            except (ValueError, TypeError, KeyError) as exc:
                write({"id": 0, "type": "error", "message": f"engine process: bad frame ({exc!s:.100})"})
                return 1
            inbox = jobs.get(number)
            if size is not None:
                data = commands.read(size)
                if len(data) < size:
                    break
                if inbox is None:
                    inbox = jobs[number] = Inbox()
                    threading.Thread(target=_run_job, args=(number, inbox, write, jobs), daemon=True,
                                     name=f"job-{number}").start()
                inbox.feed(data)
            elif inbox is not None:
                inbox.cancel() if frame.get("cancel") else inbox.close()
        for inbox in list(jobs.values()):
            inbox.cancel()
    return 0


if __name__ == "__main__":
    sys.exit(main())
