"""What moving α costs the window: ``SessionState.set_alpha`` on a stream of many documents (each decided on its
own by its segmenter's rule), median milliseconds per move.

    python benchmarks/bench_decision.py [--documents 5000] [--sentences 14] [--moves 40]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from segviz.app.state import SessionState  # noqa: E402
from segviz.documents import Corpus, Document  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--documents", type=int, default=5000)
    ap.add_argument("--sentences", type=int, default=14, help="sentences per document (two reference segments)")
    ap.add_argument("--moves", type=int, default=40)
    args = ap.parse_args(argv)
    docs, files = [], []
    half = max(1, args.sentences // 2)
    for unit in range(args.documents):
        for part in range(2):
            sentences = tuple((f"w{unit}_{part}_{i}",) for i in range(half))
            docs.append(Document(f"d{unit}_{part}", sentences, tuple(s[0] for s in sentences)))
            files.append(f"file {unit}")
    state = SessionState()
    state.set_corpus(Corpus(docs, files=files))
    state.set_probabilities(np.random.default_rng(0).random(state.n_sentences - 1))
    times = []
    for alpha in np.linspace(0.05, 0.95, args.moves):
        start = time.perf_counter()
        state.set_alpha(float(alpha))
        times.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"documents": args.documents, "sentences": state.n_sentences,
                      "alpha_ms_median": round(float(np.median(times)), 2),
                      "alpha_ms_max": round(float(np.max(times)), 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
