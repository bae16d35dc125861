"""The answers of a list of candidate questions on one stream, computed column by column as they are asked for.

Induction scores each round on held-out data with the features chosen so far (Section 4: the held-out P_mu of a
round, the held-out stop); it never looks at the other candidates there.  Answering all of them up front cost as
much memory as a fifth of the training's candidate matrix (70 MB on the Reuters training portion) and a second
of work, for the few dozen columns a training ever reads.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from segviz.errors import SegvizError
from segviz.features.candidates import evaluate_features
from segviz.features.context import FeatureContext
from segviz.features.questions import FeatureSpec

__all__ = ["QuestionColumns"]


class QuestionColumns:
    """``specs`` answered on ``context``'s stream: an (events x questions) 0/1 matrix whose columns are evaluated
    (:func:`evaluate_features`) when :meth:`columns` first asks for them, then kept.

    ``shape`` is the full matrix's; ``columns(cols)`` is ``matrix[:, cols]`` as CSC, the same numbers the full
    matrix gives."""

    def __init__(self, specs: Sequence[FeatureSpec], context: FeatureContext):
        self.specs = specs
        self.context = context
        self.shape = (int(context.n_events), len(specs))
        self._answered: dict[int, sp.csc_matrix] = {}

    def columns(self, cols: Sequence[int]) -> sp.csc_matrix:
        cols = [int(c) for c in cols]
        if any(not 0 <= c < self.shape[1] for c in cols):
            raise SegvizError(f"question columns must lie in [0, {self.shape[1]}), got {cols}")
        new = sorted({c for c in cols if c not in self._answered})
        if new:
            answers = evaluate_features([self.specs[c] for c in new], self.context, layout="csc")
            for i, c in enumerate(new):
                self._answered[c] = answers[:, [i]]
        if not cols:
            return sp.csc_matrix((self.shape[0], 0), dtype=np.int8)
        return sp.hstack([self._answered[c] for c in cols], format="csc")
