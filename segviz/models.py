"""Opening a saved model of either kind: a :class:`~segviz.segmenter.Segmenter` or an
:class:`~segviz.routing.ExpertRouter` (segmenters and the gauges that pick one per document)."""
from __future__ import annotations

import os

from segviz.bundle import is_bundle, read_bundle
from segviz.errors import SegvizError
from segviz.routing import KIND as ROUTER_KIND
from segviz.routing import ExpertRouter
from segviz.segmenter import Segmenter

__all__ = ["load_model", "experts_of"]


def load_model(path: str | os.PathLike):
    """The model saved at ``path``, validated before use: a router bundle gives an :class:`ExpertRouter`, any
    other model file a :class:`Segmenter` (:meth:`Segmenter.load`)."""
    if is_bundle(path):
        bundle = read_bundle(path)
        if bundle.kind == ROUTER_KIND:
            return ExpertRouter.from_bundle(bundle)
        if bundle.kind != "segmenter":
            raise SegvizError(f"{path}: holds {bundle.kind!r}, not a segmenter or a router")
        return Segmenter.from_bundle(bundle)
    return Segmenter.load(path)


def experts_of(model) -> list[Segmenter]:
    """The segmenters inside ``model``: a router's experts, in order, else the model itself."""
    return list(model.experts_.values()) if isinstance(model, ExpertRouter) else [model]
