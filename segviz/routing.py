"""Two experts and a gauge: a model that picks, per document, between a segmenter of short excerpts and a
segmenter of natural prose (beyond the paper).

One exponential model with one decision rule serves 7-sentence excerpts and 130-sentence texts badly
(docs/reproduction.md, "A default model that travels"): trained on both, it learns to cut where a few sentences
share no words, which inside a long text happens often; trained without the excerpts, it places the boundaries of
spliced documents poorly.  :class:`ExpertRouter` keeps two fitted :class:`~segviz.segmenter.Segmenter` s and lets
the short-segment expert gauge each document: the segment length it expects there,

    n / (1 + sum over the n - 1 gaps of q(yes | gap))

(the model's boundary probabilities q of Section 4; the expected number of boundaries is their sum).  At most
``threshold_`` sentences: the short expert segments the document, with its own decision rule (Section 7);
longer: the long expert, with its own.  (A text of more than :data:`GAUGE_SENTENCES` sentences is gauged on
evenly spread windows of that many sentences in all: the expected boundary rate carries over.)  The threshold is
tuned on held-out documents as the decision rule's α and ε are (Section 7): the value that gives the best mean
score over the held-out documents, each held-out domain weighing the same.

The router is an estimator in scikit-learn's style: ``short`` and ``long`` (fitted segmenters) and the threshold
grid are stored verbatim; :meth:`fit` / :meth:`fit_iter` tune ``threshold_``; :meth:`route` says which expert a
document gets and why; :meth:`predict`, :meth:`predict_proba` and :meth:`score` answer with that expert.  It is
saved as one bundle (:mod:`segviz.bundle`, kind ``router``) holding both segmenters, and read back by
:meth:`ExpertRouter.load` or :func:`segviz.models.load_model`.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Generator, Sequence

import numpy as np

from segviz import __version__
from segviz.bundle import read_bundle, write_bundle
from segviz.corpus import Corpus, Document
from segviz.errors import SegvizError
from segviz.evaluation import evaluation_units
from segviz.events import Progress, run_to_end
from segviz.metrics import score_row
from segviz.segmentation import boundaries_to_masses
from segviz.segmenter import Segmenter, as_corpus

__all__ = ["ExpertRouter", "Route", "EXPERTS", "DEFAULT_THRESHOLDS", "KIND", "expected_segment_length",
           "routed_scores", "best_threshold", "gauge_windows", "GAUGE_SENTENCES", "GAUGE_WINDOWS"]

KIND = "router"
FORMAT = "segviz-router"
VERSION = 1
#: the experts' names, in the order a bundle stores them
EXPERTS = ("short", "long")
#: the tuning grid of the threshold on the short expert's expected segment length (sentences)
DEFAULT_THRESHOLDS = tuple(float(t) for t in np.round(np.geomspace(3.0, 64.0, 121), 2))
#: held-out scores within this of the best count as tied, so that one held-out document near the threshold does not
#: set it (0.1 points of P_k or P_mu)
DEFAULT_TOLERANCE = 0.001
_TUNING_METRICS = ("p_k", "p_mu")
#: a text longer than this is gauged on GAUGE_WINDOWS windows spread evenly over it, GAUGE_SENTENCES sentences in
#: all: the gauge is a rate, and on 70k sentences the short expert's questions on every sentence would cost as much
#: as applying the chosen expert (docs/benchmarks.md)
GAUGE_SENTENCES = 4000
GAUGE_WINDOWS = 8


def expected_segment_length(probabilities: np.ndarray) -> float:
    """n / (1 + sum q): the mean segment length a model expects on a stream of n sentences whose n - 1 gaps
    have boundary probabilities ``probabilities`` (1 + the expected number of boundaries segments)."""
    p = np.asarray(probabilities, dtype=np.float64)
    return float((p.size + 1) / (1.0 + p.sum()))


def gauge_windows(corpus: Corpus, *, max_sentences: int | None = None, windows: int | None = None
                  ) -> list[Corpus]:
    """``[corpus]`` when it has at most ``max_sentences`` sentences (:data:`GAUGE_SENTENCES`), else ``windows``
    (:data:`GAUGE_WINDOWS`) stretches of the stream, evenly spread from its start to its end, of
    ``max_sentences // windows`` sentences each (documents cut where a stretch starts or ends)."""
    max_sentences = GAUGE_SENTENCES if max_sentences is None else int(max_sentences)
    windows = GAUGE_WINDOWS if windows is None else int(windows)
    n = corpus.n_sentences
    if n <= max_sentences:
        return [corpus]
    width = max(2, max_sentences // windows)
    starts = np.linspace(0, n - width, windows).round().astype(int)
    return [_stretch(corpus, int(a), int(a) + width) for a in starts]


def _stretch(corpus: Corpus, start: int, end: int) -> Corpus:
    """Sentences ``start .. end - 1`` of the stream, as a corpus (the documents it crosses, cut to it)."""
    documents, files, offset = [], [], 0
    for document, name in zip(corpus.documents, corpus.files):
        n = len(document)
        lo, hi = max(start - offset, 0), min(end - offset, n)
        if lo < hi:
            marks = document.paragraph_starts[lo:hi] if document.paragraph_starts else ()
            documents.append(Document(document.name, document.sentences[lo:hi], document.texts[lo:hi],
                                      paragraph_starts=marks, title=document.title))
            files.append(name)
        offset += n
        if offset >= end:
            break
    return Corpus(documents, name=f"{corpus.name} [{start}:{end}]", files=files, has_reference=False)


@dataclass(frozen=True)
class Route:
    """Which expert a document gets: ``expert`` (``"short"`` or ``"long"``), because the short expert expects
    segments of ``expected_length`` sentences there, against the router's ``threshold``."""

    expert: str
    expected_length: float
    threshold: float

    def describe(self) -> str:
        """``the short-excerpt expert: it expects segments of 6.7 sentences here (at most 10.4)``."""
        relation = "at most" if self.expert == "short" else "more than"
        name = "short-excerpt" if self.expert == "short" else "long-prose"
        return (f"the {name} expert: the short-excerpt expert expects segments of {self.expected_length:.1f} "
                f"sentences here ({relation} {self.threshold:g})")

    def to_dict(self) -> dict:
        return {"expert": self.expert, "expected_length": self.expected_length, "threshold": self.threshold}


class ExpertRouter:
    """Per-document choice between two fitted segmenters (module docstring).

    Parameters (keyword-only, stored verbatim)
    ------------------------------------------
    short : a fitted :class:`~segviz.segmenter.Segmenter` for documents of short segments; it also gauges
        every document.
    long : a fitted :class:`~segviz.segmenter.Segmenter` for the others.
    thresholds : the tuning grid of the threshold on the short expert's expected segment length.
    tuning_metric : ``"p_k"`` (minimised) or ``"p_mu"`` (maximised), each held-out document scored with the
        expert the threshold gives it.
    tolerance : thresholds whose held-out score is within this of the best count as tied; the middle of the
        longest run of tied neighbours is kept.

    Learned state
    -------------
    threshold_ : documents where the short expert expects segments of at most this many sentences get it.
    tuning_ : the held-out score of every threshold of the grid, and the per-domain scores at ``threshold_``.
    info_ : provenance (what the experts and the tuning saw).
    """

    def __init__(self, *, short: Segmenter | None = None, long: Segmenter | None = None,
                 thresholds: Sequence[float] = DEFAULT_THRESHOLDS, tuning_metric: str = "p_k",
                 tolerance: float = DEFAULT_TOLERANCE):
        self.short = short
        self.long = long
        self.thresholds = thresholds
        self.tuning_metric = tuning_metric
        self.tolerance = tolerance

    _PARAMS = ("short", "long", "thresholds", "tuning_metric", "tolerance")

    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in self._PARAMS}

    def set_params(self, **params) -> "ExpertRouter":
        for name, value in params.items():
            if name not in self._PARAMS:
                raise SegvizError(f"unknown ExpertRouter parameter {name!r}; choose from {', '.join(self._PARAMS)}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        if self.is_fitted:
            return (f"ExpertRouter(short={len(self.short.features_)} features, long={len(self.long.features_)} "
                    f"features, threshold={self.threshold_:g})")
        return "ExpertRouter(unfitted)"

    # ------------------------------------------------------------------ validation
    def _validate_params(self) -> None:
        for name in EXPERTS:
            expert = getattr(self, name)
            if not isinstance(expert, Segmenter) or not expert.is_fitted:
                raise SegvizError(f"the router's {name} expert must be a fitted Segmenter")
        grid = list(self.thresholds)
        if not grid or not all(isinstance(t, (int, float)) and math.isfinite(t) and t > 0 for t in grid):
            raise SegvizError("thresholds must be a non-empty sequence of positive numbers")
        if isinstance(self.tolerance, bool) or not isinstance(self.tolerance, (int, float)) \
                or not 0 <= self.tolerance < 1:
            raise SegvizError(f"tolerance must be a number in [0, 1), not {self.tolerance!r}")
        if self.tuning_metric not in _TUNING_METRICS:
            raise SegvizError(f"tuning_metric must be one of {', '.join(_TUNING_METRICS)}, "
                              f"not {self.tuning_metric!r}")

    @property
    def is_fitted(self) -> bool:
        return getattr(self, "threshold_", None) is not None

    def _check_fitted(self) -> None:
        if not self.is_fitted:
            raise SegvizError("this ExpertRouter is not fitted yet: call fit() or load() first")

    @property
    def experts_(self) -> dict[str, Segmenter]:
        """The experts by name (``short``, ``long``)."""
        return {"short": self.short, "long": self.long}

    # ------------------------------------------------------------------ fitting
    def fit(self, heldout) -> "ExpertRouter":
        """Tune ``threshold_`` on held-out documents (:meth:`fit_iter` run to the end)."""
        return run_to_end(self.fit_iter(heldout))

    def fit_iter(self, heldout) -> Generator[Progress, None, "ExpertRouter"]:
        """Tune ``threshold_`` on ``heldout``: a corpus, or a sequence of corpora (held-out domains, each weighing
        the same in the mean), each scored document by document (its source files).

        Both experts segment every held-out document with their own decision rules; the threshold that gives the
        best mean score is kept (:func:`routed_scores`).  Scores within ``tolerance`` of the best tie, and the
        middle of the longest run of tied neighbours is kept (:func:`best_threshold`: the widest margin on both
        sides, so that one held-out document near the edge does not set it).  Yields ``Progress("tuning the router", documents_done, n_documents)``."""
        self._validate_params()
        domains = [heldout] if isinstance(heldout, Corpus) else list(heldout)
        if not domains or not all(isinstance(c, Corpus) for c in domains):
            raise SegvizError("the router is tuned on a held-out corpus or a sequence of them")
        units = [evaluation_units(c, "per-document") for c in domains]
        total = sum(len(u) for u in units)
        yield Progress("tuning the router", 0, total)
        gauges, scores, done = [], [], 0
        for domain_units in units:
            lengths, by_expert = [], {name: [] for name in EXPERTS}
            for unit in domain_units:
                probabilities = {name: expert.boundary_probabilities(unit) for name, expert in self.experts_.items()}
                lengths.append(expected_segment_length(probabilities["short"]) if unit.n_sentences <= GAUGE_SENTENCES
                               else self.gauge(unit))
                reference = unit.masses()
                for name, expert in self.experts_.items():
                    hypothesis = expert.decide(probabilities[name])
                    masses = _masses(hypothesis, unit.n_sentences)
                    by_expert[name].append(score_row(reference, masses)[self.tuning_metric])
                done += 1
                yield Progress("tuning the router", done, total)
            gauges.append(np.asarray(lengths))
            scores.append({name: np.asarray(v) for name, v in by_expert.items()})
        grid = np.asarray(sorted(set(float(t) for t in self.thresholds)))
        curve = routed_scores(grid, gauges, scores)
        best = best_threshold(curve, minimise=self.tuning_metric == "p_k", tolerance=float(self.tolerance))
        self.threshold_ = float(grid[best])
        names = [c.name if [d.name for d in domains].count(c.name) == 1 else f"{c.name} ({i + 1})"
                 for i, c in enumerate(domains)]
        self.tuning_ = {
            "metric": self.tuning_metric,
            "thresholds": [float(t) for t in grid],
            "scores": [float(x) for x in curve],
            "domains": {name: {"documents": int(g.size),
                               "short_chosen": int((g <= self.threshold_).sum()),
                               "routed": float(np.mean(np.where(g <= self.threshold_, s["short"], s["long"]))),
                               "short": float(s["short"].mean()), "long": float(s["long"].mean())}
                        for name, g, s in zip(names, gauges, scores)},
        }
        self.info_ = {"tuned_on": names, "tuned_score": float(curve[best])}
        return self

    # ------------------------------------------------------------------ queries
    def gauge(self, corpus) -> float:
        """The segment length the short expert expects on ``corpus`` (:func:`expected_segment_length`); on a text
        longer than :data:`GAUGE_SENTENCES`, its boundary rate is measured on :func:`gauge_windows` and carried to
        the whole text: n / (1 + rate (n - 1))."""
        corpus = as_corpus(corpus)
        pieces = gauge_windows(corpus)
        if len(pieces) == 1:
            return expected_segment_length(self.short.boundary_probabilities(corpus))
        expected = gaps = 0.0
        for piece in pieces:
            q = self.short.boundary_probabilities(piece)
            expected, gaps = expected + float(q.sum()), gaps + q.size
        n = corpus.n_sentences
        return float(n / (1.0 + expected / gaps * (n - 1)))

    def route(self, corpus) -> Route:
        """Which expert segments ``corpus`` (one document or stream), and the expected length that decided."""
        self._check_fitted()
        length = self.gauge(corpus)
        return Route("short" if length <= self.threshold_ else "long", length, self.threshold_)

    def expert_for(self, corpus) -> Segmenter:
        """The expert :meth:`route` chooses for ``corpus``."""
        return self.experts_[self.route(corpus).expert]

    def boundary_probabilities(self, corpus) -> np.ndarray:
        """q(yes | gap) of the chosen expert at the n - 1 gaps (:meth:`Segmenter.boundary_probabilities`)."""
        return self.expert_for(corpus).boundary_probabilities(corpus)

    def predict_proba(self, corpus) -> np.ndarray:
        """The chosen expert's :meth:`Segmenter.predict_proba`."""
        return self.expert_for(corpus).predict_proba(corpus)

    def predict(self, corpus, *, alpha: float | None = None, epsilon: int | None = None,
                rule: str | None = None) -> tuple[int, ...]:
        """Segment lengths by the chosen expert and its decision rule (``alpha``/``epsilon`` override it)."""
        return self.expert_for(corpus).predict(corpus, alpha=alpha, epsilon=epsilon, rule=rule)

    def score(self, corpus, *, alpha: float | None = None, epsilon: int | None = None,
              rule: str | None = None) -> dict[str, float]:
        """The chosen expert's :meth:`Segmenter.score` on ``corpus`` (one stream)."""
        return self.expert_for(corpus).score(corpus, alpha=alpha, epsilon=epsilon, rule=rule)

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """The router's own JSON document (the experts are stored beside it by :meth:`save`)."""
        self._check_fitted()
        return {"format": FORMAT, "version": VERSION, "segviz_version": __version__,
                "params": {"thresholds": [float(t) for t in self.thresholds], "tuning_metric": self.tuning_metric,
                           "tolerance": float(self.tolerance)},
                "threshold": self.threshold_, "experts": list(EXPERTS), "tuning": self.tuning_, "info": self.info_}

    def save(self, path: str | os.PathLike, *, parents: bool = False) -> Path:
        """Write the router and both experts (with any language models) as ONE bundle file, atomically."""
        self._check_fitted()
        documents: dict[str, dict] = {"router": self.to_dict()}
        arrays: dict[str, np.ndarray] = {}
        for name, expert in self.experts_.items():
            expert_documents, expert_arrays = expert.bundle_parts(name)
            documents.update(expert_documents)
            arrays.update(expert_arrays)
        return write_bundle(path, KIND, documents, arrays, parents=parents)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "ExpertRouter":
        """Read a router saved by :meth:`save`, validating every field before use."""
        return cls.from_bundle(read_bundle(path, kind=KIND))

    @classmethod
    def from_bundle(cls, bundle) -> "ExpertRouter":
        source = bundle.source
        d = bundle.document("router")
        if d.get("format") != FORMAT:
            raise SegvizError(f"{source}: router.json is not a segviz router (format {d.get('format')!r})")
        if d.get("version") != VERSION:
            raise SegvizError(f"{source}: router version {d.get('version')!r} is not supported "
                              f"(this segviz reads version {VERSION})")
        if d.get("experts") != list(EXPERTS):
            raise SegvizError(f"{source}: field 'experts' must be {list(EXPERTS)}, not {d.get('experts')!r}")
        params = d.get("params")
        if not isinstance(params, dict):
            raise SegvizError(f"{source}: field 'params' must be an object")
        threshold = d.get("threshold")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold) \
                or threshold <= 0:
            raise SegvizError(f"{source}: field 'threshold' must be a positive number, not {threshold!r}")
        thresholds = params.get("thresholds")
        if not isinstance(thresholds, list) or not thresholds or len(thresholds) > 10_000 or not all(
                isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t > 0
                for t in thresholds):
            raise SegvizError(f"{source}: field 'params.thresholds' must be a list of positive numbers")
        metric = params.get("tuning_metric")
        if metric not in _TUNING_METRICS:
            raise SegvizError(f"{source}: field 'params.tuning_metric' must be one of {', '.join(_TUNING_METRICS)}")
        tolerance = params.get("tolerance")
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < 1:
            raise SegvizError(f"{source}: field 'params.tolerance' must be a number in [0, 1)")
        for field_name, expected in (("tuning", dict), ("info", dict)):
            if not isinstance(d.get(field_name), expected):
                raise SegvizError(f"{source}: field {field_name!r} must be an object")
        experts = {name: Segmenter.from_bundle(bundle, name) for name in EXPERTS}
        router = cls(short=experts["short"], long=experts["long"], thresholds=tuple(float(t) for t in thresholds),
                     tuning_metric=metric, tolerance=float(tolerance))
        router.threshold_ = float(threshold)
        router.tuning_ = d["tuning"]
        router.info_ = d["info"]
        return router


def routed_scores(grid: np.ndarray, gauges: Sequence[np.ndarray], scores: Sequence[dict]) -> np.ndarray:
    """The held-out score of each threshold of ``grid``: per domain, the mean over its documents of the short
    expert's score where its gauge is at most the threshold and the long expert's elsewhere; then the mean over
    domains (each weighs the same)."""
    return np.array([np.mean([np.mean(np.where(g <= t, s["short"], s["long"])) for g, s in zip(gauges, scores)])
                     for t in grid])


def best_threshold(curve: np.ndarray, *, minimise: bool, tolerance: float) -> int:
    """Index into the threshold grid (``curve`` holds its scores, in grid order) of the threshold to keep: among the scores within ``tolerance`` of the best, the
    middle of the longest run of neighbouring grid values (the first such run on a tie)."""
    signed = np.asarray(curve, dtype=np.float64) * (1.0 if minimise else -1.0)
    winners = np.flatnonzero(signed <= signed.min() + tolerance + 1e-12)
    runs = np.split(winners, np.flatnonzero(np.diff(winners) > 1) + 1)
    run = max(runs, key=len)
    return int(run[len(run) // 2])


def _masses(boundaries, n: int) -> tuple[int, ...]:
    return tuple(int(m) for m in boundaries_to_masses(boundaries, n))
