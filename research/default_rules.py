"""Decision rules for the default model, compared on held-out data only (never a test split).

The default model (``resources/default_model.segviz``) is applied to the held-out documents of its mixed training
protocol (``segviz.default_model``: Reuters 017 in parts of 40 stories, the long-form held-out Brown
streams, wiki300 201-250) and to Choi's tuning set 1/3-11, each source unit on its own, and scored by mean
per-document P_k per domain under:

* the paper's threshold rule at the shipped alpha and epsilon (the model's own tuned rule, ``rule_``);
* an *expected-count* rule: per document, the greedy epsilon-separated order of the gaps (the threshold rule's
  own order) cut after ``round(c * sum of the boundary probabilities)`` gaps instead of at alpha, for a grid of
  ``c`` and epsilon -- each document gets about as many boundaries as the model expects it to hold.

    python research/default_rules.py [--data ../shared/corpora] [--json out.json]
    python research/default_rules.py --model OTHER.segviz --threshold-only   # another candidate default model
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz import Corpus, read_corpus  # noqa: E402
from segviz.decode import greedy_order_keep  # noqa: E402
from segviz.default_model import mixed_data  # noqa: E402
from segviz.metrics import p_k  # noqa: E402
from segviz.models import load_model  # noqa: E402
from segviz.paths import default_model  # noqa: E402
from segviz.routing import ExpertRouter  # noqa: E402
from segviz.rules import ThresholdRule  # noqa: E402
from segviz.segmentation import boundaries_to_masses  # noqa: E402

SCALES = (0.6, 0.8, 1.0, 1.2)
EPSILONS = (2, 3, 4)
MIXED = ("reuters", "brown", "wiki", "choi 4")


def units(corpus: Corpus) -> list[Corpus]:
    """Each source unit of ``corpus`` as a corpus of its own."""
    out: dict[str, list] = {}
    for doc, unit in zip(corpus.documents, corpus.files):
        out.setdefault(unit, []).append(doc)
    return [Corpus(docs, name=unit, files=[unit] * len(docs)) for unit, docs in out.items()]


def expected_count_rule(scale: float, epsilon: int):
    def rule(p: np.ndarray) -> np.ndarray:
        order = np.argsort(-p, kind="stable")
        kept = order[greedy_order_keep(p, epsilon)[order]][:int(round(scale * p.sum()))]
        return np.sort(kept) + 1
    return rule


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "corpora"))
    ap.add_argument("--model", default=None, help="another model trained on the same mix (default: the bundled one)")
    ap.add_argument("--threshold-only", action="store_true", help="only the model's own threshold rule")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    data = Path(args.data)
    model = load_model(args.model or default_model())
    if isinstance(model, ExpertRouter):   # the rules studied here are the long-prose expert's
        model = model.experts_["mixed"]
    rule = model.rule_   # the model's own tuned decision rule (the default's mixed expert: a threshold rule)
    own_label = (f"threshold alpha={rule.alpha:g} epsilon={rule.epsilon}" if isinstance(rule, ThresholdRule)
                 else rule.describe())
    domains: dict[str, list] = {}
    for unit in units(mixed_data(data)["heldout"]):
        domain = ("reuters" if "reut2" in unit.name else "wiki" if "wiki" in unit.name
                  else "choi 4" if unit.name.startswith("choi") else "brown")
        domains.setdefault(domain, []).append(unit)
    domains["choi 1/3-11"] = units(read_corpus(data / "choi2000" / "1" / "3-11", kind="choi"))
    applied = {d: [(model.boundary_probabilities(u), u.reference_masses()) for u in us] for d, us in domains.items()}

    def score(rule) -> dict[str, float]:
        out = {d: 100 * float(np.mean([p_k(ref, boundaries_to_masses(rule(p), p.size + 1)) for p, ref in items]))
               for d, items in applied.items()}
        out["mixed mean"] = float(np.mean([out[d] for d in MIXED if d in out]))
        return {k: round(v, 1) for k, v in out.items()}

    rows = {own_label: score(rule.decide)}
    for scale in () if args.threshold_only else SCALES:
        for epsilon in EPSILONS:
            rows[f"expected count c={scale:g} epsilon={epsilon}"] = score(expected_count_rule(scale, epsilon))
    print("documents: " + ", ".join(f"{d} {len(us)}" for d, us in domains.items()))
    print("mean per-document P_k %, held out")
    for name, row in rows.items():
        print(f"  {name:40s} " + "  ".join(f"{k} {v:5.1f}" for k, v in row.items()))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
