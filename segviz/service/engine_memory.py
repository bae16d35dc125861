"""The engine process's memory while it trains: freed arrays go back to the system at once (Qt-free).

glibc serves an allocation below its mmap threshold from the heap and keeps what is freed there; left adaptive,
the threshold climbs to the largest block freed (up to 32 MB), so numpy's temporaries of a few MB pile up in the
heap.  Training on reut2-000..013 left the process at 620 MB once its language models were fitted, 300 MB of them
free, and the candidate questions' matrix (some 300 MB, built from parts) came on top.  While a training runs,
arrays of 1 MB and more are mappings of their own, returned when freed: the engine's peak while training on
reut2-000..013 went from 1.1 to 0.9 GB (docs/benchmarks.md).  A threshold of 4 MB kept 1.0 GB; one set only once
the language models are fitted kept 1.1 GB, the heap they had grown filling again.

The price is time: mapping the same temporaries afresh on every pass makes the trigger model's IIS slower (22 s
-> 26-32 s on reut2-000..013), and applying a model a third slower (the open 15 -> 19.5 s), so only training does
it.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: glibc's mallopt parameter
M_MMAP_THRESHOLD = -3
#: the threshold while training
TRAINING_THRESHOLD = 1 << 20
#: the threshold afterwards: the ceiling of glibc's adaptive threshold, where the engine's work takes it
AFTER_THRESHOLD = 32 << 20


def _glibc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


@contextmanager
def returning_freed_memory() -> Iterator[None]:
    """Within the block, the process returns every freed array of 1 MB or more to the system at once; the heap's
    free memory is handed back when the block starts and ends.  Does nothing off glibc."""
    libc = _glibc()
    if libc is None:
        yield
        return
    libc.malloc_trim(0)
    libc.mallopt(M_MMAP_THRESHOLD, TRAINING_THRESHOLD)
    try:
        yield
    finally:
        libc.mallopt(M_MMAP_THRESHOLD, AFTER_THRESHOLD)
        libc.malloc_trim(0)
