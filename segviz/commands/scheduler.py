"""``--scheduler ADDRESS`` of ``segment`` and ``lm train``: the same command on a Dask cluster
(:mod:`segviz.distributed`).

``ADDRESS`` is a running scheduler (``tcp://HOST:PORT``, as ``dask scheduler`` prints it) or ``local:N`` (N worker
processes started here for the command).  The output is the one-machine command's, byte for byte; what the
command says on stderr is the same kind of lines, said once the cluster has read the files.
"""
from __future__ import annotations

import argparse
import sys

from .arguments import int_range
from .common import run_with_progress
from .reading import MAX_FILES_LISTED, reader_params

#: --partition-kib bounds: from a few documents to a whole corpus file per task
MIN_PARTITION_KIB, MAX_PARTITION_KIB = 1, 64 * 1024


def add_scheduler_argument(parser: argparse.ArgumentParser, *, partitions: bool = False) -> None:
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="run on a Dask cluster: tcp://HOST:PORT of a running `dask scheduler`, or local:N to "
                             "start N worker processes here (needs the 'distributed' extra)")
    if partitions:
        parser.add_argument("--partition-kib", type=int_range(MIN_PARTITION_KIB, MAX_PARTITION_KIB), default=256,
                            metavar="KIB", help="with --scheduler: about this many KiB of input per task (default "
                                                "256; larger tasks cost the scheduler less, smaller ones balance "
                                                "the workers better)")


def segment_on_cluster(args: argparse.Namespace, model, model_path: str, out_format: str, *, min_sentences: int):
    """``segment`` on the cluster ``args.scheduler``: the output written as the one-machine run writes it; then
    what was read on stderr.  Returns the run's :class:`segviz.distributed.segment_run.CollectionSegmentation`."""
    from ..distributed import open_cluster, segment_collection_iter

    with open_cluster(args.scheduler) as client:
        run = segment_collection_iter(
            client, list(args.inputs), model=model, model_path=model_path, output=args.output,
            out_format=out_format, partition_bytes=args.partition_kib * 1024, min_sentences=min_sentences,
            **reader_params(args))
        done = run_with_progress(run, quiet=args.quiet)
    for reading in done.readings[:MAX_FILES_LISTED]:
        print(reading.summary(), file=sys.stderr)
        for note in reading.notes:
            print(f"  {note}", file=sys.stderr)
    if len(done.readings) > MAX_FILES_LISTED:
        print(f"  ... and {len(done.readings) - MAX_FILES_LISTED:,} more files", file=sys.stderr)
    return done


def train_on_cluster(args: argparse.Namespace, lms, read_sentences) -> None:
    """``lm train``'s fit with its counting passes on the cluster ``args.scheduler`` (the same models); the
    cluster is reached first, then the corpus is read (``read_sentences()``), so an address that does not answer
    fails in seconds, not after the reading."""
    from ..distributed import cluster_text, open_cluster

    with open_cluster(args.scheduler) as client:
        text = cluster_text(client, read_sentences())
        try:
            run_with_progress(lms.fit_text_iter(text))
        finally:
            text.close()
