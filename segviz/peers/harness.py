"""Run every available segmenter on the same documents and score them with the same metrics.

This is the engine behind ``segviz compare`` (and anything in the app that shows segmenters side by side):
the trained model (if any), the peers of :mod:`segviz.peers` and the paper's baselines (Section 7) are run on
the same units and scored with :func:`segviz.metrics.score_row` (P_mu, P_k, WindowDiff, exact-match P/R/F).

Two evaluation settings:

``per-document`` (default)
    Each source file (``Corpus.by_file``; one Choi file = one document of ~10 segments) is segmented on its
    own and the rates are averaged over files -- the Choi (2000) literature's protocol.
``stream``
    The whole corpus is one stream, as the paper's Section 7 evaluates.  C99 needs n x n matrices and refuses
    streams above its ``max_sentences``; such a row is marked skipped with the reason.

The work is a generator (:func:`compare_segmenters`) yielding :class:`~segviz.events.Progress` after every unit,
so a caller can draw progress and cancel between units; its return value is a :class:`Comparison`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Mapping, Sequence

import numpy as np

from ..baselines import BASELINES, baseline_masses
from ..errors import SegvizError
from ..events import Progress
from ..metrics import score_row
from . import PEERS

RATE_KEYS = ("p_mu", "p_k", "window_diff", "precision", "recall", "f1")
EVALUATIONS = ("per-document", "stream")


@dataclass(frozen=True)
class SegmenterRun:
    """One segmenter on one unit: its masses, scores and time (``error`` set when it could not run)."""

    segmenter: str
    unit: str
    masses: tuple[int, ...] | None
    scores: Mapping[str, float] | None
    seconds: float
    error: str | None = None


@dataclass
class Comparison:
    """All runs of a comparison plus the aggregated table (``rows``: segmenter name -> row dict)."""

    corpus: str
    evaluation: str
    units: list[str]
    n_sentences: int
    reference_segments: int
    segmenters: list[str]
    runs: list[SegmenterRun] = field(default_factory=list)

    @property
    def rows(self) -> dict[str, dict[str, Any]]:
        """Rates macro-averaged over the units a segmenter ran on; segment counts summed; time per 1,000 sentences."""
        out: dict[str, dict[str, Any]] = {}
        for name in self.segmenters:
            runs = [r for r in self.runs if r.segmenter == name]
            ok = [r for r in runs if r.scores is not None]
            row: dict[str, Any] = {"units": len(ok), "skipped": len(runs) - len(ok)}
            if ok:
                for key in RATE_KEYS:
                    row[key] = float(np.mean([r.scores[key] for r in ok]))
                row["hypothesis_segments"] = int(sum(len(r.masses) for r in ok))
                n = sum(sum(r.masses) for r in ok)
                row["seconds_per_1000_sentences"] = 1000.0 * sum(r.seconds for r in ok) / max(n, 1)
            else:
                for key in RATE_KEYS:
                    row[key] = None
                row["hypothesis_segments"] = None
                row["seconds_per_1000_sentences"] = None
            errors = sorted({r.error for r in runs if r.error})
            if errors:
                row["errors"] = errors
            out[name] = row
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "segviz-compare",
            "version": 1,
            "corpus": self.corpus,
            "evaluation": self.evaluation,
            "units": len(self.units),
            "sentences": self.n_sentences,
            "reference_segments": self.reference_segments,
            "rows": self.rows,
        }


def _model_segmenter(model) -> Callable:
    def run(part):
        return tuple(int(m) for m in model.predict(part))
    return run


def available_segmenters(model=None, *, model_name: str = "model", peers: Sequence[str] | None = None,
                         baselines: Sequence[str] | None = None, seed: int = 0,
                         peer_params: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Callable]:
    """name -> function(corpus part) -> masses, in table order: model, peers, baselines."""
    peers = tuple(PEERS) if peers is None else tuple(peers)
    baselines = BASELINES if baselines is None else tuple(baselines)
    peer_params = dict(peer_params or {})
    for name in peers:
        if name not in PEERS:
            raise SegvizError(f"unknown peer segmenter {name!r}; choose from {', '.join(PEERS)}")
    for name in baselines:
        if name not in BASELINES:
            raise SegvizError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}")
    out: dict[str, Callable] = {}
    if model is not None:
        if model_name in PEERS or model_name in BASELINES:
            raise SegvizError(f"model name {model_name!r} clashes with a peer or baseline name")
        out[model_name] = _model_segmenter(model)
    for name in peers:
        params = dict(peer_params.get(name, {}))

        def run(part, _cls=PEERS[name], _params=params):
            return _cls(**_params).segment(part.sentences())
        out[name] = run
    for name in baselines:
        def run(part, _name=name):
            return baseline_masses(_name, part.masses(), seed=seed)
        out[name] = run
    return out


def compare_segmenters(corpus, *, model=None, model_name: str = "model", evaluation: str = "per-document",
                       peers: Sequence[str] | None = None, baselines: Sequence[str] | None = None, seed: int = 0,
                       peer_params: Mapping[str, Mapping[str, Any]] | None = None,
                       ) -> Generator[Progress, None, Comparison]:
    """Segment ``corpus`` with every segmenter and score each against the reference (module docstring).

    ``model`` is anything with ``predict(corpus) -> masses`` (a :class:`segviz.segmenter.Segmenter`); its row is
    called ``model_name``.
    Yields ``Progress("compare", units_done, n_units)``; returns the :class:`Comparison`.
    """
    if evaluation not in EVALUATIONS:
        raise SegvizError(f"evaluation must be one of {', '.join(EVALUATIONS)}, got {evaluation!r}")
    segmenters = available_segmenters(model, model_name=model_name, peers=peers, baselines=baselines, seed=seed,
                                      peer_params=peer_params)
    if not segmenters:
        raise SegvizError("nothing to compare: no model, peers or baselines selected")
    units = [corpus] if evaluation == "stream" else list(corpus.by_file())
    # a unit needs at least 3 sentences for P_k's window to be defined
    units = [u for u in units if u.n_sentences > 2]
    if not units:
        raise SegvizError(f"{corpus.name}: no document with more than 2 sentences to segment")
    result = Comparison(corpus=corpus.name, evaluation=evaluation, units=[u.name for u in units],
                        n_sentences=sum(u.n_sentences for u in units),
                        reference_segments=sum(len(u.masses()) for u in units), segmenters=list(segmenters))
    yield Progress("compare", 0, len(units))
    for i, unit in enumerate(units):
        ref = unit.masses()
        for name, run in segmenters.items():
            t0 = time.perf_counter()
            try:
                hyp = tuple(int(m) for m in run(unit))
            except SegvizError as exc:          # e.g. C99 on a stream too long for its n x n matrices
                result.runs.append(SegmenterRun(name, unit.name, None, None, time.perf_counter() - t0, str(exc)))
                continue
            seconds = time.perf_counter() - t0
            if sum(hyp) != sum(ref):
                raise SegvizError(f"{name} returned {sum(hyp)} sentences for {unit.name}, expected {sum(ref)}")
            result.runs.append(SegmenterRun(name, unit.name, hyp, score_row(ref, hyp), seconds))
        yield Progress("compare", i + 1, len(units))
    return result
