"""Argument types for the command line: every value is checked by argparse, before any data is read.

Each function here is an ``argparse`` ``type=``: it turns the string into the value or raises
:class:`argparse.ArgumentTypeError`, which argparse reports as one line ``segviz COMMAND: error: ...`` with exit
status 2 (never a traceback, never after minutes of reading).
"""
from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable

# the largest integer option segviz accepts (a count beyond this is a typo, and would only exhaust memory): one
# source, shared with the estimators and the model schema
from ..limits import MAX_COUNT


def _integer(text: str) -> int:
    try:
        return int(str(text).strip(), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def int_range(low: int, high: int = MAX_COUNT) -> Callable[[str], int]:
    """An integer in ``[low, high]``."""
    def parse(text: str) -> int:
        value = _integer(text)
        if not low <= value <= high:
            if high == MAX_COUNT:
                raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}, got {value}")
        return value
    parse.__name__ = "integer"
    return parse


#: an integer >= 1 (counts: features, vocabulary, windows, ...)
positive_int = int_range(1)
#: an integer >= 0 (offsets, counts that may be zero)
non_negative_int = int_range(0)
#: a random seed: an integer from 0 to 2^32 - 1 (numpy's range for a seed)
seed = int_range(0, 2 ** 32 - 1)


def float_range(low: float, high: float, *, low_open: bool = False, high_open: bool = False
                ) -> Callable[[str], float]:
    """A finite float in the interval from ``low`` to ``high`` (closed unless ``*_open``)."""
    left, right = ("(" if low_open else "["), (")" if high_open else "]")

    def parse(text: str) -> float:
        try:
            value = float(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        if value < low or value > high or (low_open and value == low) or (high_open and value == high):
            hi = "inf" if math.isinf(high) else f"{high:g}"
            raise argparse.ArgumentTypeError(f"must be in {left}{low:g}, {hi}{right}, got {value:g}")
        return value
    parse.__name__ = "number"
    return parse


def declared(constraint) -> Callable[[str], object]:
    """A value the declared ``constraint`` accepts (:mod:`segviz.params`: what an estimator or a decision rule
    declares for one of its parameters), read from the word as that constraint reads a command-line word (an
    integer for a whole number, else a number) and checked by it: the command line accepts exactly what the
    estimator and a saved model accept."""
    from ..errors import SegvizError

    def parse(text: str):
        try:
            return constraint.from_text(text, "")
        except SegvizError as exc:
            raise argparse.ArgumentTypeError(str(exc).strip()) from None
    parse.__name__ = "integer" if constraint.integral else "number"
    return parse


#: a probability threshold: alpha of the decision rule (Section 7)
probability = float_range(0.0, 1.0)
#: a positive finite number (a variance, a scale)
positive_float = float_range(0.0, math.inf, low_open=True, high_open=True)


def names_list(known: tuple[str, ...], what: str) -> Callable[[str], tuple[str, ...]]:
    """A comma-separated list of names from ``known`` (empty string: none)."""
    def parse(text: str) -> tuple[str, ...]:
        names = tuple(v.strip() for v in str(text).split(",") if v.strip())
        bad = [n for n in names if n not in known]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(bad)}; choose from {', '.join(known)}")
        return names
    parse.__name__ = what
    return parse


def family_names(text: str) -> tuple[str, ...]:
    """A comma-separated list of candidate families (:data:`segviz.features.FAMILIES`)."""
    from ..features import FAMILIES

    names = tuple(v.strip() for v in str(text).split(",") if v.strip())
    if not names:
        raise argparse.ArgumentTypeError("name at least one candidate family")
    bad = [n for n in names if n not in FAMILIES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown candidate family {', '.join(bad)}; choose from "
                                         f"{', '.join(FAMILIES)}")
    return names


#: a non-negative finite number (a penalty weight)
non_negative_float = float_range(0.0, math.inf, high_open=True)


#: how deeply a ``--param`` value may nest lists and objects (a parameter takes at most a list of numbers or a
#: rule's object of lists; 50,000 nested brackets used to end in a RecursionError)
MAX_PARAM_DEPTH = 16


def _nesting(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in JSON text (brackets inside strings do not count), in one pass."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def segmenter_param(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` for a :class:`segviz.segmenter.Segmenter` parameter; VALUE is read as JSON when it is
    JSON (``3``, ``0.5``, ``true``, ``[25, 50]``, ``null``), else as a string, and checked here by the constraint
    the Segmenter declares for it (:data:`segviz.model_schema.SEGMENTER_PARAMS`, the one a saved model's
    ``params`` meet too), before anything is read."""
    name, sep, raw = str(text).partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text[:40]!r}")
    from ..errors import SegvizError
    from ..model_schema import SEGMENTER_PARAMS, param_from_json

    if name not in SEGMENTER_PARAMS:
        raise argparse.ArgumentTypeError(f"the segmenter has no parameter {name[:40]!r}; it has "
                                         f"{', '.join(sorted(SEGMENTER_PARAMS))}")
    if _nesting(raw) > MAX_PARAM_DEPTH:
        raise argparse.ArgumentTypeError(f"{name}: the value is nested more than {MAX_PARAM_DEPTH} lists or "
                                         "objects deep")
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except (json.JSONDecodeError, ValueError, RecursionError):
        value = raw
    try:
        return name, param_from_json(name, value, source="")
    except SegvizError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number segviz accepts")


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with its errors as one line, ``segviz: error: COMMAND: message`` and exit status 2
    (argparse's own prints the whole usage first).  Subcommand parsers inherit the class."""

    def error(self, message: str):
        command = self.prog.partition(" ")[2]
        self.exit(2, f"segviz: error: {command + ': ' if command else ''}{message}\n")
