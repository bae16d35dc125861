"""Research (held-out books only): does a segment-level lexical likelihood help place chapters?

Each chapter is scored by the likelihood of its content words under its own Laplace-smoothed unigram model
(Utiyama & Isahara, "A statistical model for domain-independent text segmentation", 2001), weighted by gamma and
added to the length-prior DP over the chapters model's log-odds (segviz.length_prior, in sentences, shape 4).
The bias is tuned on four held-out books and each fifth book scored (cross-fitted), for each gamma; gamma = 0 is
the length prior alone.  The test books are never read.

    nice python research/chapters_lexical_likelihood.py [--gammas 0,0.002,0.005,0.01] [--model M]

docs/reproduction.md ("Chapters of raw books") has the result: no weight helps.
"""
import argparse
import math
import time
from pathlib import Path

import numpy as np
from numba import njit

from segviz import load_model
from segviz.features.tfidf import content_vocabulary
from segviz.length_prior import length_prior_gains, log_length_prior
from segviz.metrics import score_row
from segviz.protocols import chapter_books
from segviz.segmentation import boundaries_to_masses

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"

@njit(cache=True)
def dp(gains, prior, starts, toks, n, lmax, gamma, V):
    best = np.full(n + 1, -np.inf)
    back = np.zeros(n + 1, np.int64)
    best[0] = 0.0
    counts = np.zeros(V, np.int64)
    touched = np.empty(toks.size, np.int64)
    for j in range(1, n + 1):
        g = gains[j] if j < n else 0.0
        top = -np.inf
        arg = j - 1
        A = 0.0
        m = 0
        nt = 0
        lo = j - lmax
        if lo < 0:
            lo = 0
        for i in range(j - 1, lo - 1, -1):
            for t in range(starts[i], starts[i + 1]):
                w = toks[t]
                c = counts[w]
                if c == 0:
                    touched[nt] = w
                    nt += 1
                A += (c + 1) * math.log(c + 2) - (c * math.log(c + 1) if c > 0 else 0.0)
                counts[w] = c + 1
                m += 1
            ll = A - m * math.log(m + V) if m > 0 else 0.0
            v = best[i] + prior[j - i] + gamma * ll
            if v > top:
                top = v
                arg = i
        for k in range(nt):
            counts[touched[k]] = 0
        best[j] = top + g
        back[j] = arg
    ends = np.zeros(n + 1, np.bool_)
    j = n
    while j > 0:
        i = back[j]
        if i > 0:
            ends[i] = True
        j = i
    return np.flatnonzero(ends[1:n]) + 1

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--gammas", default="0,0.002,0.005,0.01")
ap.add_argument("--model", default=None, help="a segmenter (default: the bundled default model's chapters expert)")
ap.add_argument("--data", default=str(DEFAULT_DATA))
args = ap.parse_args()
model = load_model(args.model) if args.model else load_model().segmenters()["chapters"]
held = chapter_books(args.data, "heldout").by_file()
m_sent = model.mean_length_
books = []
for b in held:
    sents = b.sentences()
    vocab = {w: k for k, w in enumerate(content_vocabulary(sents))}
    ids = [[vocab[t] for t in s if t in vocab] for s in sents]
    starts = np.concatenate([[0], np.cumsum([len(x) for x in ids])]).astype(np.int64)
    toks = np.array([t for x in ids for t in x], dtype=np.int64)
    books.append(dict(name=b.name.split("/")[-1], q=np.asarray(model.boundary_probabilities(b)),
                      masses=b.masses(), starts=starts, toks=toks, V=len(vocab)))
GAMMAS = tuple(float(x) for x in args.gammas.split(","))
SHAPES = (4.0,)
BIASES = tuple(np.arange(-40, 14.01, 1.0))
res = {}
t0 = time.time()
for bk in books:
    n = bk["q"].size + 1
    lmax = int(min(n, math.ceil(5 * m_sent) + 10))
    for k in SHAPES:
        prior = np.full(lmax + 1, -np.inf)
        prior[1:] = log_length_prior(np.arange(1, lmax + 1), m_sent, k)
        for gm in GAMMAS:
            for b in BIASES:
                gains = np.zeros(n + 1)
                gains[1:n] = length_prior_gains(bk["q"]) + b
                hyp = dp(gains, prior, bk["starts"], bk["toks"], n, lmax, gm, bk["V"])
                r = score_row(bk["masses"], boundaries_to_masses(hyp, n))
                res[(bk["name"], k, gm, b)] = (r["p_k"], r["p_mu"], len(hyp) + 1)
    print(bk["name"], f"{time.time()-t0:.0f}s", flush=True)
names = [bk["name"] for bk in books]
def mean(keys, i): return np.mean([res[k][i] for k in keys])
for gm in GAMMAS:
    for metric in ("pk", "pmu", "pmu-pk"):
        cf = []
        for nm in names:
            others = [x for x in names if x != nm]
            def score(c):
                pk = mean([(o, *c) for o in others], 0)
                pm = mean([(o, *c) for o in others], 1)
                return {"pk": -pk, "pmu": pm, "pmu-pk": pm - pk}[metric]
            best = max(((k, gm, b) for k in SHAPES for b in BIASES), key=score)
            cf.append(res[(nm, *best)])
        print(f"gamma {gm:<5} tuned {metric:6s} CF P_k {np.mean([c[0] for c in cf]):.3f} P_mu {np.mean([c[1] for c in cf]):.3f}", flush=True)
