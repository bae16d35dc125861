"""Benchmark: feature induction on the Reuters training portion (reut2-014..016), paper Section 4.

Measures, in one run:
  * 100 features induced from >= 300,000 candidates (the extended templates over the 30,000 most frequent
    words, plus relevance questions from the Reuters language models), the seconds of induction alone and of
    the whole run (reading, relevance, candidates, induction), the peak memory (ru_maxrss of this process);
  * with ``--gain-kernels``: one round's gain computation for ALL candidates -- numba kernel, vectorised numpy
    path, and a straightforward per-candidate implementation (timed on a sample and extrapolated) -- and how
    that cost grows with the candidates and the events.

Stand-alone: the relevance questions need the Reuters language models (LM text reut2-000..013, the protocol's);
they are read from ``--lm`` if given, else from a cache file (``--lm-cache``, default
``~/.cache/segviz/bench_induction_reuters.segviz-lm``), which a child process trains from ``--data`` the first
time (its memory is not this process's; the JSON says how long it took).

Usage:  python benchmarks/bench_induction.py [--json] [--data ../shared/corpora] [--features 100]
        [--templates extended|paper] [--lm LM | --lm-cache FILE] [--gain-kernels]

``--json`` prints one JSON line: features, candidates, induction_s, end_to_end_s, peak_rss_gib and details.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.corpus import read_corpus  # noqa: E402
from segviz.features import (  # noqa: E402
    EXTENDED_TEMPLATES,
    VOCABULARY_TEMPLATES,
    FeatureContext,
    boundary_labels,
    build_candidates,
)
from segviz.induction import BoundaryModel, FeatureAdded  # noqa: E402
from segviz.induction_math import as_csc, candidate_gains  # noqa: E402


def naive_gains(X, y, scores, cols, lambda_max=10.0, tol=1e-9):
    """The straightforward way: one candidate at a time, Newton on that candidate's events."""
    X = as_csc(X)
    out = np.zeros(len(cols))
    for i, c in enumerate(cols):
        rows = X.indices[X.indptr[c]:X.indptr[c + 1]]
        base = scores[rows]
        A = float(y[rows].sum())
        a = 0.0
        for _ in range(100):
            r = 1.0 / (1.0 + np.exp(-(a + base)))
            d1 = A - r.sum()
            d2 = (r * (1 - r)).sum()
            if d2 <= 0:
                break
            step = np.clip(d1 / d2, -2.0, 2.0)
            a = float(np.clip(a + step, -lambda_max, lambda_max))
            if abs(step) < tol:
                break
        out[i] = a * A - (np.logaddexp(0, a + base) - np.logaddexp(0, base)).sum()
    return out


def timeit(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def train_lms(data: Path, out: Path) -> float:
    """Train the Reuters language models (reut2-000..013, default parameters) in a child process; seconds."""
    out.parent.mkdir(parents=True, exist_ok=True)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from pathlib import Path\n"
        "from segviz.corpus import read_corpus\n"
        "from segviz.lm import LanguageModels\n"
        "r = Path(sys.argv[2]) / 'reuters21578'\n"
        "s = read_corpus([r / f'reut2-{i:03d}.sgm' for i in range(14)]).sentences()\n"
        "LanguageModels().fit(s).save(sys.argv[3])\n"
    )
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(ROOT), str(data), str(out)], check=True)
    return time.perf_counter() - t


def gain_kernels(X, y, specs, rng, naive_sample: int) -> None:
    """One round's gains of all candidates by the three implementations, and their growth (printed)."""
    n, m = X.shape
    # one round of gains from a non-trivial model state (after a few features, scores vary per event)
    warm = BoundaryModel(n_features=5).fit(X, y, specs)
    scores = warm.offset_ + np.asarray(X[:, warm.columns_] @ warm.lambdas_).ravel()
    candidate_gains(X[:, :1000], y, scores)  # compile numba outside the timing
    t_numba = timeit(lambda: candidate_gains(X, y, scores, engine="auto"))
    t_numpy = timeit(lambda: candidate_gains(X, y, scores, engine="numpy"), repeat=1)
    sample = rng.choice(m, size=min(naive_sample, m), replace=False)
    t_s = time.perf_counter()
    g_naive = naive_gains(X, y, scores, sample)
    t_naive_sample = time.perf_counter() - t_s
    # the naive cost is proportional to the work per column: extrapolate by nonzeros, not by column count
    nnz_sample = int(np.diff(X.indptr)[sample].sum())
    t_naive = t_naive_sample * X.nnz / max(nnz_sample, 1)
    t_naive_cols = t_naive_sample * m / len(sample)
    g_fast, _ = candidate_gains(X, y, scores)
    err = float(np.max(np.abs(g_fast[sample] - g_naive)))
    print(f"one round, gains of all {m} candidates: numba {t_numba:.3f} s, numpy-vectorised {t_numpy:.3f} s, "
          f"per-candidate loop ~{t_naive:.1f} s (extrapolated by nonzeros from {len(sample)} candidates, "
          f"{t_naive_sample:.2f} s; by column count ~{t_naive_cols:.1f} s); max |gain diff| {err:.2e}")
    print(f"ratio per-candidate / numba = {t_naive / t_numba:.0f}x, per-candidate / numpy = {t_naive / t_numpy:.1f}x")
    print("growth of one round's gain time (numba):")
    for frac in (0.25, 0.5, 1.0):
        cols = np.sort(rng.choice(m, size=int(m * frac), replace=False))
        Xc = X[:, cols]
        t = timeit(lambda: candidate_gains(Xc, y, scores))
        print(f"  candidates {len(cols):7d} ({Xc.nnz:9d} nnz): {t:.3f} s")
    for frac in (0.25, 0.5, 1.0):
        k = int(n * frac)
        Xr = X[:k]
        t = timeit(lambda: candidate_gains(Xr, y[:k], scores[:k]))
        print(f"  events     {k:7d} ({Xr.nnz:9d} nnz): {t:.3f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "corpora"))
    ap.add_argument("--features", type=int, default=100)
    ap.add_argument("--templates", choices=("extended", "paper"), default="extended")
    ap.add_argument("--vocabulary", type=int, default=30000)
    ap.add_argument("--lm", default=None, help="the Reuters language models (default: the cache, trained once)")
    ap.add_argument("--lm-cache", default=str(Path.home() / ".cache" / "segviz" / "bench_induction_reuters.segviz-lm"))
    ap.add_argument("--json", action="store_true", help="print one JSON line instead of text")
    ap.add_argument("--gain-kernels", action="store_true", help="also time one round's gains three ways")
    ap.add_argument("--naive-sample", type=int, default=3000)
    args = ap.parse_args(argv)
    say = (lambda *a: print(*a, file=sys.stderr)) if args.json else print

    data = Path(args.data)
    lm_train_s = None
    lm_path = Path(args.lm) if args.lm else Path(args.lm_cache)
    if args.lm is None and not lm_path.is_file():
        say(f"training the Reuters language models into {lm_path} (once) ...")
        lm_train_s = train_lms(data, lm_path)
    load0 = os.getloadavg()
    root = data / "reuters21578"
    t0 = time.perf_counter()
    c0 = time.process_time()
    train = read_corpus([root / f"reut2-{i:03d}.sgm" for i in (14, 15, 16)])
    sents = train.sentences()
    y = boundary_labels(train.masses())
    from segviz.lm.models import LanguageModels
    from segviz.relevance import sentence_relevance

    lms = LanguageModels.load(lm_path)
    rel = sentence_relevance(lms, sents)
    del lms
    t1 = time.perf_counter()
    templates = EXTENDED_TEMPLATES if args.templates == "extended" else VOCABULARY_TEMPLATES
    X, specs = build_candidates(FeatureContext(sents, relevance=rel), families=("vocabulary", "relevance"),
                                vocabulary=args.vocabulary, templates=templates)
    t2 = time.perf_counter()
    n, m = X.shape
    say(f"corpus: {train.n_tokens} words, {len(sents)} sentences, {n} events, {int(y.sum())} boundaries "
        f"(read+relevance {t1 - t0:.1f} s)")
    say(f"candidates: {m} ({len(templates)} templates x vocabulary + relevance), {X.nnz} nonzeros, "
        f"built in {t2 - t1:.1f} s")
    if args.gain_kernels:
        gain_kernels(X, y, specs, np.random.default_rng(0), args.naive_sample)

    t3 = time.perf_counter()
    c3 = time.process_time()
    model = BoundaryModel(n_features=args.features)
    rounds = []
    for ev in model.induce(X, y, specs):
        if isinstance(ev, FeatureAdded):
            rounds.append(ev)
    t4 = time.perf_counter()
    c4 = time.process_time()
    iis = [e.iis_iterations for e in rounds]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    digest = hashlib.sha256(json.dumps([[e.column, str(e.feature)] for e in rounds]).encode()).hexdigest()[:16]
    result = {
        "features": len(rounds), "candidates": int(m), "induction_s": round(t4 - t3, 2),
        "end_to_end_s": round(t4 - t0, 2), "peak_rss_gib": round(peak, 3),
        "induction_cpu_s": round(c4 - c3, 2), "end_to_end_cpu_s": round(c4 - c0, 2),
        "read_relevance_s": round(t1 - t0, 2), "candidates_s": round(t2 - t1, 2), "nonzeros": int(X.nnz),
        "events": int(n), "iis_iterations": int(sum(iis)), "train_loglik": rounds[-1].train_loglik if rounds else None,
        "features_digest": digest, "first_columns": [e.column for e in rounds[:5]],
        "lm_train_s": None if lm_train_s is None else round(lm_train_s, 1), "lm": str(lm_path),
        "load_average_before": [round(v, 2) for v in load0],
        "load_average_after": [round(v, 2) for v in os.getloadavg()], "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"induction: {len(rounds)} features from {m} candidates in {t4 - t3:.1f} s "
          f"(mean {np.mean([e.seconds for e in rounds]):.2f} s/round; IIS iterations median {int(np.median(iis))}, "
          f"max {max(iis)}); train log-lik {rounds[-1].train_loglik:.1f}")
    print(f"end to end (read, relevance, candidates, induction): {t4 - t0:.1f} s")
    print(f"peak memory (ru_maxrss): {peak:.2f} GiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
