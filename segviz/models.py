"""The model layer's front door: open a saved model of either kind, or the bundled default model.

Every model answers the one protocol :class:`~segviz.model_protocol.SegmentationModel`: a single
:class:`~segviz.segmenter.Segmenter` or an :class:`~segviz.routing.ExpertRouter` (segmenters and the gauges that
pick one per document).  Nothing outside this layer needs to know which it holds.
"""
from __future__ import annotations

import os

from segviz.bundle import read_bundle
from segviz.errors import SegvizError
from segviz.model_protocol import SegmentationModel
from segviz.paths import default_model
from segviz.routing import KIND as ROUTER_KIND
from segviz.routing import ExpertRouter
from segviz.segmenter import Segmenter

__all__ = ["load_model", "SegmentationModel"]


def load_model(path: str | os.PathLike | None = None) -> SegmentationModel:
    """The model saved at ``path`` (no argument: the bundled default model), validated before use: a router
    bundle gives an :class:`ExpertRouter`, a segmenter bundle a :class:`Segmenter`."""
    bundle = read_bundle(default_model() if path is None else path)
    if bundle.kind == ROUTER_KIND:
        return ExpertRouter.from_bundle(bundle)
    if bundle.kind != "segmenter":
        raise SegvizError(f"{bundle.source}: holds {bundle.kind!r}, not a segmenter or a router")
    return Segmenter.from_bundle(bundle)
