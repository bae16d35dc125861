"""Language-model benchmark on the Reuters protocol: LM text reut2-000..013, evaluation reut2-018..021.

Measures, in one run, the Katz trigram (the baseline) and the trigger model over it: training time and peak
memory, test perplexities and their ratio, kenlm's agreement with the ARPA export, the relevance profile of the
test stream, and (``--scaling``) how training scales with corpus size (each size in a fresh subprocess so that
peak memory is its own).

    python benchmarks/bench_lm.py --out /tmp/bench_lm.json [--triggers 20000] [--ranking residual] [--scaling]

Not collected by pytest.  Needs ../shared/corpora/reuters21578.
"""
from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.corpus import read_corpus  # noqa: E402
from segviz.lm import LanguageModels  # noqa: E402
from segviz.relevance import relevance_profile, sentence_relevance  # noqa: E402

REUTERS = ROOT.parent / "shared" / "corpora" / "reuters21578"
TRAIN = [REUTERS / f"reut2-{i:03d}.sgm" for i in range(14)]
TEST = [REUTERS / f"reut2-{i:03d}.sgm" for i in range(18, 22)]


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # ru_maxrss is KiB on Linux


def drain(gen, log=None):
    while True:
        try:
            ev = next(gen)
            if log is not None and hasattr(ev, "iteration"):
                print(f"    {ev}", file=log, flush=True)
        except StopIteration as stop:
            return stop.value


def train(sentences, args, log=sys.stderr):
    t0 = time.perf_counter()
    lms = LanguageModels(vocab_size=args.vocab, window=args.window, n_triggers=args.triggers,
                         trigger_vocab=args.trigger_vocab, ranking=args.ranking, prior_variance=args.prior_variance,
                         max_iter=args.max_iter, tol=args.tol, acceleration=args.acceleration)
    drain(lms.fit_iter(sentences), log)
    return lms, time.perf_counter() - t0


def kenlm_check(lms, sentences, path: Path) -> dict:
    try:
        import kenlm
    except ImportError:
        return {"kenlm": "not importable"}
    lms.trigram_.to_arpa(path)
    model = kenlm.Model(str(path))
    ours = lms.trigram_.score(sentences) / math.log(10)
    theirs = np.array([s for sent in sentences for s, _, _ in model.full_scores(" ".join(sent), bos=True, eos=True)])
    path.unlink()
    return {"kenlm_max_abs_log10_diff": float(np.abs(ours - theirs).max()),
            "kenlm_perplexity": float(10 ** (-theirs.mean())), "ours_perplexity": float(10 ** (-ours.mean()))}


def take_words(sentences, n_words):
    out, total = [], 0
    for s in sentences:
        if total >= n_words:
            break
        out.append(s)
        total += len(s)
    return out, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", type=int, default=20000)
    ap.add_argument("--window", type=int, default=500)
    ap.add_argument("--triggers", type=int, default=20000)
    ap.add_argument("--trigger-vocab", type=int, default=10000)
    ap.add_argument("--ranking", default="residual")
    ap.add_argument("--prior-variance", type=float, default=1.0)
    ap.add_argument("--max-iter", type=int, default=200)
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--acceleration", default="overrelaxed", choices=("overrelaxed", "none"))
    ap.add_argument("--scaling", action="store_true", help="also measure 0.25M/0.5M/1M/full words")
    ap.add_argument("--size", type=int, default=None, help=argparse.SUPPRESS)  # one scaling point (subprocess)
    ap.add_argument("--save", default=None, help="save the trained models to this directory")
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    args = ap.parse_args()
    if not REUTERS.is_dir():
        print(f"needs {REUTERS}", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    train_corpus = read_corpus(TRAIN)
    read_s = time.perf_counter() - t0
    sentences = train_corpus.sentences()

    if args.size is not None:  # one scaling point, run in its own process
        part, words = take_words(sentences, args.size)
        rss0 = peak_rss_gib()
        lms, seconds = train(part, args, log=None)
        test = read_corpus(TEST)
        ev = lms.evaluate(test.sentences())
        hist = lms.trigger_.history_
        print(json.dumps({"words": words, "seconds": seconds, **lms.info_, "peak_rss_gib": peak_rss_gib(),
                          "rss_after_reading_gib": rss0, "iis_seconds": [h.seconds for h in hist[1:]],
                          "iterations": len(hist) - 1,
                          "passes": sum(h.passes for h in hist), **ev}))
        return 0

    test_corpus = read_corpus(TEST)
    print(f"read {train_corpus.n_tokens} training words ({train_corpus.n_sentences} sentences) in {read_s:.1f} s; "
          f"test {test_corpus.n_tokens} words, {len(test_corpus)} stories", file=sys.stderr)
    lms, seconds = train(sentences, args)
    if args.save:
        lms.save(args.save)
    ev = lms.evaluate(test_corpus.sentences())
    ratio = ev["trigger_perplexity"] / ev["trigram_perplexity"]
    t1 = time.perf_counter()
    rel = sentence_relevance(lms, test_corpus.sentences())
    rel_s = time.perf_counter() - t1
    prof = relevance_profile(lms, test_corpus, before=10, after=30, relevance=rel)
    result = {
        "command": " ".join(["python", "benchmarks/bench_lm.py"] + sys.argv[1:]),
        "params": vars(args), "train_words": train_corpus.n_tokens, "test_words": test_corpus.n_tokens,
        "train_seconds_total": seconds, **lms.info_, "peak_rss_gib": peak_rss_gib(), **ev,
        "trigger_over_trigram": ratio, "relevance_seconds": rel_s,
        "iis_history": [vars(h) for h in lms.trigger_.history_],
        "relevance_profile": prof,
        "top_pairs_by_weight": lms.trigger_.pairs_table(25),
        "top_pairs_by_score": lms.trigger_.pairs_table(25, sort="score"),
    }
    result.update(kenlm_check(lms, test_corpus.sentences(), Path("/tmp/bench_lm_trigram.arpa")))
    print(f"trigram perplexity {ev['trigram_perplexity']:.2f}  trigger perplexity {ev['trigger_perplexity']:.2f}  "
          f"ratio {ratio:.4f} ({1 - ratio:.1%} lower); trained in {seconds:.1f} s, peak RSS "
          f"{result['peak_rss_gib']:.2f} GiB", file=sys.stderr)
    if args.scaling:
        rows = []
        for size in (250_000, 500_000, 1_000_000, 10**9):
            cmd = [sys.executable, __file__, "--size", str(size)] + [
                a for a in sys.argv[1:] if a not in ("--scaling",)]
            if "--out" in cmd:
                i = cmd.index("--out")
                del cmd[i:i + 2]
            if "--save" in cmd:
                i = cmd.index("--save")
                del cmd[i:i + 2]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            rows.append(json.loads(out.strip().splitlines()[-1]))
            print(f"  scaling {rows[-1]['words']} words: {rows[-1]}", file=sys.stderr)
        result["scaling"] = rows
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
