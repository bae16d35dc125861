"""Score segmenters side by side: the trained model(s), the peers and the paper's baselines (Section 7).

Every segmenter runs on the same *units* and is scored with :func:`segviz.metrics.score_row` (P_mu, P_k,
WindowDiff, exact-match precision/recall/F).  Two evaluation settings:

``stream``
    The whole corpus is one unit, as the paper's Section 7 evaluates (Tables 5 and 6).  C99 keeps n x n prefix
    sums and refuses a stream whose sums would not fit in the available memory (or above a ``max_sentences`` a
    caller sets); such a row is marked skipped with the reason.
``per-document``
    Each source file (``Corpus.by_file``; one Choi file = one document of ~10 segments) is segmented on its own
    and the rates are macro-averaged over files (:func:`macro_average`), the Choi (2000) literature's protocol.

Units of fewer than 3 sentences are left out (P_k's window is undefined there).  :func:`compare_segmenters` is
the work as a generator of :class:`~segviz.events.Progress` (one per unit) returning a :class:`Comparison`;
:func:`score_segmenters` runs it to the end.  The rows of a Comparison, the JSON of ``segviz compare``
(``format: segviz-compare``, ``version: 1``) and the table payloads of ``baselines``/``evaluate``/``reproduce``
(:func:`table_payload`) are all built here.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .baselines import BASELINES, EVEN_WORDS, baseline_masses, even_words_masses
from .errors import SegvizError
from .events import Progress, run_to_end
from .metrics import default_k, score_row
from .model_protocol import SegmentationModel, stream_masses
from .peers import PEERS
from .segmentation import default_mu

RATE_KEYS = ("p_mu", "p_k", "window_diff", "precision", "recall", "f1")
EVALUATIONS = ("per-document", "stream")
COMPARE_FORMAT = ("segviz-compare", 1)

SegmentFunction = Callable[[Any], Sequence[int]]


def macro_average(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One segmenter's rows over several units -> one row: every rate averaged with equal weight per unit
    (macro-average, as the Choi literature reports P_k), hypothesised segments summed.

    This is the only definition of averaging over units in segviz.
    """
    if not rows:
        raise SegvizError("nothing to average: no scored unit")
    out: dict[str, Any] = {key: float(np.mean([r[key] for r in rows])) for key in RATE_KEYS}
    out["hypothesis_segments"] = int(sum(r["hypothesis_segments"] for r in rows))
    return out


def average_rows(per_unit: Sequence[Mapping[str, Mapping[str, Any]]]) -> dict[str, dict]:
    """Tables of several units (segmenter name -> row each) -> one table, by :func:`macro_average`."""
    if not per_unit:
        raise SegvizError("nothing to average: no scored unit")
    return {name: macro_average([table[name] for table in per_unit]) for name in per_unit[0]}


def baseline_rows(reference: Sequence[int], *, seed: int = 0, mu: float | None = None) -> dict[str, dict]:
    """Score every baseline of the paper against ``reference`` masses (one row per baseline)."""
    mu = default_mu(reference) if mu is None else mu
    return {name: score_row(reference, baseline_masses(name, reference, mu=mu, seed=seed), mu=mu) for name in BASELINES}


def model_segmenter(model: SegmentationModel) -> SegmentFunction:
    """A model (:class:`~segviz.model_protocol.SegmentationModel`) as a segment function: each document (source
    unit) of the part segmented on its own, the masses placed one after another."""
    return lambda part: stream_masses(model.predict(part))


def model_rows(model, corpus, *, seed: int = 0) -> dict[str, dict]:
    """The paper's table on one stream: the model row then the baselines, all with mu = 1/mean reference
    segment length."""
    comparison = score_segmenters(corpus, models={"model": model_segmenter(model)}, peers=(), evaluation="stream",
                                  seed=seed)
    return comparison.score_rows


def table_payload(corpus, rows: Mapping[str, Mapping], *, evaluation: str) -> dict:
    """A score table as one JSON-ready dict: the corpus (sentences, reference segments, mu, k), then the rows."""
    reference = corpus.masses()
    payload = {
        "corpus": corpus.name,
        "evaluation": evaluation,
        "sentences": corpus.n_sentences,
        "reference_segments": len(reference),
        "mu": default_mu(reference),
        "k": default_k(reference) if corpus.n_sentences > 2 else None,
    }
    payload.update(rows)
    return payload


def table_rows(payload: Mapping[str, Any]) -> dict[str, dict]:
    """The rows of a :func:`table_payload` (its dict-valued entries), in order."""
    return {k: v for k, v in payload.items() if isinstance(v, dict)}


# --------------------------------------------------------------------------------------- the comparison

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
        """Rates macro-averaged over the units a segmenter ran on; segment counts summed; time per 1,000
        sentences; ``units``/``skipped`` counts and the ``errors`` of skipped units."""
        out: dict[str, dict[str, Any]] = {}
        for name in self.segmenters:
            runs = [r for r in self.runs if r.segmenter == name]
            ok = [r for r in runs if r.scores is not None]
            row: dict[str, Any] = {"units": len(ok), "skipped": len(runs) - len(ok)}
            if ok:
                row.update(macro_average([r.scores for r in ok]))
                n = sum(sum(r.masses) for r in ok)
                row["seconds_per_1000_sentences"] = 1000.0 * sum(r.seconds for r in ok) / max(n, 1)
            else:
                row.update({key: None for key in RATE_KEYS})
                row["hypothesis_segments"] = None
                row["seconds_per_1000_sentences"] = None
            errors = sorted({r.error for r in runs if r.error})
            if errors:
                row["errors"] = errors
            out[name] = row
        return out

    @property
    def score_rows(self) -> dict[str, dict[str, Any]]:
        """The rows as the paper's tables have them (segments and rates; no timing), plus ``skipped`` and
        ``errors`` for a segmenter that could not run on some unit."""
        out = {}
        for name, row in self.rows.items():
            keep = {"hypothesis_segments": row["hypothesis_segments"], **{k: row[k] for k in RATE_KEYS}}
            if row["skipped"]:
                keep["skipped"] = row["skipped"]
                keep["errors"] = row.get("errors", [])
            out[name] = keep
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``segviz compare`` (format ``segviz-compare``, version 1)."""
        return {
            "format": COMPARE_FORMAT[0],
            "version": COMPARE_FORMAT[1],
            "corpus": self.corpus,
            "evaluation": self.evaluation,
            "units": len(self.units),
            "sentences": self.n_sentences,
            "reference_segments": self.reference_segments,
            "rows": self.rows,
        }


def _segment_function(model) -> SegmentFunction:
    return model_segmenter(model) if isinstance(model, SegmentationModel) else model


def available_segmenters(model=None, *, model_name: str = "model", models: Mapping[str, Any] | None = None,
                         peers: Sequence[str] | None = None, baselines: Sequence[str] | None = None, seed: int = 0,
                         peer_params: Mapping[str, Mapping[str, Any]] | None = None,
                         words_per_segment: float | None = None) -> dict[str, SegmentFunction]:
    """name -> function(corpus part) -> masses, in table order: models, peers, baselines.

    ``model`` (row ``model_name``) and the values of ``models`` are models
    (:class:`~segviz.model_protocol.SegmentationModel`) or plain functions ``corpus -> masses``.  ``peers``/``baselines`` default to
    all of :data:`segviz.peers.PEERS` / :data:`segviz.baselines.BASELINES`.  ``words_per_segment`` (a mean segment
    length in words, the protocols' training mean) adds the "even-words" baseline after them.
    """
    peers = tuple(PEERS) if peers is None else tuple(peers)
    baselines = BASELINES if baselines is None else tuple(baselines)
    peer_params = dict(peer_params or {})
    for name in peers:
        if name not in PEERS:
            raise SegvizError(f"unknown peer segmenter {name!r}; choose from {', '.join(PEERS)}")
    for name in baselines:
        if name not in BASELINES:
            raise SegvizError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}")
    named = dict(models or {})
    if model is not None:
        if model_name in named:
            raise SegvizError(f"two models called {model_name!r}")
        named = {model_name: model, **named}
    out: dict[str, SegmentFunction] = {}
    for name, trained in named.items():
        if name in PEERS or name in BASELINES or name == EVEN_WORDS:
            raise SegvizError(f"model name {name!r} clashes with a peer or baseline name")
        out[name] = _segment_function(trained)
    for name in peers:
        params = dict(peer_params.get(name, {}))

        def run(part, _cls=PEERS[name], _params=params):
            return _cls(**_params).segment(part.sentences())
        out[name] = run
    for name in baselines:
        def run(part, _name=name):
            return baseline_masses(_name, part.masses(), seed=seed)
        out[name] = run
    if words_per_segment is not None:
        def run_words(part, _w=float(words_per_segment)):
            return even_words_masses([len(s) for s in part.sentences()], _w)
        out[EVEN_WORDS] = run_words
    return out


def evaluation_units(corpus, evaluation: str) -> list:
    """The units ``corpus`` is scored on: itself (``stream``) or each source file (``per-document``), keeping
    those of 3 or more sentences."""
    if evaluation not in EVALUATIONS:
        raise SegvizError(f"evaluation must be one of {', '.join(EVALUATIONS)}, got {evaluation!r}")
    units = [corpus] if evaluation == "stream" else list(corpus.by_file())
    units = [u for u in units if u.n_sentences > 2]
    if not units:
        raise SegvizError(f"{corpus.name}: no document with more than 2 sentences to segment")
    return units


def compare_segmenters(corpus, *, model=None, model_name: str = "model", models: Mapping[str, Any] | None = None,
                       evaluation: str = "per-document", peers: Sequence[str] | None = None,
                       baselines: Sequence[str] | None = None, seed: int = 0,
                       peer_params: Mapping[str, Mapping[str, Any]] | None = None,
                       words_per_segment: float | None = None) -> Generator[Progress, None, Comparison]:
    """Segment ``corpus`` with every segmenter and score each against the reference (module docstring).

    Yields ``Progress("compare", units_done, n_units)``; returns the :class:`Comparison`.  A segmenter that
    raises :class:`SegvizError` on a unit (C99 on a stream whose n x n sums would not fit in memory) is recorded
    as skipped there.
    """
    if evaluation not in EVALUATIONS:
        raise SegvizError(f"evaluation must be one of {', '.join(EVALUATIONS)}, got {evaluation!r}")
    segmenters = available_segmenters(model, model_name=model_name, models=models, peers=peers,
                                      baselines=baselines, seed=seed, peer_params=peer_params,
                                      words_per_segment=words_per_segment)
    if not segmenters:
        raise SegvizError("nothing to compare: no model, peers or baselines selected")
    units = evaluation_units(corpus, evaluation)
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
            except SegvizError as exc:
                result.runs.append(SegmenterRun(name, unit.name, None, None, time.perf_counter() - t0, str(exc)))
                continue
            seconds = time.perf_counter() - t0
            if sum(hyp) != sum(ref):
                raise SegvizError(f"{name} returned {sum(hyp)} sentences for {unit.name}, expected {sum(ref)}")
            result.runs.append(SegmenterRun(name, unit.name, hyp, score_row(ref, hyp), seconds))
        yield Progress("compare", i + 1, len(units))
    return result


def score_segmenters(corpus, **params) -> Comparison:
    """:func:`compare_segmenters` run to the end (no progress): the same parameters, the :class:`Comparison`."""
    return run_to_end(compare_segmenters(corpus, **params))
