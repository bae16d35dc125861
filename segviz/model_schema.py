r"""The schema of a saved segmenter: every field checked for type, finiteness and range before use.

A model file is data from outside; :func:`validate_model_document` turns its JSON document into clean Python
values or raises one :class:`~segviz.errors.SegvizError` naming the file and the field.  The limits:

==================  ===========================================================================================
field               accepted
==================  ===========================================================================================
``prior``           finite, 0 < prior < 1 (the training base rate q0(yes))
``rule``            the tuned decision rule (:func:`segviz.rules.rule_from_dict`): its kind and settings, each
                    in range (alpha in [0, 1], epsilon 1..100,000, lengths 1..10^6, shapes in (0, 1000], biases
                    within +-1000)
``mu``              finite, 0 < mu <= 1 (1/mu is a mean segment length of at least one sentence)
``lambdas``         finite, \|lambda\| <= 100, one per feature (training caps them at ``lambda_max``, 10 by default)
``features``        at most 100,000; each a valid feature description whose numbers (window offsets, sizes,
                    thresholds) lie within +-10,000 -- so applying a model costs at most that many passes
                    over the text
``history``         a list of objects (display only); ``info`` an object
``params``          the estimator's hyperparameters, each of its documented type and range
==================  ===========================================================================================
"""
from __future__ import annotations

import math
from typing import Any

from .errors import SegvizError
from .features import FeatureSpec, resolve_families
from .limits import MAX_ABS_LAMBDA, MAX_FEATURE_INTEGER, MAX_FEATURES, MAX_L2
from .rules import rule_from_dict
from .tuning import TUNING_METRICS, TUNING_UNITS

#: the version of a segmenter document this segviz reads and writes
DOCUMENT_VERSION = 2


def _number(d: dict, key: str, source: str) -> float:
    value = d.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SegvizError(f"{source}: field {key!r} must be a number, got {_show(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise SegvizError(f"{source}: field {key!r} must be finite, got {value}")
    return value


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_integers(obj: Any, where: str, source: str) -> None:
    """Every integer inside a feature description lies within +-MAX_FEATURE_INTEGER (window offsets, sizes)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check_integers(v, f"{where}.{k}", source)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _check_integers(v, f"{where}[{i}]", source)
    elif isinstance(obj, bool):
        return
    elif isinstance(obj, (int, float)) and abs(obj) > MAX_FEATURE_INTEGER:
        raise SegvizError(f"{source}: field {where} = {obj} is beyond the limit of +-{MAX_FEATURE_INTEGER}")
    elif isinstance(obj, float) and math.isnan(obj):
        raise SegvizError(f"{source}: field {where} is NaN")


def _features(d: dict, source: str) -> list[FeatureSpec]:
    raw = d.get("features")
    if not isinstance(raw, list):
        raise SegvizError(f"{source}: field 'features' must be a list, got {_show(raw)}")
    if len(raw) > MAX_FEATURES:
        raise SegvizError(f"{source}: field 'features' has {len(raw)} entries, more than {MAX_FEATURES}")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise SegvizError(f"{source}: field features[{i}] must be an object, got {_show(item)}")
        _check_integers(item, f"features[{i}]", source)
        try:
            out.append(FeatureSpec.from_dict(item))
        except SegvizError as exc:
            raise SegvizError(f"{source}: field features[{i}]: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SegvizError(f"{source}: field features[{i}] is malformed ({exc.__class__.__name__}: {exc})") \
                from None
    return out


def _lambdas(d: dict, source: str, n: int) -> list[float]:
    raw = d.get("lambdas")
    if not isinstance(raw, list):
        raise SegvizError(f"{source}: field 'lambdas' must be a list, got {_show(raw)}")
    if len(raw) != n:
        raise SegvizError(f"{source}: {n} features but {len(raw)} lambdas")
    out = []
    for i, value in enumerate(raw):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
            raise SegvizError(f"{source}: field lambdas[{i}] must be a finite number, got {_show(value)}")
        if abs(float(value)) > MAX_ABS_LAMBDA:
            raise SegvizError(f"{source}: field lambdas[{i}] = {value} is beyond |lambda| <= {MAX_ABS_LAMBDA:g}")
        out.append(float(value))
    return out


def _int_param(value, name, source, low, high=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise SegvizError(f"{source}: field params.{name} must be an integer {bound}, got {_show(value)}")
    return value


def _float_param(value, name, source, low, high, *, open_low=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)) \
            or value < low or value > high or (open_low and value == low):
        raise SegvizError(f"{source}: field params.{name} must be a number in {'(' if open_low else '['}{low:g}, "
                          f"{high:g}], got {_show(value)}")
    return float(value)


def _edge(value, name, source):
    if isinstance(value, str) and value in ("inf", "-inf"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(float(value)):
        raise SegvizError(f"{source}: field params.{name} holds {_show(value)}, not a number")
    return float(value)


def _params(d: dict, source: str, template_sets) -> dict:
    raw = d.get("params", {})
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SegvizError(f"{source}: field 'params' must be an object, got {_show(raw)}")
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if name == "n_features":
            out[name] = _int_param(value, name, source, 1, MAX_FEATURES)
        elif name == "vocabulary":
            out[name] = _int_param(value, name, source, 1)
        elif name == "min_support":
            out[name] = _int_param(value, name, source, 1)
        elif name == "templates":
            if value == "custom":
                continue   # a hand-made template list cannot be stored; refitting uses the default
            if value not in template_sets:
                raise SegvizError(f"{source}: field params.templates must be one of {', '.join(template_sets)}")
            out[name] = value
        elif name == "mu":
            out[name] = None if value is None else _float_param(value, name, source, 0.0, 1.0, open_low=True)
        elif name == "stopping":
            if value not in ("last", "heldout"):
                raise SegvizError(f"{source}: field params.stopping must be 'last' or 'heldout'")
            out[name] = value
        elif name == "rule":
            out[name] = None if value is None else rule_from_dict(value, source=f"{source}: field params.rule")
        elif name == "relevance_edges":
            if not isinstance(value, list) or len(value) > 10_000:
                raise SegvizError(f"{source}: field params.relevance_edges must be a list")
            out[name] = tuple(_edge(v, name, source) for v in value)
        elif name == "families":
            if value is None:
                out[name] = None
                continue
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or len(value) > 100:
                raise SegvizError(f"{source}: field params.families must be a list of family names")
            try:
                out[name] = resolve_families(value)
            except SegvizError as exc:
                raise SegvizError(f"{source}: field params.families: {exc}") from None
        elif name == "l2":
            out[name] = _float_param(value, name, source, 0.0, MAX_L2)
        elif name in ("tuning_metric", "tuning_units"):
            allowed = TUNING_METRICS if name == "tuning_metric" else TUNING_UNITS
            if value not in allowed:
                raise SegvizError(f"{source}: field params.{name} must be one of {', '.join(allowed)}")
            out[name] = value
        elif name == "lambda_max":
            out[name] = _float_param(value, name, source, 0.0, MAX_ABS_LAMBDA, open_low=True)
        elif name == "iis_tol":
            out[name] = _float_param(value, name, source, 0.0, 1.0, open_low=True)
        else:
            # parameters of later versions: kept if they are plain JSON values, for a refit to use
            _check_integers(value, f"params.{name}", source)
            out[name] = tuple(value) if isinstance(value, list) else value
    return out


def validate_model_document(d: dict, *, source: str, template_sets=("paper", "extended"),
                            known_params=None) -> dict:
    """Clean values of a segmenter document (see the module docstring for the limits).

    ``known_params`` (the estimator's parameter names) restricts which ``params`` entries are returned."""
    if not isinstance(d, dict):
        raise SegvizError(f"{source}: the segmenter description must be a JSON object")
    if d.get("version") != DOCUMENT_VERSION:
        raise SegvizError(f"{source}: model version {d.get('version')!r} is not supported (this segviz reads "
                          f"version {DOCUMENT_VERSION}; train the model again)")
    features = _features(d, source)
    values = {
        "features": features,
        "lambdas": _lambdas(d, source, len(features)),
        "prior": _number(d, "prior", source),
        "mu": _number(d, "mu", source),
    }
    if not 0.0 < values["prior"] < 1.0:
        raise SegvizError(f"{source}: field 'prior' must lie in (0, 1), got {values['prior']}")
    if not 0.0 < values["mu"] <= 1.0:
        raise SegvizError(f"{source}: field 'mu' must lie in (0, 1], got {values['mu']}")
    values["rule"] = rule_from_dict(d.get("rule"), source=f"{source}: field 'rule'")
    history = d.get("history") or []
    if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
        raise SegvizError(f"{source}: field 'history' must be a list of objects")
    info = d.get("info") or {}
    if not isinstance(info, dict):
        raise SegvizError(f"{source}: field 'info' must be an object, got {_show(info)}")
    values["history"] = list(history)
    values["info"] = dict(info)
    params = _params(d, source, template_sets)
    if known_params is not None:
        params = {k: v for k, v in params.items() if k in known_params}
    values["params"] = params
    return values
