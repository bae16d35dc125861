"""The peer segmenters (TextTiling, C99) over the shown stream, in a child process (Qt-free).

C99 on a long stream is tens of seconds of numpy and Python that would hold the GIL against the window in a
thread; in a child (:mod:`segviz.app.child_process`) it costs the window nothing.  The parent sends the
tokenised sentences as JSON lines in batches; the child runs :func:`segviz.app.tasks.peers_task` (each source file
on its own, in pieces of at most 1,500 sentences) and streams its progress, then the masses.

The sentences cross as text, one sentence per line with its tokens separated by tabs (a token never holds white
space), encoded once when the corpus is read (:func:`segviz.app.child_process.encode_sentences`).
"""
from __future__ import annotations

import threading
from collections.abc import Generator, Sequence

from ..errors import SegvizError
from ..events import Progress
from .child_process import decode_sentence, encode_sentences, send_progress, serve_guarded
from .engine_process import EngineProcess
from .tasks import PEER_CHUNK, peers_task

class PeersJob:
    """Masses of each named peer over the stream; iterate :meth:`events`, :meth:`close` from any thread.

    ``sentences`` is the tokenised stream, or its :func:`encode_sentences` pieces with ``n`` sentences."""

    def __init__(self, names: Sequence[str], sentences, *, n: int | None = None,
                 groups: Sequence[int] | None = None, chunk: int = PEER_CHUNK, engine: EngineProcess | None = None):
        self.names = list(names)
        if n is None:
            n = len(sentences)
            sentences = encode_sentences(sentences)
        self.pieces: list[bytes] = list(sentences)
        self.n = int(n)
        self.groups = None if groups is None else [int(g) for g in groups]
        self.chunk = int(chunk)
        self.engine = engine
        self._cancel = threading.Event()
        self._child = None

    def close(self) -> None:
        self._cancel.set()
        if self._child is not None:
            self._child.terminate()

    def events(self) -> Generator[Progress, None, dict[str, tuple[int, ...]] | None]:
        engine = self.engine if self.engine is not None else EngineProcess("the peer segmenters' process")
        child = engine.channel("the peer segmenters' process", self._cancel.is_set)
        self._child = child
        try:
            yield Progress("starting the peer segmenters", 0, 0)
            if not child.start():
                return None
            n = self.n
            if not child.send({"job": "peers", "names": self.names, "groups": self.groups,
                               "chunk": self.chunk, "sentences": n}):
                return None
            for piece in self.pieces:
                if not child.write_bytes(piece):
                    return None
            message = yield from child.progress_until_result()
            return None if message is None else self._masses(message.get("masses"), n)
        finally:
            child.end()
            if engine is not self.engine:
                engine.close()

    def _masses(self, masses, n: int) -> dict[str, tuple[int, ...]]:
        if not isinstance(masses, dict) or set(masses) != set(self.names):
            raise SegvizError("peer segmenters' process: malformed result")
        out = {}
        for name, m in masses.items():
            if not isinstance(m, list) or not all(isinstance(x, int) and x > 0 for x in m) or sum(m) != n:
                raise SegvizError(f"peer segmenters' process: {name} gave masses that do not cover {n} sentences")
            out[name] = tuple(m)
        return out


def serve(config: dict, commands, send) -> int:
    """Engine side: read the sentences, run the peers, stream progress and the masses (``send``: one reply)."""

    def job() -> int:
        n = int(config["sentences"])
        sentences: list[tuple[str, ...]] = []
        while len(sentences) < n:
            line = commands.readline()
            if not line:
                return 0
            sentences.append(decode_sentence(line))
        masses = send_progress(peers_task([str(x) for x in config["names"]], sentences, groups=config.get("groups"),
                                          chunk=int(config.get("chunk") or PEER_CHUNK)), send)
        send({"type": "result", "masses": {k: list(v) for k, v in masses.items()}})
        return 0

    return serve_guarded(send, job)
