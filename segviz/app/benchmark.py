"""``segviz gui CORPUS... [--model M] --benchmark OUT.json``: a scripted session with its latencies.

The script (run offscreen by :mod:`segviz.app.launch`): open the corpus and wait for the model's curve; set α
to 30 values, change ε 10 times, move through 20 blocks, jump to 10 segments, zoom out to the whole stream and
back (5 times), drag the α line with the mouse (10 moves) and let it go, export a PNG at a block, then zoomed out
to the whole stream a PNG and an SVG -- all while the work that follows the curve (the relevance trace, the shown
peers, the feature columns) goes on in the background, as a user would --; then wait until every background job
the window started is done and on screen; then start training, let 3 features arrive and close the window during
the 4th (``--train 0``: close there).

What is measured:

* ``max_gap_ms``: a 10 ms QTimer runs for the whole session, the open included; the largest interval between
  two of its ticks is the longest time the event loop could not react.  ``max_own_gap_ms``: the most CPU time
  the GUI thread itself used between two ticks (each of ``long_gaps`` has its own): a long gap with little of it
  was the thread kept waiting, by the machine's other work or by a thread of the window holding the
  interpreter.
* each interaction's latency, from the action until its result is on screen: the state has changed and the
  window has then processed a repaint (the time is taken in a zero-timer after the next ``UpdateRequest``).
* ``open_to_segmentation_s``: from the start until the model's curve and ticks are on screen (the state has its
  probabilities and a repaint has been processed).
* ``relevance_on_screen_s``: from the start until the relevance trace is on screen (with a model without
  language models, the bundled general-English ones score the corpus in the background after the curve);
  ``background_done_s``: until no background job is left (the trace, the shown peers and the feature columns
  are all shown).
* ``close_exit_s``: from asking the window to close until the event loop has ended with no worker left;
  ``close_engine_gone_s``: until the engine process (and so its forked workers) has ended too (the process then
  exits).
* ``peak_tree_rss_mb``: the largest sum of the resident memory of the window and every process under it (its
  engine and the engine's forked workers), sampled every 0.1 s from the open to the close by a process of its own
  (:mod:`segviz.app.tree_memory`; ``peak_tree_at_s`` when, ``peak_tree_shares_mb`` each process's share then;
  ``peak_tree_pss_mb`` the same with each page shared by a forked worker counted once);
  ``peak_rss_mb``: the peak resident memory of this process; ``peak_rss_engine_mb``: of the window's engine
  process, read from ``/proc`` just before the close (None where there is no ``/proc``).

The training step induces features on the shown model's language models when it has some (the window's "keep
the model's LMs"), so the script times the window while features arrive rather than minutes of language-model
training in the child; ``training_language_models`` says which.

Timings depend on the machine; docs/benchmarks.md records them with the command line.
"""
from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QObject, QTimer

from ..persist import atomic_write_text
from ..service.temp_dirs import owned_temporary_directory
from .tree_memory import TreeSampler

ALPHAS = 30
EPSILONS = 10
BLOCKS = 20
DOCUMENTS = 10
ZOOMS = 5
#: the α line dragged by the mouse: this many moves of this much α each, then let go
DRAG_MOVES = 10
DRAG_STEP = 0.02
#: how long ``--close-at`` lets the window be in its state (``segviz.commands.gui.CLOSE_STATES``) before closing
IN_STATE_S = 2.0
#: the plot exported as a PNG at a block, then zoomed out to the whole stream as a PNG and as an SVG
EXPORTS = (("png", "block.png", False), ("png_zoomed", "all.png", True), ("svg_zoomed", "all.svg", True))
FEATURES_BEFORE_CLOSE = 3
#: gaps longer than this are listed in the report with what the script was doing
LONG_GAP_MS = 50.0
#: an interaction that has not shown its result after this long is recorded as this long (and flagged)
ACTION_TIMEOUT_S = 30.0
#: how long the script waits for the background jobs that follow the curve before it gives up on them
BACKGROUND_TIMEOUT_S = 3600.0


def summary(samples: list[float]) -> dict:
    if not samples:
        return {"median": None, "p95": None, "max": None, "n": 0}
    a = np.asarray(samples, dtype=np.float64)
    return {"median": round(float(np.median(a)), 2), "p95": round(float(np.percentile(a, 95)), 2),
            "max": round(float(a.max()), 2), "n": int(a.size)}



def engine_peak_mb(window) -> float | None:
    """The peak resident memory of the window's engine process (``VmHWM``), None without one or without
    ``/proc``."""
    engine = getattr(window, "_engine", None)
    pid = None if engine is None else engine.pid
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024.0, 1)
    except (OSError, ValueError, IndexError):
        return None
    return None

class _Repaints(QObject):
    """Counts the window's repaint requests (the backing store paints every dirty widget on one)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        if event.type() == QEvent.UpdateRequest:
            self.count += 1
        return False


class Benchmark(QObject):
    """Drives ``window`` through the script and writes the JSON to ``out`` when the event loop has ended."""

    _pending: list[Benchmark] = []

    def __init__(self, window, out: str, *, status: dict, train: int | None = None, close_at: str | None = None):
        super().__init__(window)
        self.train = train   # the training step's features (None: the script's own number; 0: no training step)
        self.close_at = close_at   # close as soon as the window is in this state (CLOSE_STATES), nothing else
        self.window = window
        self.out = str(out)
        self.status = status
        self.t0 = time.perf_counter()
        self.last_tick = self.t0
        self.max_gap_ms = 0.0
        self.last_cpu = time.thread_time()
        self.max_own_gap_ms = 0.0   # the most CPU time the GUI thread spent between two ticks
        self.first_gap_ms: float | None = None
        self.max_gap_after_first_ms = 0.0
        self.gap_during = {"open": 0.0, "interaction": 0.0, "training": 0.0}
        self.phase = "open"
        self.doing = "opening"             # what the script was doing (for the list of long gaps)
        self.long_gaps: list[tuple] = []
        self.samples: dict[str, list[float]] = {k: [] for k in ("alpha", "epsilon", "block", "document", "zoom",
                                                                "drag", "release")}
        self.results: dict = {}
        self.steps: list = []
        self.notes: list[str] = []
        self.round_handler_ms: list[float] = []
        self.table_pass_ms: list[float] = []
        self.closed_at: float | None = None
        self.written = False
        self.repaints = _Repaints()
        window.installEventFilter(self.repaints)
        self.ticker = QTimer(self)
        self.ticker.setInterval(10)
        self.ticker.timeout.connect(self._tick)
        self.export_dir = owned_temporary_directory("segviz-bench-")
        self.tree = TreeSampler()   # the window, its engine and the engine's workers, from now to the close
        self.tree_report: dict | None = None
        Benchmark._pending.append(self)

    # -- the event-loop gap ---------------------------------------------------------------------------------
    def _tick(self) -> None:
        now = time.perf_counter()
        gap = (now - self.last_tick) * 1000.0
        self.last_tick = now
        # the GUI thread's own CPU time in the gap: a gap with little of it was the thread waiting (for a core the
        # machine's other work had, or for the interpreter), one with much of it was the window's own work
        cpu = time.thread_time()
        own = (cpu - self.last_cpu) * 1000.0
        self.last_cpu = cpu
        self.max_own_gap_ms = max(self.max_own_gap_ms, own)
        self.max_gap_ms = max(self.max_gap_ms, gap)
        self.gap_during[self.phase] = max(self.gap_during[self.phase], gap)
        if self.first_gap_ms is None:
            self.first_gap_ms = gap          # the window's first paint (and the start of the reading)
        else:
            self.max_gap_after_first_ms = max(self.max_gap_after_first_ms, gap)
        if gap > LONG_GAP_MS:
            self.long_gaps.append((round(gap, 1), round(now - self.t0, 2), self.doing, round(own, 1)))
        if "relevance_on_screen_s" not in self.results and self.window.state.relevance is not None:
            # the relevance trace (the model's LMs, or the general-English ones in the background) is drawn when
            # the state has it (a tick runs between event-loop passes, after the repaint that drew it)
            self.results["relevance_on_screen_s"] = round(now - self.t0, 3)

    # -- the script -----------------------------------------------------------------------------------------
    def start(self) -> None:
        self.ticker.start()
        if self.close_at is not None:
            self._close_in(self.close_at)
            return
        started = self.t0
        self._wait(self._segmented, lambda: self._repainted("open", started, then=self._opened), timeout_s=3600,
                   what="segmentation")

    def abandon(self) -> None:
        self.notes.append("the corpus could not be opened")
        self.steps = []

    def _in_state(self, state: str) -> bool:
        """Whether the window is in ``state`` (one of ``segviz gui --close-at``'s)."""
        win = self.window
        running = win.background.is_running
        if state == "reading":
            return running("open")
        if state == "applying":
            return (win.state.corpus is not None and win.state.probabilities is None
                    and (running("apply") or running("apply-early")))
        if state == "relevance":
            return running("relevance (general LMs)")
        if state == "peers":
            return any(name.startswith("peers:") for name in win.background.current)
        return win.training.running

    def _close_in(self, state: str) -> None:
        """``--close-at``: close the window :data:`IN_STATE_S` after it is first in ``state`` (the engine well into
        that work), and time the close; training is started as soon as the curve is shown."""
        self.doing = f"waiting for {state}"
        if state == "training":
            def train():
                self.window.features.reuse_lms.setChecked(self.window.features.reuse_lms.isEnabled())
                if self.window.start_training(self.window.features.n_features.value()) is None:
                    self.notes.append(f"training did not start: {self.window.last_error}")
            self._wait(self._segmented, train, timeout_s=3600, what="segmentation")

        def reached():
            self.results["state_reached_s"] = round(time.perf_counter() - self.t0, 3)
            self.doing = f"in {state}"

            def close():
                if self._in_state(state):
                    self.results["closed_in"] = state
                else:
                    self.notes.append(f"no longer {state} when closing")
                self._close()
            QTimer.singleShot(int(IN_STATE_S * 1000), close)

        self._wait(lambda: self._in_state(state), reached, timeout_s=3600, what=state, interval_ms=5)

    def _segmented(self) -> bool:
        """The model's curve is in the state (the view draws it as the state changes)."""
        win = self.window
        return (win.state.probabilities is not None and not win.background.is_running("open")
                and not win.background.is_running("load-model"))

    def _opened(self) -> None:
        self.results["open_to_segmentation_s"] = round(self.samples.pop("open")[0] / 1000.0, 3)
        self.results["sentences"] = int(self.window.state.n_sentences)
        self.results["documents"] = len(self.window.state.corpus.units)   # source units (files, JSONL objects)
        self.results["segments"] = len(self.window.state.corpus)           # the reference's segments
        self.phase = "interaction"
        self.doing = "interaction"
        win = self.window
        state = win.state
        bv = win.block_view
        rng = np.random.default_rng(0)
        steps = []
        for alpha in np.linspace(0.05, 0.95, ALPHAS):
            steps.append(("alpha", lambda a=float(alpha): bv.alpha_line.setValue(a),
                          lambda a=float(alpha): abs(state.alpha - a) < 1e-9))
        def set_epsilon(e: int) -> None:
            # the ε spin box when the shown rule has an ε (its controls); else the idle threshold rule's, as before
            spin = win.decision.epsilon_spin
            if spin is not None:
                spin.setValue(e)
            else:
                state.set_epsilon(e)

        for epsilon in [2, 3, 4, 5, 3, 6, 1, 8, 2, 4][:EPSILONS]:
            steps.append(("epsilon", lambda e=epsilon: set_epsilon(e), lambda e=epsilon: state.epsilon == e))
        for _ in range(BLOCKS):
            # the next block, from the last one back to the first: every step moves
            steps.append(("block", lambda: bv.set_block((bv.block + 1) % bv.n_blocks), None))
        n_docs = len(state.corpus)
        for doc in sorted(rng.choice(np.arange(1, n_docs + 1), size=min(DOCUMENTS, n_docs), replace=False),
                          key=lambda _d: rng.random()):
            steps.append(("document", lambda d=int(doc): win.doc_spin.setValue(d), None))
        for _ in range(ZOOMS):
            steps.append(("zoom", bv.zoom_all, None))
            steps.append(("zoom", lambda: bv.set_block(bv.block), None))
        steps += self._drag_steps()
        self.steps = steps
        QTimer.singleShot(0, self._next_step)

    def _drag_steps(self) -> list:
        """The α line dragged with the mouse as a user drags it: pressed, moved in :data:`DRAG_MOVES` steps, let go
        (``drag`` each move, ``release`` the letting go: the axis fits the new α then)."""
        from PySide6.QtCore import QPointF, Qt
        from PySide6.QtTest import QTest

        bv = self.window.block_view
        view, vb = bv.graphics, bv.plot.vb
        state = self.window.state
        if state.rule_setting("alpha") is None:
            return []   # the shown rule has no α line

        def at(alpha: float):
            lo, hi = vb.viewRange()[0]
            return view.mapFromScene(vb.mapViewToScene(QPointF(lo + 0.2 * (hi - lo), alpha)))

        where = {}

        def press():
            where["alpha"] = float(bv.alpha_line.value())
            where["step"] = -DRAG_STEP if where["alpha"] > 0.5 else DRAG_STEP   # towards the middle: it moves
            QTest.mousePress(view.viewport(), Qt.LeftButton, Qt.NoModifier, at(where["alpha"]))

        def move(k: int):
            QTest.mouseMove(view.viewport(), at(where["alpha"] + k * where["step"]))

        def release():
            QTest.mouseRelease(view.viewport(), Qt.LeftButton, Qt.NoModifier,
                               at(where["alpha"] + DRAG_MOVES * where["step"]))
            self.results["alpha_dragged"] = [round(where["alpha"], 3), round(float(bv.alpha_line.value()), 3)]

        steps = [("drag", press, None)]
        steps += [("drag", lambda k=k: move(k), None) for k in range(1, DRAG_MOVES + 1)]
        steps.append(("release", release, None))
        return steps

    def _next_step(self) -> None:
        if not self.steps:
            self._export()
            return
        kind, action, applied = self.steps.pop(0)
        self.doing = kind
        start = time.perf_counter()
        action()
        self._wait(applied or (lambda: True), lambda: self._repainted(kind, start), timeout_s=ACTION_TIMEOUT_S,
                   what=kind, started=start)

    def _repainted(self, kind: str, start: float, then=None) -> None:
        """The state has changed; the result is on screen once the repaint it asked for has been processed.

        Widgets post their repaint request while the state changes; a zero-timer runs after the posted events of
        the next event-loop pass, so the first pass that has seen a new request ends the measurement.  An action
        that changed nothing on screen (two quiet passes) ends it too."""
        seen = self.repaints.count
        quiet = [0]

        def check():
            if self.repaints.count > seen or quiet[0] >= 2:
                self.samples.setdefault(kind, []).append((time.perf_counter() - start) * 1000.0)
                QTimer.singleShot(0, then or self._next_step)
            else:
                quiet[0] += 1
                QTimer.singleShot(0, check)
        QTimer.singleShot(0, check)

    def _export(self, exports=EXPORTS) -> None:
        """Each of :data:`EXPORTS` in turn: ``export_KIND_ms`` until the file is written, ``export_KIND_gui_ms`` the
        window's thread in the call (a picture of the view, or a snapshot of what it draws; the rest is done in the
        background)."""
        if not exports:
            self._exports_done()
            return
        (kind, name, zoomed), rest = exports[0], exports[1:]
        self.doing = f"export {kind}"
        if zoomed:
            self.window.block_view.zoom_all()
        path = str(Path(self.export_dir.name) / name)
        done = {"ok": False}

        def exported(p):
            if p == path:
                done["ok"] = True

        self.window.exported.connect(exported)
        start = time.perf_counter()
        self.window.export_plot(path)
        self.results[f"export_{kind}_gui_ms"] = round((time.perf_counter() - start) * 1000.0, 1)

        def written():
            self.results[f"export_{kind}_ms"] = round((time.perf_counter() - start) * 1000.0, 1)
            self.results[f"export_{kind}_bytes"] = Path(path).stat().st_size if Path(path).exists() else None
            self.window.exported.disconnect(exported)
            QTimer.singleShot(0, lambda: self._export(rest))

        self._wait(lambda: done["ok"], written, timeout_s=120, what=f"export {kind}")

    def _exports_done(self) -> None:
        self.window.block_view.set_block(0)
        # everything the window started for this corpus and model (the relevance trace, the shown peers, the
        # feature columns) done and on screen before anything is measured as finished
        self.doing = "background"
        self._wait(lambda: not self.window.busy, self._background_done, timeout_s=BACKGROUND_TIMEOUT_S,
                   what="background jobs", interval_ms=20)

    def _background_done(self) -> None:
        self.results["background_done_s"] = round(time.perf_counter() - self.t0, 3)
        if self.train == 0:
            self.notes.append("training step left out (--train 0)")
            self._close()
        else:
            self._train()

    def _train(self) -> None:
        win = self.window
        self.phase = "training"
        self.doing = "training"
        self.results["training_started_s"] = round(time.perf_counter() - self.t0, 3)
        # a round is shown in two event-loop passes (the curve, then the table row and metrics): time each
        curve_pass, add_round, refresh_metrics = win.training._show_round, win.state.add_round, win.state.refresh_metrics
        table_started = {}

        def timed_curve(event, note):
            t = time.perf_counter()
            curve_pass(event, note)
            self.round_handler_ms.append((time.perf_counter() - t) * 1000.0)

        def timed_add_round(event):
            table_started["t"] = time.perf_counter()
            return add_round(event)

        def timed_metrics():
            refresh_metrics()
            if "t" in table_started:
                self.table_pass_ms.append((time.perf_counter() - table_started.pop("t")) * 1000.0)

        win.training._show_round = timed_curve
        win.state.add_round = timed_add_round
        win.state.refresh_metrics = timed_metrics
        # features on the shown model's language models: the script times the window while features arrive,
        # not the minutes of language-model training before the first one (that wait is a child process's)
        win.features.reuse_lms.setChecked(win.features.reuse_lms.isEnabled())
        self.results["training_language_models"] = ("the model's" if win.features.reuse_lms.isChecked()
                                                    else "trained on the corpus")
        n_features = self.train if self.train is not None else max(FEATURES_BEFORE_CLOSE + 5,
                                                                       win.features.n_features.value())
        if win.start_training(n_features) is None:
            self.notes.append(f"training did not start: {win.last_error}")
            self._close()
            return
        win.roundShown.connect(self._round)
        win.trainingFinished.connect(lambda _r: self._close() if self.closed_at is None else None)

    def _round(self, number: int) -> None:
        if number == 1:
            self.results["first_feature_s"] = round(time.perf_counter() - self.t0, 3)
        if number == FEATURES_BEFORE_CLOSE:
            self.results["three_features_s"] = round(time.perf_counter() - self.t0, 3)
            # the 4th round is now being computed by the training child: close in the middle of it
            QTimer.singleShot(20, self._close)

    def _close(self) -> None:
        if self.closed_at is not None:
            return
        self.closed_at = time.perf_counter()
        self.doing = "closing"
        self.engine_peak_mb = engine_peak_mb(self.window)   # the engine's own peak: it is gone after the close
        self.window.close()

    def _wait(self, condition, then, *, timeout_s: float, what: str, started: float | None = None,
              interval_ms: int = 1) -> None:
        deadline = time.perf_counter() + timeout_s

        def poll():
            if self.closed_at is not None:
                return
            if condition():
                then()
            elif time.perf_counter() > deadline:
                self.notes.append(f"{what}: gave up after {timeout_s:g} s")
                if started is not None:
                    self.samples.setdefault(what, []).append(timeout_s * 1000.0)
                    QTimer.singleShot(0, self._next_step)
                else:
                    self._close()
            else:
                QTimer.singleShot(interval_ms, poll)
        QTimer.singleShot(0, poll)

    def loop_ended(self) -> None:
        """The event loop has ended (the window closed, no worker left)."""
        self.loop_ended_at = time.perf_counter()

    loop_ended_at: float | None = None

    def engine_gone(self) -> None:
        """The window's engine (and its forked workers) has ended: the session's processes are all gone."""
        if self.closed_at is not None:
            self.results["close_engine_gone_s"] = round(time.perf_counter() - self.closed_at, 3)

    # -- the report -----------------------------------------------------------------------------------------
    def report(self) -> dict:
        now = time.perf_counter()
        tree = self.tree_report or {}
        out = {
            "sentences": self.results.get("sentences"),
            "documents": self.results.get("documents"),
            "segments": self.results.get("segments"),
            "open_to_segmentation_s": self.results.get("open_to_segmentation_s"),
            "relevance_on_screen_s": self.results.get("relevance_on_screen_s"),
            "background_done_s": self.results.get("background_done_s"),
            "max_gap_ms": round(self.max_gap_ms, 1),
            "max_own_gap_ms": round(self.max_own_gap_ms, 1),
            "alpha_ms": summary(self.samples["alpha"]),
            "epsilon_ms": summary(self.samples["epsilon"]),
            "block_ms": summary(self.samples["block"]),
            "document_ms": summary(self.samples["document"]),
            "zoom_ms": summary(self.samples["zoom"]),
            "drag_ms": summary(self.samples["drag"]),
            "release_ms": summary(self.samples["release"]),
            "alpha_dragged": self.results.get("alpha_dragged"),   # the α line's value at the press, at the release
            "close_exit_s": None if self.closed_at is None else round((self.loop_ended_at or now) - self.closed_at, 3),
            "close_engine_gone_s": self.results.get("close_engine_gone_s"),
            "peak_tree_rss_mb": tree.get("peak_tree_rss_mb"),
            "peak_tree_at_s": tree.get("peak_at_s"),
            "peak_tree_pss_mb": tree.get("peak_tree_pss_mb"),
            "peak_tree_shares_mb": tree.get("peak_shares_mb"),
            "tree_samples": tree.get("samples"),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
            "peak_rss_engine_mb": getattr(self, "engine_peak_mb", None),
            "max_gap_ms_by_phase": {k: round(v, 1) for k, v in self.gap_during.items()},
            "first_gap_ms": None if self.first_gap_ms is None else round(self.first_gap_ms, 1),
            "max_gap_after_first_ms": round(self.max_gap_after_first_ms, 1),
            "training_round_handler_ms": summary(self.round_handler_ms),       # the curve pass
            "training_round_table_pass_ms": summary(self.table_pass_ms),      # the table-row and metrics pass
            "features_shown": len(self.window.state.rounds) if self.window is not None else None,
            **{key: value for key, value in self.results.items() if key.startswith("export_")},
            "first_feature_s": self.results.get("first_feature_s"),
            "three_features_s": self.results.get("three_features_s"),
            "training_started_s": self.results.get("training_started_s"),
            "training_language_models": self.results.get("training_language_models"),
            # (ms, seconds into the run, doing, the GUI thread's CPU ms in it)
            "long_gaps": sorted(self.long_gaps, reverse=True)[:12],
            "closed_in": self.results.get("closed_in"),
            "state_reached_s": self.results.get("state_reached_s"),
            "notes": self.notes,
        }
        return out

    def finish(self) -> None:
        """Write the JSON (once): the event loop has ended, or the process is about to exit."""
        if self.written:
            return
        self.written = True
        self.ticker.stop()
        self.tree_report = self.tree.finish()
        try:
            atomic_write_text(self.out, json.dumps(self.report(), indent=1) + "\n")
        except Exception as exc:  # noqa: BLE001 - the run's result is lost; say so, exit 2
            print(f"segviz: error: cannot write {self.out}: {exc}", file=sys.stderr)
            self.status["code"] = 2
        self.export_dir.cleanup()

    @classmethod
    def flush_pending(cls, *, forced: bool = False) -> None:
        """Write every pending report; ``forced``: the process is leaving through the forced exit (a step did not
        end within the grace period), which the report says."""
        for bench in cls._pending:
            if forced and not bench.written:
                bench.notes.append("the window did not exit by its normal path: the forced exit ended the process")
            bench.finish()
