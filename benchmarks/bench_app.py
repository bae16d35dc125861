"""The app at real size: run the built-in scripted session (`segviz gui CORPUS... --benchmark OUT.json`) on
corpora of increasing size and print its numbers as a table (docs/benchmarks.md, *App*).

The session (segviz/app/benchmark.py) opens the corpus offscreen with the bundled model and waits for the
segmentation, drags alpha through 30 values, changes epsilon 10 times, moves through 20 blocks, jumps to 10
documents, zooms out and back, exports a PNG, starts training (features on the model's language models), lets 3
features arrive and closes the window during the 4th.  A 10 ms timer records the longest event-loop gap.

    python benchmarks/bench_app.py                      # the bundled sample
    python benchmarks/bench_app.py --reuters            # + reut2-000..013 (70k sentences; needs ../shared)
    python benchmarks/bench_app.py --reuters --large    # + reut2-000..021 (>= 10^5 sentences)
    python benchmarks/bench_app.py --repeat 2 --model resources/sample_model.segviz   # each run twice, that model
    python benchmarks/build_large_corpus.py /tmp/m4 --files 4                          # 4 files of 250,000
    python benchmarks/bench_app.py --files /tmp/m4-?.ref --train 0 --no-sample         # 10^6 sentences
    xvfb-run -a -s "-screen 0 1600x1000x24" python benchmarks/bench_app.py --platform xcb ...   # a real X window
    python benchmarks/bench_app.py --files /tmp/m4-?.ref --no-sample --close-at reading applying relevance peers training

While each run goes on, this script samples the resident memory of the app's whole process tree from ``/proc``
itself (every process whose parent chain leads to the app, found by scanning every ``/proc/PID/stat``: a method of
its own, to check the app's ``peak_tree_rss_mb`` against), and after it checks that no process of the tree and
no temporary directory of the run is left.

Each corpus runs in its own process (a fresh interpreter, as a user starts the app); the JSON files are kept in
--out (default: a temporary directory).  Timings depend on the machine and its load: the one-minute load
average is printed with each run, at its start and at its end.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from segviz.app.tree_memory import resident_mb

ROOT = Path(__file__).resolve().parents[1]
REUTERS = ROOT.parent / "shared" / "corpora" / "reuters21578"
KEYS = ("alpha_ms", "epsilon_ms", "block_ms", "document_ms", "zoom_ms", "drag_ms", "release_ms")


def _parents() -> dict[int, int]:
    """``{pid: parent pid}`` of every process, from ``/proc/PID/stat``."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    stat = f.read()
                out[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return out


def tree_of(root: int) -> list[int]:
    """``root`` and every process whose chain of parents reaches it."""
    parents = _parents()
    tree, changed = {root}, True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                changed = True
    return sorted(tree)


def _owner(directory: str) -> int | None:
    """The process id a segviz temporary directory names as its owner (``owner.pid``), None without one."""
    try:
        return int(Path(directory, "owner.pid").read_text().strip())
    except (OSError, ValueError):
        return None


class ExternalSampler:
    """The app's process tree's resident memory, summed every 0.1 s from outside (for comparison with the app's
    own ``peak_tree_rss_mb``); :attr:`seen` every process of the tree ever seen."""

    def __init__(self, root: int):
        self.root, self.peak, self.seen = root, 0.0, set()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            tree = tree_of(self.root)
            self.seen.update(tree)
            self.peak = max(self.peak, sum(resident_mb(pid) for pid in tree))

    def stop(self) -> float:
        self._stop.set()
        self.thread.join()
        return round(self.peak, 1)


def run(label: str, corpus: list[Path], out_dir: Path, model: Path | None = None, train: int | None = None,
        close_at: str | None = None, platform: str = "offscreen") -> dict:
    out = out_dir / f"{label}.json"
    env = dict(os.environ, QT_QPA_PLATFORM=platform)
    load = os.getloadavg()[0]
    temp = set(glob.glob(os.path.join(tempfile.gettempdir(), "segviz-*")))
    t0 = time.perf_counter()
    extra = ["--model", str(model)] if model is not None else []
    extra += ["--train", str(train)] if train is not None else []
    extra += ["--close-at", close_at] if close_at is not None else []
    proc = subprocess.Popen([sys.executable, "-m", "segviz", "gui", *map(str, corpus), *extra, "--benchmark",
                             str(out)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = ExternalSampler(proc.pid)
    _, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    external = sampler.stop()
    if proc.returncode != 0:
        raise SystemExit(f"{label}: exit {proc.returncode}\n{stderr[-2000:]}")
    result = json.loads(out.read_text())
    result["_load_average"] = round(load, 2)
    result["_load_average_end"] = round(os.getloadavg()[0], 2)
    result["_wall_s"] = round(wall, 1)
    result["_external_peak_tree_rss_mb"] = external
    result["_processes_seen"] = len(sampler.seen)
    result["_processes_left"] = sorted(pid for pid in sampler.seen if os.path.exists(f"/proc/{pid}"))
    result["_temporary_directories_left"] = [d for d in sorted(set(glob.glob(os.path.join(tempfile.gettempdir(),
                                                                                        "segviz-*"))) - temp)
                                             if _owner(d) in sampler.seen]   # (other people's runs may make some)
    out.write_text(json.dumps(result, indent=1) + "\n")   # the load averages kept with the run
    return result


def show(label: str, r: dict) -> None:
    print(f"\n{label}: {r['sentences']:,} sentences, {r['documents']:,} documents, {r.get('segments') or 0:,} "
          f"segments "
          f"(load average {r['_load_average']} at the start, {r['_load_average_end']} at the end; "
          f"{r['_wall_s']} s in all)")
    print(f"  open_to_segmentation_s (the curve on screen) {r['open_to_segmentation_s']}   relevance_on_screen_s "
          f"{r['relevance_on_screen_s']}   background_done_s {r['background_done_s']}")
    print(f"  peak_tree_rss_mb {r['peak_tree_rss_mb']} at {r['peak_tree_at_s']} s (PSS {r['peak_tree_pss_mb']}; "
          f"sampled from outside: {r['_external_peak_tree_rss_mb']}); shares {r['peak_tree_shares_mb']}")
    print(f"  close_exit_s {r['close_exit_s']}, the engine gone {r['close_engine_gone_s']} s after the close; "
          f"{r['_processes_seen']} processes seen, left: {r['_processes_left']}; temporary directories left: "
          f"{r['_temporary_directories_left']}; notes {r['notes']}")
    print(f"  max_own_gap_ms {r['max_own_gap_ms']}   max_gap_ms {r['max_gap_ms']} "
          f"(open {r['max_gap_ms_by_phase']['open']}, interaction {r['max_gap_ms_by_phase']['interaction']}, "
          f"training {r['max_gap_ms_by_phase']['training']}; the first paint {r['first_gap_ms']}, "
          f"afterwards at most {r['max_gap_after_first_ms']})")
    for key in KEYS:
        s = r[key]
        print(f"  {key:12s} median {s['median']:7.2f}  p95 {s['p95']:7.2f}  max {s['max']:7.2f}  (n={s['n']})")
    print(f"  longest gaps (ms, s into the run, doing, the GUI thread's CPU ms): {r['long_gaps'][:8]}")
    print(f"  training: {r['training_language_models']} language models; started at {r['training_started_s']} s, "
          f"first feature at {r['first_feature_s']} s, 3 features at {r['three_features_s']} s")
    h, t = r["training_round_handler_ms"], r["training_round_table_pass_ms"]
    print(f"  new feature: curve pass median {h['median']} max {h['max']} ms, table pass median {t['median']} "
          f"max {t['max']} ms; peak_rss_mb {r['peak_rss_mb']} (engine {r.get('peak_rss_engine_mb')}); "
          f"exports (ms until written / on the window's thread): "
          + ", ".join(f"{k} {r.get(f'export_{k}_ms')} / {r.get(f'export_{k}_gui_ms')}"
                      for k in ("png", "png_zoomed", "svg_zoomed")))


def show_close(label: str, r: dict) -> None:
    print(f"{label}: in that state at {r['state_reached_s']} s, closed in {r['closed_in']}: the event loop ended "
          f"{r['close_exit_s']} s after the close, the engine {r['close_engine_gone_s']} s; processes left "
          f"{r['_processes_left']}, temporary directories left {r['_temporary_directories_left']}; longest gap "
          f"{r['max_gap_ms']} ms; notes {r['notes']} (load average {r['_load_average']} -> {r['_load_average_end']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reuters", action="store_true", help="also reut2-000..013 (70,539 sentences)")
    parser.add_argument("--large", action="store_true", help="also reut2-000..021 (>= 10^5 sentences)")
    parser.add_argument("--out", type=Path, default=None, help="directory for the JSON files")
    parser.add_argument("--model", type=Path, default=None, help="the model to open (default: the bundled one)")
    parser.add_argument("--repeat", type=int, default=1, help="run each corpus this many times")
    parser.add_argument("--files", nargs="+", type=Path, default=None,
                        help="also these files, read together (e.g. the four files of build_large_corpus.py --files 4)")
    parser.add_argument("--no-sample", action="store_true", help="leave out the bundled sample")
    parser.add_argument("--train", type=int, default=None, help="the script's training step (0: none)")
    parser.add_argument("--platform", default="offscreen",
                        help="Qt's platform for the app (xcb: a real X window, e.g. under xvfb-run -a -s "
                             "'-screen 0 1600x1000x24'; default offscreen)")
    parser.add_argument("--close-at", nargs="+", default=None, metavar="STATE",
                        help="instead of the script, close the window in each of these states (reading, applying, "
                             "relevance, peers, training), one run each, and time the close")
    args = parser.parse_args()
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="segviz-bench-app-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = [] if args.no_sample else [("sample", [])]
    if args.files:
        runs.append((f"{len(args.files)}-files", list(args.files)))
    if args.reuters or args.large:
        if not REUTERS.is_dir():
            raise SystemExit(f"needs the Reuters-21578 files in {REUTERS}")
        if args.reuters:
            runs.append(("reut2-000..013", [REUTERS / f"reut2-{i:03d}.sgm" for i in range(14)]))
        if args.large:
            runs.append(("reut2-000..021", [REUTERS / f"reut2-{i:03d}.sgm" for i in range(22)]))
    for label, corpus in runs:
        for i in range(max(args.repeat, 1)):
            name = label if args.repeat <= 1 else f"{label}-run{i + 1}"
            if args.close_at:
                for state in args.close_at:
                    show_close(f"{name}-close-{state}", run(f"{name}-close-{state}", corpus, out_dir, args.model,
                                                            args.train, state, args.platform))
            else:
                show(name, run(name, corpus, out_dir, args.model, args.train, platform=args.platform))
    print(f"\nJSON in {out_dir}")


if __name__ == "__main__":
    main()
