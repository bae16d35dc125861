"""Where the work runs: a Dask scheduler named by its address, or a local cluster started for one command.

``ADDRESS`` is either a running scheduler's address (``tcp://HOST:PORT``, as ``dask scheduler`` prints it; any
protocol Dask knows) or ``local:N``: a :class:`distributed.LocalCluster` of N worker processes of one thread
each, started for the command and stopped after it.  Dask is an optional dependency (the ``distributed`` extra),
imported only here and only when a cluster is asked for, so every other command runs without it.

An address nobody answers at fails within :data:`CONNECT_TIMEOUT_S` seconds with one line, and so does a
scheduler that has no worker within :data:`WORKER_WAIT_S` seconds: a command never hangs on a cluster that is
not there.  Dask's own log lines are silenced (a worker restarted after a crash is Dask's business; the command
says what it costs), and a local cluster's workers leave Ctrl-C to the command
(:mod:`segviz.distributed.worker_setup`).
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..errors import SegvizError

#: how long a scheduler may take to answer before the command gives up (seconds)
CONNECT_TIMEOUT_S = 5.0
#: how long a reachable scheduler may take to have a worker (seconds)
WORKER_WAIT_S = 30.0
#: the most worker processes ``local:N`` starts
MAX_LOCAL_WORKERS = 256
#: what to install when Dask is missing
INSTALL_HINT = "pip install 'segviz[distributed]'"

_LOCAL = re.compile(r"^local:(\d+)$")
_URL = re.compile(r"^[a-z][a-z0-9+]*://\S+$")


@dataclass(frozen=True)
class SchedulerAddress:
    """A parsed ``--scheduler`` value: a scheduler's URL, or the number of local worker processes to start."""

    url: str | None = None
    local_workers: int | None = None

    def describe(self) -> str:
        if self.local_workers is not None:
            return f"a local cluster of {self.local_workers} worker process{'es' if self.local_workers > 1 else ''}"
        return f"the Dask scheduler at {self.url}"


def parse_address(text: str) -> SchedulerAddress:
    """``tcp://HOST:PORT`` (or another Dask protocol) or ``local:N``; one-line :class:`SegvizError` otherwise."""
    text = str(text).strip()
    local = _LOCAL.match(text)
    if local:
        n = int(local.group(1))
        if not 1 <= n <= MAX_LOCAL_WORKERS:
            raise SegvizError(f"--scheduler {text}: local:N needs 1 <= N <= {MAX_LOCAL_WORKERS} worker processes")
        return SchedulerAddress(local_workers=n)
    if _URL.match(text):
        return SchedulerAddress(url=text)
    raise SegvizError(f"--scheduler {text!r}: not a scheduler address; give tcp://HOST:PORT (as `dask scheduler` "
                      "prints it) or local:N (N worker processes on this machine)")


def dask_installed() -> bool:
    """Can Dask's distributed scheduler be imported here?"""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def _require_dask():
    try:
        import distributed
    except ImportError:
        raise SegvizError(f"--scheduler needs Dask (dask and distributed), which is not installed: {INSTALL_HINT}") \
            from None
    return distributed


def _quiet_dask_logs() -> None:
    # Dask reports a refused connection, a restarted worker or a cluster closed by Ctrl-C in its own log lines;
    # the command says what matters in one line of its own
    for name in ("distributed", "distributed.comm", "distributed.nanny", "distributed.scheduler",
                 "distributed.worker", "distributed.client", "distributed.core"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


@contextmanager
def open_cluster(address: str, *, connect_timeout: float = CONNECT_TIMEOUT_S,
                 worker_wait: float = WORKER_WAIT_S) -> Iterator[object]:
    """A connected :class:`distributed.Client` for ``address`` (:func:`parse_address`), closed (and a local
    cluster stopped) when the block ends."""
    where = parse_address(address)
    distributed = _require_dask()
    _quiet_dask_logs()
    if where.local_workers is not None:
        try:
            cluster = distributed.LocalCluster(n_workers=where.local_workers, threads_per_worker=1, processes=True,
                                               dashboard_address=":0", silence_logs=logging.CRITICAL,
                                               preload=["segviz.distributed.worker_setup"])
        except Exception as exc:   # ports, forks, memory: Dask's own errors, told in one line
            raise SegvizError(f"cannot start {where.describe()} ({type(exc).__name__}: {exc})") from None
        try:
            client = distributed.Client(cluster, timeout=connect_timeout)
            try:
                yield client
            finally:
                client.close()
        finally:
            cluster.close()
        return
    try:
        client = distributed.Client(where.url, timeout=connect_timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SegvizError(f"cannot reach {where.describe()} within {connect_timeout:g} s ({reason}); is `dask "
                          "scheduler` running there?") from None
    try:
        try:
            client.wait_for_workers(1, timeout=worker_wait)
        except (OSError, TimeoutError) as exc:
            raise SegvizError(f"{where.describe()} has no worker after {worker_wait:g} s; start some with "
                              f"`dask worker {where.url}` ({type(exc).__name__})") from None
        yield client
    finally:
        client.close()


def worker_threads(client) -> int:
    """How many task threads the client's workers have now, all together (at least 1)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:   # a scheduler that does not say: plan for one
        return 1
