"""The window's engine interpreter, and the messages it exchanges with the window (Qt-free).

A worker *thread* shares the GIL with the window: numpy/scipy calls and pure-Python loops of the engine held it
for hundreds of milliseconds and froze the window (docs/benchmarks.md, *App*).  So the long, CPU-bound steps run
in a child interpreter:

* started with ``python -I`` (no current directory, no ``PYTHON*`` variables, no user site on its ``sys.path``),
  loading this very ``segviz`` package by location, so nothing in the working directory can shadow an import;
* talking over its own stdin/stdout pipes -- private to the two processes, so there is no socket and no key to
  authenticate, and nothing secret in argv -- in JSON lines (arrays as base64 float64), never pickle;
* with one BLAS thread and a lower priority, so the window the user is looking at comes first; it ends with its
  parent (Linux ``PR_SET_PDEATHSIG``), and :meth:`ChildProcess.terminate` ends it at once, even mid-computation.

One such interpreter serves every job of a window (:mod:`segviz.service.engine_process`: the window's side, one
channel per job; :mod:`segviz.service.engine_child`: the engine's side).  Here: how it is started and ended, and how
arrays and messages cross and are checked.
"""
from __future__ import annotations

import base64
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..errors import SegvizError
from ..events import Progress
from ..forking import become_subreaper

#: the child's niceness: the window the user is looking at comes first
CHILD_NICENESS = 5
#: the longest message a child may send (the largest real one, a 100,000-feature model's round, is ~30 MB): a
#: child that sends more without a line end is refused instead of filling the window's memory
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
#: what can go wrong while a message's fields are taken apart; each is a malformed message, never a traceback
MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError)


def child_command() -> list[str]:
    """``python -I -c ...`` loading the ``segviz`` package this process runs, from its location."""
    package = Path(__file__).resolve().parents[1]
    bootstrap = (
        # Ctrl-C reaches the whole process group: the window ends this process on its own close path, and a
        # KeyboardInterrupt here would print a traceback (or end a training the window still reports on)
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        # the lower priority first: importing the engine is a second of CPU the window should not compete with
        "import os\n"
        "try:\n"
        f"    os.nice({CHILD_NICENESS})\n"
        "except OSError:\n"
        "    pass\n"
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('segviz', {str(package / '__init__.py')!r}, "
        f"submodule_search_locations=[{str(package)!r}])\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['segviz'] = module\n"
        "spec.loader.exec_module(module)\n"
        "from segviz.service.engine_child import main\n"
        "sys.exit(main())\n"
    )
    return [sys.executable, "-I", "-c", bootstrap]


#: the element types an array may cross the pipe as (little-endian float64, int32, bytes), by their JSON key
ARRAY_TYPES = {"<f8": "f8", "<i4": "i4", "|u1": "u1"}


def encode_array(values, dtype: str = "<f8") -> dict:
    """An array as JSON: its bytes as ``dtype`` (little-endian float64 by default, exact, fast for 10^5 values;
    ``"<i4"`` for indices, ``"|u1"`` for masks) in base64, under the type's key."""
    if dtype not in ARRAY_TYPES:
        raise ValueError(f"unsupported array type {dtype!r}")
    array = np.asarray(values)
    if dtype != "<f8" and array.size and (array.min() < np.iinfo(dtype).min or array.max() > np.iinfo(dtype).max):
        raise ValueError(f"values outside the range of {dtype}")
    array = np.ascontiguousarray(array, dtype=dtype)
    return {"shape": list(array.shape), ARRAY_TYPES[dtype]: base64.b64encode(array.tobytes()).decode("ascii")}


def decode_array(d: dict, *, shape: tuple[int, ...] | None = None, dtype: str = "<f8") -> np.ndarray:
    """The array of :func:`encode_array` (as float64 for ``"<f8"``, else in ``dtype``), checked against its
    declared shape and ``shape``."""
    try:
        raw = base64.b64decode(d[ARRAY_TYPES[dtype]], validate=True)
        got = tuple(d["shape"])
        if len(got) > 2 or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in got):
            raise ValueError("not a shape of at most two sizes")
    except (KeyError, TypeError, ValueError) as exc:
        raise SegvizError(f"engine process: malformed array ({exc!s:.100})") from None
    size = np.dtype(dtype).itemsize
    # the element count in Python's integers: numpy's int64 product wraps (2^32 x 2^32 gives 0)
    if len(raw) != size * math.prod(got) or (shape is not None and got != shape):
        raise SegvizError(f"engine process: array of shape {got} does not match its data or {shape}")
    array = np.frombuffer(raw, dtype=dtype).reshape(got)
    return array.astype(np.float64) if dtype == "<f8" else array.copy()


def dumps(message: dict) -> str:
    return json.dumps(message, separators=(",", ":"))


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def parse_message(line: bytes, what: str) -> dict:
    """One line from a child as a message: a JSON object (no ``NaN``/``Infinity``) whose ``type`` is a string.

    Anything else -- deep nesting, another JSON value, bad UTF-8 -- is one :class:`SegvizError` naming ``what``."""
    try:
        message = json.loads(line.decode("utf-8"), parse_constant=_refuse_constant)
    except MALFORMED as exc:   # JSONDecodeError and UnicodeDecodeError are ValueErrors; nesting: RecursionError
        raise SegvizError(f"{what}: unreadable message ({exc.__class__.__name__})") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise SegvizError(f"{what}: unreadable message (not an object with a type)")
    return message


def _count(value) -> int:
    # a progress bar holds a 32-bit int: a larger count would fail inside Qt, on the window's thread
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2 ** 31:
        raise ValueError(f"not a count: {value!r:.40}")
    return value


def progress_from_message(message: dict, what: str) -> Progress:
    """The :class:`Progress` of a ``progress`` message, its fields checked."""
    stage = message.get("stage")
    try:
        if not isinstance(stage, str):
            raise ValueError("the stage is not a string")
        return Progress(stage[:200], _count(message.get("done")), _count(message.get("total")))
    except ValueError as exc:
        raise SegvizError(f"{what}: malformed progress message ({exc})") from None


#: the most offsets a relevance profile may have (the engine's has 40)
MAX_PROFILE_OFFSETS = 10_000


def check_profile(profile, what: str) -> dict | None:
    """A relevance profile from a child (``offsets``, ``mean`` (None where no sentence counts), ``count``: lists
    of one length), checked before a view draws it; None stays None."""
    if profile is None:
        return None

    def numbers(key, *, none=False, integral=False, low=-1e12, high=1e12):
        values = profile.get(key)
        if not isinstance(values, list) or len(values) > MAX_PROFILE_OFFSETS:
            raise SegvizError(f"{what}: malformed relevance profile ({key})")
        for v in values:
            if v is None and none:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or (integral and not isinstance(v, int)) \
                    or not math.isfinite(v) or not low <= v <= high:
                raise SegvizError(f"{what}: malformed relevance profile ({key})")
        return values

    if not isinstance(profile, dict):
        raise SegvizError(f"{what}: the relevance profile is not an object")
    # ranges as well as types: a view draws what it is given (a mean of 10^12 flattens every other point)
    offsets = numbers("offsets", integral=True, low=-MAX_PROFILE_OFFSETS, high=MAX_PROFILE_OFFSETS)
    mean = numbers("mean", none=True, low=-MAX_RELEVANCE, high=MAX_RELEVANCE)
    count = numbers("count", integral=True, low=0, high=2 ** 31 - 1)
    if not len(offsets) == len(mean) == len(count):
        raise SegvizError(f"{what}: malformed relevance profile (lengths differ)")
    return {"offsets": offsets, "mean": mean, "count": count}


#: the largest magnitude of a sentence's relevance the window accepts: relevance is a mean of log-ratios of
#: probabilities each at least e^-1000 (the language models' floor), so a real one is within a few thousand
MAX_RELEVANCE = 1e6


def check_relevance(values: np.ndarray, what: str) -> np.ndarray:
    """Per-sentence relevance from a child, checked before a view draws it: finite, within
    :data:`MAX_RELEVANCE`."""
    if values.size and not (np.all(np.isfinite(values)) and np.abs(values).max() <= MAX_RELEVANCE):
        raise SegvizError(f"{what}: relevance that is not finite or beyond +-{MAX_RELEVANCE:g}")
    return values


def check_count(value, what: str, *, high: int = 2 ** 31 - 1) -> int:
    """A count from a child: an integer (not a bool, a float or a string) from 0 to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise SegvizError(f"{what}: {value!r:.40} is not a count from 0 to {high:,}")
    return value


def check_probabilities(values: np.ndarray, what: str) -> np.ndarray:
    if values.size and not (np.all(np.isfinite(values)) and values.min() >= 0 and values.max() <= 1):
        raise SegvizError(f"{what}: boundary probabilities outside [0, 1]")
    return values


def error_text(message: dict, what: str) -> str:
    """The one line of an ``error`` message (a child's refusal or failure)."""
    text = message.get("message")
    if not isinstance(text, str) or not text.strip():
        return f"{what} failed"
    return " ".join(text.split())[:2000]


# -- the child's side of every job ----------------------------------------------------------------------------

class JobCancelled(Exception):
    """The window cancelled this job: raised by the job's ``send`` at its next message, so it stops there."""


def progress_message(event) -> dict:
    """The JSON line of a :class:`~segviz.events.Progress` event."""
    return {"type": "progress", "stage": event.stage, "done": event.done, "total": event.total}


#: the least time between two progress messages of one stage (the first and the last of a stage always go)
PROGRESS_INTERVAL_S = 0.02


def send_progress(work, send: Callable[[dict], None]):
    """Drive the generator ``work``, sending its Progress events; returns its value.  Within a stage, an event
    follows the last one sent by at least :data:`PROGRESS_INTERVAL_S` (its first and last always go): one
    message per document of 200,000 small files was a seventh of the engine's work, and as many repaints."""
    stage, sent = None, 0.0
    while True:
        try:
            event = next(work)
        except StopIteration as stop:
            return stop.value
        now = time.monotonic()
        if event.stage != stage or event.done >= event.total or now - sent >= PROGRESS_INTERVAL_S:
            stage, sent = event.stage, now
            send(progress_message(event))


def serve_guarded(send: Callable[[dict], None], job: Callable[[], int]) -> int:
    """Run a child's ``job`` and return its exit status; whatever goes wrong reaches the parent as one error line.

    A :class:`SegvizError` is the job's own refusal (status 0); a closed pipe or an interrupt means the parent
    is gone (status 0, nothing to say); anything else is a bug: its traceback goes to stderr, status 1."""
    try:
        return job()
    except JobCancelled:
        return 0
    except SegvizError as exc:
        _say(send, {"type": "error", "message": str(exc)})
        return 0
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    except Exception as exc:
        import traceback

        traceback.print_exc()
        _say(send, {"type": "error", "message": f"{exc.__class__.__name__}: {exc}"})
        return 1


def _say(send: Callable[[dict], None], message: dict) -> None:
    """Send a job's last word unless the window cancelled the job meanwhile: the window that cancelled an apply
    job because the reading failed wants no second error, and the job's thread must not end in a traceback."""
    try:
        send(message)
    except (JobCancelled, BrokenPipeError):
        pass


#: how long :func:`end_process_group` waits for the processes the engine forked to be gone after the engine
GROUP_GONE_S = 3.0


def end_process_group(process: subprocess.Popen) -> None:
    """End ``process`` and every process it forked (it leads a process group of its own, :class:`ChildProcess`)
    at once -- SIGKILL: nothing in them is worth a clean exit --, and return once none of them is left (at most
    :data:`GROUP_GONE_S` for the forked ones, which the init process reaps).  A forked worker killed with its
    engine's thread (``forking.die_with_parent``) could still be there, ending, when the window had exited."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        terminate_and_wait(process)
        return
    process.wait()
    deadline = time.monotonic() + GROUP_GONE_S
    while time.monotonic() < deadline:
        try:
            # the engine's forked workers are this process's children now (ChildProcess.start made it their
            # subreaper): reaped here, at once
            while os.waitpid(-process.pid, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        try:
            os.killpg(process.pid, 0)   # anyone of the group still there (a zombie counts until it is reaped)
        except (ProcessLookupError, PermissionError, OSError):
            return
        time.sleep(0.01)


def terminate_and_wait(process: subprocess.Popen) -> None:
    """End ``process`` if it still runs: SIGTERM, a second to go, then SIGKILL; returns once it has ended."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(1.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()   # a killed process always ends; a bound here only failed on a loaded machine


class ChildProcess:
    """Starts the engine's interpreter (``python -I``, one BLAS thread, its own pipes) and ends it at once when asked.

    ``cancelled()`` is checked under a lock before the start, so a cancel from any thread either comes first (no
    process) or finds the process to end.  The messages are the engine channels' (:mod:`segviz.service.engine_process`).
    """

    def __init__(self, what: str, cancelled: Callable[[], bool]):
        self.what = what   # "the engine process", for messages
        self.cancelled = cancelled
        self.process: subprocess.Popen | None = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def start(self, workdir: str) -> bool:
        """Start the child in ``workdir``; False when cancelled first."""
        # one BLAS thread: on a small machine a child using every core starves the GUI
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
        with self._lock:
            if self.cancelled():
                return False
            # a process group of its own: the window's close ends it and every process it forked at once
            # (end_process_group); it ignores Ctrl-C anyway, which now reaches only the window.  The processes it
            # forks come to this one when it is killed, to be reaped at once (the init process took a second)
            become_subreaper()
            self.process = subprocess.Popen(child_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            cwd=workdir, env=env, close_fds=True, start_new_session=True)
        return True

    def terminate(self) -> None:
        """End the child at once if it is running (any thread; never blocks)."""
        with self._lock:
            process = self.process
        if process is not None and process.poll() is None:
            try:
                process.terminate()
            except OSError:
                pass
