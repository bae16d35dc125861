"""The window's engine jobs driven as the window drives them, one after another, without the window: read, apply
(the bundled default model), the general-English relevance and a peer, each stage's progress with the time and the
resident memory of this process and every process under it (the engine and its forked workers), sampled every
0.1 s from ``/proc`` (docs/benchmarks.md, *The app at 10^6 sentences as a user lives it*).

    python benchmarks/build_large_corpus.py /tmp/m4 --files 4
    python benchmarks/bench_engine_jobs.py /tmp/m4-?.ref                          # read, apply, relevance
    python benchmarks/bench_engine_jobs.py /tmp/m4-?.ref --jobs read,relevance    # the relevance job alone

This process holds what the window would (the corpus's outline, the curve) and less (no Qt): the tree's peak here
is the engine's work plus some 0.4 GB.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.app.tree_memory import tree_sample  # noqa: E402 - Qt-free
from segviz.paths import bundled  # noqa: E402
from segviz.service.apply_job import ApplyJob  # noqa: E402
from segviz.service.engine_process import EngineProcess  # noqa: E402
from segviz.service.general_relevance import GeneralRelevanceJob  # noqa: E402
from segviz.service.peers_job import PeersJob  # noqa: E402
from segviz.service.read_job import ReadJob  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--jobs", default="read,apply,relevance", help="of read, apply, relevance, peers")
    args = parser.parse_args()
    jobs = args.jobs.split(",")
    peak = {"mb": 0.0, "at": ""}
    stage = ["start"]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.1):
            tree = tree_sample(os.getpid())
            mb = sum(tree.values())
            if mb > peak["mb"]:
                peak.update(mb=mb, at=f"{stage[0]} ({len(tree)} processes)")

    threading.Thread(target=sample, daemon=True).start()
    engine = EngineProcess()
    t0 = time.perf_counter()

    def run(name, events):
        stage[0] = name
        last = None
        while True:
            try:
                event = next(events)
            except StopIteration as done:
                print(f"{time.perf_counter() - t0:7.1f} s  {name} done; the tree's peak so far {peak['mb']:.0f} MB "
                      f"({peak['at']})", flush=True)
                return done.value
            said = f"{getattr(event, 'stage', type(event).__name__)} {getattr(event, 'done', '')}/" \
                   f"{getattr(event, 'total', '')}"
            if said != last:
                mb = sum(tree_sample(os.getpid()).values())
                print(f"{time.perf_counter() - t0:7.1f} s  {name}: {said}  (tree {mb:.0f} MB)", flush=True)
                last = said

    try:
        if "read" in jobs:
            run("read", ReadJob(args.files, engine=engine).events())
        if "apply" in jobs:
            run("apply", ApplyJob(str(bundled("resources", "default_model.segviz")), args.files,
                                  engine=engine).events())
        if "relevance" in jobs:
            run("relevance", GeneralRelevanceJob(args.files, engine=engine).events())
        if "peers" in jobs:
            run("peers", PeersJob(["texttiling"], args.files, engine=engine).events())
    finally:
        stop.set()
        engine.close()
    print(json.dumps({"peak_tree_mb": round(peak["mb"]), "at": peak["at"],
                      "total_s": round(time.perf_counter() - t0, 1)}))


if __name__ == "__main__":
    main()
