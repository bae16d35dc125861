"""Estimator parameters in scikit-learn's convention: read from the ``__init__`` signature, never listed twice.

Every estimator of segviz (:class:`~segviz.segmenter.Segmenter`, :class:`~segviz.routing.ExpertRouter`, the
decision rules of :mod:`segviz.rules`) stores its keyword-only constructor arguments verbatim under their own
names.  :class:`ParamsMixin` derives from that alone:

* :meth:`~ParamsMixin.get_params` -- the parameters by name; with ``deep=True`` also those of parameters that are
  estimators themselves, as ``name__sub`` (so ``sklearn.base.clone`` and grid searches work);
* :meth:`~ParamsMixin.set_params` -- set parameters, ``name__sub`` reaching into a nested estimator;
* ``repr`` -- the class with the parameters that differ from their defaults.
"""
from __future__ import annotations

import inspect

import numpy as np

from .errors import SegvizError

__all__ = ["ParamsMixin"]


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
    """``get_params``/``set_params``/``__repr__`` from the keyword-only ``__init__`` parameters."""

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
