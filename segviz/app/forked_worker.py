"""A share of the engine's work in a process forked from it, its results coming back as JSON lines (Qt-free).

The engine splits two kinds of work between itself and a forked process: reading a corpus of several files
(:mod:`segviz.app.parallel_reading`) and applying a model to a corpus of several documents
(:func:`segviz.app.tasks.apply_model_task`).  The forked process inherits everything it needs (the files' names,
the model, the documents; copy-on-write), does its share, writes one JSON object a line on a pipe (no pickle) and
leaves with ``os._exit`` without running anything of the engine's; a thread here collects the lines meanwhile, so
the process never blocks on a full pipe.  The caller decodes what came and does itself whatever did not: a worker
that dies, sends what does not decode or never answers only costs the time it took.

Forking copies only the calling thread, so the work must not need a lock another thread of the engine may hold:
it only computes and writes to its pipe.  Never used in the window's process.
"""
from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable

__all__ = ["ForkedWorker", "can_fork"]


def can_fork() -> bool:
    """Whether a share of the work can go to a forked process here (a fork, and a second core for it)."""
    return hasattr(os, "fork") and (os.cpu_count() or 1) > 1


class ForkedWorker:
    """Runs ``work(send)`` in a forked process; ``send(obj)`` writes one JSON line back.  :meth:`messages` waits
    for the end of its output and returns what it sent; :meth:`end` ends it (always call it)."""

    def __init__(self, work: Callable[[Callable[[dict], None]], None]):
        self.lines: list[bytes] = []
        self.pid: int | None = None
        self._done = threading.Event()
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            self._done.set()
            return
        if pid == 0:   # the worker
            status = 1
            try:
                os.close(read_end)
                with os.fdopen(write_end, "wb") as out:
                    def send(obj: dict) -> None:
                        out.write(json.dumps(obj, separators=(",", ":")).encode("utf-8") + b"\n")
                        out.flush()

                    work(send)
                status = 0
            except BaseException:   # whatever it did not send, the caller does itself
                pass
            finally:
                os._exit(status)
        self.pid = pid
        os.close(write_end)
        threading.Thread(target=self._collect, args=(read_end,), name="forked-worker", daemon=True).start()

    def _collect(self, fd: int) -> None:
        try:
            with os.fdopen(fd, "rb") as lines:
                for line in lines:
                    self.lines.append(line)
        except (OSError, ValueError):
            pass
        finally:
            self._done.set()

    def messages(self, *, wait_s: float) -> list:
        """The objects the worker sent, in order, up to the first line that is not JSON; after ``wait_s`` seconds
        without the end of its output the worker is ended and what it sent so far is returned."""
        if not self._done.wait(wait_s):
            self.end()
            self._done.wait()
        out = []
        for line in list(self.lines):
            try:
                out.append(json.loads(line))
            except (ValueError, RecursionError):
                break
        return out

    def end(self) -> None:
        """End the worker if it still runs, and collect its exit status."""
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
