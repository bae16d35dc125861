"""Applying a model to a corpus of several documents on two cores: a forked worker takes the last documents
(Qt-free).

The app applies a model document by document (source unit by source unit, as ``segviz segment`` does), and a
router first measures every document with its gauges: on reut2-000..013 (14 files of about 5,000 sentences) the
gauges were as much work as the chosen expert, and neither was split between the cores at that size.  A
:class:`~segviz.service.forked_worker.ForkedWorker` applies the model to the last documents (about half of the
sentences) while the engine applies it to the first, and sends back, per document, what
:func:`segviz.service.tasks.apply_model_task` keeps: the gap probabilities, which expert answered and why, and that
expert's feature matrix.  The same code computes the same numbers in either process; a document the worker did
not send (it died, it sent what does not decode, it never answered) is applied here.

Only when that is less work than splitting each document's questions between the cores
(:mod:`segviz.features.parallel`): a corpus of one long document and one shorter (10^6 sentences in two files of
57 % and 43 %) keeps that split, which evens the cores better.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ..features.parallel import MIN_EVENTS
from ..routing import Route
from .child_process import decode_array, encode_array
from .forked_worker import nearest_half

__all__ = ["split_documents", "document_message", "document_from_message", "MIN_SENTENCES", "DOCUMENT_SPEEDUP"]

#: below this many sentences in all the documents everything is applied here (the whole apply takes a second)
MIN_SENTENCES = 10_000
#: how much faster one document's questions are on two cores than on one (segviz.features.parallel, measured on
#: reut2-000..013: 8.75 s / 4.78 s); documents below its MIN_EVENTS are not split
DOCUMENT_SPEEDUP = 1.8


def split_documents(sizes: Sequence[int]) -> int:
    """The index of the first document the worker takes (``len(sizes)``: apply everything here).

    The worker takes the last documents, as near to half of the sentences as the documents allow, when the larger
    half is less work than splitting each document's questions between the cores would leave
    (:data:`DOCUMENT_SPEEDUP`; a document too short for that split is done on one core)."""
    if len(sizes) < 2 or sum(sizes) < MIN_SENTENCES:
        return len(sizes)
    split, larger = nearest_half(sizes)
    each_split = sum(s / DOCUMENT_SPEEDUP if s - 1 >= MIN_EVENTS else s for s in sizes)
    return split if larger < each_split else len(sizes)


def document_message(model, document) -> dict:
    """What the worker sends for one document: the model applied to it (:meth:`SegmentationModel.apply`)."""
    if document.n_sentences <= 1:
        return {"expert": model.apply_short(document).expert}
    applied = model.apply(document, n_jobs=1)
    matrix = applied.segmenter.feature_matrix(document).tocsr()
    ones = matrix.data.size == 0 or bool(np.all(matrix.data == 1))
    return {"expert": applied.expert, "route": None if applied.route is None else applied.route.to_dict(),
            "probabilities": encode_array(np.asarray(applied.probabilities, dtype=np.float64)),
            "shape": list(matrix.shape), "indptr": encode_array(matrix.indptr, "<i4"),
            "indices": encode_array(matrix.indices, "<i4"), "data": None if ones else encode_array(matrix.data)}


def document_from_message(message: dict, n: int, experts: Sequence[str]):
    """``(expert, route or None, probabilities or None, feature matrix or None)`` for a document of ``n``
    sentences; ValueError (or TypeError, KeyError) when the message is not one."""
    expert = message["expert"]
    if expert not in experts:
        raise ValueError("an expert the model does not have")
    if n <= 1:
        return expert, None, None, None
    route = None if message["route"] is None else Route.from_dict(message["route"])
    probabilities = decode_array(message["probabilities"], shape=(n - 1,))
    rows, k = (int(x) for x in message["shape"])
    indptr = decode_array(message["indptr"], dtype="<i4").astype(np.int64)
    indices = decode_array(message["indices"], dtype="<i4").astype(np.int64)
    if rows != n - 1 or indptr.shape != (rows + 1,) or indptr[0] != 0 or indptr[-1] != indices.size \
            or np.any(np.diff(indptr) < 0) or (indices.size and (indices.min() < 0 or indices.max() >= k)):
        raise ValueError("inconsistent feature matrix")
    data = np.ones(indices.size) if message["data"] is None else decode_array(message["data"], shape=(indices.size,))
    return expert, route, probabilities, sp.csr_matrix((data, indices, indptr), shape=(rows, k))
