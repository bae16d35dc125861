"""What the engine process keeps between the window's jobs: the corpus it read, the model it loaded and the
language models it trained or loaded last (Qt-free).

Applying a model, training and the peers of one window all work on the corpus the window shows; each job used to
read it again (and load the model again) in an interpreter of its own.  In the window's one engine process
(:mod:`segviz.service.engine_process`) the first job reads it and the later ones take it from here.  An entry is
keyed by the files' paths, their sizes and modification times and the reader options, so a file changed on disk
is read again; only the latest corpus and the latest model are kept (a window shows one of each).
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Generator, Sequence

from ..errors import SegvizError
from ..events import Progress, run_to_end
from ..lm.models import LanguageModels
from ..models import load_model
from .tasks import read_corpus_task

__all__ = ["shared_corpus", "shared_model", "shared_lms", "remember_lms", "window_first"]

_lock = threading.Lock()
_corpus: dict = {"key": None, "value": None, "lock": threading.Lock()}
_model: dict = {"key": None, "value": None, "lock": threading.Lock()}
_lms: dict = {"key": None, "value": None, "lock": threading.Lock()}
#: held by a job that sends the window its corpus (:mod:`segviz.service.read_job`) until it has sent it; every other job
#: waits for it once it has its corpus.  They share one interpreter: a model applied beside the sending took the
#: interpreter from it for up to a third of a second at a time, and at 10^6 sentences the window got its corpus
#: only when the model was done, a minute later.
window_first = threading.RLock()


def _signature(paths: Sequence[str]) -> tuple | None:
    try:
        return tuple((p, (st := os.stat(p)).st_size, st.st_mtime_ns) for p in paths)
    except OSError:
        return None


def _entry(slot: dict, key) -> dict:
    """The slot's entry for ``key``, a new empty one when the slot holds another key."""
    with _lock:
        if slot["key"] != key or key is None:
            slot.update(key=key, value=None, lock=threading.Lock())
        return dict(slot)


def _once(slot: dict, key, produce: Callable[[], Generator[Progress, None, object]]
          ) -> Generator[Progress, None, object]:
    """The value ``slot`` holds for ``key``, produced by ``yield from produce()`` only when it holds none (a key of
    None is never kept); a second job asking while the first produces it waits for that one."""
    entry = _entry(slot, key)
    with entry["lock"]:
        with _lock:
            cached = slot["value"] if slot["key"] == key and key is not None else None
        if cached is not None:
            return cached
        value = yield from produce()
        with _lock:
            if slot["key"] == key:
                slot["value"] = value
        return value


def _at_once(load: Callable[[str], object], path: str) -> Generator[Progress, None, object]:
    """``load(path)`` as a generator of no events (what :func:`_once` takes)."""
    return load(path)
    yield   # unreachable: makes this a generator


def shared_corpus(paths: Sequence[str], *, read_options: dict | None = None) -> Generator[Progress, None, object]:
    """The corpus of ``paths`` read with ``read_options``, read once per version of the files; a second job asking
    while the first reads waits for that reading."""
    options = dict(read_options or {})
    signature = _signature(paths)
    key = None if signature is None else (signature, json.dumps(options, sort_keys=True, default=str))
    corpus = yield from _once(_corpus, key, lambda: read_corpus_task(list(paths), **options))
    with window_first:   # the window's corpus sent first (re-entrant: the sending job holds it already)
        return corpus


def shared_model(path: str):
    """The model saved at ``path``, loaded once per version of the file."""
    return run_to_end(_once(_model, _signature([path]), lambda: _at_once(load_model, path)))


def remember_lms(path: str, lms: LanguageModels) -> None:
    """Language models this engine has just saved at ``path`` (a training's): a later job naming that file takes
    them from memory instead of loading them again."""
    signature = _signature([path])
    with _lock:
        _lms.update(key=signature, value=lms if signature is not None else None, lock=threading.Lock())


def shared_lms(path: str) -> LanguageModels:
    """The language models saved at ``path``, loaded once per version of the file (only the latest are kept)."""
    signature = _signature([path])
    if signature is None:
        raise SegvizError("the language models of the model trained in this window are gone; train it again "
                          "or open a saved copy")
    return run_to_end(_once(_lms, signature, lambda: _at_once(LanguageModels.load, path)))
