"""Applying a model to the shown corpus in a child process (Qt-free).

Applying the default model to 70k sentences is some 20 s of engine work (the candidate families' cohesion
profiles, names, the feature matrix), much of it inside single numpy calls that hold the GIL (``np.unique`` on
token arrays: 150-330 ms each).  In a worker thread those calls froze the window as long; in a child
(:mod:`segviz.service.child_process`) they cost it nothing.

The engine takes the corpus it read for the window (only paths cross over, as for training; a model opened
together with a corpus is applied as soon as the engine has read it, :mod:`segviz.service.engine_cache`).  It then
loads the model from its file, runs :func:`segviz.service.tasks.apply_model_task` on two cores (``n_jobs=2``: the
window is idle by then) and sends back, as soon as they exist, the compact arrays the curve needs (a ``curve``
message: the boundary probabilities, the plan -- which segmenter answered for each document, and why --, the shown
segmenter's induced features' 0/1 matrix where it answered, as CSR index arrays, and the vocabulary coverage);
only then, for a model with language models of its own, the relevance and its profile (the ``result``).  The
shown segmenter's columns of the documents another segmenter answered are a later job of their own (``columns_of``
with ``documents``).  The sentence count the parent shows is checked when the result is used.
"""
from __future__ import annotations

import os
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from ..domain import Coverage
from ..errors import SegvizError
from ..events import Progress
from ..routing import Route
from .child_process import (
    MALFORMED,
    check_count,
    check_profile,
    check_relevance,
    decode_array,
    encode_array,
    send_progress,
    serve_guarded,
)
from .engine_cache import shared_corpus, shared_lms, shared_model
from .engine_models import LanguageModelFiles, model_source
from .engine_process import EngineProcess, EngineRequest
from .plan import PlanUnit, check_units
from .tasks import AppliedModel, apply_model_task, shown_columns_task, shown_relevance_task
from .training_job import model_from_json

WHAT = "the model's process"


@dataclass(frozen=True)
class ModelCurve:
    """The event :meth:`ApplyJob.events` yields as soon as the model's curve has crossed: ``(n_sentences,
    AppliedModel)`` without relevance (what comes after it, if anything, is the job's return value)."""

    n: int
    applied: AppliedModel = field(repr=False)


class ApplyJob(EngineRequest):
    """A model applied to the corpus read from ``paths`` with ``read_options``, in the engine process.

    The model is the one saved at ``model_path``, or ``model`` itself (one trained in the window, named to the
    engine by its JSON and its language models' file, :mod:`segviz.service.engine_models`; ``lm_files`` keeps those
    files).  With ``columns_of`` (a segmenter of the model, by name) only that segmenter's feature columns on the
    whole stream are computed (what the context panel and the feature highlight read), or with ``documents`` too
    (indices of the corpus's documents, :meth:`Corpus.by_file`) its columns on those documents each on its own,
    every other row empty (what an apply left out: :attr:`AppliedModel.missing_columns`).

    Iterate :meth:`events` on a worker thread: it yields ``Progress``, then one :class:`ModelCurve` as soon as the
    curve is there, and returns ``(n_sentences, AppliedModel)`` with the relevance of the model's own language models
    when it has some; or ``(n_sentences, columns)`` with ``columns_of`` (None when closed first); :meth:`close` from
    any thread stops it."""

    what = WHAT

    def __init__(self, model_path: str | os.PathLike | None, paths: Sequence[str | os.PathLike], *,
                 model=None, lm_files: LanguageModelFiles | None = None, columns_of: str | None = None,
                 documents: Sequence[int] | None = None, read_options: dict | None = None,
                 engine: EngineProcess | None = None):
        super().__init__(engine)
        if model_path is None and model is None:
            raise SegvizError("applying a model needs the model or its file")
        self.model_path = None if model_path is None else os.path.abspath(os.fspath(model_path))
        self.model = model
        self.lm_files = lm_files if lm_files is not None else LanguageModelFiles()
        self.columns_of = columns_of
        self.documents = None if documents is None else [int(i) for i in documents]
        self._take_corpus_files(paths, read_options, "applying a model in the background needs the corpus files")

    def _config(self, engine: EngineProcess) -> dict:
        # on the worker thread, with the engine running: naming a trained model may save its language models there
        source = ({"model": self.model_path} if self.model is None
                  else model_source(self.model, self.model_path, self.lm_files, engine.workdir))
        return {"job": "apply", **source, "paths": self.paths, "read_options": self.read_options,
                "columns_of": self.columns_of, "documents": self.documents}

    def events(self) -> Generator[Progress | ModelCurve, None,
                                  tuple[int, AppliedModel] | tuple[int, sp.csr_matrix] | None]:
        parts = IndexParts()
        curve: list[ModelCurve] = []

        def accept(message: dict):
            if message.get("type") == "curve" and self.columns_of is None and not curve:
                curve.append(ModelCurve(*applied_from_json(message, parts)))
                return curve[0]   # yielded at once: the window draws it while the job goes on
            return parts.accept(message)

        message = yield from self._request(self._config, starting="starting the model's process", accept=accept)
        if message is None:
            return None
        if self.columns_of is not None:
            return columns_from_json(message, parts)
        if not curve:
            raise SegvizError(f"{WHAT}: a result without the model's curve")
        relevance, profile = relevance_from_json(message, curve[0].n)
        return curve[0].n, replace(curve[0].applied, relevance=relevance, profile=profile)


# -- the result as JSON ---------------------------------------------------------------------------------------

#: index entries per message of a feature matrix: its column indices come in parts of at most 4 MB (a few ms to
#: decode), not in the result's one line, whose decoding held the window's interpreter for a quarter of a second at
#: 10^6 sentences
PART_ENTRIES = 1 << 20


class IndexParts:
    """The column indices of a result's feature matrix, received as ``{"type": "part", "indices": ARRAY}``
    messages before the result (:func:`index_part_messages`)."""

    def __init__(self):
        self.arrays: list[np.ndarray] = []

    def accept(self, message: dict) -> bool:
        if message.get("type") != "part":
            return False
        self.arrays.append(decode_array(message.get("indices"), dtype="<i4"))
        return True

    def indices(self, count: int) -> np.ndarray:
        if count != len(self.arrays):
            raise ValueError(f"{len(self.arrays)} parts of the feature matrix, the result announced {count}")
        return np.concatenate(self.arrays).astype(np.int64) if self.arrays else np.zeros(0, dtype=np.int64)


def index_part_messages(columns) -> list[dict]:
    """The column indices of ``columns`` (CSR) as part messages, sent before the result that names their count."""
    indices = columns.tocsr().indices
    return [{"type": "part", "indices": encode_array(indices[lo:lo + PART_ENTRIES], "<i4")}
            for lo in range(0, indices.size, PART_ENTRIES)]


def _columns_to_json(columns) -> dict:
    columns = columns.tocsr()
    ones = columns.data.size == 0 or bool(np.all(columns.data == 1))
    return {"shape": list(columns.shape), "indptr": encode_array(columns.indptr, "<i4"),
            "parts": -(-columns.indices.size // PART_ENTRIES), "data": None if ones else encode_array(columns.data)}


def _columns_from_json(c: dict, n: int, parts: IndexParts) -> sp.csr_matrix:
    """The (n - 1, k) CSR matrix of :func:`_columns_to_json` and its index parts, its index arrays checked."""
    rows, k = (int(x) for x in c["shape"])
    indptr = decode_array(c["indptr"], dtype="<i4").astype(np.int64)
    count = c["parts"]
    if isinstance(count, bool) or not isinstance(count, int):
        raise ValueError("no count of index parts")
    indices = parts.indices(count)
    nnz = indices.size
    if rows != n - 1 or k < 0 or indptr.shape != (rows + 1,) or indptr[0] != 0 or indptr[-1] != nnz \
            or np.any(np.diff(indptr) < 0) or (nnz and (indices.min() < 0 or indices.max() >= k)):
        raise ValueError("inconsistent feature matrix")
    data = np.ones(nnz) if c["data"] is None else decode_array(c["data"], shape=(nnz,))
    return sp.csr_matrix((data, indices, indptr), shape=(rows, k))


def columns_to_json(n: int, columns) -> dict:
    return {"type": "result", "sentences": int(n), "columns": _columns_to_json(columns)}


def columns_from_json(message: dict, parts: IndexParts) -> tuple[int, sp.csr_matrix]:
    """``(n_sentences, columns)`` from :func:`columns_to_json` and the index parts before it, checked."""
    try:
        n = int(message["sentences"])
        if n < 2:
            raise ValueError(f"{n} sentences")
        return n, _columns_from_json(message["columns"], n, parts)
    except SegvizError:
        raise
    except MALFORMED as exc:
        raise SegvizError(f"{WHAT}: malformed result ({exc.__class__.__name__}: {exc!s:.200})") from None


def applied_to_json(n: int, applied: AppliedModel) -> dict:
    coverage = applied.coverage
    return {
        "type": "result", "sentences": int(n),
        "probabilities": encode_array(applied.probabilities),
        "relevance": None if applied.relevance is None else encode_array(applied.relevance),
        "profile": applied.profile,
        "columns": _columns_to_json(applied.columns),
        "coverage": None if coverage is None else {"covered": coverage.covered, "words": coverage.words,
                                                   "vocabulary": coverage.vocabulary},
        "units": [[u.start, u.end, u.expert, None if u.route is None else u.route.to_dict()] for u in applied.units],
        "shown": applied.shown,
        "sentence_sizes": encode_array(np.asarray(applied.sentence_sizes, dtype=np.float64)),
        "missing": list(applied.missing_columns),
    }


def relevance_to_json(n: int, relevance, profile) -> dict:
    """The result after the curve: the relevance of the model's own language models (None without)."""
    return {"type": "result", "sentences": int(n),
            "relevance": None if relevance is None else encode_array(relevance), "profile": profile}


def relevance_from_json(message: dict, n: int) -> tuple:
    """``(relevance or None, profile or None)`` of :func:`relevance_to_json`, for the curve's ``n`` sentences."""
    try:
        if message["sentences"] != n:
            raise ValueError(f"{message['sentences']!r:.40} sentences after a curve of {n}")
        relevance = None if message["relevance"] is None else check_relevance(
            decode_array(message["relevance"], shape=(n,)), WHAT)
        return relevance, check_profile(message["profile"], WHAT)
    except SegvizError:
        raise
    except MALFORMED as exc:
        raise SegvizError(f"{WHAT}: malformed result ({exc.__class__.__name__}: {exc!s:.200})") from None


def _coverage(cov, tokens: int) -> Coverage | None:
    """The vocabulary coverage of a result, its ranges checked as its types: ``covered`` of ``words`` word
    tokens, no more words than the ``tokens`` of the corpus (a coverage of 10^9 of 5 words is refused)."""
    if cov is None:
        return None
    if not isinstance(cov, dict):
        raise ValueError("the coverage is not an object")
    words = check_count(cov.get("words"), f"{WHAT}: coverage words", high=tokens)
    covered = check_count(cov.get("covered"), f"{WHAT}: covered words", high=words)
    return Coverage(covered, words, check_count(cov.get("vocabulary"), f"{WHAT}: vocabulary size"))


def applied_from_json(message: dict, parts: IndexParts) -> tuple[int, AppliedModel]:
    """``(n_sentences, AppliedModel)`` from :func:`applied_to_json` and the index parts before it, every array
    checked against ``n``."""
    try:
        n = int(message["sentences"])
        if n < 2:
            raise ValueError(f"{n} sentences")
        probabilities = decode_array(message["probabilities"], shape=(n - 1,))
        if not (np.all(np.isfinite(probabilities)) and probabilities.min() >= 0 and probabilities.max() <= 1):
            raise ValueError("probabilities outside [0, 1]")
        relevance = None if message["relevance"] is None else check_relevance(
            decode_array(message["relevance"], shape=(n,)), WHAT)
        profile = check_profile(message["profile"], "the model's process")
        columns = _columns_from_json(message["columns"], n, parts)
        sizes = decode_array(message["sentence_sizes"], shape=(n,))
        if not (np.all(np.isfinite(sizes)) and (sizes.size == 0 or (sizes.min() >= 0 and sizes.max() < 2 ** 31))
                and np.all(sizes == np.floor(sizes))):
            raise ValueError("sentence sizes that are not counts")
        coverage = _coverage(message.get("coverage"), int(sizes.sum()))
        raw_units = message["units"]
        if not isinstance(raw_units, list) or len(raw_units) > n:
            raise ValueError("the documents of the plan are not a list")
        units = []
        for item in raw_units:
            start, end, expert, route = item
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)) \
                    or not isinstance(expert, str):
                raise ValueError("a document of the plan is malformed")
            units.append(PlanUnit(start, end, expert, None if route is None else Route.from_dict(route)))
        check_units(units, n)
        shown = message["shown"]
        if not isinstance(shown, str) or shown not in {u.expert for u in units}:
            raise ValueError("the shown segmenter answers for no document")
        missing = message.get("missing", [])
        if not isinstance(missing, list) or len(missing) > len(units) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(units) for i in missing):
            raise ValueError("the documents without columns are not documents of the plan")
    except SegvizError:
        raise
    except MALFORMED as exc:
        raise SegvizError(f"{WHAT}: malformed result ({exc.__class__.__name__}: {exc!s:.200})") from None
    return n, AppliedModel(probabilities, relevance, profile, columns, tuple(units), shown, coverage, sizes,
                           tuple(missing))


# -- the child's side -----------------------------------------------------------------------------------------

def model_from_source(config: dict):
    """The model a job line names (:func:`segviz.service.engine_models.model_source`): a file's, loaded once, or a
    segmenter rebuilt from its JSON document with the language models of its file."""
    if config.get("segmenter") is not None:
        lms = None if not config.get("lms") else shared_lms(str(config["lms"]))
        return model_from_json(config["segmenter"], lms)
    return shared_model(str(config["model"]))


def _child_columns(config: dict):
    model = model_from_source(config)
    segmenters = model.segmenters()
    name = config["columns_of"]
    if name not in segmenters:
        raise SegvizError(f"the model has no segmenter called {name!r:.80}")
    corpus = yield from shared_corpus(config["paths"], read_options=config.get("read_options"))
    n_jobs = 2 if (os.cpu_count() or 1) > 1 else 1
    documents = config.get("documents")
    if documents is not None:
        if not isinstance(documents, list) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                      for i in documents):
            raise SegvizError("engine process: the documents of a columns job are not numbers")
        columns = yield from shown_columns_task(model, name, corpus, documents, n_jobs=n_jobs)
        return corpus.n_sentences, columns
    yield Progress("evaluating the model's features", 0, 1)
    return corpus.n_sentences, segmenters[name].feature_matrix(corpus, n_jobs=n_jobs)


def serve(config: dict, commands, send) -> int:
    """Engine side: read, load, apply; stream progress, the curve as soon as it exists, then what follows it
    (``send``: one reply message)."""

    def job() -> int:
        if config.get("columns_of") is not None:
            n, columns = send_progress(_child_columns(config), send)
            for part in index_part_messages(columns):
                send(part)
            send(columns_to_json(n, columns))
            return 0
        model = model_from_source(config)
        # No thread beside the reading: an import in flight on another thread (C99's stemmer imports nltk, 0.6-0.8 s)
        # would stay locked in the worker the reading or the apply forks, and would keep them from forking at all
        # (segviz.forking).  The stemmer is imported on its first use instead.
        corpus = send_progress(shared_corpus(config["paths"], read_options=config.get("read_options")), send)
        # two cores' worth: the window is idle by now, waiting for this
        applied = send_progress(apply_model_task(model, corpus, n_jobs=2 if (os.cpu_count() or 1) > 1 else 1),
                                send)
        n, shown = corpus.n_sentences, applied.shown
        for part in index_part_messages(applied.columns):
            send(part)
        send({**applied_to_json(n, applied), "type": "curve"})
        del applied   # its arrays are the window's now; the relevance below need not sit beside them
        lms = model.language_models()[shown]
        relevance = profile = None
        if lms is not None:
            relevance, profile = send_progress(shown_relevance_task(lms, corpus, n_jobs=2 if (os.cpu_count() or 1) > 1
                                                                    else 1), send)
        send(relevance_to_json(n, relevance, profile))
        return 0

    return serve_guarded(send, job)
