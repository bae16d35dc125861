"""Estimator parameters in scikit-learn's convention: read from the ``__init__`` signature, never listed twice.

Every estimator of segviz (:class:`~segviz.segmenter.Segmenter`, :class:`~segviz.routing.ExpertRouter`, the
decision rules of :mod:`segviz.rules`) stores its keyword-only constructor arguments verbatim under their own
names.  :class:`ParamsMixin` derives from that alone:

* :meth:`~ParamsMixin.get_params` -- the parameters by name; with ``deep=True`` also those of parameters that are
  estimators themselves, as ``name__sub`` (so ``sklearn.base.clone`` and grid searches work);
* :meth:`~ParamsMixin.set_params` -- set parameters, ``name__sub`` reaching into a nested estimator;
* ``repr`` -- the class with the parameters that differ from their defaults.

Declared constraints
    Values from outside (a saved model's JSON, ``--param NAME=VALUE``, a caller's keyword) are checked by the
    constraint objects here: :class:`Number`, :class:`Integer`, :class:`Choice`, :class:`Optional`,
    :class:`Sequence`, :class:`AnyOf` and :class:`Custom`.  Each checks the *type* before the value (a string, a
    list, a bool or ``None`` where a number belongs is refused, never converted with ``int()``/``float()``), compares
    a Python integer with its bounds exactly before converting it (a 4,000-digit integer is out of range, not an
    ``OverflowError``), and range-checks the converted value.  An estimator (and each decision rule,
    :mod:`segviz.rules`) declares one constraint per parameter in ``PARAM_CONSTRAINTS``; its own check, the schema
    of a saved model, the command line (:meth:`Constraint.from_text`) and the ranges a rule's controls offer
    (:meth:`Constraint.bounds`) all use the same declaration, so a value one accepts the others accept.
    :func:`checked_fields` applies a table of constraints to a saved document.
"""
from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import SegvizError

__all__ = ["ParamsMixin", "Constraint", "Number", "Integer", "Choice", "Optional", "Sequence", "AnyOf", "Custom",
           "check_plain_numbers", "checked_fields", "show_value"]

#: the longest value a message shows (longer ones are cut; integers beyond it are named by their digit count)
_SHOWN = 40
#: the JSON spellings of an infinite value (JSON has no infinities; segviz writes them as these strings)
_INFINITIES = {"inf": math.inf, "-inf": -math.inf}


def show_value(value: Any) -> str:
    """A value for a one-line message: short reprs as they are, long ones cut, huge integers by their size."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and abs(int(value)) >= 10 ** _SHOWN:
        try:
            return f"an integer of {len(str(abs(int(value)))):,} digits"
        except ValueError:   # beyond Python's limit on printing integers
            return f"an integer of about {int(abs(int(value)).bit_length() * 0.30103) + 1:,} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):   # a value too large or too deep to print
        return f"a {type(value).__name__}"
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


class Constraint:
    """What one parameter accepts.  :meth:`check` returns the value as the estimator keeps it, or raises one
    :class:`SegvizError` ``"NAME must be WHAT, got VALUE"``."""

    #: whether the values are whole numbers (a control for them counts; :class:`Integer`)
    integral = False

    def check(self, value, name: str):
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def bounds(self, step: float = 0.0) -> tuple | None:
        """``(low, high)``, the closed range of the values accepted, an open end moved in by ``step`` (the nearest
        value a control moving in steps of ``step`` can reach; None for an unbounded end); None when the values
        are not a range of numbers."""
        return None

    def from_text(self, text: str, name: str):
        """The value a word of the command line names, checked (one :class:`SegvizError` otherwise)."""
        return self.check(str(text), name)

    def refuse(self, value, name: str) -> SegvizError:
        return SegvizError(f"{name} must be {self.describe()}, got {show_value(value)}")


def _bound(x) -> str:
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e16):
        return f"{int(x):,}"
    return f"{x:g}"


@dataclass(frozen=True)
class Number(Constraint):
    """A real number (a float after the check) between ``low`` and ``high`` (closed unless ``open_*``; None:
    unbounded).  Finite unless ``infinite``, which also takes JSON's spellings ``"inf"``/``"-inf"``; never NaN."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    infinite: bool = False

    def describe(self) -> str:
        also = ' (or "inf", "-inf")' if self.infinite else ""
        if self.low is not None and self.high is not None:
            return (f"a finite number in {'(' if self.open_low else '['}{_bound(self.low)}, {_bound(self.high)}"
                    f"{')' if self.open_high else ']'}{also}")
        if self.low is not None:
            return f"a finite number {'>' if self.open_low else '>='} {_bound(self.low)}{also}"
        if self.high is not None:
            return f"a finite number {'<' if self.open_high else '<='} {_bound(self.high)}{also}"
        return f"a finite number{also}"

    def _inside(self, x) -> bool:
        # exact comparisons: a Python integer is compared with the bounds as it is, never rounded or overflowed
        if self.low is not None and (x <= self.low if self.open_low else x < self.low):
            return False
        if self.high is not None and (x >= self.high if self.open_high else x > self.high):
            return False
        return True

    def bounds(self, step: float = 0.0) -> tuple:
        low = None if self.low is None else self.low + (step if self.open_low else 0.0)
        high = None if self.high is None else self.high - (step if self.open_high else 0.0)
        return low, high

    def from_text(self, text: str, name: str) -> float:
        word = str(text).strip()
        if not (self.infinite and word in _INFINITIES):
            try:
                word = float(word)
            except ValueError:
                raise SegvizError(f"{name} must be a number, got {show_value(str(text))}") from None
        return self.check(word, name)

    def check(self, value, name: str) -> float:
        if self.infinite and isinstance(value, str) and value in _INFINITIES:
            x = _INFINITIES[value]
        elif not _is_number(value):
            raise self.refuse(value, name)
        elif _is_integer(value):
            if not self._inside(int(value)):
                raise self.refuse(value, name)
            try:
                x = float(value)
            except OverflowError:
                raise self.refuse(value, name) from None
        else:
            x = float(value)
        if math.isnan(x):
            raise self.refuse(value, name)
        if math.isinf(x):
            if not self.infinite:   # the bounds are those of the finite values; an infinite end is open
                raise self.refuse(value, name)
        elif not self._inside(x):
            raise self.refuse(value, name)
        return x


@dataclass(frozen=True)
class Integer(Constraint):
    """A whole number in ``low..high`` (a Python ``int`` after the check); ``integral_floats`` also takes a float
    such as ``2.0`` (JSON writers may give one)."""

    low: int
    high: int
    integral_floats: bool = False

    integral = True

    def describe(self) -> str:
        return f"a whole number in {self.low:,}..{self.high:,}"

    def bounds(self, step: float = 0.0) -> tuple:
        return self.low, self.high

    def from_text(self, text: str, name: str) -> int:
        try:
            value = int(str(text).strip(), 10)
        except ValueError:
            raise SegvizError(f"{name} must be a whole number, got {show_value(str(text))}") from None
        return self.check(value, name)

    def check(self, value, name: str) -> int:
        if self.integral_floats and isinstance(value, (float, np.floating)) and math.isfinite(value) \
                and float(value).is_integer():
            value = int(value)
        if not _is_integer(value) or not self.low <= int(value) <= self.high:
            raise self.refuse(value, name)
        return int(value)


@dataclass(frozen=True)
class Choice(Constraint):
    """One of a few named values (strings compared as strings: a list or a number is refused, never hashed)."""

    options: tuple
    what: str = ""

    def describe(self) -> str:
        listed = "one of " + ", ".join(str(o) for o in self.options)
        return f"{self.what}, {listed}" if self.what else listed

    def check(self, value, name: str):
        if not isinstance(value, (str, type(None))) or value not in self.options:
            raise self.refuse(value, name)
        return value


@dataclass(frozen=True)
class Optional(Constraint):
    """None, or what ``inner`` accepts."""

    inner: Constraint

    def describe(self) -> str:
        return f"null or {self.inner.describe()}"

    @property
    def integral(self) -> bool:
        return self.inner.integral

    def bounds(self, step: float = 0.0) -> tuple | None:
        return self.inner.bounds(step)

    def from_text(self, text: str, name: str):
        return self.inner.from_text(text, name)

    def check(self, value, name: str):
        return None if value is None else self.inner.check(value, name)


@dataclass(frozen=True)
class Sequence(Constraint):
    """A list or tuple of ``min_len..max_len`` items, each accepted by ``item`` (returned as a tuple); its length
    is checked before any item is; ``distinct`` refuses repeated items."""

    item: Constraint
    min_len: int = 0
    max_len: int = 10_000
    distinct: bool = False

    def describe(self) -> str:
        what = "distinct " if self.distinct else ""
        return f"a list of {self.min_len:,} to {self.max_len:,} {what}items, each {self.item.describe()}"

    def check(self, value, name: str) -> tuple:
        if isinstance(value, np.ndarray) and value.ndim == 1:
            value = value.tolist()
        if not isinstance(value, (list, tuple)) or not self.min_len <= len(value) <= self.max_len:
            raise self.refuse(value, name)
        out = tuple(self.item.check(v, f"{name}[{i}]") for i, v in enumerate(value))
        if self.distinct and len(set(out)) != len(out):
            raise SegvizError(f"{name} must hold distinct values, got {show_value(value)}")
        return out


@dataclass(frozen=True)
class AnyOf(Constraint):
    """What the first of ``alternatives`` that accepts the value makes of it."""

    alternatives: tuple

    def describe(self) -> str:
        return " or ".join(a.describe() for a in self.alternatives)

    def check(self, value, name: str):
        for alternative in self.alternatives:
            try:
                return alternative.check(value, name)
            except SegvizError:
                continue
        raise self.refuse(value, name)


@dataclass(frozen=True)
class Custom(Constraint):
    """A check of its own: ``check(value, name)`` returns the value or raises :class:`SegvizError`; ``what`` says
    what it accepts (a decision rule object, a list of family names)."""

    function: Callable[[Any, str], Any]
    what: str

    def describe(self) -> str:
        return self.what

    def check(self, value, name: str):
        return self.function(value, name)


def check_plain_numbers(obj, where: str, *, source: str, limit: float | None = None) -> None:
    """Every number inside a plain JSON value (objects, lists, strings, numbers) converts to a finite float, and
    lies within +-``limit`` when one is given; one :class:`SegvizError` naming the first that does not."""
    stack = [(obj, where)]
    while stack:
        value, at = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, f"{at}.{k}") for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(value))
        elif _is_number(value):
            if limit is not None and abs(value) > limit:
                raise SegvizError(f"{source}: field {at} = {show_value(value)} is beyond the limit of +-{limit:g}")
            try:
                finite = math.isfinite(float(value))
            except OverflowError:
                finite = False
            if not finite:
                raise SegvizError(f"{source}: field {at} = {show_value(value)} is not a finite number")


def checked_fields(document: Mapping, constraints: Mapping[str, Constraint], *, source: str,
                   prefix: str = "", optional: Mapping[str, Any] | None = None) -> dict:
    """The fields of a saved document, each checked by its constraint; a missing field is refused unless
    ``optional`` gives its default.  Errors read ``SOURCE: field PREFIXNAME must be ..., got ...``."""
    if not isinstance(document, Mapping):
        raise SegvizError(f"{source}: field {prefix.rstrip('.') or 'document'} must be an object, "
                          f"got {show_value(document)}")
    optional = optional or {}
    out = {}
    for name, constraint in constraints.items():
        if name not in document:
            if name in optional:
                out[name] = optional[name]
                continue
            raise SegvizError(f"{source}: field {prefix}{name} is missing")
        try:
            out[name] = constraint.check(document[name], f"{prefix}{name}")
        except SegvizError as exc:
            raise SegvizError(f"{source}: field {exc}") from None
    return out


def _same(a, b) -> bool:
    """Whether a parameter value equals its default (sequences and arrays by value; never raises)."""
    if a is b:
        return True
    try:
        if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
            return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return False


class ParamsMixin:
    """``get_params``/``set_params``/``__repr__`` from the keyword-only ``__init__`` parameters; an estimator may
    declare :attr:`PARAM_CONSTRAINTS`, which :meth:`check_declared_params` applies."""

    #: parameter name -> :class:`Constraint` (the parameters an estimator declares; others are its own to check)
    PARAM_CONSTRAINTS: dict[str, Constraint] = {}

    @classmethod
    def check_param(cls, name: str, value):
        """``value`` for parameter ``name`` as the estimator keeps it, checked by its declared constraint."""
        constraint = cls.PARAM_CONSTRAINTS.get(name)
        return value if constraint is None else constraint.check(value, name)

    def check_declared_params(self) -> None:
        """Every declared parameter of this estimator checked (one :class:`SegvizError` for the first fault)."""
        for name in self.PARAM_CONSTRAINTS:
            self.check_param(name, getattr(self, name))

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return sorted(name for name, p in signature.parameters.items()
                      if name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL))

    @classmethod
    def _param_defaults(cls) -> dict:
        signature = inspect.signature(cls.__init__)
        return {name: p.default for name, p in signature.parameters.items() if name != "self"}

    def get_params(self, deep: bool = True) -> dict:
        """The constructor parameters by name; with ``deep``, nested estimators' as ``name__param`` too."""
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", sub) for key, sub in value.get_params(deep=True).items())
            out[name] = value
        return out

    def set_params(self, **params):
        """Set parameters (``name__param`` sets a nested estimator's); returns ``self``."""
        names = self._param_names()
        nested: dict[str, dict] = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in names:
                raise SegvizError(f"{type(self).__name__} has no parameter {name!r}; "
                                  f"it has {', '.join(names)}")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub_params in nested.items():
            target = getattr(self, name)
            if not hasattr(target, "set_params"):
                raise SegvizError(f"{type(self).__name__}.{name} is not an estimator; cannot set "
                                  f"{', '.join(sub_params)} on it")
            target.set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        defaults = self._param_defaults()
        shown = []
        for name in self._param_names():
            value = getattr(self, name)
            if not _same(value, defaults.get(name, inspect.Parameter.empty)):
                text = repr(value)
                shown.append(f"{name}={text if len(text) <= 60 else text[:57] + '...'}")
        return f"{type(self).__name__}({', '.join(shown)})"
