"""The resident memory of the window and every process under it, sampled from ``/proc`` (Qt-free, stdlib only).

The window's memory is not the app's: its engine process and the workers the engine forks (the reader of half the
files, the worker of half the documents, the relevance worker, the model's signal worker) hold most of it.  What
the benchmark reports as ``peak_tree_rss_mb`` is the largest sum of the resident set sizes of the window and all
its descendants at one moment, sampled every :data:`INTERVAL_S` from the open to the close.  Counting the
descendants of one process at its end (``RUSAGE_CHILDREN``) counted none while they were alive, and a forked
worker never.

The sampler runs as a process of its own (this file run as a script), so that its reads of ``/proc`` never take
the window's interpreter: it samples the tree of the process id it is given, leaves itself out, and when its
standard input ends prints one JSON line -- the peak, when it was reached (seconds after the sampler started)
and each process's share at that moment -- and exits.  A sum of resident sets counts a page shared by a parent
and its forked worker twice, as ``ps`` and ``top`` would show them side by side; the peak sum of proportional
set sizes (``peak_tree_pss_mb``: a shared page counted once, split between its holders) is reported beside it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

#: seconds between two samples of the tree
INTERVAL_S = 0.1
#: the proportional set sizes (slower to read: the kernel walks every mapping) every this many samples, and at
#: every new peak of the resident sum
PSS_EVERY = 5


def children(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (every thread's: a child belongs to the thread that started it)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as f:
                out.extend(int(x) for x in f.read().split())
        except (OSError, ValueError):
            continue
    return out


def descendants(pid: int) -> list[int]:
    """``pid`` and every process under it, parents before children."""
    tree, i = [pid], 0
    while i < len(tree):
        tree.extend(children(tree[i]))
        i += 1
    return tree


def resident_mb(pid: int) -> float:
    """The resident set size of ``pid`` in MiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except (OSError, ValueError, IndexError):
        return 0.0


def proportional_mb(pid: int) -> float:
    """The proportional set size of ``pid`` in MiB (each page shared with other processes counted by its share;
    0 when it is gone or the kernel does not say)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return "?"


def tree_sample(root: int, leave_out: int | None = None) -> dict[int, float]:
    """``{pid: resident MiB}`` of ``root`` and its descendants now, without ``leave_out`` and its own tree."""
    out = {}
    for pid in descendants(root):
        if pid == leave_out:
            continue
        out[pid] = resident_mb(pid)
    return out


def sample_until_stdin_ends(root: int) -> dict:
    """Sample ``root``'s tree until this process's standard input ends; the peak and who held it."""
    me = os.getpid()
    ended = threading.Event()

    def wait_for_end():
        sys.stdin.buffer.read()
        ended.set()

    threading.Thread(target=wait_for_end, daemon=True).start()
    t0 = time.monotonic()
    peak, at, shares, samples, most, pss = 0.0, 0.0, {}, 0, 0, 0.0
    while not ended.wait(INTERVAL_S):
        sample = tree_sample(root, leave_out=me)
        if not sample or sample.get(root, 0.0) == 0.0:
            break   # the window is gone
        samples += 1
        most = max(most, len(sample))
        total = sum(sample.values())
        if samples % PSS_EVERY == 0 or total > peak:
            pss = max(pss, sum(proportional_mb(pid) for pid in sample))
        if total > peak:
            peak, at = total, time.monotonic() - t0
            shares = {f"{pid} {_name(pid)}": round(mb, 1) for pid, mb in sample.items()}
    return {"peak_tree_rss_mb": round(peak, 1), "peak_at_s": round(at, 2), "peak_shares_mb": shares,
            "peak_tree_pss_mb": round(pss, 1), "samples": samples, "most_processes": most}


class TreeSampler:
    """The sampler process for the tree of ``root`` (default: this process): :meth:`finish` ends it and returns
    its report (None when it could not run: no ``/proc``)."""

    def __init__(self, root: int | None = None):
        self.process = None
        if not os.path.isdir("/proc/self/task"):
            return
        root = os.getpid() if root is None else int(root)
        try:
            self.process = subprocess.Popen([sys.executable, "-I", os.path.abspath(__file__), str(root)],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True)
        except OSError:
            self.process = None

    def finish(self) -> dict | None:
        process, self.process = self.process, None
        if process is None:
            return None
        try:
            out, _ = process.communicate(b"", timeout=10)
            return json.loads(out.decode("utf-8"))
        except (subprocess.TimeoutExpired, ValueError, OSError):
            process.kill()
            process.wait()
            return None


if __name__ == "__main__":
    print(json.dumps(sample_until_stdin_ends(int(sys.argv[1]))), flush=True)
