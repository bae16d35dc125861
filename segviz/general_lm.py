"""The bundled general-English language models: relevance (Section 3.3) for any text, whatever the model in use.

``resources/general_english.segviz-lm`` holds a pruned Katz trigram (Section 3.1) and a trigger model over it
(Section 3.2), trained on Brown, Project Gutenberg books and Wikipedia articles (the recipe is
:mod:`segviz.general_lm_recipe`; ``segviz reproduce general-lm`` rebuilds it).  They stand in whenever the model in
use carries no language models of its own: the app's relevance trace and profile, ``segviz relevance`` without
``--lm`` and ``segviz train`` without ``--lm`` when the training text is too small for LMs of its own.  A model's
own language models always win (:func:`language_models_for`).

The file is read once per process (:func:`general_language_models`, thread-safe), never fetched from anywhere.
"""
from __future__ import annotations

import threading
from pathlib import Path

from .errors import SegvizError
from .lm.models import LanguageModels
from .paths import bundled

__all__ = ["GENERAL_LM", "GENERAL_LM_SUMMARY", "GENERAL_LM_LABEL", "MODEL_LM_LABEL", "general_lm_path",
           "general_language_models", "language_models_for", "MIN_OWN_LM_TOKENS"]

#: where the bundled general-English LMs live (under the source tree or the installed data)
GENERAL_LM = ("resources", "general_english.segviz-lm")
#: a one-line account of them, for messages
GENERAL_LM_SUMMARY = ("the bundled general-English language models (Katz trigram + trigger model, trained on Brown, "
                      "Project Gutenberg books and Wikipedia articles)")
#: short names of where relevance comes from (the app's labels)
GENERAL_LM_LABEL = "bundled general-English LMs"
MODEL_LM_LABEL = "the model's own LMs"
#: ``segviz train`` trains LMs of its own only on at least this many training tokens; below, the trigger model
#: learns nothing useful (docs/language_models.md: 50 K words gave 0.4 %) and the general ones are used
MIN_OWN_LM_TOKENS = 500_000

_lock = threading.Lock()
_cache: dict[Path, LanguageModels] = {}


def general_lm_path() -> Path:
    """Path of the bundled general-English language models (:data:`GENERAL_LM`)."""
    return bundled(*GENERAL_LM)


def general_language_models(path: str | Path | None = None) -> LanguageModels:
    """The bundled general-English :class:`~segviz.lm.LanguageModels`, loaded once per process and validated.

    One-line :class:`~segviz.errors.SegvizError` when the file is missing or damaged."""
    path = Path(path) if path is not None else general_lm_path()
    with _lock:
        lms = _cache.get(path)
        if lms is None:
            if not path.is_file():
                raise SegvizError(f"{path}: the bundled general-English language models are missing "
                                  "(rebuild them with `segviz reproduce general-lm --out DIR`)")
            lms = _cache[path] = LanguageModels.load(path)
        return lms


def language_models_for(lms: LanguageModels | None) -> tuple[LanguageModels, str]:
    """``(language models, label)`` for relevance: ``lms`` (a model's own) when given, else the general ones."""
    if lms is not None:
        return lms, MODEL_LM_LABEL
    return general_language_models(), GENERAL_LM_LABEL
