"""What applying a model to new text costs, and where it goes: the open of the app, in its engine parts.

Three measurements on the same corpus (default: reut2-000..013, 70,539 sentences; Reuters-21578 is licensed for
research purposes only):

* **reading**: the corpus read as the app's engine reads it (:func:`segviz.service.tasks.read_corpus_task`, one
  process, the only reader of the window's corpus), in a fresh interpreter;
* **applying**: ``Segmenter.feature_matrix`` with ``n_jobs=1`` and ``n_jobs=2`` (:mod:`segviz.features.parallel`),
  each on a fresh model, ``--repeat`` times, and whether the two give bit-identical probabilities;
* **per family**: the seconds of each signal family of the model's questions, and of its word questions.
* **routing** (a router, :mod:`segviz.routing`, such as the bundled default model): the seconds its gauge takes to
  choose the expert (the short expert on evenly spread windows of a long text), then the measurements above are of
  the chosen expert.

    python benchmarks/bench_apply.py                       # reut2-000..013, the bundled default model
    python benchmarks/bench_apply.py FILE... --model M --repeat 3 --json out.json
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.events import run_to_end  # noqa: E402
from segviz.features.context import FeatureContext  # noqa: E402
from segviz.features.family import interval_block  # noqa: E402
from segviz.features.questions import IntervalQuestion, WordQuestion, signal_named  # noqa: E402
from segviz.features.stream import word_block  # noqa: E402
from segviz.models import load_model  # noqa: E402
from segviz.paths import default_model  # noqa: E402
from segviz.service.tasks import read_corpus_task  # noqa: E402

REUTERS = ROOT.parent / "shared" / "corpora" / "reuters21578"

_READER = """
import json, sys, time
sys.path.insert(0, {root!r})
from segviz.service.tasks import read_corpus_task
from segviz.events import run_to_end
start = time.perf_counter()
corpus = run_to_end(read_corpus_task(json.loads(sys.argv[1])))
print(json.dumps({{"seconds": time.perf_counter() - start, "sentences": corpus.n_sentences}}))
"""


def read_in_a_process(files: list[str]) -> dict:
    """Read ``files`` in a fresh process, as the engine does."""
    script = _READER.format(root=str(ROOT))
    process = subprocess.run([sys.executable, "-c", script, json.dumps(files)], stdout=subprocess.PIPE, text=True,
                             check=True)
    return json.loads(process.stdout)


def per_family(corpus, model) -> dict[str, float]:
    """Seconds per signal family (one context, the families in turn) and for the word questions."""
    context = FeatureContext.from_corpus(corpus)
    specs = list(model.features_)
    out: dict[str, float] = {}
    start = time.perf_counter()
    word_block(context.sentences, [s for s in specs if isinstance(s, WordQuestion)])
    out["word questions"] = time.perf_counter() - start
    pairs = sorted({(q.signal, q.window) for q in specs if isinstance(q, IntervalQuestion)},
                   key=lambda p: (signal_named(p[0]).kind, p[0], p[1].start, p[1].end))
    for name, window in pairs:
        kind = signal_named(name).kind
        start = time.perf_counter()
        context.values(signal_named(name), window)
        out[kind] = out.get(kind, 0.0) + time.perf_counter() - start
    start = time.perf_counter()
    interval_block(context, [s for s in specs if isinstance(s, IntervalQuestion)])
    out["interval answers (signals cached)"] = time.perf_counter() - start
    return {k: round(v, 2) for k, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="corpus files (default: reut2-000..013)")
    ap.add_argument("--model", default=None, help="the model (default: the bundled default model)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    files = args.files or [str(REUTERS / f"reut2-{i:03d}.sgm") for i in range(14)]
    model_path = args.model or str(default_model())
    results: dict = {"files": len(files), "model": os.path.relpath(model_path, ROOT), "load_average_start":
                     round(os.getloadavg()[0], 2)}

    one = read_in_a_process(files)
    results["reading_s"] = round(one["seconds"], 2)
    results["sentences"] = one["sentences"]
    print(f"{one['sentences']:,} sentences in {len(files)} files")
    print(f"reading (as the engine reads): {one['seconds']:.2f} s")

    corpus = run_to_end(read_corpus_task(files))
    # every model routes (a lone segmenter answers for itself at no cost): the measurements below are of the
    # segmenter that answers for this corpus
    gauges = []
    for _ in range(args.repeat):
        model = load_model(model_path)
        start = time.perf_counter()
        route = model.route(corpus)
        gauges.append(time.perf_counter() - start)
    expert = route.expert
    results["route"] = route.to_dict()
    results["gauge_s"] = [round(t, 2) for t in gauges]
    print(f"routing: {route.describe()}; the gauge took {', '.join(f'{t:.2f}' for t in gauges)} s")

    def fresh():
        return load_model(model_path).segmenters()[expert]

    timings: dict[int, list[float]] = {1: [], 2: []}
    probabilities = {}
    for _ in range(args.repeat):
        for n_jobs in (1, 2):
            model = fresh()
            start = time.perf_counter()
            model.feature_matrix(corpus, n_jobs=n_jobs)
            timings[n_jobs].append(time.perf_counter() - start)
            probabilities[n_jobs] = model.boundary_probabilities(corpus)
    identical = bool(np.array_equal(probabilities[1], probabilities[2]))
    results["apply_s"] = {str(k): [round(t, 2) for t in v] for k, v in timings.items()}
    results["apply_identical"] = identical
    print(f"applying {model_path}: n_jobs=1 {', '.join(f'{t:.2f}' for t in timings[1])} s; "
          f"n_jobs=2 {', '.join(f'{t:.2f}' for t in timings[2])} s "
          f"(ratio {np.median(timings[1]) / np.median(timings[2]):.2f}); probabilities identical: {identical}")

    families = per_family(corpus, fresh())
    results["per_family_s"] = families
    print("per family (one core): " + ", ".join(f"{k} {v}" for k, v in families.items()))
    results["load_average_end"] = round(os.getloadavg()[0], 2)
    print(f"load average {results['load_average_start']} -> {results['load_average_end']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
