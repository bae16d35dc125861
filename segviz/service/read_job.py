"""Reading a corpus for the window, in its engine process (Qt-free).

The engine is the only reader of the window's corpus: it parses the files once (:mod:`segviz.service.engine_cache`),
keeps the corpus for the later jobs (applying a model, the peers, training, relevance) and sends the window its
outline (:mod:`segviz.service.corpus_outline`): what the window draws, without the tokens.  Only the paths and the
reader options cross to the engine.
"""
from __future__ import annotations

import os
from collections.abc import Generator, Sequence

from ..events import Progress
from .child_process import send_progress, serve_guarded
from .corpus_outline import CorpusOutline, OutlineReceiver, outline_messages, outline_of
from .engine_cache import shared_corpus, window_first
from .engine_process import EngineProcess, EngineRequest

WHAT = "the reading process"


class ReadJob(EngineRequest):
    """The outline of the corpus read from ``paths`` with ``read_options`` by the engine; iterate :meth:`events` on
    a worker thread (it returns the :class:`~segviz.service.corpus_outline.CorpusOutline`, None when closed first),
    :meth:`close` from any thread."""

    what = WHAT

    def __init__(self, paths: Sequence[str | os.PathLike], *, read_options: dict | None = None,
                 engine: EngineProcess | None = None):
        super().__init__(engine)
        self._take_corpus_files(paths, read_options, "no corpus files given")

    def events(self) -> Generator[Progress, None, CorpusOutline | None]:
        receiver = OutlineReceiver(WHAT)
        message = yield from self._request(
            lambda engine: {"job": "read", "paths": self.paths, "read_options": self.read_options},
            starting="reading", accept=receiver.accept)
        return None if message is None else receiver.outline()


def serve(config: dict, commands, send) -> int:
    """Engine side: the corpus (read once per session, shared with the other jobs), then its outline."""

    def job() -> int:
        with window_first:   # the jobs that need this corpus wait until the window has it
            corpus = send_progress(shared_corpus(config["paths"], read_options=config.get("read_options")), send)
            send({"type": "progress", "stage": "sending the corpus to the window", "done": 0, "total": 1})
            for message in outline_messages(outline_of(corpus)):
                send(message)
        send({"type": "result"})
        return 0

    return serve_guarded(send, job)
