"""Choose a configuration for natural boundaries on held-out data only (wiki300 sections, Brown long-form).

For every named configuration (candidate families, Gaussian prior ``l2``, ``min_support``, the decision-rule
grids) this trains one Segmenter on a protocol's training portion, lets it tune its decision rule and its
held-out stop on the held-out portion (the other decision rule is tuned there as well, ``with_tuned_rule``), and
then scores it on that **held-out** portion the way the protocol scores its test portion (each source file
segmented on its own, rates averaged over files), beside the baselines.  The test portion is never read, so the
numbers printed here can choose a configuration without looking at test results; ``segviz reproduce`` then
measures the chosen one on the test portion.

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

from segviz.corpus import read_corpus  # noqa: E402
from segviz.evaluation import compare_segmenters, model_segmenter  # noqa: E402
from segviz.events import run_to_end  # noqa: E402
from segviz.lm.models import LanguageModels  # noqa: E402
from segviz.metrics import p_k, p_mu  # noqa: E402
from segviz.protocols import heldout_stop, longform_data, wiki_data  # noqa: E402
from segviz.rules import DecisionRule, LengthPriorRule, ThresholdRule  # noqa: E402
from segviz.segmentation import boundaries_to_masses  # noqa: E402
from segviz.segmenter import Segmenter  # noqa: E402

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

#: configuration name -> settings over the common ones (n_features, stopping, vocabulary): Segmenter parameters,
#: and in the scripts' own shorthand (translated by :func:`segmenter_params`) the decision rules' grids
#: (``alphas``, ``epsilons`` -- ``"long"``: the protocol's long grid --, ``length_shapes``, ``length_biases``),
#: which rule the model decides with (``decision_rule``, default threshold) and ``use_relevance`` (default: when
#: language models are given)
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


#: the decision rules in the order their rows are printed
RULE_KINDS = (ThresholdRule.kind, LengthPriorRule.kind)


def segmenter_params(config: dict, *, long_epsilons, lms_given: bool) -> tuple[dict, DecisionRule, bool]:
    """One :data:`CONFIGS` entry as Segmenter parameters, the other decision rule, and whether to ask relevance.

    The shorthand keys become rule objects: ``alphas``/``epsilons`` the :class:`ThresholdRule`'s grid (``"long"``
    = ``long_epsilons``), ``length_shapes``/``length_biases`` the :class:`LengthPriorRule`'s; ``decision_rule``
    names the one the model decides with (``rule``, tuned by fit), the other is returned, to be tuned on the same
    held-out portion and scored beside it.  ``use_relevance`` (default True) asks the relevance family, which
    needs the language models passed to fit; the third value says whether to pass them.  Every other key is a
    Segmenter parameter, passed through."""
    params = dict(config)
    threshold = {new: params.pop(old) for old, new in (("alphas", "alphas"), ("epsilons", "epsilons"))
                 if old in params}
    if threshold.get("epsilons") == "long":
        threshold["epsilons"] = long_epsilons
    length_prior = {new: params.pop(old) for old, new in (("length_shapes", "shapes"), ("length_biases", "biases"))
                    if old in params}
    rules = {ThresholdRule.kind: ThresholdRule(**threshold), LengthPriorRule.kind: LengthPriorRule(**length_prior)}
    own = params.pop("decision_rule", ThresholdRule.kind)
    if own not in rules:
        raise ValueError(f"decision_rule must be one of {', '.join(rules)}, not {own!r}")
    relevance = bool(params.pop("use_relevance", True)) and lms_given
    params["rule"] = rules.pop(own)
    (other,) = rules.values()
    return params, other, relevance


def rule_models(seg: Segmenter, other: DecisionRule, heldout) -> dict[str, Segmenter]:
    """``seg`` under each decision rule by kind (in :data:`RULE_KINDS` order): its own, tuned by fit, and
    ``other`` tuned on ``heldout`` as fit tunes its own."""
    models = {seg.rule_.kind: seg, other.kind: seg.with_tuned_rule(other, heldout)}
    return {kind: models[kind] for kind in RULE_KINDS if kind in models}


def heldout_rows(models: dict[str, Segmenter], heldout) -> dict:
    """Held-out rows (each file on its own) of named fitted models beside the baselines."""
    segmenters = {name: model_segmenter(model) for name, model in models.items()}
    comparison = run_to_end(compare_segmenters(heldout, models=segmenters, evaluation="per-document", peers=(),
                                        baselines=("none", "even")))
    return comparison.score_rows


def _setting(rule: DecisionRule) -> tuple:
    """The tuned settings of one grid point: (alpha, epsilon) or (shape, bias)."""
    if isinstance(rule, ThresholdRule):
        return (rule.alpha, rule.epsilon)
    return (rule.shape, rule.bias)


def _doc_scores(probs, ref, rule: DecisionRule) -> np.ndarray:
    """P_k and P_mu (shape (grid size, 2)) of one document under every setting of one decision rule's grid."""
    n = probs.size + 1
    out = []
    for _, bounds in rule.decisions(probs):
        hyp = boundaries_to_masses(bounds, n)
        out.append((p_k(ref, hyp), p_mu(ref, hyp)))
    return np.array(out)


def tuning_study(models: dict[str, Segmenter], heldout) -> dict:
    """How the decision rule should be tuned: two-fold cross-validation over the held-out documents.

    ``models`` is one fitted model under each rule (:func:`rule_models`); each rule's grid is searched.  For
    each rule and each tuning criterion (mean per-document P_k, or P_mu) the setting is chosen on the odd
    documents and scored on the even ones and vice versa; the result is the mean over all documents of the
    score on the half that did not choose it.  Only held-out data is used."""
    docs = [d for d in heldout.by_file() if d.n_sentences > 2]
    seg = next(iter(models.values()))   # the same probabilities under every rule
    probs = [seg.boundary_probabilities(d) for d in docs]
    refs = [d.masses() for d in docs]
    out = {}
    for rule_kind, model in models.items():
        rule = model.rule_   # the tuned rule: its grid, its expected segment length (the training mean)
        grid = [_setting(candidate) for candidate, _ in rule.candidates()]
        table = np.stack([_doc_scores(p, r, rule) for p, r in zip(probs, refs)])   # docs x grid x 2
        halves = [np.arange(len(docs)) % 2 == i for i in (0, 1)]
        for criterion, col, sign in (("p_k", 0, 1.0), ("p_mu", 1, -1.0)):
            scored = np.zeros((len(docs), 2))
            chosen = []
            for tune_on, score_on in ((halves[0], halves[1]), (halves[1], halves[0])):
                g = int(np.argmin(sign * table[tune_on, :, col].mean(axis=0)))
                chosen.append(grid[g])
                scored[score_on] = table[score_on, g]
            full = int(np.argmin(sign * table[:, :, col].mean(axis=0)))
            out[f"{rule_kind}/tuned-{criterion}"] = {"cv_p_k": float(scored[:, 0].mean()),
                                                     "cv_p_mu": float(scored[:, 1].mean()),
                                                     "chosen": chosen, "all_docs_choice": grid[full]}
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
        params, other_rule, relevance = segmenter_params(
            {"n_features": args.features, "vocabulary": args.vocabulary, "stopping": "last", **CONFIGS[name]},
            long_epsilons=long_eps, lms_given=lms is not None)
        t0 = time.perf_counter()
        seg = Segmenter(**params).fit(split.train, split.heldout, lms if relevance else None)
        t1 = time.perf_counter()
        stop = heldout_stop(seg, split.heldout)
        by_rule = {"model": rule_models(seg, other_rule, split.heldout),
                   "stop": rule_models(stop, other_rule, split.heldout) if stop else None}
        models = {f"{which}/{kind}": model for which, rules in by_rule.items()
                  for kind, model in (rules or {}).items()}
        rows = heldout_rows(models, split.heldout)
        if args.what == "mixed":
            for domain, part in mixed_domains(split.heldout).items():
                rows.update({f"{domain}: {k}": v for k, v in heldout_rows(models, part).items()})
            # Choi's tuning set (1/3-11; never a test set) as a fourth held-out domain, for selection only
            choi = read_corpus(Path(args.data) / "choi2000" / "1" / "3-11", kind="choi", name="choi 1/3-11")
            rows.update({f"choi: {k}": v for k, v in heldout_rows(models, choi).items()})
        if args.save:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            seg.save(Path(args.save) / f"{args.what}-{name}.segviz")
        tuned = {which: None if rules is None else {kind: model.rule_.to_dict() for kind, model in rules.items()}
                 for which, rules in by_rule.items()}
        result = {"what": args.what, "config": name,
                  "params": {**{k: v for k, v in params.items() if k != "rule"}, "rule": params["rule"].to_dict(),
                             "other_rule": other_rule.to_dict(), "relevance": relevance},
                  "features": len(seg.features_), "stop_features": len(stop.features_) if stop else None,
                  "at_cap": at_cap(seg), "at_cap_stop": at_cap(stop) if stop else None,
                  "candidates": seg.info_.get("candidates"), "fit_seconds": round(t1 - t0, 1),
                  "rule": seg.rule_.kind, "rules": tuned["model"], "stop_rules": tuned["stop"],
                  "first": [f.short for f in seg.features_[:12]], "rows": rows,
                  "tuning": {} if args.no_study else {
                      which: None if rules is None else tuning_study(rules, split.heldout)
                      for which, rules in by_rule.items()}}
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
