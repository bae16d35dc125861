"""Frame times of the segviz app (issue 5: "no frame longer than ~100 ms on the sample corpus").

Measures, on the bundled sample (sample_corpora/reuters_sample.sgm, 1,877 sentences) with the bundled model and
again on a 10x larger stream (the sample repeated, 18,770 sentences):

* the time from an input to a finished repaint of the whole window, for alpha changes (decode + metrics +
  tick update), epsilon changes, block navigation, hover (context panel) and one induction round arriving
  (table row + curve);
* a bare repaint of the unchanged window, the baseline every ratio is printed against;
* the longest gap between 10 ms timer ticks on the GUI thread while the worker trains language models and
  induces features on the sample (GIL contention from the worker shows up here).

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_app.py [--no-training]
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PySide6.QtCore import QElapsedTimer, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def frame(app, window, action) -> float:
    """Seconds from ``action()`` to the end of a synchronous repaint of the window."""
    t0 = time.perf_counter()
    action()
    app.processEvents()
    window.repaint()
    return time.perf_counter() - t0


def stats(times) -> str:
    t = np.asarray(times) * 1000
    return f"median {np.median(t):6.1f} ms  p95 {np.percentile(t, 95):6.1f} ms  max {t.max():6.1f} ms"


def wait_idle(app, window, timeout=600):
    t0 = time.time()
    while window.busy and time.time() - t0 < timeout:
        app.processEvents()
        time.sleep(0.005)


def bench_interactions(app, window, label: str) -> dict:
    state = window.state
    rng = np.random.default_rng(0)
    results = {}
    base = [frame(app, window, lambda: None) for _ in range(20)]
    results["bare repaint (baseline)"] = base
    results["alpha change"] = [frame(app, window, lambda a=a: state.set_alpha(a))
                               for a in rng.uniform(0.05, 0.95, 40)]
    results["alpha slider"] = [frame(app, window, lambda v=v: window.decision.alpha_slider.setValue(int(v)))
                               for v in rng.integers(50, 950, 40)]
    results["epsilon change"] = [frame(app, window, lambda e=e: state.set_epsilon(int(e)))
                                 for e in rng.integers(1, 8, 20)]
    nb = window.block_view.n_blocks
    results["next/prev block"] = [frame(app, window, lambda i=i: window.block_view.set_block(i % nb))
                                  for i in range(20)]
    n = state.n_sentences
    results["hover (context panel)"] = [frame(app, window, lambda b=b: window.context.show_position(int(b)))
                                        for b in rng.integers(1, n - 1, 30)]
    # one induced feature arriving during training: a table row, the new curve, hypothesis and metrics
    from segviz.features import Window, WordQuestion
    from segviz.induction import FeatureAdded

    rounds = []
    for r in range(1, 31):
        event = FeatureAdded(r, WordQuestion("sentences", f"w{r}", Window("sentence", 0, 1)), 1.0,
                             tuple([2.0] * r), -100.0 + r, 0.8)
        probs = rng.random(n - 1)
        rounds.append(frame(app, window, lambda e=event, p=probs: (state.add_round(e), state.set_probabilities(p))))
    results["induced feature arrives"] = rounds
    base_med = float(np.median(base))
    print(f"\n{label}: {len(state.corpus)} documents, {n} sentences")
    for name, times in results.items():
        ratio = np.median(times) / base_med
        print(f"  {name:28s} {stats(times)}   x{ratio:5.2f} of a bare repaint")
    return results


def bench_training(app, window) -> tuple[float, float, int]:
    """Longest GUI-thread stall while the worker trains on the shown corpus."""
    gaps = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def tick():
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    rounds = []
    window.roundShown.connect(rounds.append)
    t0 = time.perf_counter()
    window.start_training(20)
    wait_idle(app, window)
    seconds = time.perf_counter() - t0
    timer.stop()
    g = np.asarray(gaps[1:], dtype=np.float64)
    print(f"\ntraining in the worker (LMs + 20 features on the sample): {seconds:.1f} s, {len(rounds)} rounds shown")
    print(f"  GUI timer gaps (10 ms timer): median {np.median(g):.0f} ms, p99 {np.percentile(g, 99):.0f} ms, "
          f"max {g.max():.0f} ms; gaps > 100 ms: {(g > 100).sum()} of {len(g)}")
    return float(g.max()), seconds, len(rounds)


def main(argv) -> int:
    from segviz.app.file_actions import SAMPLE_CORPUS, SAMPLE_MODEL
    from segviz.app.main_window import MainWindow
    from segviz.corpus import Corpus

    app = QApplication.instance() or QApplication([])
    import tempfile
    tmp = tempfile.TemporaryDirectory()
    window = MainWindow(settings=QSettings(os.path.join(tmp.name, "s.ini"), QSettings.IniFormat))
    window.resize(1600, 1000)
    window.show()
    window.open_corpus(str(SAMPLE_CORPUS))
    window.open_model(str(SAMPLE_MODEL))
    wait_idle(app, window)
    bench_interactions(app, window, "sample corpus")

    big = Corpus.concatenate([window.state.corpus] * 10, name="sample x10")
    seg = window.state.segmenter
    window.state.set_corpus(big)
    window.apply_model(seg)
    window.compute_peers()
    wait_idle(app, window)
    bench_interactions(app, window, "sample repeated 10x")

    if "--no-training" not in argv:
        window.open_corpus(str(SAMPLE_CORPUS))
        wait_idle(app, window)
        bench_training(app, window)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
