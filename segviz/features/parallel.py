"""Answering a model's questions on two cores: a share of the costliest signals in a forked process.

Applying the default model to 70k sentences is ~10.5 s on one core, nearly all of it in the signals of interval
questions (the tf-idf pass ~6.3 s, names ~1.2 s, content-word cohesion ~1 s) and the word questions' token
stream (~1.5 s).  Threads do not help much (measured: 11.1 s -> 9.3 s): the signals are numpy calls between
Python statements and both threads queue for the interpreter.  A forked process does: it inherits the context
(the sentences, copy-on-write), computes its share and sends the values back as raw float64 arrays over a pipe
(no pickle), while the parent computes the rest.

The share is planned from the measured cost of each signal family (:data:`KIND_COST`, seconds on
reut2-000..013; a family the table does not know counts as free).  A family's windows stay together because
they share work, except the tf-idf pass, which can be split by its dense chunks (:func:`~segviz.features.tfidf.
tfidf_cosines`): the worker takes the whole pass, or the fraction of its chunks that leaves both processes the
same work, whichever the costs say ends sooner.  Every
value is computed by the same code on the same inputs wherever it runs, so the result is the same; without
``os.fork`` (or when the fork or the worker fails) the parent computes the worker's share itself.

Forking copies only the calling thread, so the worker is forked only while no other thread could hold what it
needs (:func:`segviz.forking.fork_is_safe`); otherwise the parent computes everything.  Never used in the
window's process.
"""
from __future__ import annotations

import json
import os
import struct
from collections.abc import Sequence

import numpy as np

from segviz.features import tfidf
from segviz.features.context import FeatureContext
from segviz.features.questions import IntervalQuestion, Window, signal_named
from segviz.forking import die_with_parent, fork_is_safe

__all__ = ["KIND_COST", "SignalWorker", "start_worker"]

#: seconds per family on reut2-000..013 (70,539 sentences): per window, and once per family (a shared pass);
#: the tf-idf pass is costed on its own (TFIDF_*_COST)
KIND_COST: dict[str, tuple[float, float]] = {
    "cohesion": (0.2, 0.6), "names": (0.1, 1.1), "shape": (0.2, 0.0),
    "dialogue": (0.05, 0.0), "position": (0.0, 0.0), "paragraphs": (0.0, 0.0),
}
#: the tf-idf pass: counting the terms, then the chunks (which split between the processes), as measured with
#: both processes running
TFIDF_COUNT_COST, TFIDF_SPLIT_COST = 0.8, 4.2
#: below this many candidate boundaries everything is computed here (the whole apply takes under a second)
MIN_EVENTS = 5000
#: the parent's own share before any signal: the word questions' token stream and the matrix assembly
PARENT_BASE_COST = 1.5

_HEADER = struct.Struct("<Q")


def _plan(pairs: Sequence[tuple[str, Window]], tfidf_windows: Sequence[int] = ()
          ) -> tuple[list[tuple[str, Window]], float]:
    """The worker's share: the (signal, window) pairs it computes (whole families) and the fraction of the tf-idf
    pass's chunks it takes (0 when ``tfidf_windows`` is empty: nothing of that pass left to compute)."""
    by_kind: dict[str, list[tuple[str, Window]]] = {}
    for name, window in pairs:
        kind = signal_named(name).kind
        if kind != "tfidf":   # the tf-idf signals are read from the pass, split below
            by_kind.setdefault(kind, []).append((name, window))

    def cost(kind: str) -> float:
        per_window, once = KIND_COST.get(kind, (0.0, 0.0))
        return once + per_window * len({w for _, w in by_kind[kind]})

    pass_cost = TFIDF_SPLIT_COST if tfidf_windows else 0.0
    parent, worker, chosen = PARENT_BASE_COST, 0.0, []
    for kind in sorted(by_kind, key=cost, reverse=True):
        if cost(kind) <= 0:
            break
        if worker + pass_cost < parent:
            worker += cost(kind)
            chosen.extend(by_kind[kind])
        else:
            parent += cost(kind)
    if pass_cost <= 0:
        return chosen, 0.0
    # split: the terms are counted before the fork, then the worker's fraction f of the chunks evens
    # worker + f * split and parent + (1 - f) * split; whole: the worker counts the terms and takes every chunk
    f = min(1.0, max(0.0, (TFIDF_SPLIT_COST + parent - worker) / (2 * TFIDF_SPLIT_COST)))
    split = TFIDF_COUNT_COST + max(worker + f * TFIDF_SPLIT_COST, parent + (1 - f) * TFIDF_SPLIT_COST)
    whole = max(worker + TFIDF_COUNT_COST + TFIDF_SPLIT_COST, parent)
    return chosen, 1.0 if whole <= split else float(f)


class SignalWorker:
    """A share of the signals of some interval questions being computed in a forked process
    (:func:`start_worker`).

    :meth:`compute_rest` computes the parent's share; :meth:`install` waits for the worker and caches its values
    in the context.  Whatever did not arrive (no fork, a failed worker) is computed there and then, so the
    cache ends up the same either way."""

    def __init__(self, context: FeatureContext, pairs: list[tuple[str, Window]], *,
                 tfidf_windows: Sequence[int] = ()):
        self.context = context
        self.all_pairs = list(pairs)
        self.tfidf_windows = list(tfidf_windows)
        self.pairs, self.tfidf_fraction = (_plan(self.all_pairs, self.tfidf_windows)
                                           if context.n_events >= MIN_EVENTS else ([], 0.0))
        self._pid: int | None = None
        self._fd: int | None = None
        self._own_cosines: dict[int, np.ndarray] | None = None
        self._counts = None

    @property
    def has_share(self) -> bool:
        return bool(self.pairs) or self.tfidf_fraction > 0

    def start(self) -> SignalWorker:
        if not self.has_share or not fork_is_safe():   # another thread may hold what the child would need
            return self
        if self.tfidf_windows and self.tfidf_fraction < 1.0:   # counted once, before the fork, for both shares
            self._counts = tfidf.term_counts(self.context.sentences)
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return self
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return self
        if pid == 0:   # the worker: compute, write, and leave without running any of the parent's cleanup
            code = 1
            try:
                os.close(read_end)
                die_with_parent()
                with os.fdopen(write_end, "wb") as out:
                    for key, values in self._worker_share():
                        values = np.ascontiguousarray(values, dtype="<f8")
                        head = json.dumps([*key, values.size]).encode()
                        out.write(_HEADER.pack(len(head)) + head + values.tobytes())
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        self._pid, self._fd = pid, read_end
        return self

    @property
    def running(self) -> bool:
        return self._pid is not None

    def _worker_share(self):
        """(key, values) of the worker's share, in the order they are sent."""
        if self.tfidf_fraction > 0:
            cosines = tfidf.tfidf_cosines(self.context.sentences, self.context.groups, self.tfidf_windows,
                                          share=(0.0, self.tfidf_fraction), counts=self._counts)
            for k, values in cosines.items():
                yield ("tfidf", "", int(k), 0), values
        for name, window in self.pairs:
            yield ("signal", name, window.unit, window.start, window.end), \
                self.context.values(signal_named(name), window)

    def _expected(self) -> set:
        keys = {("tfidf", "", int(k), 0) for k in self.tfidf_windows} if self.tfidf_fraction > 0 else set()
        return keys | {("signal", name, w.unit, w.start, w.end) for name, w in self.pairs}

    def compute_rest(self) -> None:
        """This process's share, while the worker computes its own."""
        if self.tfidf_windows and self.tfidf_fraction < 1.0:
            self._own_cosines = tfidf.tfidf_cosines(self.context.sentences, self.context.groups,
                                                    self.tfidf_windows, share=(self.tfidf_fraction, 1.0),
                                                    counts=self._counts)
        away = set(self.pairs)
        for name, window in self.all_pairs:
            if (name, window) not in away and signal_named(name).kind != "tfidf":
                self.context.values(signal_named(name), window)

    def install(self) -> int:
        """Wait for the worker and cache its values; returns how many arrays arrived (0: computed here)."""
        got = self._collect() if self._pid is not None else {}
        if self.tfidf_windows:
            if self.tfidf_fraction > 0 and got:
                worker = {k: got[("tfidf", "", int(k), 0)] for k in self.tfidf_windows}
            elif self.tfidf_fraction > 0:
                worker = tfidf.tfidf_cosines(self.context.sentences, self.context.groups, self.tfidf_windows,
                                             share=(0.0, self.tfidf_fraction), counts=self._counts)
            else:
                worker = {}
            if self._own_cosines is None and self.tfidf_fraction < 1.0:
                self.compute_rest()
            own = self._own_cosines or {}
            merged = {}
            for k in self.tfidf_windows:
                a, b = worker.get(k), own.get(k)
                merged[k] = a if b is None else b if a is None else np.where(np.isnan(a), b, a)
            tfidf.install_cosines(self.context, merged)
        for name, window in self.pairs:
            values = got.get(("signal", name, window.unit, window.start, window.end))
            if values is None:
                self.context.values(signal_named(name), window)
            else:
                self.context.memo(("signal", name, window), lambda values=values: values)
        for name, window in self.all_pairs:   # the tf-idf signals, read from the installed pass
            self.context.values(signal_named(name), window)
        return len(got)

    def stop(self) -> None:
        """End the worker unread (the parent failed or was cancelled)."""
        if self._pid is None:
            return
        pid, fd, self._pid, self._fd = self._pid, self._fd, None, None
        try:
            os.kill(pid, 9)
        except OSError:
            pass
        try:
            os.close(fd)
        except OSError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass

    def _collect(self) -> dict:
        pid, fd, self._pid, self._fd = self._pid, self._fd, None, None
        n = self.context.n_events
        expected = self._expected()
        values = {}
        try:
            with os.fdopen(fd, "rb") as pipe:
                for _ in expected:
                    (size,) = _HEADER.unpack(_read_exactly(pipe, _HEADER.size))
                    *key, count = json.loads(_read_exactly(pipe, size))
                    key = tuple(key)
                    if count != n or key not in expected:
                        raise ValueError("an unexpected array")
                    array = np.frombuffer(_read_exactly(pipe, 8 * count), dtype="<f8").astype(np.float64)
                    array.setflags(write=False)
                    values[key] = array
        except (OSError, ValueError, TypeError, struct.error):
            values = {}
        try:
            _, status = os.waitpid(pid, 0)
            if status != 0:
                values = {}
        except ChildProcessError:
            values = {}
        return values if set(values) == expected else {}


def start_worker(context: FeatureContext, specs: Sequence[object]) -> SignalWorker:
    """Fork a worker for its share of the interval questions' signals (see the module doc)."""
    pairs = sorted({(q.signal, q.window) for q in specs if isinstance(q, IntervalQuestion)},
                   key=lambda p: (p[0], p[1].unit, p[1].start, p[1].end))
    for name, _ in pairs:
        context.require(signal_named(name).needs)
    asked = sorted({w.end for name, w in pairs if signal_named(name).kind == "tfidf"})
    return SignalWorker(context, pairs, tfidf_windows=tfidf.missing_windows(context, asked) if asked else []).start()


def _read_exactly(pipe, size: int) -> bytes:
    data = pipe.read(size)
    if data is None or len(data) != size:
        raise ValueError("the worker's reply ended early")
    return data
