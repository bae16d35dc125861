"""``segment --scheduler``: a collection segmented on a Dask cluster, written as the one-machine run writes it.

The client plans partitions of whole source units (:mod:`segviz.distributed.pieces`; it reads each input file
once to find where to cut, and keeps none of it), sends the model once to every worker
(:mod:`segviz.distributed.worker_model`), and keeps a window of partitions in flight, the earliest first.  Results
are taken in input order as they arrive and written at once: to the output file through
:func:`segviz.persist.atomic_output` (so a failed or interrupted run leaves the previous file untouched), or to
standard output.  The parts laid end to end are byte for byte the one-machine output
(:data:`segviz.writers.PARTS`); CSV, whose columns depend on every document, is streamed in both of its forms to
temporary files and the right one is copied out at the end.

A worker that dies costs its partitions a retry (Dask's ``retries``, and the scheduler's rescheduling of a dead
worker's tasks), not the run.  A file that cannot be read stops the run with the one-machine reader's line: a
whole file is read by that reader on the worker; when a run of lines of a JSONL file fails, or the runs disagree
(an id used twice, a reference in some runs only), the client reads that file whole with the one-machine reader,
which names the file and the line it always names.
"""
from __future__ import annotations

import codecs
import re
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Generator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field

from ..documents import FileReading
from ..domain import Coverage
from ..errors import SegvizError
from ..events import Progress
from ..persist import atomic_output
from ..printable import portable
from ..readers import read_file
from ..writers import PARTS
from .cluster import worker_threads
from .piece_reading import PieceReading
from .pieces import (
    DEFAULT_PARTITION_BYTES,
    Partition,
    Piece,
    plan_partitions,
    plan_pieces,
)
from .segment_task import PartitionResult, segment_partition
from .worker_model import install_model, remove_model

#: how often Dask runs a partition again after it raised (a worker that died mid-task is rescheduled anyway)
RETRIES = 2
#: partitions in flight per worker thread: enough that no worker waits for the client, few enough that results
#: held for their turn stay small
IN_FLIGHT_PER_THREAD = 4


@dataclass
class CollectionSegmentation:
    """What a distributed run did: per input file, what was read (as the one-machine reading says it); the
    counts; the expert that answered each document, counted; the model's vocabulary coverage of the text (None
    without language models); the partitions and how long the run took."""

    readings: list[FileReading] = field(default_factory=list)
    units: int = 0
    sentences: int = 0
    segments: int = 0
    experts: Counter = field(default_factory=Counter)
    coverage: Coverage | None = None
    partitions: int = 0
    seconds: float = 0.0


def corpus_name(paths) -> str:
    """The name :func:`segviz.readers.read_corpus` gives the corpus of ``paths`` (for messages)."""
    from ..readers.source import expand_paths

    files = expand_paths(paths)
    name = files[0].name if len(files) == 1 else f"{files[0].parent.name or files[0].name} ({len(files)} files)"
    return portable(name)


def segment_collection_iter(client, paths: Sequence, *, model, model_path, output=None, out_format: str = "choi",
                            format: str = "auto", headings: bool | None = None, wiki_level: int | None = None,
                            partition_bytes: int = DEFAULT_PARTITION_BYTES, min_sentences: int = 2, stream=None,
                            ) -> Generator[Progress, None, CollectionSegmentation]:
    """Segment the files of ``paths`` with ``model`` (loaded from ``model_path``, its rules as they are now) on
    ``client``'s cluster and write them in ``out_format`` to ``output`` (a path; ``None`` or ``-``: ``stream``,
    standard output by default); yields ``Progress("segment", units done, units)`` and returns what was done.

    A corpus of fewer than ``min_sentences`` sentences is refused, as the one-machine commands refuse it, and
    nothing is written."""
    started = time.perf_counter()
    partitions = plan_partitions(plan_pieces(paths, format=format, target_bytes=partition_bytes),
                                 target_bytes=partition_bytes)
    total_units = sum(p.units for p in partitions)
    summary = CollectionSegmentation(partitions=len(partitions))
    checks = _ReadingChecks(format, headings, wiki_level)
    key, plugin = install_model(client, model, model_path)
    try:
        with _Output(output, out_format, stream) as out:
            yield Progress("segment", 0, total_units)
            done_units = 0
            for result, partition in _in_order(client, partitions, key, out_format, format, headings, wiki_level):
                if result.error is not None:
                    checks.fail(partition.pieces[result.error_piece], result.error)
                checks.take(partition, result.readings)
                out.write(result)
                summary.units += result.units
                summary.sentences += result.sentences
                summary.segments += result.segments
                summary.experts.update(result.experts)
                if result.vocabulary is not None:
                    covered = summary.coverage.covered if summary.coverage else 0
                    words = summary.coverage.words if summary.coverage else 0
                    summary.coverage = Coverage(covered + result.covered_words, words + result.words,
                                                result.vocabulary)
                done_units += partition.units
                yield Progress("segment", done_units, total_units)
            checks.finish()
            if summary.sentences < min_sentences:
                raise SegvizError(f"{corpus_name(paths)}: only {summary.sentences} sentence(s); nothing to segment "
                                  f"(segviz needs at least {min_sentences})")
            out.finish()
    finally:
        remove_model(client, plugin)
    summary.readings = checks.readings()
    summary.seconds = time.perf_counter() - started
    return summary


def _in_order(client, partitions: list[Partition], key: str, *args):
    """``(result, partition)`` in input order; a window of partitions runs ahead on the workers, the earliest
    first (Dask priorities), and results wait there until their turn."""
    window = IN_FLIGHT_PER_THREAD * worker_threads(client) + 2
    run = uuid.uuid4().hex[:8]
    futures: dict[int, object] = {}

    def submit(i: int) -> None:
        futures[i] = client.submit(segment_partition, partitions[i], key, *args, retries=RETRIES, pure=False,
                                   key=f"segviz-segment-{run}-{i:06d}", priority=-i)

    try:
        for i in range(min(window, len(partitions))):
            submit(i)
        for i, partition in enumerate(partitions):
            result = _result(futures.pop(i), partition)
            if i + window < len(partitions):
                submit(i + window)
            yield result, partition
    finally:
        if futures:
            client.cancel(list(futures.values()))


def _result(future, partition: Partition) -> PartitionResult:
    try:
        return future.result()
    except SegvizError:
        raise
    except Exception as exc:   # a worker gone for good (KilledWorker), a task that kept failing, a lost scheduler
        reason = str(exc).splitlines()[0] if str(exc) else ""
        raise SegvizError(f"the cluster could not segment {partition.describe()} (partition {partition.index + 1}): "
                          f"{type(exc).__name__}{': ' + reason if reason else ''}") from None


class _ReadingChecks:
    """The whole-file checks of JSONL files read in runs of lines, and each file's reading as the one-machine
    reader reports it."""

    def __init__(self, format: str, headings, wiki_level):
        self.options = {"format": format, "headings": headings, "wiki_level": wiki_level}
        self.detected = format == "auto"
        self._done: list[FileReading] = []
        self._file: tuple[str, int] | None = None   # (path, occurrence) of the runs taken so far
        self._runs: list[PieceReading] = []
        self._ids: dict[str, int] = {}
        self._piece: Piece | None = None

    def fail(self, piece: Piece, message: str) -> None:
        """A piece could not be read: the one-machine reader's line for its file."""
        if piece.whole:
            raise SegvizError(message)
        self._whole_file_error(piece, message)

    def take(self, partition: Partition, readings: Sequence[PieceReading]) -> None:
        for piece, reading in zip(partition.pieces, readings):
            if piece.whole:
                self._close()
                self._done.append(reading.reading)
                continue
            if self._file != (piece.path, piece.occurrence):
                self._close()
                self._file, self._piece = (piece.path, piece.occurrence), piece
            if self._runs and reading.has_reference != self._runs[0].has_reference:
                self._whole_file_error(piece, f"{piece.source}: a reference in some lines only")
            for line, doc_id in reading.ids:
                if doc_id in self._ids:
                    self._whole_file_error(piece, f"{piece.source}: line {line}: document id {doc_id!r} is used "
                                                  "twice")
                self._ids[doc_id] = line
            self._runs.append(reading)

    def finish(self) -> None:
        self._close()

    def readings(self) -> list[FileReading]:
        return list(self._done)

    def _close(self) -> None:
        """The file read in runs is complete: its reading, as one reading of the whole file."""
        if not self._runs:
            return
        runs, piece = self._runs, self._piece
        self._runs, self._ids, self._file = [], {}, None
        if not any(r.sentences for r in runs):
            self._whole_file_error(piece, f"{piece.source}: no sentences found")
        has_reference = runs[0].has_reference
        self._done.append(FileReading(
            path=piece.source, format="jsonl", detected=self.detected, documents=sum(r.objects for r in runs),
            sentences=sum(r.sentences for r in runs),
            reference_boundaries=sum(r.reference_boundaries for r in runs) if has_reference else None,
            notes=_merged_notes([note for r in runs for note in r.notes])))

    def _whole_file_error(self, piece: Piece, fallback: str):
        """The error the one-machine reader gives for ``piece``'s whole file (it reads the file to say it)."""
        read_file(piece.path, **self.options)   # raises the one-machine line
        raise SegvizError(fallback)


_COUNTED_NOTE = re.compile(r"^(\d+)(\D.*)$")


def _merged_notes(notes: Sequence[str]) -> tuple[str, ...]:
    """The notes of a file's runs as one reading says them: ``N sentence(s) ...`` notes of the same kind added."""
    counts: dict[str, int] = {}
    others: list[str] = []
    for note in notes:
        m = _COUNTED_NOTE.match(note)
        if m:
            counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1))
        elif note not in others:
            others.append(note)
    return tuple(f"{n}{rest}" for rest, n in counts.items()) + tuple(others)


class _Output:
    """The parts written in order: ``head``, the non-empty parts with the format's separator between them,
    ``tail`` (:data:`segviz.writers.PARTS`).  To a file, atomically; to standard output as they come, after the
    first parts hold enough sentences to be worth writing (the check that refuses a one-sentence corpus comes
    before any output); CSV through two temporary files, one per form."""

    def __init__(self, output, out_format: str, stream=None):
        self.to_file = output is not None and str(output) != "-"
        self.path = output
        self.rendering = PARTS[out_format]
        self.stream = stream
        self._stack = ExitStack()
        self._any = False
        self._pending: list[str] = []
        self._sentences = 0
        self._titled = False

    def __enter__(self) -> _Output:
        if self.to_file:
            self._handle = self._stack.enter_context(atomic_output(self.path))
        if self.rendering.depends_on_titles:
            self._plain = self._stack.enter_context(tempfile.TemporaryFile())
            self._with_titles = self._stack.enter_context(tempfile.TemporaryFile())
        return self

    def __exit__(self, *exc) -> bool:
        return self._stack.__exit__(*exc)

    def write(self, result: PartitionResult) -> None:
        if not result.text:
            return
        self._sentences += result.sentences
        if self.rendering.depends_on_titles:
            self._titled = self._titled or result.has_titles
            self._plain.write(result.text.encode("utf-8"))
            self._with_titles.write(result.titled_text.encode("utf-8"))
            return
        text = (self.rendering.between if self._any else self.rendering.head(False)) + result.text
        self._any = True
        if self.to_file:
            self._handle.write(text.encode("utf-8"))
        elif self._sentences < 2:
            self._pending.append(text)
        else:
            self._emit("".join(self._pending) + text)
            self._pending = []

    def finish(self) -> None:
        """Write what is left: the held parts, the tail; for CSV, the form the documents need."""
        if self.rendering.depends_on_titles:
            spool = self._with_titles if self._titled else self._plain
            self._put(self.rendering.head(self._titled))
            spool.seek(0)
            if self.to_file:
                shutil.copyfileobj(spool, self._handle)
            else:   # decoded incrementally: a chunk may end inside a character
                decoder = codecs.getincrementaldecoder("utf-8")()
                for chunk in iter(lambda: spool.read(1 << 20), b""):
                    self._emit(decoder.decode(chunk))
                self._emit(decoder.decode(b"", final=True))
        else:
            if not self._any:
                self._put(self.rendering.head(False))
            self._put("".join(self._pending))
            self._pending = []
        self._put(self.rendering.tail)

    def _put(self, text: str) -> None:
        if not text:
            return
        if self.to_file:
            self._handle.write(text.encode("utf-8"))
        else:
            self._emit(text)

    def _emit(self, text: str) -> None:
        (self.stream or sys.stdout).write(text)
