"""Relevance of the shown corpus from the bundled general-English language models (Qt-free).

When the model on screen carries no language models (the bundled default model has none), the window still shows
the relevance trace and the relevance profile of Section 3.3: :func:`general_relevance_task` loads
:func:`segviz.general_lm.general_language_models` (once per process) and scores the corpus with them.  The window
runs it as a background task after the model's curve is on screen, so it never delays the first paint.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generator

import numpy as np

from ..corpus import Corpus
from ..events import Progress
from ..general_lm import GENERAL_LM_LABEL, general_language_models
from ..relevance import relevance_profile, sentence_relevance

#: the background task's name (a newer one supersedes an older one)
TASK = "relevance (general LMs)"


@dataclass(frozen=True)
class GeneralRelevance:
    """Per-sentence relevance of a corpus, its profile around reference boundaries (None without a reference)
    and where the language models come from (``source``, a label for the window)."""

    relevance: np.ndarray = field(repr=False)
    profile: dict | None
    source: str = GENERAL_LM_LABEL


def general_relevance_task(corpus: Corpus) -> Generator[Progress, None, GeneralRelevance]:
    """Load the bundled general-English LMs and score ``corpus`` (Section 3.3); a generator of Progress events."""
    yield Progress(f"loading the {GENERAL_LM_LABEL}", 0, 2)
    lms = general_language_models()
    yield Progress(f"relevance from the {GENERAL_LM_LABEL}", 1, 2)
    relevance = sentence_relevance(lms, corpus.sentences())
    profile = relevance_profile(lms, corpus, relevance=relevance) if corpus.has_reference and len(corpus) > 1 \
        else None
    yield Progress(f"relevance from the {GENERAL_LM_LABEL}", 2, 2)
    return GeneralRelevance(relevance, profile)
