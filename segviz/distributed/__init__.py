"""segviz on a Dask cluster: collections segmented and language models counted on many machines.

For the users who outgrow one machine (a news archive, a library of books, a corpus the size the paper trained
its language models on), segviz runs on an existing distributed engine, Dask (``dask`` + ``distributed``, the
``distributed`` extra), and gives exactly what the one-machine commands give.

* :mod:`.cluster` -- ``--scheduler ADDRESS``: a running scheduler, or ``local:N`` worker processes here;
* :mod:`.pieces` -- a collection cut into partitions of whole source units, planned without keeping its text;
* :mod:`.piece_reading` -- a worker reads its pieces as the one-machine reader does;
* :mod:`.worker_model` -- the model sent once to each worker and loaded once there;
* :mod:`.worker_setup` -- a local cluster's worker processes leave Ctrl-C to the command;
* :mod:`.segment_task` -- one partition read, segmented and rendered on a worker;
* :mod:`.segment_run` -- the run: partitions in flight, results written in input order, atomically;
* :mod:`.training_text` -- the language models' counting passes on the workers.

The names below import Dask only when used, so ``import segviz.distributed`` works without it.
"""
from __future__ import annotations

from .cluster import (
    CONNECT_TIMEOUT_S,
    INSTALL_HINT,
    SchedulerAddress,
    dask_installed,
    open_cluster,
    parse_address,
)
from .pieces import (
    DEFAULT_PARTITION_BYTES,
    Partition,
    Piece,
    plan_partitions,
    plan_pieces,
)


def segment_collection_iter(client, paths, **options):
    """:func:`segviz.distributed.segment_run.segment_collection_iter` (imported on use: it needs Dask)."""
    from .segment_run import segment_collection_iter as run

    return run(client, paths, **options)


def cluster_text(client, sentences, **options):
    """:class:`segviz.distributed.training_text.ClusterText` of ``sentences`` on ``client``'s workers."""
    from .training_text import ClusterText

    return ClusterText(client, sentences, **options)


__all__ = ["CONNECT_TIMEOUT_S", "DEFAULT_PARTITION_BYTES", "INSTALL_HINT", "Partition", "Piece", "SchedulerAddress",
           "cluster_text", "dask_installed", "open_cluster", "parse_address", "plan_partitions", "plan_pieces",
           "segment_collection_iter"]
