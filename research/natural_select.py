"""Choose a configuration for natural boundaries on held-out data only (wiki300 sections, Brown long-form).

For every named configuration (candidate families, Gaussian prior ``l2``, ``min_support``, the decision-rule
grids) this trains one Segmenter on a protocol's training portion, lets it tune both decision rules and its
held-out stop on the held-out portion, and then scores it on that **held-out** portion the way the protocol
scores its test portion (each source file segmented on its own, rates averaged over files), beside the
baselines.  The test portion is never read, so the numbers printed here can choose a configuration without
looking at test results; ``segviz reproduce`` then measures the chosen one on the test portion.

    nice python research/natural_select.py wiki --lm /tmp/lm-wiki --configs base,tfidf-shape --json out.json
    nice python research/natural_select.py longform --lm /tmp/lm-longform-all --configs all

Rows per configuration: the model (every induced feature) and its held-out stop, each under the threshold rule
(the paper's alpha/epsilon) and the length-prior rule, and the count of weights at the cap |lambda| = lambda_max.
The numbers are optimistic in absolute terms (the decision rule was tuned on the same portion), equally so for
every configuration.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.evaluation import compare_segmenters, model_segmenter  # noqa: E402
from segviz.corpus import read_corpus  # noqa: E402
from segviz.decode import decode  # noqa: E402
from segviz.events import run_to_end  # noqa: E402
from segviz.length_prior import decode_length_prior  # noqa: E402
from segviz.lm.models import LanguageModels  # noqa: E402
from segviz.metrics import p_k, p_mu  # noqa: E402
from segviz.segmentation import boundaries_to_masses  # noqa: E402
from segviz.protocols import heldout_stop, longform_data, wiki_data  # noqa: E402
from segviz.segmenter import DECISION_RULES, Segmenter  # noqa: E402

DEFAULT3 = ("vocabulary", "relevance", "cohesion")
NATURAL = ("vocabulary", "relevance", "cohesion", "tfidf", "shape")
WIKI_EPSILONS = (1, 2, 3, 4, 6, 8, 12, 16, 24)
LONG_EPSILONS = (1, 2, 4, 8, 16, 32, 48, 64, 96, 128)
MIXED_EPSILONS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)

NOVOCAB = ("relevance", "cohesion", "tfidf", "shape")
LONG_BIASES = tuple(float(b) for b in np.arange(-4.0, 10.01, 0.5))
MIXED_BASE = ("cohesion", "tfidf", "shape", "position")
LONG_SHAPES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
LOW_ALPHAS = (0.005, 0.01) + tuple(float(a) for a in np.round(np.arange(0.02, 0.99, 0.02), 2))
PK = {"epsilons": "long", "length_biases": LONG_BIASES, "tuning_metric": "p_k", "tuning_units": "per-document"}
#: the wider grids long segments need (alpha below 0.02, shapes above 8)
WIDE = {**PK, "alphas": LOW_ALPHAS, "length_shapes": LONG_SHAPES}
PMU_DOC = {"epsilons": "long", "length_biases": LONG_BIASES, "tuning_metric": "p_mu", "tuning_units": "per-document"}

#: configuration name -> Segmenter parameters over the common ones (n_features, stopping, vocabulary)
CONFIGS: dict[str, dict] = {
    "base": {},
    "base-eps": {"epsilons": "long"},
    "tfidf-shape": {"families": NATURAL, "epsilons": "long"},
    "tfidf-shape-l2": {"families": NATURAL, "l2": 1.0, "epsilons": "long"},
    "tfidf-shape-l2-ms5": {"families": NATURAL, "l2": 1.0, "min_support": 5, "epsilons": "long"},
    "tfidf-shape-pos-l2": {"families": NATURAL + ("position",), "l2": 1.0, "epsilons": "long"},
    "novocab-l2": {"families": ("relevance", "cohesion", "tfidf", "shape"), "l2": 1.0, "epsilons": "long"},
    "novocab-pos-l2": {"families": ("relevance", "cohesion", "tfidf", "shape", "position"), "l2": 1.0,
                       "epsilons": "long"},
    "every-l2": {"families": NATURAL + ("relevance_horizons", "names", "dialogue", "paragraphs", "position"),
                 "l2": 1.0, "epsilons": "long"},
    "every-l2-ms5": {"families": NATURAL + ("relevance_horizons", "names", "dialogue", "paragraphs", "position"),
                     "l2": 1.0, "min_support": 5, "epsilons": "long"},
    "every-novocab-l2": {"families": ("relevance", "cohesion", "tfidf", "shape", "relevance_horizons", "names",
                                      "dialogue", "paragraphs", "position"), "l2": 1.0, "epsilons": "long"},
    "tfidf-shape-l2-10": {"families": NATURAL, "l2": 10.0, "epsilons": "long"},
    "tfidf-shape-l2-01": {"families": NATURAL, "l2": 0.1, "epsilons": "long"},
    # no vocabulary questions; the decision rules tuned for mean per-document P_k
    "nv": {"families": NOVOCAB, "l2": 1.0, **PK},
    "nv-l2-01": {"families": NOVOCAB, "l2": 0.1, **PK},
    "nv-l2-10": {"families": NOVOCAB, "l2": 10.0, **PK},
    "nv-l2-0": {"families": NOVOCAB, "l2": 0.0, **PK},
    "nv-ms5": {"families": NOVOCAB, "l2": 1.0, "min_support": 5, **PK},
    "nv-pmu": {"families": NOVOCAB, "l2": 1.0, **PMU_DOC},
    "nv-norel": {"families": NOVOCAB, "l2": 1.0, "use_relevance": False, **PK},
    "nv-pos": {"families": NOVOCAB + ("position",), "l2": 1.0, **PK},
    "nv-every": {"families": NOVOCAB + ("relevance_horizons", "names", "dialogue", "paragraphs", "position"),
                 "l2": 1.0, **PK},
    "nv-peer": {"families": NOVOCAB + ("peer",), "l2": 1.0, **PK},
    "nv-every-peer": {"families": NOVOCAB + ("peer", "relevance_horizons", "names", "dialogue", "paragraphs",
                                             "position"), "l2": 1.0, **PK},
    "w-nv": {"families": NOVOCAB, "l2": 1.0, **WIDE},
    "w-nv-pos": {"families": NOVOCAB + ("position",), "l2": 1.0, **WIDE},
    "w-nvpos-norel": {"families": ("cohesion", "tfidf", "shape", "position"), "use_relevance": False, "l2": 1.0,
                      **WIDE},
    "w-nv-noshape": {"families": ("relevance", "cohesion", "tfidf"), "l2": 1.0, **WIDE},
    "w-nv-every": {"families": NOVOCAB + ("relevance_horizons", "names", "dialogue", "paragraphs", "position"),
                   "l2": 1.0, **WIDE},
    "w-nv-every-l2-0": {"families": NOVOCAB + ("relevance_horizons", "names", "dialogue", "paragraphs",
                                               "position"), "l2": 0.0, **WIDE},
    "w-nv-every-ms5": {"families": NOVOCAB + ("relevance_horizons", "names", "dialogue", "paragraphs",
                                              "position"), "l2": 1.0, "min_support": 5, **WIDE},
    # the effect of the Gaussian prior and the minimum support where capping happens: with vocabulary questions
    "v-l2-0": {"families": NATURAL, "l2": 0.0, **WIDE},
    "v-l2-0-ms5": {"families": NATURAL, "l2": 0.0, "min_support": 5, **WIDE},
    "v-l2-1": {"families": NATURAL, "l2": 1.0, **WIDE},
    "v-l2-1-ms5": {"families": NATURAL, "l2": 1.0, "min_support": 5, **WIDE},
    # the default model (no language models): trained and tuned on the mix of domains
    "m-base": {"families": MIXED_BASE, "use_relevance": False, "l2": 1.0, **WIDE},
    "m-peer": {"families": MIXED_BASE + ("peer",), "use_relevance": False, "l2": 1.0, **WIDE},
    "m-vocab": {"families": MIXED_BASE + ("vocabulary",), "vocabulary": 2000, "min_support": 20,
                "use_relevance": False, "l2": 1.0, **WIDE},
    "m-every": {"families": MIXED_BASE + ("names", "dialogue", "paragraphs"), "use_relevance": False, "l2": 1.0,
                **WIDE},
    "m-vocab-every": {"families": MIXED_BASE + ("vocabulary", "names", "dialogue", "paragraphs"),
                      "vocabulary": 2000, "min_support": 20, "use_relevance": False, "l2": 1.0, **WIDE},
    "m-vocab-peer": {"families": MIXED_BASE + ("vocabulary", "peer"), "vocabulary": 2000, "min_support": 20,
                     "use_relevance": False, "l2": 1.0, **WIDE},
    "m-vocab-every-peer": {"families": MIXED_BASE + ("vocabulary", "peer", "names", "dialogue", "paragraphs"),
                           "vocabulary": 2000, "min_support": 20, "use_relevance": False, "l2": 1.0, **WIDE},
    "smallvocab": {"families": NATURAL, "vocabulary": 500, "l2": 1.0, **PK},
    "smallvocab-ms20": {"families": NATURAL, "vocabulary": 2000, "min_support": 20, "l2": 1.0, **PK},
}


def heldout_rows(seg: Segmenter, stop: Segmenter | None, heldout) -> dict:
    models = {}
    for name, model in (("model", seg), ("stop", stop)):
        if model is None:
            continue
        for rule in DECISION_RULES:
            models[f"{name}/{rule}"] = model_segmenter(model, rule=rule)
    comparison = run_to_end(compare_segmenters(heldout, models=models, evaluation="per-document", peers=(),
                                        baselines=("none", "even")))
    return comparison.score_rows


def _doc_scores(probs, ref, rule: str, grid) -> np.ndarray:
    """P_k and P_mu (shape (len(grid), 2)) of one document under every setting of one decision rule."""
    n = probs.size + 1
    out = np.empty((len(grid), 2))
    for g, setting in enumerate(grid):
        if rule == "threshold":
            bounds = decode(probs, *setting)
        else:
            bounds = decode_length_prior(probs, mean_length=setting[2], shape=setting[0], bias=setting[1])
        hyp = boundaries_to_masses(bounds, n)
        out[g] = (p_k(ref, hyp), p_mu(ref, hyp))
    return out


def tuning_study(seg: Segmenter, heldout) -> dict:
    """How the decision rule should be tuned: two-fold cross-validation over the held-out documents.

    For each rule and each tuning criterion (mean per-document P_k, or P_mu) the setting is chosen on the odd
    documents and scored on the even ones and vice versa; the result is the mean over all documents of the
    score on the half that did not choose it.  Only held-out data is used."""
    docs = [d for d in heldout.by_file() if d.n_sentences > 2]
    probs = [seg.boundary_probabilities(d) for d in docs]
    refs = [d.masses() for d in docs]
    m = seg.mean_length_
    grids = {"threshold": [(a, e) for e in seg.epsilons for a in seg.alphas],
             "length_prior": [(k, b, m) for k in seg.length_shapes for b in seg.length_biases]}
    out = {}
    for rule, grid in grids.items():
        table = np.stack([_doc_scores(p, r, rule, grid) for p, r in zip(probs, refs)])   # docs x grid x 2
        halves = [np.arange(len(docs)) % 2 == i for i in (0, 1)]
        for criterion, col, sign in (("p_k", 0, 1.0), ("p_mu", 1, -1.0)):
            scored = np.zeros((len(docs), 2))
            chosen = []
            for tune_on, score_on in ((halves[0], halves[1]), (halves[1], halves[0])):
                g = int(np.argmin(sign * table[tune_on, :, col].mean(axis=0)))
                chosen.append(grid[g][:2])
                scored[score_on] = table[score_on, g]
            full = int(np.argmin(sign * table[:, :, col].mean(axis=0)))
            out[f"{rule}/tuned-{criterion}"] = {"cv_p_k": float(scored[:, 0].mean()),
                                                "cv_p_mu": float(scored[:, 1].mean()),
                                                "chosen": chosen, "all_docs_choice": grid[full][:2]}
    return out


def mixed_domains(heldout) -> dict:
    """The mixed held-out corpus split back into its domains (by the source-file names the mix gives them)."""
    from segviz.corpus import Corpus

    parts: dict[str, list] = {"reuters": [], "brown": [], "wiki": [], "choi 4": [], "spliced": []}
    for unit in heldout.by_file():
        name = str(unit.name)
        domain = ("reuters" if name.startswith("reut2-017 part") else "spliced" if name.startswith("brown spliced")
                  else "brown" if name.startswith("brown") else "choi 4" if name.startswith("choi")
                  else "wiki")
        parts[domain].append(unit)
    return {d: Corpus.concatenate(units, name=d) for d, units in parts.items() if units}


def at_cap(seg: Segmenter) -> int:
    return int(np.sum(np.abs(seg.lambdas_) >= 0.999 * seg.lambda_max))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("wiki", "longform", "mixed"))
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "corpora"))
    ap.add_argument("--configs", default="base", help="comma-separated names from: " + ", ".join(CONFIGS))
    ap.add_argument("--features", type=int, default=100)
    ap.add_argument("--vocabulary", type=int, default=30000)
    ap.add_argument("--lm", default=None, help="language models (file or directory); without: no relevance")
    ap.add_argument("--category", default="all")
    ap.add_argument("--spliced", default="0,0", help="mixed: Choi-style spliced Brown documents (train,held-out)")
    ap.add_argument("--save", default=None, help="save every model in this directory")
    ap.add_argument("--no-study", action="store_true", help="skip the cross-validated tuning study")
    ap.add_argument("--json", default=None, help="append the results (one JSON object per line) here")
    args = ap.parse_args(argv)
    names = [c for c in args.configs.split(",") if c]
    unknown = [c for c in names if c not in CONFIGS]
    if unknown:
        ap.error(f"unknown configuration {unknown[0]!r}")
    if args.what == "mixed":
        from segviz.default_model import mixed_data

        mixed = mixed_data(args.data, spliced_documents=tuple(int(x) for x in args.spliced.split(",")))
        split = SimpleNamespace(train=mixed["train"], heldout=mixed["heldout"])
    else:
        split = wiki_data(args.data) if args.what == "wiki" else longform_data(args.data, category=args.category)
    long_eps = {"wiki": WIKI_EPSILONS, "longform": LONG_EPSILONS, "mixed": MIXED_EPSILONS}[args.what]
    lms = LanguageModels.load(args.lm) if args.lm else None
    for name in names:
        params = {"n_features": args.features, "vocabulary": args.vocabulary, "stopping": "last",
                  "use_relevance": lms is not None, **CONFIGS[name]}
        if lms is None:
            params["use_relevance"] = False
        if params.get("epsilons") == "long":
            params["epsilons"] = long_eps
        t0 = time.perf_counter()
        seg = Segmenter(**params).fit(split.train, split.heldout, lms if params["use_relevance"] else None)
        t1 = time.perf_counter()
        stop = heldout_stop(seg, split.heldout)
        rows = heldout_rows(seg, stop, split.heldout)
        if args.what == "mixed":
            for domain, part in mixed_domains(split.heldout).items():
                rows.update({f"{domain}: {k}": v for k, v in heldout_rows(seg, stop, part).items()})
            # Choi's tuning set (1/3-11; never a test set) as a fourth held-out domain, for selection only
            choi = read_corpus(Path(args.data) / "choi2000" / "1" / "3-11", kind="choi", name="choi 1/3-11")
            rows.update({f"choi: {k}": v for k, v in heldout_rows(seg, stop, choi).items()})
        if args.save:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            seg.save(Path(args.save) / f"{args.what}-{name}.segviz")
        result = {"what": args.what, "config": name, "params": {k: v for k, v in params.items()},
                  "features": len(seg.features_), "stop_features": len(stop.features_) if stop else None,
                  "at_cap": at_cap(seg), "at_cap_stop": at_cap(stop) if stop else None,
                  "candidates": seg.info_.get("candidates"), "fit_seconds": round(t1 - t0, 1),
                  "alpha": seg.alpha_, "epsilon": seg.epsilon_, "shape": seg.length_shape_,
                  "bias": seg.length_bias_,
                  "stop_rule": None if stop is None else [stop.alpha_, stop.epsilon_, stop.length_shape_,
                                                          stop.length_bias_],
                  "first": [f.short for f in seg.features_[:12]], "rows": rows,
                  "tuning": {} if args.no_study else {
                      "model": tuning_study(seg, split.heldout),
                      "stop": tuning_study(stop, split.heldout) if stop else None}}
        print(f"== {name} ({result['fit_seconds']} s, {result['features']} features, stop "
              f"{result['stop_features']}, at cap {result['at_cap']}/{result['at_cap_stop']})", flush=True)
        for row_name, row in rows.items():
            print(f"   {row_name:22s} P_k {row['p_k']:.3f}  P_mu {row['p_mu']:.3f}  WD {row['window_diff']:.3f}"
                  f"  segs {row['hypothesis_segments']}", flush=True)
        for which, study in result["tuning"].items():
            for key, v in (study or {}).items():
                print(f"   cv {which}/{key:24s} P_k {v['cv_p_k']:.3f}  P_mu {v['cv_p_mu']:.3f}  "
                      f"chosen {v['chosen']}", flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(result, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
