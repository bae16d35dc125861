"""How the window names a model to its engine process (Qt-free).

A model opened from a file is named by its path: the engine loads it once (:func:`segviz.service.engine_cache.
shared_model`).  A model trained in the window has no file of its own; it is named by its segmenter's JSON
document (features, weights, rule: small) and the file of its language models, which stay where the training
saved them, in the engine's working directory, and in the engine's memory (:func:`segviz.service.engine_cache.
shared_lms`).  So applying a model and evaluating its features always happen in the engine, whatever the model's
origin: the window never runs the engine's numpy work in a thread of its own.
"""
from __future__ import annotations

import itertools
import os
import threading
import weakref

from ..errors import SegvizError

__all__ = ["LanguageModelFiles", "model_source"]


class LanguageModelFiles:
    """The file each of the window's language models is saved in for the engine, by model object.

    The training registers the file it saved its models to; any other models (a model with LMs whose file is
    gone) are saved once, on the calling worker thread, into the engine's working directory."""

    def __init__(self):
        self._paths: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)

    def register(self, lms, path: str | os.PathLike) -> None:
        with self._lock:
            self._paths[lms] = os.fspath(path)

    def path_for(self, lms, directory: str | None) -> str:
        """A file holding ``lms``: the registered one while it exists, else a new one in ``directory``."""
        with self._lock:
            path = self._paths.get(lms)
        if path is not None and os.path.isfile(path):
            return path
        if directory is None:
            raise SegvizError("the engine process has no working directory for the language models")
        path = os.path.join(directory, f"lm-window-{next(self._numbers)}.segviz")
        lms.save(path)
        self.register(lms, path)
        return path


def model_source(model, path: str | None, lm_files: LanguageModelFiles, directory: str | None) -> dict:
    """The job-line fields naming ``model`` to the engine: ``{"model": path}`` for a model read from a file that
    is still there, else ``{"segmenter": JSON, "lms": file or None}`` for a lone segmenter (one trained here).
    Call it on a worker thread: it may save language models."""
    if path is not None and os.path.isfile(path):
        return {"model": os.path.abspath(path)}
    segmenters = model.segmenters()
    if len(segmenters) != 1:   # only a model of one segmenter crosses as its JSON document
        raise SegvizError("the model's file is gone; open it again")
    (name, segmenter), = segmenters.items()
    lms = model.language_models()[name]
    return {"segmenter": segmenter.to_dict(), "lms": None if lms is None else lm_files.path_for(lms, directory)}
