r"""The schema of a saved segmenter: every field checked for type, then range, before use.

A model file is data from outside; :func:`validate_model_document` turns its JSON document into clean Python
values or raises one :class:`~segviz.errors.SegvizError` naming the file and the field.  Types are checked before
values: a string, a list, a bool or ``null`` where a number belongs is refused (never converted with ``int()`` or
``float()``), an integer is compared with its bounds exactly (a 4,000-digit integer is out of range, not an
``OverflowError``), and every number is range-checked after conversion (:mod:`segviz.params`).  The limits:

==================  ===========================================================================================
field               accepted
==================  ===========================================================================================
``prior``           finite, 0 < prior < 1 (the training base rate q0(yes))
``rule``            the tuned decision rule (:func:`segviz.rules.rule_from_dict`): its kind and settings, each
                    in range (alpha in [0, 1], epsilon 1..100,000, lengths 1..10^6, shapes in (0, 1000], biases
                    within +-1000)
``mu``              finite, 0 < mu <= 1 (1/mu is a mean segment length of at least one sentence)
``lambdas``         finite, \|lambda\| <= 100, one per feature (training caps them at ``lambda_max``, 10 by default)
``features``        at most 100,000; each a valid feature description: window offsets JSON integers within
                    +-10,000 (so applying a model costs at most that many passes over the text), interval ends
                    numbers within +-10,000 or ``"inf"``/``"-inf"``
``history``         a list of objects (display only); ``info`` an object; every number in either converts to a
                    finite float
``params``          the estimator's hyperparameters, each checked by the constraint the estimator itself declares
                    (:data:`SEGMENTER_PARAMS`)
==================  ===========================================================================================

:data:`SEGMENTER_PARAMS` is the one declaration of what each :class:`~segviz.segmenter.Segmenter` hyperparameter
accepts: the estimator's ``check_params``, this schema and the command line's ``--param NAME=VALUE``
(:func:`param_from_json`) all read it.
"""
from __future__ import annotations

from typing import Any

from .errors import SegvizError
from .features import EXTENDED_TEMPLATES, VOCABULARY_TEMPLATES, FeatureSpec, Template, resolve_families
from .limits import MAX_ABS_LAMBDA, MAX_COUNT, MAX_FEATURE_INTEGER, MAX_FEATURES, MAX_L2, MAX_RELEVANCE_EDGES
from .params import (
    AnyOf,
    Choice,
    Constraint,
    Custom,
    Integer,
    Number,
    Optional,
    Sequence,
    check_plain_numbers,
    checked_fields,
    show_value,
)
from .rules import RULES, DecisionRule, rule_from_dict
from .tuning import TUNING_METRICS, TUNING_UNITS

__all__ = ["DOCUMENT_VERSION", "SEGMENTER_PARAMS", "TEMPLATE_SETS", "param_from_json", "validate_model_document",
           "MAX_FEATURES", "MAX_ABS_LAMBDA"]

#: the version of a segmenter document this segviz reads and writes
DOCUMENT_VERSION = 2
#: named candidate template sets: the paper's 15 vocabulary questions, or those plus wider windows
TEMPLATE_SETS = {"paper": VOCABULARY_TEMPLATES, "extended": EXTENDED_TEMPLATES}


def _templates(value, name: str):
    if isinstance(value, str):
        if value not in TEMPLATE_SETS:
            raise SegvizError(f"{name} must be one of {', '.join(TEMPLATE_SETS)} or a sequence of Template, "
                              f"not {show_value(value)}")
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(t, Template) for t in value):
        return tuple(value)
    raise SegvizError(f"{name} must be one of {', '.join(TEMPLATE_SETS)} or a sequence of Template, "
                      f"not {show_value(value)}")


def _families(value, name: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not value or len(value) > 100 \
            or not all(isinstance(v, str) for v in value):
        raise SegvizError(f"{name} must be a list of family names, got {show_value(value)}")
    try:
        return resolve_families(value)
    except SegvizError as exc:
        raise SegvizError(f"{name}: {exc}") from None


def _rule(value, name: str) -> DecisionRule:
    if not isinstance(value, DecisionRule):
        raise SegvizError(f"{name} must be a decision rule (segviz.rules), not {type(value).__name__}")
    try:
        return value.check()
    except SegvizError as exc:
        raise SegvizError(f"{name}: {exc}") from None


def _word(value, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise SegvizError(f"{name} must be a word, got {show_value(value)}")
    return value


#: what each hyperparameter of :class:`~segviz.segmenter.Segmenter` accepts (its ``PARAM_CONSTRAINTS``)
SEGMENTER_PARAMS: dict[str, Constraint] = {
    "n_features": Integer(1, MAX_FEATURES),
    "vocabulary": AnyOf((Integer(1, MAX_COUNT),
                         Sequence(Custom(_word, "a word"), min_len=1, max_len=MAX_COUNT))),
    "templates": Custom(_templates, f"one of {', '.join(TEMPLATE_SETS)} or a sequence of Template"),
    "families": Optional(Custom(_families, "a list of family names")),
    "min_support": Integer(1, MAX_COUNT),
    "l2": Number(0.0, MAX_L2),
    # the interval grid: every pair of edges is a question, so its size is bounded (100 edges: 4,950 intervals)
    "relevance_edges": Sequence(Number(infinite=True), min_len=2, max_len=MAX_RELEVANCE_EDGES, distinct=True),
    "mu": Optional(Number(0.0, 1.0, open_low=True)),
    "stopping": Choice(("last", "heldout")),
    "lambda_max": Number(0.0, MAX_ABS_LAMBDA, open_low=True),
    "iis_tol": Number(0.0, 1.0, open_low=True),
    "rule": Optional(Custom(_rule, "a decision rule")),
    "tuning_metric": Choice(TUNING_METRICS, "a tuning metric"),
    "tuning_units": Choice(TUNING_UNITS, "tuning units"),
}


def param_from_json(name: str, value, *, source: str, prefix: str = ""):
    """A Segmenter hyperparameter from its JSON form (a saved model's ``params``, ``--param NAME=VALUE``), as the
    estimator takes it: a decision rule from its object (or its kind's name), every value checked by
    :data:`SEGMENTER_PARAMS`; otherwise one :class:`SegvizError`, ``SOURCE: PREFIXNAME must be ...``."""
    if name not in SEGMENTER_PARAMS:
        raise SegvizError(f"{source}: the segmenter has no parameter {name!r}")
    if name == "rule":
        if isinstance(value, str) and value in RULES:
            value = RULES[value]()
        elif isinstance(value, dict):
            value = rule_from_dict(value, source=f"{source}: {prefix}{name}" if source else f"{prefix}{name}")
    try:
        return SEGMENTER_PARAMS[name].check(value, f"{prefix}{name}")
    except SegvizError as exc:
        raise SegvizError(f"{source}: {exc}" if source else str(exc)) from None


_LAMBDA = Number(-MAX_ABS_LAMBDA, MAX_ABS_LAMBDA)
_PRIOR = Number(0.0, 1.0, open_low=True, open_high=True)
_MU = Number(0.0, 1.0, open_low=True)
#: a window of a feature description: JSON integers within +-MAX_FEATURE_INTEGER (a string such as
#: "-1000000000" is refused, never converted)
_WINDOW = {"unit": Choice(("sentence", "word")),
           "start": Integer(-MAX_FEATURE_INTEGER, MAX_FEATURE_INTEGER),
           "end": Integer(-MAX_FEATURE_INTEGER, MAX_FEATURE_INTEGER)}
_INTERVAL_END = Number(-MAX_FEATURE_INTEGER, MAX_FEATURE_INTEGER, infinite=True)


def _field(constraint: Constraint, value, name: str, source: str):
    try:
        return constraint.check(value, name)
    except SegvizError as exc:
        raise SegvizError(f"{source}: field {exc}") from None


def _check_feature(item: dict, where: str, source: str) -> None:
    """The numbers of one feature description, by type and range, before the question is built."""
    # every number within the bound (window offsets, sizes, interval ends) ...
    check_plain_numbers(item, where, source=source, limit=MAX_FEATURE_INTEGER)
    # ... and of the type its field takes: an offset written as a string is refused, never converted
    for key in ("window", "not_window"):
        if key == "not_window" and not item.get(key):
            continue
        checked_fields(item.get(key), _WINDOW, source=source, prefix=f"{where}.{key}.")
    for key in ("low", "high"):
        if key in item:
            _field(_INTERVAL_END, item[key], f"{where}.{key}", source)


def _features(d: dict, source: str) -> list[FeatureSpec]:
    raw = d.get("features")
    if not isinstance(raw, list):
        raise SegvizError(f"{source}: field 'features' must be a list, got {show_value(raw)}")
    if len(raw) > MAX_FEATURES:
        raise SegvizError(f"{source}: field 'features' has {len(raw)} entries, more than {MAX_FEATURES}")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise SegvizError(f"{source}: field features[{i}] must be an object, got {show_value(item)}")
        _check_feature(item, f"features[{i}]", source)
        try:
            out.append(FeatureSpec.from_dict(item))
        except SegvizError as exc:
            raise SegvizError(f"{source}: field features[{i}]: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise SegvizError(f"{source}: field features[{i}] is malformed ({exc.__class__.__name__}: {exc})") \
                from None
    return out


def _lambdas(d: dict, source: str, n: int) -> list[float]:
    raw = d.get("lambdas")
    if not isinstance(raw, list):
        raise SegvizError(f"{source}: field 'lambdas' must be a list, got {show_value(raw)}")
    if len(raw) != n:
        raise SegvizError(f"{source}: {n} features but {len(raw)} lambdas")
    return [_field(_LAMBDA, value, f"lambdas[{i}]", source) for i, value in enumerate(raw)]


def _params(d: dict, source: str) -> dict:
    raw = d.get("params", {})
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SegvizError(f"{source}: field 'params' must be an object, got {show_value(raw)}")
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if name == "templates" and value == "custom":
            continue   # a hand-made template list cannot be stored; refitting uses the default
        if name in SEGMENTER_PARAMS:
            out[name] = param_from_json(name, value, source=f"{source}: field", prefix="params.")
        else:
            # parameters of later versions: kept if they are plain JSON values, for a refit to use
            check_plain_numbers(value, f"params.{name}", source=source, limit=MAX_FEATURE_INTEGER)
            out[name] = tuple(value) if isinstance(value, list) else value
    return out


def validate_model_document(d: dict, *, source: str, template_sets=tuple(TEMPLATE_SETS),
                            known_params=None) -> dict:
    """Clean values of a segmenter document (see the module docstring for the limits).

    ``known_params`` (the estimator's parameter names) restricts which ``params`` entries are returned;
    ``template_sets`` is kept for callers of earlier versions (the names are :data:`TEMPLATE_SETS`')."""
    if not isinstance(d, dict):
        raise SegvizError(f"{source}: the segmenter description must be a JSON object")
    if d.get("version") != DOCUMENT_VERSION:
        raise SegvizError(f"{source}: model version {show_value(d.get('version'))} is not supported (this segviz "
                          f"reads version {DOCUMENT_VERSION}; train the model again)")
    features = _features(d, source)
    values = {
        "features": features,
        "lambdas": _lambdas(d, source, len(features)),
        "prior": _field(_PRIOR, d.get("prior"), "'prior'", source),
        "mu": _field(_MU, d.get("mu"), "'mu'", source),
    }
    values["rule"] = rule_from_dict(d.get("rule"), source=f"{source}: field 'rule'")
    history = d.get("history") or []
    if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
        raise SegvizError(f"{source}: field 'history' must be a list of objects")
    info = d.get("info") or {}
    if not isinstance(info, dict):
        raise SegvizError(f"{source}: field 'info' must be an object, got {show_value(info)}")
    # shown and summed by the app and `truncated`: every number must convert to a finite float
    check_plain_numbers(history, "history", source=source)
    check_plain_numbers(info, "info", source=source)
    values["history"] = list(history)
    values["info"] = dict(info)
    params = _params(d, source)
    if known_params is not None:
        params = {k: v for k, v in params.items() if k in known_params}
    values["params"] = params
    return values
