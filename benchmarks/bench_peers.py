"""Benchmark the peer segmenters against baselines measured in the same run.

* TextTiling (ours, vectorised) vs NLTK's TextTilingTokenizer on the same documents (same stopwords); also
  checks that the two agree on the boundary flags.
* C99 (ours, vectorised) vs a straightforward loop implementation of the same algorithm (Choi's release: rank by
  scanning the mask of each element, each region's best split by summing squares), checking identical output.
* ``--segeval``: also score both peers on every matched document with our P_k and with segeval's, and report
  the largest difference (a sanity check of the metric path used by ``segviz compare``).
* ``--variants``: mean P_k on every matched document of C99 (automatic stop, known number of segments,
  smoothed gradient) and TextTiling (Hearst's placement, NLTK's placement) -- the variant rows of docs/peers.md.
* ``--nltk-pk``: also segment every matched document with NLTK's TextTilingTokenizer as is (our stopword list,
  each sentence its own paragraph) and report its mean P_k (slow: ~15 s per 1,000 sentences).

Usage:  python benchmarks/bench_peers.py [--docs N] [--segeval] [--variants] [--nltk-pk] [CHOI_GLOB ...]
Timing uses the first N (default 20) matched files, --segeval all of them.  Default glob: the files of
../shared/corpora/choi2000/1/3-11 (else sample_corpora/choi).
"""
from __future__ import annotations

import argparse
import glob
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.corpus import read_corpus  # noqa: E402
from segviz.peers import default_stopwords  # noqa: E402
from segviz.peers.c99 import C99, choose_splits, content_words, cosine_matrix  # noqa: E402
from segviz.peers.texttiling import TextTiling  # noqa: E402


def loop_c99(sentences, mask=11, c=1.2):
    """C99 written the obvious way (Python loops), the speed baseline for the vectorised version."""
    stop = default_stopwords()
    sim = cosine_matrix([content_words(s, stop, True) for s in sentences])
    n = len(sentences)
    r = mask // 2
    rank = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            lower = examined = 0
            for a in range(max(0, i - r), min(n, i + r + 1)):
                for b in range(max(0, j - r), min(n, j + r + 1)):
                    if (a, b) != (i, j):
                        examined += 1
                        lower += sim[a, b] < sim[i, j]
            rank[i, j] = lower / max(examined, 1)
    def ssum(a, b):                                   # rank sum of the square [a, b] (inclusive), by loops
        return sum(rank[i, j] for i in range(a, b + 1) for j in range(a, b + 1))

    def best_split(a, b):                             # Choi's bestBoundary_max: density of the two halves
        best, d_max = a, 0.0
        for i in range(b - 1, a - 1, -1):
            d = (ssum(a, i) + ssum(i + 1, b)) / ((i - a + 1) ** 2 + (b - i) ** 2)
            if d > d_max:
                d_max, best = d, i
        return best + 1

    regions = [(0, n - 1, best_split(0, n - 1) if n > 1 else None)]
    tot_s, tot_a = ssum(0, n - 1), n * n
    splits, density = [], [tot_s / tot_a]
    for _ in range(n - 1):
        max_d, index = -1.0, None
        for j in range(len(regions) - 1, -1, -1):
            a, b, q = regions[j]
            if a < b:
                d = (tot_s - ssum(a, b) + ssum(a, q - 1) + ssum(q, b)) / (
                    tot_a - (b - a + 1) ** 2 + (q - a) ** 2 + (b - q + 1) ** 2)
                if d > max_d:
                    max_d, index = d, j
        a, b, q = regions[index]
        tot_s += ssum(a, q - 1) + ssum(q, b) - ssum(a, b)
        tot_a += (q - a) ** 2 + (b - q + 1) ** 2 - (b - a + 1) ** 2
        regions[index:index + 1] = [(a, q - 1, best_split(a, q - 1) if q - 1 > a else None),
                                    (q, b, best_split(q, b) if b > q else None)]
        splits.append(q)
        density.append(tot_s / tot_a)
    k, _, _ = choose_splits(np.array(density), c=c)
    b = sorted(splits[:k])
    return tuple(int(m) for m in np.diff([0, *b, n]))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("patterns", nargs="*", help="globs of Choi-format files")
    ap.add_argument("--docs", type=int, default=20)
    ap.add_argument("--segeval", action="store_true", help="compare our P_k with segeval's on every document")
    ap.add_argument("--variants", action="store_true", help="P_k of the C99 and TextTiling variants")
    ap.add_argument("--nltk-pk", action="store_true", help="P_k of NLTK's TextTiling as is on every document")
    args = ap.parse_args()
    patterns = args.patterns or [str(ROOT.parent / "shared" / "corpora" / "choi2000" / "1" / "3-11" / "*.ref")]
    all_files = [f for p in patterns for f in sorted(glob.glob(p), key=lambda p: (len(p), p))]
    files = all_files[:args.docs]
    if not files:
        files = sorted(glob.glob(str(ROOT / "sample_corpora" / "choi" / "*.ref")))[:args.docs]
    docs = [read_corpus(f).sentences() for f in files]
    n_sent = sum(len(d) for d in docs)
    print(f"{len(docs)} documents, {n_sent} sentences")

    from nltk.tokenize.texttiling import TextTilingTokenizer
    stop = sorted(default_stopwords())
    TextTiling().fit(docs[0])                       # warm caches (word filter)
    t0 = time.perf_counter()
    ours = [TextTiling().fit(d).gap_flags_ for d in docs]
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    theirs = [np.asarray(TextTilingTokenizer(stopwords=stop, demo_mode=True).tokenize(
        "\n\n".join(" ".join(s) for s in d))[3], bool) for d in docs]
    t_nltk = time.perf_counter() - t0
    agree = all(np.array_equal(a, b) for a, b in zip(ours, theirs))
    print(f"TextTiling  ours {1000 * t_ours / n_sent:8.2f} s/1k sent   NLTK {1000 * t_nltk / n_sent:8.2f} s/1k sent"
          f"   speed-up x{t_nltk / t_ours:.1f}   flags identical: {agree}")

    small = docs[:max(1, min(3, len(docs)))]
    n_small = sum(len(d) for d in small)
    C99().fit(small[0])                              # warm the stemmer cache
    t0 = time.perf_counter()
    ours_c = [C99().segment(d) for d in small]
    t_c = time.perf_counter() - t0
    t0 = time.perf_counter()
    loop_c = [loop_c99(d) for d in small]
    t_loop = time.perf_counter() - t0
    print(f"C99         ours {1000 * t_c / n_small:8.2f} s/1k sent   loops {1000 * t_loop / n_small:8.2f} s/1k sent"
          f"   speed-up x{t_loop / t_c:.0f}   output identical: {ours_c == loop_c}  ({len(small)} documents)")
    t0 = time.perf_counter()
    for d in docs:
        C99().segment(d)
    print(f"C99 on all {len(docs)} documents: {1000 * (time.perf_counter() - t0) / n_sent:.2f} s/1k sentences")
    stream = [sent for d in docs for sent in d]
    for n in (1000, 3000):
        if len(stream) >= n:
            C99().fit(stream[:n])                 # stemmer cache warm: time the matrices, not the stemming
            t0 = time.perf_counter()
            C99().fit(stream[:n])
            print(f"C99 on one {n}-sentence stream: {time.perf_counter() - t0:.2f} s")
    if args.segeval:
        import segeval

        from segviz.metrics import p_k
        worst = 0.0
        means = {"texttiling": [], "c99": []}
        for f in all_files:
            corpus = read_corpus(f)
            ref = corpus.masses()
            for name, est in (("texttiling", TextTiling()), ("c99", C99())):
                hyp = est.segment(corpus.sentences())
                ours, theirs = p_k(ref, hyp), float(segeval.pk(hyp, ref))
                worst = max(worst, abs(ours - theirs))
                means[name].append(ours)
        print(f"P_k over {len(all_files)} documents: " + ", ".join(f"{k} {100 * np.mean(v):.1f}%" for k, v in means.items())
              + f"; largest |ours - segeval| = {worst:.2e}")
    if args.variants:
        from segviz.metrics import p_k
        variants = {
            "c99 auto": lambda ref: C99(),
            "c99 known count": lambda ref: C99(n_segments=len(ref)),
            "c99 unsmoothed, last-above stop": lambda ref: C99(smooth_gradient=False, stop="last"),
            "c99 global split": lambda ref: C99(split="global"),
            "texttiling": lambda ref: TextTiling(),
            "texttiling nltk placement": lambda ref: TextTiling(placement="nltk"),
        }
        scores = {k: [] for k in variants}
        for f in all_files:
            corpus = read_corpus(f)
            ref = corpus.masses()
            for name, make in variants.items():
                scores[name].append(p_k(ref, make(ref).segment(corpus.sentences())))
        print(f"P_k over {len(all_files)} documents: "
              + ", ".join(f"{k} {100 * np.mean(v):.1f}%" for k, v in scores.items()))
    if args.nltk_pk:
        from segviz.metrics import p_k
        scores = []
        for f in all_files:
            corpus = read_corpus(f)
            text = "\n\n".join(" ".join(s) for s in corpus.sentences())
            pieces = TextTilingTokenizer(stopwords=stop).tokenize(text)
            # a piece is one or more "\n\n"-separated sentences; NLTK merges paragraphs under 100 characters
            hyp = tuple(m for m in (len([ln for ln in p.split("\n\n") if ln.strip()]) for p in pieces) if m)
            scores.append(p_k(corpus.masses(), hyp))
        print(f"NLTK TextTiling as is, P_k over {len(all_files)} documents: {100 * np.mean(scores):.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
