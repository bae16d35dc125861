"""The window's own background steps (no Qt): tuning the shown decision rule, and the exports.

Plain generators of ``Progress`` returning their result, run on a :class:`~segviz.app.worker.GeneratorWorker`;
the work is on what the window already holds (the probabilities, the hypothesis), so it needs no engine.
"""
from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence

import numpy as np

from ..events import Progress
from ..persist import atomic_write_bytes, atomic_write_text

# -- the decision rule ----------------------------------------------------------------------------------------

def tune_task(rule, probabilities: np.ndarray, reference_masses: Sequence[int], sizes=None):
    """``(tuned rule, score)``: ``rule``'s settings best on the given reference (P_mu, Section 7;
    :func:`segviz.tuning.tune_rule`; ``sizes``: the sentences' sizes, for a rule that measures segments in words)."""
    yield Progress("tuning the decision rule", 0, 1)
    return rule.tune(probabilities, tuple(reference_masses), sizes=sizes)


# -- exports --------------------------------------------------------------------------------------------------

def hypothesis_csv(probabilities: np.ndarray | None, hypothesis: np.ndarray, reference: np.ndarray | None,
                   n: int) -> str:
    """One row per position b = 1..n-1: probability, hypothesis (0/1) and reference (0/1, or empty without one)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["position", "probability", "hypothesis", "reference"])
    hyp = np.zeros(n, dtype=np.int8)
    hyp[np.asarray(hypothesis, dtype=np.int64)] = 1
    ref = None
    if reference is not None:
        ref = np.zeros(n, dtype=np.int8)
        ref[np.asarray(reference, dtype=np.int64)] = 1
    probs = [""] * (n - 1) if probabilities is None else [f"{p:.6f}" for p in probabilities.tolist()]
    hyp_l = hyp.tolist()
    ref_l = ref.tolist() if ref is not None else None
    writer.writerows([b, probs[b - 1], hyp_l[b], "" if ref_l is None else ref_l[b]] for b in range(1, n))
    return out.getvalue()


def write_text_task(path: str | os.PathLike, make_text, *, what: str = "export"):
    """Build the text (in the worker) and write it whole or not at all."""
    yield Progress(what, 0, 2)
    text = make_text()
    yield Progress(what, 1, 2)
    atomic_write_text(path, text)
    yield Progress(what, 2, 2)
    return str(path)


def write_bytes_task(path: str | os.PathLike, data: bytes, *, what: str = "export"):
    yield Progress(what, 0, 1)
    atomic_write_bytes(path, data)
    yield Progress(what, 1, 1)
    return str(path)
