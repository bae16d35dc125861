"""Trigger LM training, this checkout against an earlier commit, one run after the other.

Fits ``LanguageModels()`` (the defaults: Katz trigram, 20,000 trigger pairs, over-relaxed IIS stopped on the last
5 % held out) on reut2-000..013 and reports the fit's wall and CPU seconds, the IIS iterations and the test
perplexity on reut2-018..021.  Each fit runs in a fresh interpreter; with ``--against COMMIT`` the same fit of
that commit (checked out into a temporary git worktree, removed afterwards) alternates with this checkout's, so
both see the same load.  Prints one JSON line per fit, then one with the ratios.

    python benchmarks/bench_lm_fit.py --against e1e98fb^ --repeat 2

Not collected by pytest.  Needs ../shared/corpora/reuters21578 (licensed for research purposes only).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REUTERS = ROOT.parent / "shared" / "corpora" / "reuters21578"

# run in a fresh interpreter with the code under test first on sys.path
CHILD = r"""
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from segviz.corpus import read_corpus
from segviz.lm import LanguageModels
R = Path(sys.argv[2])
train = read_corpus([R / f"reut2-{i:03d}.sgm" for i in range(14)]).sentences()
test = read_corpus([R / f"reut2-{i:03d}.sgm" for i in range(18, 22)]).sentences()
t0, c0 = time.perf_counter(), time.process_time()
lms = LanguageModels().fit(train)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"fit_wall_s": round(wall, 1), "fit_cpu_s": round(cpu, 1),
                  "test_perplexity": lms.trigger_.perplexity(test), "trigram_perplexity": lms.trigram_.perplexity(test),
                  "iterations": len(lms.trigger_.history_) - 1,
                  "peak_rss_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)}))
"""


def fit(code: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(code), str(REUTERS)], capture_output=True, text=True,
                         check=True, cwd=tempfile.gettempdir())
    return json.loads(out.stdout.strip().splitlines()[-1])


def load() -> float:
    return round(os.getloadavg()[0], 2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", metavar="COMMIT", help="also fit with this commit's code, alternating")
    ap.add_argument("--repeat", type=int, default=1, help="fits of each (default 1)")
    args = ap.parse_args(argv)
    if not REUTERS.is_dir():
        print(f"needs {REUTERS}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        codes = {"now": ROOT}
        if args.against:
            other = Path(tmp) / "against"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(other), args.against],
                           check=True, capture_output=True)
            codes = {args.against: other, "now": ROOT}
        try:
            runs: dict[str, list[dict]] = {name: [] for name in codes}
            for i in range(args.repeat):
                for name, code in codes.items():
                    start = load()
                    result = {"code": name, "run": i + 1, "load_start": start, **fit(code), "load_end": load()}
                    runs[name].append(result)
                    print(json.dumps(result), flush=True)
        finally:
            if args.against:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(other)],
                               capture_output=True)
    if args.against:
        before, now = runs[args.against], runs["now"]
        print(json.dumps({
            "wall_ratio": [round(b["fit_wall_s"] / n["fit_wall_s"], 2) for b, n in zip(before, now)],
            "cpu_ratio": [round(b["fit_cpu_s"] / n["fit_cpu_s"], 2) for b, n in zip(before, now)],
            "same_perplexity": all(abs(b["test_perplexity"] - n["test_perplexity"]) < 0.1 for b, n in zip(before, now)),
        }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
