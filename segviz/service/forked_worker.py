"""A share of the engine's work in a process forked from it, its results coming back as JSON lines (Qt-free).

The engine splits two kinds of work between itself and a forked process: reading a corpus of several files
(:mod:`segviz.service.parallel_reading`) and applying a model to a corpus of several documents
(:func:`segviz.service.tasks.apply_model_task`).  The forked process inherits everything it needs (the files' names,
the model, the documents; copy-on-write), does its share, writes one JSON object a line on a pipe (no pickle) and
leaves with ``os._exit`` without running anything of the engine's; a thread here collects the lines meanwhile, so
the process never blocks on a full pipe.  The caller decodes what came and does itself whatever did not: a worker
that dies, sends what does not decode or never answers only costs the time it took.

Forking copies only the calling thread, so the worker is forked only while no other thread of the engine could hold a
lock its work needs (:func:`segviz.forking.fork_is_safe`); otherwise the caller does the whole work.  Never used in
the window's process.
"""
from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..errors import SegvizError
from ..forking import die_with_parent, fork_is_safe, mark_quiet

T = TypeVar("T")

__all__ = ["ForkedWorker", "can_fork", "nearest_half", "PATIENCE", "MIN_WAIT_S"]

#: how long the caller waits for the worker once its own share is done: this many times its own share's time, and
#: at least MIN_WAIT_S seconds; then the worker is ended and the caller does the rest itself
PATIENCE = 3.0
MIN_WAIT_S = 60.0
#: what a message that is not the result it should be raises when decoded
DECODE_ERRORS = (SegvizError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)


def nearest_half(sizes: Sequence[float]) -> tuple[int, float]:
    """``(split, larger)``: the worker's share as the last items ``sizes[split:]`` whose sum is nearest to half of
    the total (``split`` in 1..len-1), and the larger of the two shares; ``(len(sizes), total)`` for fewer than
    two items."""
    total = sum(sizes)
    best, best_larger, taken = len(sizes), total, 0
    for split in range(len(sizes) - 1, 0, -1):
        taken += sizes[split]
        larger = max(taken, total - taken)
        if larger < best_larger:
            best, best_larger = split, larger
    return best, best_larger


def can_fork() -> bool:
    """Whether a share of the work can go to a forked process here: a second core for it, and no other thread
    that could hold what the child needs (:func:`segviz.forking.fork_is_safe`)."""
    return (os.cpu_count() or 1) > 1 and fork_is_safe()


class ForkedWorker:
    """Runs ``work(send)`` in a forked process; ``send(obj)`` writes one JSON line back.  :meth:`results` waits
    for the end of its output and returns what it sent, decoded; :meth:`end` ends it (always call it)."""

    def __init__(self, work: Callable[[Callable[[dict], None]], None]):
        self.lines: list[bytes] = []
        self.pid: int | None = None
        self._done = threading.Event()
        if not fork_is_safe():   # as if the fork failed: the caller does the work itself
            self._done.set()
            return
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
                die_with_parent()
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
        # it only reads the worker's pipe, so a later fork (the worker's own share of signals) may leave it behind
        collector = threading.Thread(target=self._collect, args=(read_end,), name="forked-worker", daemon=True)
        mark_quiet(collector).start()

    def _collect(self, fd: int) -> None:
        try:
            with os.fdopen(fd, "rb") as lines:
                for line in lines:
                    self.lines.append(line)
        except (OSError, ValueError):
            pass
        finally:
            self._done.set()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the end of the worker's output; True once it has ended (a caller
        that reports progress meanwhile counts :attr:`lines`, which grows as the worker sends)."""
        return self._done.wait(timeout)

    def results(self, decode: Callable[[int, dict], T], *, started: float) -> list[T]:
        """What the worker sent, each object decoded by ``decode(index, obj)``, in order, up to the first that is
        not JSON or does not decode (the caller does that one and those after it).  The caller's own share began
        at ``started`` (``time.monotonic()``); the worker gets :data:`PATIENCE` times as long again (at least
        :data:`MIN_WAIT_S`) to end its output, then it is ended and what it sent so far is taken."""
        if not self._done.wait(max(MIN_WAIT_S, PATIENCE * (time.monotonic() - started))):
            self.end()
            self._done.wait()
        out = []
        for index, line in enumerate(list(self.lines)):
            try:
                out.append(decode(index, json.loads(line)))
            except DECODE_ERRORS:
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
