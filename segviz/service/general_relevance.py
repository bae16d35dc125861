"""Relevance of the shown corpus from the bundled general-English language models (Qt-free).

When the model on screen carries no language models (the bundled default model has none), the window still shows
the relevance trace and the relevance profile of Section 3.3: :func:`general_relevance_task` loads
:func:`segviz.general_lm.general_language_models` (once per process) and scores the corpus with them.  The window
asks for it after the model's curve is on screen, so it never delays the first paint, and it runs in the window's
engine process (:class:`GeneralRelevanceJob`), on the corpus the engine has already read to apply the model: the
trigger model's scoring is pure Python that would hold the GIL against the window in a thread, and the window
need not load the language models at all.
"""
from __future__ import annotations

import os
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..corpus import Corpus
from ..errors import SegvizError
from ..events import Progress
from ..general_lm import GENERAL_LM_LABEL, general_language_models
from ..relevance import relevance_profile
from .child_process import (
    MALFORMED,
    check_profile,
    check_relevance,
    decode_array,
    encode_array,
    send_progress,
    serve_guarded,
)
from .engine_cache import shared_corpus
from .engine_process import EngineProcess, EngineRequest
from .tasks import relevance_in_chunks

#: the background task's name (a newer one supersedes an older one)
TASK = "relevance (general LMs)"


@dataclass(frozen=True)
class GeneralRelevance:
    """Per-sentence relevance of a corpus, its profile around reference boundaries (None without a reference)
    and where the language models come from (``source``, a label for the window)."""

    relevance: np.ndarray = field(repr=False)
    profile: dict | None
    source: str = GENERAL_LM_LABEL


def general_relevance_task(corpus: Corpus, *, n_jobs: int = 1) -> Generator[Progress, None, GeneralRelevance]:
    """Load the bundled general-English LMs and score ``corpus`` (Section 3.3); a generator of Progress events,
    one per chunk of sentences scored (sentences done of the corpus's); on two cores with ``n_jobs=2``."""
    sentences = corpus.sentences()
    n = len(sentences)
    yield Progress(f"loading the {GENERAL_LM_LABEL}", 0, n)
    lms = general_language_models()
    relevance = yield from relevance_in_chunks(lms, sentences, f"relevance from the {GENERAL_LM_LABEL}",
                                               n_jobs=n_jobs)
    profile = relevance_profile(lms, corpus, relevance=relevance) if corpus.has_reference and len(corpus) > 1 \
        else None
    return GeneralRelevance(relevance, profile)



class GeneralRelevanceJob(EngineRequest):
    """:func:`general_relevance_task` on the corpus read from ``paths`` with ``read_options``, in the engine process.

    Iterate :meth:`events` on a worker thread: it yields ``Progress`` and returns ``(n_sentences,
    GeneralRelevance)`` (None when closed first); :meth:`close` from any thread stops it."""

    what = WHAT = "the relevance process"

    def __init__(self, paths: Sequence[str | os.PathLike], *, read_options: dict | None = None,
                 engine: EngineProcess | None = None):
        super().__init__(engine)
        self._take_corpus_files(paths, read_options, "relevance in the background needs the corpus files")

    def events(self) -> Generator[Progress, None, tuple[int, GeneralRelevance] | None]:
        message = yield from self._request(lambda engine: {"job": "relevance", "paths": self.paths,
                                                           "read_options": self.read_options})
        return None if message is None else relevance_from_json(message)


def relevance_to_json(n: int, result: GeneralRelevance) -> dict:
    return {"type": "result", "sentences": int(n), "relevance": encode_array(result.relevance),
            "profile": result.profile, "source": result.source}


def relevance_from_json(message: dict) -> tuple[int, GeneralRelevance]:
    """``(n_sentences, GeneralRelevance)`` from :func:`relevance_to_json`, every field checked."""
    what = GeneralRelevanceJob.WHAT
    try:
        n = int(message["sentences"])
        if n < 1:
            raise ValueError(f"{n} sentences")
        relevance = check_relevance(decode_array(message["relevance"], shape=(n,)), what)
        source = message["source"]
        if not isinstance(source, str) or len(source) > 200:
            raise ValueError("the source is not a short string")
        profile = check_profile(message["profile"], what)
    except SegvizError:
        raise
    except MALFORMED as exc:
        raise SegvizError(f"{what}: malformed result ({exc.__class__.__name__}: {exc!s:.200})") from None
    return n, GeneralRelevance(relevance, profile, source)


def serve(config: dict, commands, send) -> int:
    """Engine side: the corpus (read once per session, :mod:`segviz.service.engine_cache`), then its relevance from
    the bundled general-English LMs; progress, then the result (``send``: one reply message)."""

    def job() -> int:
        def work():
            corpus = yield from shared_corpus(config["paths"], read_options=config.get("read_options"))
            # two cores: the window is idle, and the jobs that follow wait for this one
            result = yield from general_relevance_task(corpus, n_jobs=2 if (os.cpu_count() or 1) > 1 else 1)
            return corpus.n_sentences, result

        n, result = send_progress(work(), send)
        send(relevance_to_json(n, result))
        return 0

    return serve_guarded(send, job)
