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

Each corpus runs in its own process (a fresh interpreter, as a user starts the app); the JSON files are kept in
--out (default: a temporary directory).  Timings depend on the machine and its load: the one-minute load
average is printed with each run, at its start and at its end.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REUTERS = ROOT.parent / "shared" / "corpora" / "reuters21578"
KEYS = ("alpha_ms", "epsilon_ms", "block_ms", "document_ms", "zoom_ms")


def run(label: str, corpus: list[Path], out_dir: Path, model: Path | None = None) -> dict:
    out = out_dir / f"{label}.json"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    extra = ["--model", str(model)] if model is not None else []
    proc = subprocess.run([sys.executable, "-m", "segviz", "gui", *map(str, corpus), *extra, "--benchmark", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{label}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    result = json.loads(out.read_text())
    result["_load_average"] = round(load, 2)
    result["_load_average_end"] = round(os.getloadavg()[0], 2)
    result["_wall_s"] = round(wall, 1)
    out.write_text(json.dumps(result, indent=1) + "\n")   # the load averages kept with the run
    return result


def show(label: str, r: dict) -> None:
    print(f"\n{label}: {r['sentences']:,} sentences, {r['documents']:,} documents "
          f"(load average {r['_load_average']} at the start, {r['_load_average_end']} at the end; "
          f"{r['_wall_s']} s in all)")
    print(f"  open_to_segmentation_s {r['open_to_segmentation_s']}   max_gap_ms {r['max_gap_ms']} "
          f"(open {r['max_gap_ms_by_phase']['open']}, interaction {r['max_gap_ms_by_phase']['interaction']}, "
          f"training {r['max_gap_ms_by_phase']['training']}; the first paint {r['first_gap_ms']}, "
          f"afterwards at most {r['max_gap_after_first_ms']})")
    for key in KEYS:
        s = r[key]
        print(f"  {key:12s} median {s['median']:7.2f}  p95 {s['p95']:7.2f}  max {s['max']:7.2f}  (n={s['n']})")
    print(f"  longest gaps (ms, s into the run, doing): {r['long_gaps'][:6]}")
    print(f"  training: {r['training_language_models']} language models; started at {r['training_started_s']} s, "
          f"first feature at {r['first_feature_s']} s, 3 features at {r['three_features_s']} s")
    h, t = r["training_round_handler_ms"], r["training_round_table_pass_ms"]
    print(f"  new feature: curve pass median {h['median']} max {h['max']} ms, table pass median {t['median']} "
          f"max {t['max']} ms; close_exit_s {r['close_exit_s']}; peak_rss_mb {r['peak_rss_mb']} "
          f"(engine {r.get('peak_rss_engine_mb')})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reuters", action="store_true", help="also reut2-000..013 (70,539 sentences)")
    parser.add_argument("--large", action="store_true", help="also reut2-000..021 (>= 10^5 sentences)")
    parser.add_argument("--out", type=Path, default=None, help="directory for the JSON files")
    parser.add_argument("--model", type=Path, default=None, help="the model to open (default: the bundled one)")
    parser.add_argument("--repeat", type=int, default=1, help="run each corpus this many times")
    args = parser.parse_args()
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="segviz-bench-app-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = [("sample", [])]
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
            show(name, run(name, corpus, out_dir, args.model))
    print(f"\nJSON in {out_dir}")


if __name__ == "__main__":
    main()
