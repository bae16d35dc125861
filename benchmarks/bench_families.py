"""What each candidate family and each generalisation control does to segmentation quality.

Trains one Segmenter per configuration (families, Gaussian prior ``l2``, ``min_support``) on the same training
data, stops each at its best held-out round and tunes its decision rule on the held-out data, then scores every
model beside the baselines (none, even) and the peers (C99, TextTiling) on the test documents, one document at a
time (:func:`segviz.evaluation.compare_segmenters`), under the paper's decision rule (threshold alpha, separation
epsilon) and under the length prior (:mod:`segviz.length_prior`), both tuned on the held-out data.  Results go in
docs/features.md.

    nice python benchmarks/bench_families.py choi-sample                        # bundled sample, 5 rotations
    nice python benchmarks/bench_families.py wiki --data ../shared/corpora      # wiki300 1-200 / 201-250 / 251-300
    ... --configs default,tfidf --features 60 --vocabulary 5000 --tune p_k --lm-out /tmp/lms --json results.json

``choi-sample``: the five bundled Choi files (set 1, 3-11); each file in turn is the test document, the next one
held out, the other three train (no language models, so no relevance questions).  ``wiki``: the wiki300 split of
``segviz reproduce wiki`` (segviz.protocols.wiki_data: the title line of every article dropped for every
segmenter); language models trained on the training articles (cached in ``--lm-out``) unless ``--no-lm``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.corpus import read_corpus  # noqa: E402
from segviz.evaluation import compare_segmenters  # noqa: E402
from segviz.protocols import language_models, wiki_data  # noqa: E402
from segviz.rules import LengthPriorRule  # noqa: E402
from segviz.segmenter import Segmenter  # noqa: E402

PAPER = ("vocabulary", "relevance", "cohesion")
EVERYTHING = ("vocabulary", "relevance", "relevance_horizons", "cohesion", "tfidf", "names", "dialogue",
              "paragraphs", "shape", "position")

#: configuration name -> Segmenter parameters beyond the common ones
CONFIGS: dict[str, dict] = {
    "default": {},
    "tfidf": {"families": PAPER + ("tfidf",)},
    "tfidf+shape": {"families": PAPER + ("tfidf", "shape")},
    "tfidf+shape+position": {"families": PAPER + ("tfidf", "shape", "position")},
    "every family": {"families": EVERYTHING},
    "every family l2=1": {"families": EVERYTHING, "l2": 1.0},
    "every family l2=10": {"families": EVERYTHING, "l2": 10.0},
    "every family min_support=20": {"families": EVERYTHING, "min_support": 20},
    "tfidf+shape only": {"families": ("tfidf", "shape")},
    "tfidf+shape only l2=1": {"families": ("tfidf", "shape"), "l2": 1.0},
}


def fit(name: str, params: dict, train, heldout, lms, common: dict) -> tuple[Segmenter, dict]:
    t0 = time.perf_counter()
    seg = Segmenter(**{**common, **params}).fit(train, heldout, lms)
    lam = np.abs(seg.lambdas_)
    stats = {"features": len(seg.features_), "induced": seg.info_.get("rounds_induced"),
             "max_e^|lambda|": float(np.exp(lam.max())) if lam.size else 1.0,
             "at_cap": int(np.sum(lam >= 0.99 * seg.lambda_max)), "candidates": seg.info_.get("candidates"),
             "heldout": seg.info_.get("tuned_score"),
             "seconds": round(time.perf_counter() - t0, 1),
             "kinds": sorted({f.kind for f in seg.features_})}
    print(f"  {name}: {stats}", flush=True)
    return seg, stats


def score(test, models: dict, peers, heldout) -> dict:
    """Every model under the paper's threshold rule and under the length prior (both tuned on held-out data)."""
    rows = dict(models)
    for name, model in models.items():
        rows[f"{name} [length prior]"] = model.with_tuned_rule(LengthPriorRule(), heldout)
    work = compare_segmenters(test, models=rows, evaluation="per-document", peers=peers)
    while True:
        try:
            next(work)
        except StopIteration as done:
            return done.value.score_rows


def choi_sample(configs: dict, common: dict) -> dict:
    files = sorted((ROOT / "sample_corpora" / "choi").glob("*.ref"))
    per_fold = []
    stats: dict[str, list] = {name: [] for name in configs}
    for i in range(len(files)):
        test, held = files[i], files[(i + 1) % len(files)]
        train = [f for f in files if f not in (test, held)]
        print(f"fold {i}: test {test.name}, held out {held.name}", flush=True)
        train_c, held_c, test_c = read_corpus([str(f) for f in train]), read_corpus(str(held)), read_corpus(str(test))
        models = {}
        for name, params in configs.items():
            models[name], s = fit(name, params, train_c, held_c, None, common)
            stats[name].append(s)
        per_fold.append(score(test_c, models, None, held_c))
    rows = {name: {key: float(np.mean([fold[name][key] for fold in per_fold]))
                   for key in ("p_k", "p_mu", "window_diff", "f1")} for name in per_fold[0]}
    return {"rows": rows, "stats": stats, "folds": len(files)}


def wiki(configs: dict, common: dict, data: Path, lm_out: Path | None, use_lm: bool) -> dict:
    split = wiki_data(data)
    lms = None
    if use_lm:
        if lm_out is not None:
            lm_out.mkdir(parents=True, exist_ok=True)
        work = language_models("wiki", split.lm_sentences, out=lm_out)
        t0 = time.perf_counter()
        while True:
            try:
                next(work)
            except StopIteration as done:
                lms, where = done.value
                break
        print(f"language models: {where} ({time.perf_counter() - t0:.0f} s)", flush=True)
    models, stats = {}, {}
    for name, params in configs.items():
        models[name], stats[name] = fit(name, params, split.train, split.heldout, lms, common)
    return {"rows": score(split.tests["test"], models, None, split.heldout), "stats": stats}


def markdown(result: dict) -> str:
    tuned = "1 - P_k per document" if result["common"].get("tuning_metric") == "p_k" else "P_mu"
    lines = [f"| segmenter | P_k | P_mu | WindowDiff | F1 | features (at the cap) | max e^abs(λ) | held-out {tuned} |",
             "|---|---|---|---|---|---|---|---|"]
    stats = result["stats"]
    for name, row in result["rows"].items():
        base = name.removesuffix(" [length prior]")
        # the length-prior rows are tuned after the fit (with_tuned_rule): their held-out score is not kept
        key = "heldout" if base == name else None
        s = stats.get(base)
        if isinstance(s, list):   # per fold: report the mean
            extra = (f"{np.mean([x['features'] for x in s]):.0f} ({np.mean([x['at_cap'] for x in s]):.1f}) | "
                     f"{np.median([x['max_e^|lambda|'] for x in s]):.3g} (median) | "
                     + (f"{np.mean([x[key] for x in s]):.3f}" if key else "–"))
        elif s:
            extra = (f"{s['features']} ({s['at_cap']}) | {s['max_e^|lambda|']:.3g} | "
                     + (f"{s[key]:.3f}" if key else "–"))
        else:
            extra = "– | – | –"
        lines.append(f"| {name} | {row['p_k']:.3f} | {row['p_mu']:.3f} | {row['window_diff']:.3f} | "
                     f"{row['f1']:.3f} | {extra} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("choi-sample", "wiki"))
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "corpora"))
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated names from: " + ", ".join(CONFIGS))
    ap.add_argument("--features", type=int, default=None, help="features per model (choi-sample 20, wiki 60)")
    ap.add_argument("--vocabulary", type=int, default=None, help="candidate words (choi-sample 1000, wiki 5000)")
    ap.add_argument("--lm-out", default=None, help="cache the wiki language models here")
    ap.add_argument("--no-lm", action="store_true", help="wiki without language models (no relevance questions)")
    ap.add_argument("--tune", choices=("p_mu", "p_k"), default="p_mu",
                    help="tune the decision rules for held-out P_mu on the stream (the paper) or P_k per document")
    ap.add_argument("--json", default=None, help="write the results here")
    args = ap.parse_args(argv)
    names = [c for c in args.configs.split(",") if c]
    unknown = [c for c in names if c not in CONFIGS]
    if unknown:
        ap.error(f"unknown configuration {unknown[0]!r}")
    configs = {c: CONFIGS[c] for c in names}
    small = args.what == "choi-sample"
    common = {"n_features": args.features or (20 if small else 60),
              "vocabulary": args.vocabulary or (1000 if small else 5000), "stopping": "heldout"}
    if args.tune == "p_k":
        common.update(tuning_metric="p_k", tuning_units="per-document")
    t0 = time.perf_counter()
    if small:
        result = choi_sample(configs, common)
    else:
        result = wiki(configs, common, Path(args.data), Path(args.lm_out) if args.lm_out else None, not args.no_lm)
    result.update(what=args.what, common=common, seconds=round(time.perf_counter() - t0, 1))
    print(markdown(result))
    print(f"({result['seconds']:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
