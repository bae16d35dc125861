"""Time and peak memory of C99 (Choi 2000) on whole books, single-threaded.

Each book is segmented by ``C99().fit(sentences)`` (Choi's release defaults, automatic stopping) in a fresh
child process, so that its peak RSS is its own: ``peak_rss_gib`` is the child's peak resident set (Python, the
read corpus and C99 together), ``base_rss_gib`` the peak before C99 started (after reading the book and
loading nltk's stemmer and the compiled kernels), ``seconds`` the wall time of the fit alone (stemming included,
reading the book not).  Thread pools are pinned to one thread.

Default books: the shortest, median and longest of ../shared/corpora/gutenberg_novels by sentence count as the
``text`` reader splits them (1,347 / 6,357 / 10,018 sentences in docs/benchmarks.md); ``--pick`` counts the folder again and picks
those three, ``FILE ...`` names the books; ``--join`` segments the named books as one text (two long books
make the 20,000 sentences of the longest novels).  Absent books are skipped with a message on stderr.

Usage:  python benchmarks/bench_c99_books.py [--pick] [--books DIR] [--join] [FILE ...]   (prints JSON on stdout)
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOKS = ROOT.parent / "shared" / "corpora" / "gutenberg_novels"
# shortest, median (the 14th of 26) and longest by sentence count, as counted by --pick
DEFAULT = ("1232_the-prince.txt", "174_the-picture-of-dorian-gray.txt", "1260_jane-eyre.txt")
SINGLE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                   "NUMBA_NUM_THREADS")}

CHILD = r"""
import json, resource, sys, time
import numpy as np
import segviz
from segviz.peers.c99 import C99, preload_stemmer

def rss_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20     # ru_maxrss is KiB on Linux

sentences = segviz.read_corpus(sys.argv[1:], headings=False).sentences()   # whole books, as the timings were taken
preload_stemmer()
C99().fit([("warm", "up")] * 30)          # load the compiled kernels (numba's cache) outside the timing
base = rss_gib()
t0 = time.perf_counter()
est = C99().fit(sentences)
seconds = time.perf_counter() - t0
print(json.dumps({"sentences": len(sentences), "seconds": round(seconds, 2), "peak_rss_gib": round(rss_gib(), 2),
                  "base_rss_gib": round(base, 2), "segments": len(est.masses_)}))
"""


def count_sentences(path: Path) -> int:
    sys.path.insert(0, str(ROOT))
    import segviz

    return segviz.read_corpus(str(path), headings=False).n_sentences


def pick(folder: Path) -> list[Path]:
    counts = sorted((count_sentences(p), p.name) for p in folder.glob("*.txt"))
    if not counts:
        return []
    return [folder / counts[0][1], folder / counts[len(counts) // 2][1], folder / counts[-1][1]]


def measure(paths: list[Path]) -> dict:
    env = {**os.environ, **SINGLE_THREAD, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", CHILD, *map(str, paths)], env=env, capture_output=True, text=True)
    name = " + ".join(p.name for p in paths)
    if out.returncode != 0:
        raise SystemExit(f"{name}: the child failed:\n{out.stderr}")
    return {"book": name, **json.loads(out.stdout.strip().splitlines()[-1])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--books", type=Path, default=BOOKS, help="folder of the default books")
    ap.add_argument("--pick", action="store_true", help="pick shortest/median/longest by counting --books")
    ap.add_argument("--join", action="store_true", help="segment the named books as one text")
    args = ap.parse_args(argv)
    paths = args.files or (pick(args.books) if args.pick else [args.books / name for name in DEFAULT])
    present = []
    for path in paths:
        if path.is_file():
            present.append(path)
        else:
            print(f"skipped {path}: not found", file=sys.stderr)
    results = []
    for group in ([present] if args.join and present else [[p] for p in present]):
        results.append(measure(group))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"command": "C99().fit(sentences), one child process per book, single-threaded",
                      "books": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
