"""Where the bundled files live: the source tree (editable installs, CI) or ``<prefix>/share/segviz`` (wheels).

``resources/`` (the default model, the small Reuters demo model) and ``sample_corpora/`` sit at the project's top
level, beside the package; a wheel installs them as data files under ``sys.prefix/share/segviz`` (see
``pyproject.toml``).
"""
from __future__ import annotations

import sys
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[1]
INSTALLED_ROOT = Path(sys.prefix) / "share" / "segviz"

#: the model ``segment``, ``compare`` and the app use when none is given: a router (:mod:`segviz.routing`) of five
#: experts (excerpts, mixed newswire/prose/Wikipedia, sections, long-form, chapters), no language models
#: (:mod:`segviz.default_model`, ``resources/README.md``)
DEFAULT_MODEL = ("resources", "default_model.segviz")
#: a one-line account of the default model, for messages
DEFAULT_MODEL_SUMMARY = ("the bundled default model (five experts, for short excerpts, news stories, Wikipedia "
                         "sections, whole texts and chapters of books, trained on Choi's set 4, Reuters-21578, "
                         "Brown, Wikipedia and Project Gutenberg books; one chosen per document)")


def bundled(*parts: str) -> Path:
    """Path of a bundled file, preferring the source tree; the source-tree path if neither exists."""
    for root in (SOURCE_ROOT, INSTALLED_ROOT):
        candidate = root.joinpath(*parts)
        if candidate.exists():
            return candidate
    return SOURCE_ROOT.joinpath(*parts)


def default_model() -> Path:
    """Path of the bundled default model (:data:`DEFAULT_MODEL`)."""
    return bundled(*DEFAULT_MODEL)
