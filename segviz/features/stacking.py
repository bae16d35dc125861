"""Binary candidate blocks side by side, in the memory of the result and one block.

The candidate matrix of a training stream is tens of millions of entries (docs/benchmarks.md); the families and
the word questions make it part by part, and :func:`stack_columns` joins the parts without holding two copies.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from segviz.errors import SegvizError

__all__ = ["stack_columns"]


def stack_columns(blocks: list[sp.csc_matrix], n_rows: int) -> sp.csc_matrix:
    """The binary CSC blocks side by side (``scipy.sparse.hstack``), emptying ``blocks`` as it goes.

    Each block is dropped once copied into the result, whose arrays are allocated untouched: the peak is the
    blocks plus one block, where a stack that keeps its inputs to the end needs twice the result (on the
    Reuters training portion a result of 260 MB)."""
    nnz = sum(b.nnz for b in blocks)
    n_cols = sum(b.shape[1] for b in blocks)
    index = np.int32 if max(nnz, n_rows, n_cols) < np.iinfo(np.int32).max else np.int64
    data = np.empty(nnz, dtype=np.int8)
    indices = np.empty(nnz, dtype=index)
    indptr = np.zeros(n_cols + 1, dtype=index)
    at = col = 0
    blocks.reverse()
    while blocks:
        block = blocks.pop().tocsc()
        if block.shape[0] != n_rows:
            raise SegvizError(f"a candidate block has {block.shape[0]} rows, not {n_rows}")
        end = at + block.nnz
        data[at:end] = block.data
        indices[at:end] = block.indices
        indptr[col + 1:col + 1 + block.shape[1]] = block.indptr[1:] + at
        at, col = end, col + block.shape[1]
        del block
    return sp.csc_matrix((data, indices, indptr), shape=(n_rows, n_cols))
