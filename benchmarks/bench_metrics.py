"""Benchmark: segviz's O(n) metrics against segeval 2.0.11 and NLTK, measured in the same run.

    python benchmarks/bench_metrics.py [--max-exp 7] [--peer-max-exp 5]

For n = 10^4 .. 10^max_exp sentences (random reference and hypothesis, mean segment length 20) it times P_mu, P_k
and WindowDiff; segeval and NLTK are timed up to 10^peer_max_exp (they are pure-Python loops) and the ratio
peer/segviz is printed.  A brute-force O(n^2) P_mu is timed at 10^3/10^4 to show what the closed form buys.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from segviz.metrics import default_k, p_k, p_mu, window_diff
from segviz.segmentation import boundaries_to_masses, masses_to_boundaries


def timed(fn, *args, repeat=3, **kw):
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn(*args, **kw)
        best = min(best, time.perf_counter() - t)
    return best, value


def random_masses(n, mean, rng):
    b = np.sort(rng.choice(np.arange(1, n), size=max(1, n // mean - 1), replace=False))
    return boundaries_to_masses(b, n)


def nltk_string(masses):
    g = np.zeros(sum(masses) - 1, dtype=np.uint8)
    g[masses_to_boundaries(masses) - 1] = 1
    return "".join("1" if x else "0" for x in g)


def brute_p_mu(ref, hyp, mu):
    r, h = np.repeat(np.arange(len(ref)), ref), np.repeat(np.arange(len(hyp)), hyp)
    num = den = 0.0
    n = len(r)
    for i in range(n):
        d = np.arange(n - i)
        w = np.exp(-mu * d)
        agree = (r[i:] == r[i]) == (h[i:] == h[i])
        num += w[agree].sum()
        den += w.sum()
    return num / den


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-exp", type=int, default=7)
    ap.add_argument("--peer-max-exp", type=int, default=5)
    args = ap.parse_args()
    import importlib

    nseg = importlib.import_module("nltk.metrics.segmentation")  # plain "import a.b.c as x" trips on nltk.metrics re-exports
    import segeval

    rng = np.random.default_rng(0)
    print(f"{'n':>9} {'metric':<11} {'segviz s':>10} {'segeval s':>10} {'ratio':>8} {'nltk s':>10} {'ratio':>8}")
    previous = {}
    for e in range(4, args.max_exp + 1):
        n = 10**e
        ref, hyp = random_masses(n, 20, rng), random_masses(n, 20, rng)
        k = default_k(ref)
        rs = nltk_string(ref) if e <= args.peer_max_exp else None
        hs = nltk_string(hyp) if e <= args.peer_max_exp else None
        for name, ours, theirs, nl in (
            ("P_mu", lambda: p_mu(ref, hyp), None, None),
            ("P_k", lambda: p_k(ref, hyp, k), lambda: segeval.pk(hyp, ref, window_size=k), lambda: nseg.pk(rs, hs, k)),
            ("WindowDiff", lambda: window_diff(ref, hyp, k), lambda: segeval.window_diff(hyp, ref, window_size=k), lambda: nseg.windowdiff(rs, hs, k)),
        ):
            t_ours, v = timed(ours)
            line = f"{n:>9} {name:<11} {t_ours:>10.4f}"
            if theirs is not None and e <= args.peer_max_exp:
                t_se, v_se = timed(theirs, repeat=1)
                t_nl, v_nl = timed(nl, repeat=1)
                assert abs(float(v_se) - v) < 1e-9 and abs(v_nl - v) < 1e-9, (name, v, v_se, v_nl)
                line += f" {t_se:>10.4f} {t_se / t_ours:>7.0f}x {t_nl:>10.4f} {t_nl / t_ours:>7.0f}x"
            growth = t_ours / previous[name] if name in previous else float("nan")
            previous[name] = t_ours
            print(line + (f"   growth x{growth:.1f} per 10x n" if growth == growth else ""))
    for n in (1000, 10000):
        ref, hyp = random_masses(n, 20, rng), random_masses(n, 20, rng)
        mu = len(ref) / n
        t_b, v_b = timed(brute_p_mu, ref, hyp, mu, repeat=1)
        t_o, v_o = timed(p_mu, ref, hyp, mu)
        assert abs(v_b - v_o) < 1e-9
        print(f"brute-force O(n^2) P_mu at n={n}: {t_b:.3f} s vs segviz {t_o:.5f} s = {t_b / t_o:.0f}x")


if __name__ == "__main__":
    main()
