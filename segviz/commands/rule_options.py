"""The decision-rule options every command that applies a model shares: ``--alpha``/``--epsilon`` (the paper's
threshold rule, Section 7), ``--segments N`` and ``--mean-length L`` (:class:`segviz.rules.SegmentCountRule`).

Without any of them each segmenter of the model decides with its own tuned rule.  With one, that rule replaces the
model's own in every segmenter (:meth:`~segviz.model_protocol.SegmentationModel.with_rule`); ``--alpha`` alone
keeps a threshold rule's own ε (and ``--epsilon`` alone its α): whatever the kind of the rule in a segmenter, the
settings it has are asked of its own controls (:meth:`segviz.rules.DecisionRule.controls`), never of its class.
When the replaced rule is of another kind, one note line on stderr says so.  Each option's argument is checked by
the constraint the rule declares for that setting (``PARAM_CONSTRAINTS``), as the rule itself and a saved model
check it.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import SegvizError
from ..rules import SegmentCountRule, ThresholdRule
from .arguments import declared

__all__ = ["add_rule_arguments", "apply_rule_arguments", "rule_overridden"]


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("decision rule (default: the model's own, tuned on held-out data)")
    threshold, count = ThresholdRule.PARAM_CONSTRAINTS, SegmentCountRule.PARAM_CONSTRAINTS
    low, high = threshold["epsilon"].bounds()
    group.add_argument("--alpha", type=declared(threshold["alpha"]), default=None,
                       help="threshold rule: a boundary where q(yes) > ALPHA (0..1)")
    group.add_argument("--epsilon", type=declared(threshold["epsilon"]), default=None,
                       help=f"threshold rule: boundaries at least EPSILON sentences apart ({low:,}..{high:,})")
    group.add_argument("--segments", type=declared(count["segments"]), default=None, metavar="N",
                       help="exactly N segments per document (e.g. --segments 30 for about 30 chapters)")
    group.add_argument("--mean-length", type=declared(count["mean_length"]), default=None, metavar="L",
                       help="one segment per L sentences of each document (rounded)")


def rule_overridden(args: argparse.Namespace) -> bool:
    return any(getattr(args, name, None) is not None for name in ("alpha", "epsilon", "segments", "mean_length"))


def _replacement(args: argparse.Namespace):
    """A function from a segmenter's own rule to the rule the options ask for."""
    threshold = args.alpha is not None or args.epsilon is not None
    count = args.segments is not None or args.mean_length is not None
    if threshold and count:
        raise SegvizError("--alpha/--epsilon (the threshold rule) and --segments/--mean-length (a segment count) "
                          "are two different rules; give one")
    if args.segments is not None and args.mean_length is not None:
        raise SegvizError("give --segments or --mean-length, not both")
    if count:
        rule = SegmentCountRule(segments=args.segments, mean_length=args.mean_length).check()
        return lambda _own: rule

    def threshold_rule(own):
        # the own rule's α and ε where it has both settings (a threshold rule), the paper's defaults otherwise
        settings = {c["name"]: c["value"] for c in own.controls()}
        if not {"alpha", "epsilon"} <= settings.keys():
            settings = {"alpha": 0.5, "epsilon": 1}
        return ThresholdRule(alpha=settings["alpha"] if args.alpha is None else args.alpha,
                             epsilon=settings["epsilon"] if args.epsilon is None else args.epsilon).check()

    return threshold_rule


def apply_rule_arguments(model, args: argparse.Namespace):
    """``model`` with the rule the options ask for in every segmenter (itself without such options); one note
    line on stderr when a rule of another kind is replaced."""
    if not rule_overridden(args):
        return model
    make = _replacement(args)
    rules = model.rules()
    replaced, kind = [], ""
    for name, own in rules.items():
        new = make(own)
        kind = new.describe().split(":")[0]   # "threshold rule", "segment-count rule"
        if new.kind != own.kind:   # the name each rule declares for its kind (saved models name theirs so)
            replaced.append(f"{name}: {own.describe()}" if len(rules) > 1 else own.describe())
        model = model.with_rule(new, expert=name)
    if replaced:
        print(f"segviz: note: the options replace the model's own decision rule ({'; '.join(replaced)}) with the "
              f"{kind}", file=sys.stderr)
    return model
