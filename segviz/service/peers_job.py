"""The peer segmenters (TextTiling, C99) over the shown stream, in the window's engine process (Qt-free).

C99 on a long stream is tens of seconds of numpy and Python that would hold the GIL against the window in a
thread; in the engine (:mod:`segviz.service.engine_process`) it costs the window nothing.  Only the corpus files and
reader options cross over: the engine runs the peers on the corpus it has read (:mod:`segviz.service.engine_cache`,
once per session for every job), each source file on its own and in pieces of at most 1,500 sentences
(:func:`segviz.service.tasks.peers_task`), and streams its progress, then the masses and the sentence count, which
the window checks against the stream it shows.
"""
from __future__ import annotations

import os
from collections.abc import Generator, Sequence

from ..errors import SegvizError
from ..events import Progress
from .child_process import send_progress, serve_guarded
from .engine_cache import shared_corpus
from .engine_process import EngineProcess, EngineRequest
from .tasks import PEER_CHUNK, files_changed, peer_groups, peers_task

WHAT = "the peer segmenters' process"


class PeersJob(EngineRequest):
    """Masses of each named peer over the corpus read from ``paths`` with ``read_options``; iterate
    :meth:`events` on a worker thread (it returns ``{name: masses}``, None when closed first), :meth:`close` from
    any thread.  ``n``: the sentences the window shows (a different count is refused: the files changed)."""

    what = WHAT

    def __init__(self, names: Sequence[str], paths: Sequence[str | os.PathLike], *, read_options: dict | None = None,
                 n: int | None = None, chunk: int = PEER_CHUNK, engine: EngineProcess | None = None):
        super().__init__(engine)
        self.names = list(names)
        self._take_corpus_files(paths, read_options, "the peer segmenters need the corpus files")
        self.n = None if n is None else int(n)
        self.chunk = int(chunk)

    def events(self) -> Generator[Progress, None, dict[str, tuple[int, ...]] | None]:
        message = yield from self._request(
            lambda engine: {"job": "peers", "names": self.names, "paths": self.paths,
                            "read_options": self.read_options, "chunk": self.chunk},
            starting="starting the peer segmenters")
        return None if message is None else self._masses(message)

    def _masses(self, message: dict) -> dict[str, tuple[int, ...]]:
        n, masses = message.get("sentences"), message.get("masses")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise SegvizError(f"{WHAT}: malformed result (no sentence count)")
        if self.n is not None and n != self.n:
            raise SegvizError(files_changed(n, self.n))
        if not isinstance(masses, dict) or set(masses) != set(self.names):
            raise SegvizError(f"{WHAT}: malformed result")
        out = {}
        for name, m in masses.items():
            if not isinstance(m, list) or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0
                                                  for x in m) or sum(m) != n:
                raise SegvizError(f"{WHAT}: {name} gave masses that do not cover {n} sentences")
            out[name] = tuple(m)
        return out


def serve(config: dict, commands, send) -> int:
    """Engine side: the corpus (read once per session), the peers on it; progress, then the masses."""

    def job() -> int:
        def work():
            corpus = yield from shared_corpus(config["paths"], read_options=config.get("read_options"))
            masses = yield from peers_task([str(x) for x in config["names"]], corpus.sentences(),
                                           groups=peer_groups(corpus), chunk=int(config.get("chunk") or PEER_CHUNK))
            return corpus.n_sentences, masses

        n, masses = send_progress(work(), send)
        send({"type": "result", "sentences": n, "masses": {k: list(v) for k, v in masses.items()}})
        return 0

    return serve_guarded(send, job)
