"""The model on the workers: sent once to each worker, loaded once there, found by every task by its key.

A model is shipped as what it is on disk, its model file's bytes (a ``.segviz`` bundle: JSON and arrays, no
pickle), with the decision rule of each of its segmenters as a dict (:meth:`segviz.rules.DecisionRule.to_dict`),
so that ``--alpha``/``--segments``-style replacements reach the workers too.  A Dask worker plugin carries them:
the scheduler hands it to every worker once, including a worker that joins or is restarted after a crash, and
its ``setup`` loads the model into this module's cache.  Tasks name the model by its key (the sha256 of the file,
plus a digest of the rules when any differs from the file's), so a task's message is a few bytes whatever the
model's size, and one worker serves several models or runs without loading one twice.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import uuid

from ..errors import SegvizError
from ..models import load_model
from ..rules import rule_from_dict

#: key -> the model loaded on this worker process
_LOADED: dict[str, object] = {}
#: key -> the plugins (one per run) using it: two runs of one model on a shared cluster share one load, and the
#: first to finish does not take it from the other
_USERS: dict[str, set[str]] = {}


def model_rules(model) -> dict[str, dict]:
    """The decision rule of each segmenter of ``model``, as dicts."""
    return {name: segmenter.rule_.to_dict() for name, segmenter in model.segmenters().items()}


def model_key(data: bytes, rules: dict[str, dict]) -> str:
    """The key a model is known by on the workers: sha256 of its file, and of its rules."""
    digest = hashlib.sha256(data).hexdigest()
    ruled = hashlib.sha256(json.dumps(rules, sort_keys=True).encode("utf-8")).hexdigest()
    return f"{digest[:32]}-{ruled[:12]}"


def load_shipped(data: bytes, rules: dict[str, dict], *, directory: str | None = None):
    """The model of a shipped file's ``data``, with each segmenter's rule set to ``rules`` where it differs."""
    fd, path = tempfile.mkstemp(suffix=".segviz", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        model = load_model(path)
    finally:
        os.unlink(path)
    for name, rule in rules.items():
        if model.segmenters()[name].rule_.to_dict() != rule:
            model = model.with_rule(rule_from_dict(rule, source="a shipped rule"), expert=name)
    return model


def shipped_model(key: str):
    """The model loaded on this worker under ``key`` (:class:`ModelPlugin`)."""
    try:
        return _LOADED[key]
    except KeyError:
        raise SegvizError(f"this worker has no model {key} (was its plugin removed while tasks ran?)") from None


def _plugin_base():
    from distributed.diagnostics.plugin import WorkerPlugin

    return WorkerPlugin


class ModelPlugin(_plugin_base()):
    """A Dask worker plugin holding one model file's bytes and rules; ``setup`` loads it on each worker."""

    def __init__(self, data: bytes, rules: dict[str, dict]):
        self.data = data
        self.rules = rules
        self.key = model_key(data, rules)
        self.name = f"segviz-model-{self.key}-{uuid.uuid4().hex[:8]}"

    def setup(self, worker) -> None:
        if self.key not in _LOADED:
            _LOADED[self.key] = load_shipped(self.data, self.rules, directory=getattr(worker, "local_directory", None))
        _USERS.setdefault(self.key, set()).add(self.name)

    def teardown(self, worker) -> None:
        users = _USERS.get(self.key, set())
        users.discard(self.name)
        if not users:
            _LOADED.pop(self.key, None)
            _USERS.pop(self.key, None)


def install_model(client, model, model_path) -> tuple[str, str]:
    """Send the model (its file at ``model_path``, with ``model``'s rules) to every worker of ``client``; its key
    (for :func:`shipped_model`) and the plugin's name (for :func:`remove_model`)."""
    try:
        with open(model_path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise SegvizError(f"{model_path}: cannot read the model file ({exc.strerror or exc})") from None
    plugin = ModelPlugin(data, model_rules(model))
    try:
        client.register_plugin(plugin, name=plugin.name)
    except SegvizError:
        raise
    except Exception as exc:   # the workers could not load it: the same file loaded here, so a worker's fault
        raise SegvizError(f"the workers could not load the model ({type(exc).__name__}: {exc})") from None
    return plugin.key, plugin.name


def remove_model(client, name: str) -> None:
    """Remove the plugin ``name``: its model leaves the workers unless another run uses it (a shared cluster keeps
    no model after the command)."""
    try:
        client.unregister_worker_plugin(name)
    except Exception:   # a worker gone, a closed connection: nothing to keep tidy there
        pass
