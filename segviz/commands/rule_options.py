"""The decision-rule options every command that applies a model shares: ``--alpha``/``--epsilon`` (the paper's
threshold rule, Section 7), ``--segments N`` and ``--mean-length L`` (:class:`segviz.rules.SegmentCountRule`).

Without any of them each segmenter of the model decides with its own tuned rule.  With one, that rule replaces the
model's own in every segmenter (:meth:`~segviz.model_protocol.SegmentationModel.with_rule`); ``--alpha`` alone
keeps a threshold rule's own ε (and ``--epsilon`` alone its α).  When the replaced rule is of another kind, one
note line on stderr says so.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import SegvizError
from ..limits import MAX_EPSILON, MAX_MEAN_LENGTH, MAX_SEGMENTS
from .arguments import float_range, int_range, probability

__all__ = ["add_rule_arguments", "apply_rule_arguments", "rule_overridden"]


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("decision rule (default: the model's own, tuned on held-out data)")
    group.add_argument("--alpha", type=probability, default=None,
                       help="threshold rule: a boundary where q(yes) > ALPHA (0..1)")
    group.add_argument("--epsilon", type=int_range(1, MAX_EPSILON), default=None,
                       help=f"threshold rule: boundaries at least EPSILON sentences apart (1..{MAX_EPSILON:,})")
    group.add_argument("--segments", type=int_range(1, MAX_SEGMENTS), default=None, metavar="N",
                       help="exactly N segments per document (e.g. --segments 30 for about 30 chapters)")
    group.add_argument("--mean-length", type=float_range(1.0, MAX_MEAN_LENGTH), default=None, metavar="L",
                       help="one segment per L sentences of each document (rounded)")


def rule_overridden(args: argparse.Namespace) -> bool:
    return any(getattr(args, name, None) is not None for name in ("alpha", "epsilon", "segments", "mean_length"))


def _replacement(args: argparse.Namespace):
    """A function from a segmenter's own rule to the rule the options ask for."""
    from ..rules import SegmentCountRule, ThresholdRule

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
        if isinstance(own, ThresholdRule):
            settings = {"alpha": own.alpha if args.alpha is None else args.alpha,
                        "epsilon": own.epsilon if args.epsilon is None else args.epsilon}
        else:
            settings = {"alpha": 0.5 if args.alpha is None else args.alpha,
                        "epsilon": 1 if args.epsilon is None else args.epsilon}
        return ThresholdRule(**settings).check()

    return threshold_rule


def apply_rule_arguments(model, args: argparse.Namespace):
    """``model`` with the rule the options ask for in every segmenter (itself without such options); one note
    line on stderr when a rule of another kind is replaced."""
    if not rule_overridden(args):
        return model
    make = _replacement(args)
    segmenters = model.segmenters()
    replaced, kind = [], ""
    for name, segmenter in segmenters.items():
        own, new = segmenter.rule_, make(segmenter.rule_)
        kind = new.describe().split(":")[0]   # "threshold rule", "segment-count rule"
        if type(new) is not type(own):
            replaced.append(f"{name}: {own.describe()}" if len(segmenters) > 1 else own.describe())
        model = model.with_rule(new, expert=name)
    if replaced:
        print(f"segviz: note: the options replace the model's own decision rule ({'; '.join(replaced)}) with the "
              f"{kind}", file=sys.stderr)
    return model
