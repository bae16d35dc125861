"""No fork beside a busy thread (segviz.forking): the engine forks a share of its work only while every other thread
is one that holds nothing the child needs; otherwise the work is done in process."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available here")


# Each check runs in a fresh interpreter: this test process may hold other tests' idle threads (Dask keeps its IO loop
# and offload threads for the life of a process), and those rightly forbid a fork here.
_THREADS_SCRIPT = textwrap.dedent("""
    import threading, time
    from segviz.forking import fork_is_safe, mark_quiet
    from segviz.service.forked_worker import ForkedWorker, can_fork

    def waiting(event, quiet=False):
        thread = threading.Thread(target=event.wait, daemon=True)
        if quiet:
            mark_quiet(thread)
        thread.start()
        return thread

    assert fork_is_safe(), "a fresh interpreter forbids a fork"
    release = threading.Event()
    busy = waiting(release)
    assert not fork_is_safe() and not can_fork()
    worker = ForkedWorker(lambda send: send({"done": True}))
    assert worker.pid is None, "a worker was forked beside a busy thread"
    assert worker.results(lambda i, obj: obj, started=0.0) == []   # nothing came: the caller does it all
    release.set()
    busy.join()
    assert fork_is_safe(), "the thread has ended"

    release = threading.Event()
    quiet = waiting(release, quiet=True)
    assert fork_is_safe(), "a quiet thread does not count"
    worker = ForkedWorker(lambda send: send({"done": True}))
    assert worker.pid is not None
    assert worker.results(lambda i, obj: obj, started=time.monotonic()) == [{"done": True}]
    worker.end()
    release.set()
    quiet.join()
    print("ok")
""")


def test_a_busy_thread_forbids_a_fork_and_a_quiet_one_does_not():
    done = subprocess.run([sys.executable, "-c", _THREADS_SCRIPT], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert done.returncode == 0 and done.stdout.split() == ["ok"], done.stderr[-3000:]


# An import in flight on another thread holds that module's import lock; a child forked then inherits the lock as
# held by a thread it does not have, and its own import of the module waits for ever.  The script waits for the
# forked worker without a time limit (as a parent waiting for a child would), so without the fix it hangs; the
# subprocess's timeout is only the guard that turns such a hang into a failure.
_SCRIPT = textwrap.dedent("""
    import sys, threading, time
    sys.path.insert(0, sys.argv[1])
    import segviz.service.forked_worker as fw

    fw.MIN_WAIT_S = 10 ** 6   # wait for the worker as long as it takes
    GATE = threading.Event()
    sys.modules["gate_holder"] = type(sys)("gate_holder")
    sys.modules["gate_holder"].GATE = GATE

    importer = threading.Thread(target=lambda: __import__("slow_module"), daemon=True)
    importer.start()
    while "slow_module" not in sys.modules:   # the import has begun and holds the module's lock
        time.sleep(0.001)

    def work(send):
        import slow_module
        send({"value": slow_module.VALUE})

    worker = fw.ForkedWorker(work)
    GATE.set()
    importer.join()
    got = worker.results(lambda i, obj: obj, started=time.monotonic())
    worker.end()
    value = got[0]["value"] if got else __import__("slow_module").VALUE   # what did not come, done here
    print(value)
""")


def test_a_worker_is_not_forked_while_another_thread_imports(tmp_path):
    (tmp_path / "slow_module.py").write_text(
        "import sys\nsys.modules['gate_holder'].GATE.wait()\nVALUE = 42\n", encoding="utf-8")
    script = tmp_path / "script.py"
    script.write_text(_SCRIPT, encoding="utf-8")
    try:
        done = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the forked worker hung on an import lock held by another thread at the fork")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["42"]
