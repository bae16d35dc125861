"""What a worker process of a ``local:N`` cluster does first: leave Ctrl-C to the command.

A terminal's Ctrl-C reaches every process of its foreground group, the local cluster's workers too, and each
would print Dask's traceback while the command stops them anyway.  The workers ignore it; the command's own
handler says ``segviz: interrupted`` in one line and closes the cluster.  Dask runs :func:`dask_setup` in each
worker process it starts with this module as a preload.
"""
from __future__ import annotations

import signal


def dask_setup(worker) -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:   # not the process's main thread: a worker inside the command's own process
        pass
