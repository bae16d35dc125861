"""The candidate matrix of a training stream, and the induced features' matrix on any stream (Section 3.4).

Events
------
An *event* is one inter-sentence position of a sentence stream (the corpus concatenated, as the paper does).
For a stream of ``n`` sentences (0-based indices ``0..n-1``) there are ``n - 1`` events; event row ``r`` is the
position ``b = r + 1``: the candidate boundary lies *before* sentence ``b``.  Its label is "yes" when a reference
segment starts at sentence ``b``.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from segviz.errors import SegvizError
from segviz.features.context import FeatureContext
from segviz.features.family import CandidateSettings, interval_block
from segviz.features.parallel import start_worker
from segviz.features.questions import FeatureSpec, IntervalQuestion, WordQuestion
from segviz.features.registry import DEFAULT_FAMILIES, FAMILIES, resolve_families
from segviz.features.relevance import RELEVANCE_EDGES
from segviz.features.stacking import stack_columns
from segviz.features.stream import word_block
from segviz.features.vocabulary import VOCABULARY_TEMPLATES
from segviz.segmentation import masses_to_indicator

__all__ = ["boundary_labels", "build_candidates", "evaluate_features"]


def boundary_labels(masses: Sequence[int]) -> np.ndarray:
    """Event labels (n-1,) bool: True where a reference segment starts at sentence b=r+1."""
    return masses_to_indicator(masses)


def _as_context(context) -> FeatureContext:
    if not isinstance(context, FeatureContext):
        raise SegvizError(f"expected a FeatureContext, got {type(context).__name__} "
                          f"(build one with FeatureContext(sentences, ...) or FeatureContext.from_corpus)")
    return context


def build_candidates(
    context: FeatureContext,
    *,
    families: Iterable[str] = DEFAULT_FAMILIES,
    vocabulary: int | Sequence[str] = 20000,
    templates: Sequence = VOCABULARY_TEMPLATES,
    relevance_edges: Sequence[float] = RELEVANCE_EDGES,
    drop_empty: bool = True,
    min_support: int = 1,
) -> tuple[sp.csc_matrix, list[FeatureSpec]]:
    """Build the event-by-candidate binary matrix of the chosen families (canonical order).

    Parameters
    ----------
    context : the stream and its precomputed signals (n sentences -> n-1 events).
    families : names from :data:`segviz.features.registry.FAMILIES`; a family whose inputs the context lacks
        (relevance without language models) proposes nothing.
    vocabulary : the candidate words, or an int = that many most frequent words of the stream.
    templates : the vocabulary question templates.
    relevance_edges : the relevance interval grid.
    drop_empty : drop candidates that never fire on these events (they can have no gain).
    min_support : with ``drop_empty``, also drop candidates firing on fewer events than this (1 = the paper:
        keep everything; larger values keep the greedy induction off one-off questions whose weight
        would run to the cap).

    Returns
    -------
    X : scipy.sparse CSC matrix, shape (n-1, m), int8 0/1 (CSC because induction reads columns).
    specs : the m questions, column order.
    """
    context = _as_context(context)
    settings = CandidateSettings(vocabulary=vocabulary, templates=tuple(templates),
                                 relevance_edges=tuple(relevance_edges))
    kept: list[sp.csc_matrix] = []
    specs: list[FeatureSpec] = []
    least = max(1, int(min_support))
    for name in resolve_families(families):
        family = FAMILIES[name]
        if not all(context.provides(need) for need in family.needs):
            continue
        for block, questions in family.candidates(context, settings):
            if drop_empty:
                keep = np.flatnonzero(np.diff(block.indptr) >= least)
                if keep.size < block.shape[1]:
                    block, questions = block[:, keep], [questions[i] for i in keep]
            kept.append(block)
            specs.extend(questions)
            del block
    X = stack_columns(kept, context.n_events)
    X.sort_indices()
    return X, specs


def evaluate_features(specs: Sequence[FeatureSpec], context: FeatureContext, *, n_jobs: int = 1,
                      layout: str = "csr") -> sp.csr_matrix | sp.csc_matrix:
    """The (n-1, len(specs)) 0/1 matrix of the given questions on the context's stream (``layout`` "csr" or "csc").

    Word questions are answered from one token stream over the words they ask about; interval questions from the
    context's (cached) signal values.  Questions needing an input the context lacks raise :class:`SegvizError`.
    ``n_jobs=2`` computes the costliest signal families in a forked process meanwhile
    (:mod:`segviz.features.parallel`); the matrix is the same.
    """
    context = _as_context(context)
    if layout not in ("csr", "csc"):
        raise SegvizError(f"layout must be 'csr' or 'csc', not {layout!r}")
    if not specs:
        return sp.csr_matrix((context.n_events, 0), dtype=np.int8).asformat(layout)
    by_type: dict[type, list[int]] = {WordQuestion: [], IntervalQuestion: []}
    for i, s in enumerate(specs):
        if type(s) not in by_type:
            raise SegvizError(f"not a candidate question: {s!r}")
        context.require(s.needs)
        by_type[type(s)].append(i)
    intervals = [specs[i] for i in by_type[IntervalQuestion]]
    worker = start_worker(context, intervals) if n_jobs > 1 and intervals else None
    try:
        blocks, order = [], []
        if by_type[WordQuestion]:
            block, within = word_block(context.sentences, [specs[i] for i in by_type[WordQuestion]])
            blocks.append(block)
            order.extend(by_type[WordQuestion][j] for j in within)
            del block
        if intervals:
            if worker is not None:
                worker.compute_rest()   # this process's share, while the worker computes its own
                worker.install()
            blocks.append(interval_block(context, intervals))
            order.extend(by_type[IntervalQuestion])
    finally:
        if worker is not None:
            worker.stop()
    X = stack_columns(blocks, context.n_events)
    order = np.asarray(order)
    if not np.array_equal(order, np.arange(order.size)):   # the questions' order, when the parts are not in it
        inv = np.empty(order.size, dtype=np.int64)
        inv[order] = np.arange(order.size)
        X = X[:, inv]
    return X.asformat(layout)
