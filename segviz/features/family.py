"""Candidate families: named generators of candidate questions, and the one way to answer interval questions.

A :class:`Family` proposes the candidate questions of one kind for a stream and answers them there (an events x
questions binary matrix).  The candidate builder loops over the registered families
(:mod:`segviz.features.registry`); nothing dispatches on a family's name.  Every family of interval questions
is an :class:`IntervalFamily`: it lists its :class:`~segviz.features.questions.IntervalQuestion` s and
:func:`interval_block` answers them from the context's cached signal values.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from segviz.features.context import FeatureContext
from segviz.features.questions import FeatureSpec, IntervalQuestion, signal_named

__all__ = ["CandidateSettings", "Family", "IntervalFamily", "interval_block"]


@dataclass(frozen=True)
class CandidateSettings:
    """The knobs of candidate generation that families read.

    ``vocabulary``: the candidate words, or an int = that many most frequent words of the stream;
    ``templates``: the vocabulary question templates; ``relevance_edges``: the relevance interval grid
    (None = the relevance family's default)."""

    vocabulary: int | Sequence[str] = 20000
    templates: Sequence = ()
    relevance_edges: Sequence[float] | None = None


class Family:
    """A named set of candidate questions.

    ``needs``: context inputs without which the family proposes nothing (e.g. relevance without language
    models).  ``summary``: one line for docs and ``--help``.
    """

    name: str = ""
    summary: str = ""
    needs: frozenset[str] = frozenset()

    def candidates(self, context: FeatureContext, settings: CandidateSettings
                   ) -> Iterator[tuple[sp.csc_matrix, list[FeatureSpec]]]:  # pragma: no cover - abstract
        """The family's questions on ``context``, in parts: each an (events x questions) binary CSC block and its
        questions, in column order.

        A family with many questions yields them in several parts (the vocabulary family: one per template), so
        that the candidate builder drops a part's rare questions before the next part exists: at the paper's
        scale the vocabulary family's answers are some 50 million entries."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<family {self.name}>"


class IntervalFamily(Family):
    """A family of interval questions: ``questions(settings)`` lists them; answers come from the signals."""

    def __init__(self, name: str, questions: Callable[[CandidateSettings], list[IntervalQuestion]], *,
                 summary: str = "", needs: frozenset[str] = frozenset()):
        self.name = name
        self.summary = summary
        self.needs = frozenset(needs)
        self.questions = questions

    def candidates(self, context, settings):
        qs = self.questions(settings)
        yield interval_block(context, qs), list(qs)


def interval_block(context: FeatureContext, questions: Sequence[IntervalQuestion]) -> sp.csc_matrix:
    """Answers (events x questions, int8 CSC) of interval questions; each signal computed once per window."""
    indptr = np.zeros(len(questions) + 1, dtype=np.int64)
    rows = []
    for j, q in enumerate(questions):
        hit = np.flatnonzero(q.answers(context.values(signal_named(q.signal), q.window)))
        rows.append(hit)
        indptr[j + 1] = indptr[j] + hit.size
    indices = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    return sp.csc_matrix((np.ones(indices.size, dtype=np.int8), indices, indptr),
                         shape=(context.n_events, len(questions)))
