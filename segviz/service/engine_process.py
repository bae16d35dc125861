"""One engine process for the window, shared by every background job (Qt-free).

Each job (applying a model, the peer segmenters, training) used to start an interpreter of its own, import the
engine and load the model and the corpus again.  An :class:`EngineProcess` is started once (the first job
starts it) and serves every job of the window on the same JSON-lines pipes, each job on a *channel*:

* window to engine: a frame header ``{"id": N, "size": S}`` and S bytes of the job's own input (its job line,
  then whatever lines the job reads), ``{"id": N, "cancel": true}`` (stop at the next event) or
  ``{"id": N, "close": true}`` (the end of the job's input);
* engine to window: the job's JSON lines with ``"id": N`` added, and ``{"id": N, "type": "ended"}`` when the
  job has returned.

The engine keeps what the jobs share: the corpus it read (one parse per session, not one per job) and the model
it loaded last (:mod:`segviz.service.engine_cache`).  A job runs the same on a private engine of its own (what it
does when no engine is given, e.g. in a script or a test) as on the window's.  Cancelling a channel stops its job
at its next event without ending the engine; closing the engine ends every job at once.
"""
from __future__ import annotations

import os
import queue
import re
import tempfile
import threading
from collections.abc import Callable, Generator

from ..errors import SegvizError
from ..events import Progress
from . import child_process
from .child_process import ChildProcess, dumps, end_process_group, error_text, parse_message, progress_from_message
from .temp_dirs import owned_temporary_directory

__all__ = ["EngineProcess", "Channel", "EngineRequest", "ENDED"]

#: the message type that ends a channel's replies
ENDED = "ended"
_ID = re.compile(rb'^\{"id":\s*(\d+)\s*,')
_EOF = None


class EngineProcess:
    """The window's engine child: started on first use, one :class:`Channel` per job, :meth:`close` ends it."""

    def __init__(self, what: str = "the engine process"):
        self.what = what
        self._closed = threading.Event()
        self._child = ChildProcess(what, self._closed.is_set)
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._channels: dict[int, Channel] = {}
        self._next_id = 1
        self._reader: threading.Thread | None = None
        self._workdir: tempfile.TemporaryDirectory | None = None
        self._failure: str | None = None

    @property
    def pid(self) -> int | None:
        return self._child.pid

    @property
    def workdir(self) -> str | None:
        """The engine's private working directory (its jobs save files the window reads there), None before the
        engine has started."""
        return None if self._workdir is None else self._workdir.name

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def started(self) -> bool:
        return self._child.process is not None

    @property
    def running(self) -> bool:
        process = self._child.process
        return process is not None and process.poll() is None

    def channel(self, what: str, cancelled: Callable[[], bool]) -> Channel:
        """A new job's channel (not started: :meth:`Channel.start` starts the engine if need be)."""
        with self._state_lock:
            number = self._next_id
            self._next_id += 1
            channel = Channel(self, number, what, cancelled)
            self._channels[number] = channel
        return channel

    def _ensure_started(self) -> bool:
        with self._state_lock:
            if self._closed.is_set():
                return False
            if self._child.process is not None:
                return self._failure is None
            self._workdir = owned_temporary_directory("segviz-engine-")
            # the engine asks Linux to end it when its parent dies (PR_SET_PDEATHSIG), and for Linux the parent
            # is the *thread* that started it: started from a job's worker thread, the engine was ended when that
            # job's thread finished, under the next job.  So the reply reader, a thread that lives exactly as long
            # as the engine's output, starts it.
            started: list = []
            ready = threading.Event()
            self._reader = threading.Thread(target=self._start_and_read, args=(started, ready),
                                            name="engine-replies", daemon=True)
            self._reader.start()
            ready.wait()
            if started and started[0] is True:
                return True
            self._child.process = None   # not started: the next job tries again, in a directory of its own
            self._workdir.cleanup()
            self._workdir = None
            if started and isinstance(started[0], BaseException):
                raise started[0]
            return False

    def _start_and_read(self, started: list, ready: threading.Event) -> None:
        try:
            started.append(self._child.start(self._workdir.name))
        except BaseException as exc:   # handed to the caller, on its own thread
            started.append(exc)
        finally:
            ready.set()
        if started[0] is True:
            self._read_replies()

    def _write(self, header: dict, payload: bytes = b"") -> None:
        data = (dumps(header) + "\n").encode("utf-8") + payload
        with self._write_lock:
            process = self._child.process
            try:
                process.stdin.write(data)
                process.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                raise SegvizError(f"{self.what} ended unexpectedly") from None

    def _read_replies(self) -> None:
        """Route each reply line to its channel; when the engine ends, every open channel sees its end."""
        stream = self._child.process.stdout
        try:
            while True:
                limit = child_process.MAX_MESSAGE_BYTES   # read each time: a test lowers it
                line = stream.readline(limit + 1)
                if not line:
                    break
                if not line.endswith(b"\n"):
                    self._fail(f"{self.what}: a message longer than {limit:,} bytes")
                    break
                match = _ID.match(line)
                channel = None if match is None else self._channels.get(int(match.group(1)))
                if match is None or int(match.group(1)) == 0:
                    self._fail(f"{self.what}: malformed message (no channel)" if match is None
                               else f"{self.what} refused a message from the window")
                    break
                if channel is not None:
                    channel._deliver(line.rstrip(b"\n"))
        except (OSError, ValueError):
            pass
        finally:
            with self._state_lock:
                channels = list(self._channels.values())
            for channel in channels:
                channel._deliver(_EOF)

    def _fail(self, text: str) -> None:
        self._failure = text
        with self._state_lock:
            channels = list(self._channels.values())
        for channel in channels:
            channel._deliver(text.encode("utf-8"), failure=True)
        self._child.terminate()

    def _forget(self, number: int) -> None:
        with self._state_lock:
            self._channels.pop(number, None)

    def close(self, *, wait: bool = True) -> None:
        """End the engine and every job on it (any thread; a running job's channel reports the end as a cancel
        when its own job was cancelled, as an error otherwise).

        The engine and every process it forked are killed at once (:func:`child_process.end_process_group`).
        ``wait=False`` (the window's close): that, and the wait for their end -- the kernel freeing a gigabyte or
        two takes a good part of a second --, happen on a thread of its own, so the caller's thread is not held;
        :meth:`wait_closed` waits for it."""
        self._closed.set()
        process = self._child.process
        if process is not None:
            try:
                process.stdin.close()
            except (OSError, ValueError):
                pass
            if not wait:
                self._closer = threading.Thread(target=self.close, name="engine-close", daemon=True)
                self._closer.start()
                return
            end_process_group(process)
            # the reply reader sees the end of the pipe now; its stream is closed only once it has let go of it
            if self._reader is not None and self._reader is not threading.current_thread():
                self._reader.join()
            try:
                process.stdout.close()
            except (OSError, ValueError):
                pass
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None

    _closer: threading.Thread | None = None

    def wait_closed(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for an engine closed with ``wait=False`` to have ended; True once it has
        (or when it was never started)."""
        closer = self._closer
        if closer is not None:
            closer.join(timeout)
            return not closer.is_alive()
        return True


class Channel:
    """One job's end of the shared engine: JSON lines each way, a cancel that stops the job and not the engine,
    and an end that never waits for the job.

    ``cancelled()`` is polled while waiting for a reply, so a cancel from any thread is seen within
    :data:`POLL_S`.  Every method but :meth:`terminate` belongs to one (worker) thread."""

    POLL_S = 0.02

    def __init__(self, engine: EngineProcess, number: int, what: str, cancelled: Callable[[], bool]):
        self.engine = engine
        self.number = number
        self.what = what   # "the training process", for messages
        self.cancelled = cancelled
        self._replies: queue.SimpleQueue = queue.SimpleQueue()
        self._started = False
        self._ended = False

    @property
    def pid(self) -> int | None:
        return self.engine.pid

    @property
    def process(self):
        """The engine's process (shared with the other jobs)."""
        return self.engine._child.process

    def start(self, workdir: str | None = None) -> bool:
        """Start the engine if it is not running yet; False when cancelled first.  (``workdir`` is accepted for
        the interface: the engine has a working directory of its own.)"""
        if self.cancelled() or not self.engine._ensure_started():
            return False
        self._started = True
        return True

    def send(self, message: dict) -> bool:
        return self.write(dumps(message) + "\n")

    def write(self, text: str) -> bool:
        """Write to the job; False when cancelled (a closed pipe after a cancel is not an error)."""
        return self.write_bytes(text.encode("utf-8"))

    def write_bytes(self, data: bytes) -> bool:
        if self.cancelled():
            return False
        try:
            self.engine._write({"id": self.number, "size": len(data)}, data)
            return True
        except SegvizError:
            if self.cancelled():
                return False
            raise

    def receive(self) -> dict | None:
        """The job's next message; None when cancelled.  A job that ends first (or an engine that dies) is an
        error."""
        line = self._read_line()
        if line is None:
            if self.cancelled():
                return None
            process = self.process
            status = None if process is None else process.poll()
            raise SegvizError(f"{self.what} ended unexpectedly"
                              + ("" if status is None else f" (exit status {status})"))
        message = parse_message(line, self.what)
        if message["type"] == "error":
            raise SegvizError(error_text(message, self.what))
        message.pop("id", None)
        return message

    def progress_until_result(self, accept: Callable[[dict], bool] | None = None
                              ) -> Generator[Progress, None, dict | None]:
        """Yield the job's progress messages as ``Progress`` until its result, which is returned (None when
        cancelled); ``accept(message)`` takes the job's other messages (True when it did, or an event to yield
        at once: a model's curve before the rest of its job); any other message is an error."""
        while True:
            message = self.receive()
            if message is None:
                return None
            if message["type"] == "progress":
                yield progress_from_message(message, self.what)
            elif message["type"] == "result":
                return message
            elif accept is not None and (taken := accept(message)):
                if taken is not True:
                    yield taken
            else:
                raise SegvizError(f"{self.what}: unknown message {message['type']!r:.60}")

    def _deliver(self, line: bytes | None, *, failure: bool = False) -> None:
        self._replies.put((line, failure))

    def _read_line(self) -> bytes | None:
        while True:
            if self.cancelled():
                return None
            try:
                line, failure = self._replies.get(timeout=self.POLL_S)
            except queue.Empty:
                continue
            if failure:
                raise SegvizError(line.decode("utf-8", "replace"))
            if line is _EOF or line == b'{"id":%d,"type":"%s"}' % (self.number, ENDED.encode()):
                self._replies.put((_EOF, False))   # every later read sees the end too
                return None
            return line

    def terminate(self) -> None:
        """Stop the job at its next event (any thread; never blocks).  The engine goes on for the others."""
        if not self._started or self._ended or not self.engine.running:
            return
        try:
            self.engine._write({"id": self.number, "cancel": True})
        except SegvizError:
            pass

    def end(self) -> None:
        """The end of the job's input; a cancelled job is told to stop.  Never waits for the job."""
        if self._ended:
            return
        self._ended = True
        if self._started and self.engine.running:
            try:
                self.engine._write({"id": self.number, "cancel": True} if self.cancelled()
                                   else {"id": self.number, "close": True})
            except SegvizError:
                pass
        self.engine._forget(self.number)


class EngineRequest:
    """A job that sends one request line and waits for one result, with progress meanwhile (applying a model,
    the peers, the general relevance): the channel, the cancel and the private engine a job given none uses.

    A subclass sets :attr:`what` (for messages) and calls :meth:`_request` from its ``events`` generator; any
    thread may :meth:`close` it."""

    what = "the engine process"

    def __init__(self, engine: EngineProcess | None):
        self.engine = engine
        self._cancel = threading.Event()
        self._child: Channel | None = None

    def close(self) -> None:
        self._cancel.set()
        if self._child is not None:
            self._child.terminate()

    def _take_corpus_files(self, paths, read_options: dict | None, missing: str) -> None:
        """Keep the corpus files (absolute: the engine has a directory of its own) and reader options the job
        names; ``missing`` is the error when there are no files."""
        self.paths = [os.path.abspath(os.fspath(p)) for p in paths]
        if not self.paths:
            raise SegvizError(missing)
        self.read_options = dict(read_options or {})

    def _request(self, config: Callable[[EngineProcess], dict], *, starting: str | None = None,
                 accept: Callable[[dict], bool] | None = None) -> Generator[Progress, None, dict | None]:
        """Send ``config(engine)`` (built once the engine runs: it may use its working directory), yield the
        progress, return the result message (None when closed first); ``accept`` takes the job's messages that
        are neither (:meth:`Channel.progress_until_result`)."""
        engine = self.engine if self.engine is not None else EngineProcess(self.what)
        child = engine.channel(self.what, self._cancel.is_set)
        self._child = child
        try:
            if starting is not None:
                yield Progress(starting, 0, 0)
            if not child.start() or not child.send(config(engine)):
                return None
            return (yield from child.progress_until_result(accept))
        finally:
            child.end()
            if engine is not self.engine:
                engine.close()
