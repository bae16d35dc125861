"""The engine process's long steps as plain generators (no Qt): each yields ``Progress`` and returns its result.

The engine's jobs run them and stream their progress to the window (checking Cancel between yields); tests drive
them directly.  They call the engine's public API and nothing else: the readers, the segmenter, the relevance of
Section 3.3, the peer segmenters.
"""
from __future__ import annotations

import gc
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .. import Corpus, read_corpus
from ..domain import model_coverage
from ..errors import SegvizError
from ..events import Progress
from ..peers import PEERS, segment_with
from ..readers.source import expand_paths
from ..relevance import RELEVANCE_CHUNK, relevance_profile, sentence_relevance_chunks
from ..rules import document_sizes
from .child_process import decode_array, encode_array
from .forked_worker import MIN_WAIT_S, PATIENCE, ForkedWorker, can_fork
from .parallel_apply import document_from_message, document_message, split_documents
from .parallel_reading import read_files
from .plan import PlanUnit

#: peers see at most this many sentences at once (C99 builds an n x n similarity matrix)
PEER_CHUNK = 1500
#: the stage of applying a model (its progress counts sentences)
APPLYING = "applying the model"
#: how often the progress of a forked worker's share is reported while the engine waits for it
PROGRESS_WAIT_S = 0.25


# -- reading --------------------------------------------------------------------------------------------------

def read_corpus_task(paths: Sequence[str], **options) -> Generator[Progress, None, Corpus]:
    """Read files, folders (their files) or globs into one corpus, a file at a time (Cancel is seen between
    files), with the engine's readers and ``options`` (``format``, ...); several files on two cores
    (:mod:`segviz.service.parallel_reading`)."""
    paths = [str(p) for p in paths]
    if not paths:
        raise SegvizError("no corpus files given")
    files = [str(f) for f in expand_paths(paths)]
    parts = yield from read_files(files, lambda path: _read_one(path, options))
    # what was read is long-lived and free of reference cycles: out of the cyclic collector's passes, which would
    # walk it again and again while the jobs on it make garbage
    gc.freeze()
    if len(files) == 1:
        corpus = parts[0]
    else:
        first = Path(files[0])
        corpus = Corpus.concatenate(parts, name=f"{first.parent.name or first.name} ({len(files)} files)")
    if corpus.n_sentences < 2:
        what = "no sentences" if corpus.n_sentences == 0 else "only one sentence"
        raise SegvizError(f"{', '.join(paths)}: {what} found; segmenting needs at least 2 sentences")
    return corpus


def files_changed(now: int, shown: int) -> str:
    """What a job says when the engine read a different number of sentences from the files than the window shows
    (the files changed on disk since they were opened)."""
    return (f"the corpus files changed since they were opened ({now:,} sentences now, {shown:,} shown); "
            "open them again")


def _read_one(path: str, options: dict) -> Corpus:
    """The engine's reader, every failure (missing, unreadable, binary, wrong format) as one SegvizError."""
    try:
        return read_corpus(path, **options)
    except SegvizError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SegvizError(f"{path}: cannot read corpus ({exc})") from None


# -- applying a model -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AppliedModel:
    """A model on one corpus, document by document as ``segviz segment`` applies it: the boundary probabilities
    of the stream (n-1; 1 at each document edge, always a boundary), the plan (:class:`~segviz.app.state.PlanUnit`:
    which segmenter answered for each document, and why), the shown segmenter's name (``shown``: the one answering
    for most sentences), per-sentence relevance (n) and its profile, the shown segmenter's induced features'
    0/1 columns (n-1, features; which feature fires where; empty rows at document edges), and each sentence's size
    in tokens (n; :func:`segviz.rules.document_sizes`, what a rule that measures segments in words decides by)."""

    probabilities: np.ndarray = field(repr=False)
    relevance: np.ndarray | None = field(repr=False)
    profile: dict | None = field(repr=False)
    columns: object = field(repr=False)
    units: tuple = ()
    shown: str | None = None
    coverage: object = None   # segviz.domain.Coverage: how much of the text the model's vocabulary knows
    sentence_sizes: np.ndarray | None = field(default=None, repr=False)
    #: the documents (indices of :meth:`Corpus.by_file`) another segmenter answered, whose rows of ``columns`` are
    #: empty until :func:`shown_columns_task` answers the shown segmenter's questions there
    missing_columns: tuple[int, ...] = ()


def apply_model_task(model, corpus: Corpus, *, n_jobs: int = 1) -> Generator[Progress, None, AppliedModel]:
    """The model on every document (source unit) of ``corpus`` (:meth:`SegmentationModel.apply`, as
    ``segviz segment`` applies it): the curve, the plan and the shown segmenter's feature columns where it answered.

    Nothing else comes before the curve: the shown segmenter's columns of the documents another segmenter answered
    (:func:`shown_columns_task`, their numbers in ``missing_columns``) and the relevance (:func:`shown_relevance_task`)
    are later jobs' work.  The feature columns are kept so that later questions (which features fire at a position,
    where a feature fires) cost a lookup.  ``n_jobs=2`` forks a worker for the last documents when they are about
    half of the corpus (:mod:`segviz.service.parallel_apply`), else for part of each document's questions
    (:mod:`segviz.features.parallel`); only in the engine process, never in the window's."""
    documents = corpus.by_file()
    # each document's feature matrix for the segmenter that answered it, taken while that segmenter still holds it
    # (it keeps the last document's only): the shown segmenter's columns then cost nothing more where it answered
    results = yield from _apply_documents(model, documents, n_jobs=n_jobs)
    parts, units, answered, start = [], [], [], 0
    n_sentences = corpus.n_sentences   # once: it sums over every document (was quadratic in 200,000 files)
    for document, (expert, route, probs, matrix) in zip(documents, results):
        n = document.n_sentences
        if n > 1:
            parts.append(np.asarray(probs, dtype=np.float64))
        units.append(PlanUnit(start, start + n, expert, route))
        answered.append((expert if n > 1 else None, matrix))
        if start + n < n_sentences:
            parts.append(np.ones(1))   # the gap before the next document: a boundary, whatever the model says
        start += n
    del results
    probabilities = np.concatenate(parts) if parts else np.zeros(0)
    del parts
    if probabilities.shape != (n_sentences - 1,) or not np.all(np.isfinite(probabilities)):
        raise SegvizError("the model gives non-finite boundary probabilities (its weights are not usable)")
    sizes: dict[str, int] = {}
    for unit in units:
        sizes[unit.expert] = sizes.get(unit.expert, 0) + unit.end - unit.start
    shown = max(sizes, key=sizes.get)
    segmenter = model.segmenters()[shown]
    n_features = len(model.features()[shown])
    blocks, missing = [], []
    for index, (unit, document, (expert, matrix)) in enumerate(zip(units, documents, answered)):
        if document.n_sentences > 1:
            if expert != shown:   # empty rows until a later job answers the shown segmenter's questions there
                missing.append(index)
                matrix = sp.csr_matrix((document.n_sentences - 1, n_features))
            blocks.append(matrix.tocsr())
        if unit.end < n_sentences:
            blocks.append(sp.csr_matrix((1, n_features)))
    del answered
    columns = sp.vstack(blocks, format="csr") if blocks else sp.csr_matrix((0, n_features))
    return AppliedModel(probabilities, None, None, columns, tuple(units), shown,
                        model_coverage(segmenter, corpus), document_sizes(corpus.sentences()), tuple(missing))


def shown_relevance_task(lms, corpus: Corpus, *, n_jobs: int = 1
                         ) -> Generator[Progress, None, tuple[np.ndarray, dict | None]]:
    """``(relevance, profile)``: per-sentence relevance from ``lms`` (Section 3.3, a chunk at a time, on two cores
    with ``n_jobs=2``) and its profile around the reference boundaries (None without a reference)."""
    relevance = yield from relevance_in_chunks(lms, corpus.sentences(), "relevance", n_jobs=n_jobs)
    profile = relevance_profile(lms, corpus, relevance=relevance) if corpus.has_reference else None
    return relevance, profile


def shown_columns_task(model, name: str, corpus: Corpus, documents: Sequence[int], *,
                       n_jobs: int = 1) -> Generator[Progress, None, sp.csr_matrix]:
    """The (n-1, features) columns of the induced features of ``model``'s segmenter ``name`` on the given documents
    (indices of
    :meth:`Corpus.by_file`, each on its own as the apply answers them), every other row empty: what
    :func:`apply_model_task` left out (``missing_columns``).  Progress in sentences of those documents."""
    parts = corpus.by_file()
    wanted = set(int(i) for i in documents)
    if any(not 0 <= i < len(parts) for i in wanted):
        raise SegvizError("a document the corpus does not have")
    segmenter = model.segmenters()[name]
    n_features = len(model.features()[name])
    total = sum(parts[i].n_sentences for i in wanted)
    done, blocks, n = 0, [], corpus.n_sentences
    start = 0
    for index, document in enumerate(parts):
        size = document.n_sentences
        if size > 1:
            if index in wanted:
                yield Progress("the shown segmenter's features", done, total)
                blocks.append(segmenter.feature_matrix(document, n_jobs=n_jobs).tocsr())
                done += size
            else:
                blocks.append(sp.csr_matrix((size - 1, n_features)))
        if start + size < n:
            blocks.append(sp.csr_matrix((1, n_features)))
        start += size
    yield Progress("the shown segmenter's features", total, total)
    return sp.vstack(blocks, format="csr") if blocks else sp.csr_matrix((0, n_features))


def _apply_here(model, document, n_jobs: int):
    """``(expert, route or None, probabilities, feature matrix)`` of the model on one document, here."""
    if document.n_sentences <= 1:
        return model.apply_short(document).expert, None, None, None
    applied = model.apply(document, n_jobs=n_jobs)
    return (applied.expert, applied.route, applied.probabilities,
            applied.segmenter.feature_matrix(document))


def _apply_documents(model, documents, *, n_jobs: int):
    """:func:`_apply_here` on every document, the last ones (about half of the sentences) in a forked worker when
    ``n_jobs > 1`` and the halves are even (:mod:`segviz.service.parallel_apply`); yields Progress in sentences
    (those of the documents done, here and in the worker, of the corpus's)."""
    sizes = [d.n_sentences for d in documents]
    total = sum(sizes)
    split = split_documents(sizes) if n_jobs > 1 and can_fork() else len(documents)
    results: list = [None] * len(documents)
    worker = None
    if split < len(documents):
        worker = ForkedWorker(lambda send: [send(document_message(model, documents[i]))
                                            for i in range(split, len(documents))])
        n_jobs = 1   # the other core is the worker's

    def done_here(i: int) -> int:
        theirs = sum(sizes[split:split + len(worker.lines)]) if worker is not None else 0
        return sum(sizes[:i]) + theirs

    try:
        started = time.monotonic()
        for i in range(split):
            yield Progress(APPLYING, done_here(i), total)
            results[i] = _apply_here(model, documents[i], n_jobs)
        if worker is not None:
            # the worker's documents as they arrive, for as long as it is given (forked_worker.PATIENCE)
            deadline = time.monotonic() + max(MIN_WAIT_S, PATIENCE * (time.monotonic() - started))
            while not worker.wait(PROGRESS_WAIT_S):
                if time.monotonic() > deadline:
                    worker.end()   # what it sent is taken; the rest is done here
                    break
                yield Progress(APPLYING, done_here(split), total)
            experts = list(model.segmenters())
            theirs = worker.results(lambda index, message: document_from_message(
                message, documents[split + index].n_sentences, experts), started=started)
            results[split:split + len(theirs)] = theirs   # the others are applied here
    finally:
        if worker is not None:
            worker.end()
    for i in range(split, len(documents)):
        if results[i] is None:
            yield Progress(APPLYING, sum(sizes[:i]), total)
            results[i] = _apply_here(model, documents[i], n_jobs)
    yield Progress(APPLYING, total, total)
    return results


def relevance_in_chunks(lms, sentences, stage: str, *, n_jobs: int = 1,
                        chunk: int = RELEVANCE_CHUNK) -> Generator[Progress, None, np.ndarray]:
    """Per-sentence relevance of ``sentences`` a chunk at a time (:func:`segviz.relevance.sentence_relevance_chunks`:
    the scan's arrays for one chunk, never for the whole stream), into one array; a Progress event per chunk
    (sentences done of all), so a cancel is seen within a chunk's scoring (a few seconds).

    ``n_jobs=2`` scores the second half in a forked worker meanwhile (:class:`ForkedWorker`; the scan is one pass
    of compiled code per chunk, and a chunk's values do not depend on which process scored it); whatever it does
    not send is scored here.  Only in the engine process."""
    n = len(sentences)
    relevance = np.empty(n, dtype=np.float64)
    # the worker's half starts at a chunk's edge, so that its chunks are the ones this process would score
    half = n if n_jobs < 2 or n < 2 * chunk or not can_fork() else chunk * -(-(n // 2) // chunk)
    worker = None
    if half < n:
        worker = ForkedWorker(lambda send: [send({"start": start, "values": encode_array(values)})
                                            for start, values in sentence_relevance_chunks(lms, sentences, chunk=chunk,
                                                                                           start=half)])
    done_here = 0

    def done() -> int:   # the worker's chunks as they arrive
        return done_here + (0 if worker is None else min(len(worker.lines) * chunk, n - half))

    try:
        started = time.monotonic()
        yield Progress(stage, 0, n)
        for start, values in sentence_relevance_chunks(lms, sentences, chunk=chunk, stop=half):
            relevance[start:start + values.size] = values
            done_here += values.size
            yield Progress(stage, done(), n)
        scored = half
        if worker is not None:
            deadline = time.monotonic() + max(MIN_WAIT_S, PATIENCE * (time.monotonic() - started))
            while not worker.wait(PROGRESS_WAIT_S):
                if time.monotonic() > deadline:
                    worker.end()
                    break
                yield Progress(stage, done(), n)
            for start, values in worker.results(lambda index, message: _relevance_part(message, half + index * chunk, chunk, n),
                                                started=started):
                relevance[start:start + values.size] = values
                scored = start + values.size
    finally:
        if worker is not None:
            worker.end()
    for start, values in sentence_relevance_chunks(lms, sentences, chunk=chunk, start=scored):   # what the worker did not send
        relevance[start:start + values.size] = values
        yield Progress(stage, start + values.size, n)
    yield Progress(stage, n, n)
    return relevance


def _relevance_part(message: dict, start: int, chunk: int, n: int) -> tuple[int, np.ndarray]:
    """``(start, values)`` of the relevance worker's chunk that starts at ``start``, its place and size checked
    (ValueError or SegvizError otherwise)."""
    if message.get("start") != start:
        raise ValueError("a chunk out of its place")
    return start, decode_array(message["values"], shape=(min(chunk, n - start),))


# -- peers ----------------------------------------------------------------------------------------------------

def peer_names() -> tuple[str, ...]:
    return tuple(PEERS)


def peer_groups(corpus) -> list[int] | None:
    """The sentence counts of the corpus's source files when it has several (each Choi file is a peer's input of
    its own, as the literature runs the peers), else None (the stream is one input)."""
    return corpus.source_groups() if len(set(corpus.files)) > 1 else None


def peer_pieces(n: int, groups: Sequence[int] | None, chunk: int = PEER_CHUNK) -> list[tuple[int, int]]:
    """Sentence ranges a peer runs on: each source file on its own, cut into pieces of at most ``chunk``."""
    pieces: list[tuple[int, int]] = []
    start = 0
    for size in (groups if groups is not None else [n]):
        for lo in range(start, start + int(size), chunk):
            pieces.append((lo, min(lo + chunk, start + int(size))))
        start += int(size)
    if start != n:
        raise SegvizError(f"file groups cover {start} sentences, the stream has {n}")
    return pieces


def peers_task(names: Sequence[str], sentences: Sequence[Sequence[str]], *, groups: Sequence[int] | None = None,
               chunk: int = PEER_CHUNK):
    """Masses of each peer segmenter over the whole stream, piece by piece (Cancel is seen between pieces).

    ``groups`` (sentence counts of the source files, e.g. one per Choi file) makes each file its own input, as
    the literature evaluates peers; a piece edge acts as a boundary."""
    pieces = peer_pieces(len(sentences), groups, chunk)
    total = len(names) * len(pieces)
    out: dict[str, tuple[int, ...]] = {}
    done = 0
    for name in names:
        masses: list[int] = []
        for lo, hi in pieces:
            yield Progress(f"peer segmenter {name}", done, total)
            done += 1
            part = sentences[lo:hi]
            if len(part) < 3:
                masses.append(len(part))   # too short for either peer to say anything: one segment
                continue
            masses.extend(int(m) for m in segment_with(name, part))
        if sum(masses) != len(sentences):
            raise SegvizError(f"peer {name} returned masses summing to {sum(masses)}, not {len(sentences)}")
        out[name] = tuple(masses)
    return out
