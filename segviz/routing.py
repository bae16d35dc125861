"""Experts and gauges: a model that picks, per document, one of several segmenters, each built for segments of
one scale (beyond the paper).

One exponential model with one decision rule serves 7-sentence excerpts, 25-sentence sections and 130-sentence
texts badly (docs/reproduction.md, "A default model that travels"): trained on all of them, it learns to cut where
a few sentences share no words, which inside a long text happens often; trained on some, it misplaces the others.
:class:`ExpertRouter` keeps several fitted :class:`~segviz.segmenter.Segmenter` s in order, finest scale first,
and a decision list over them.  Each expert but the last has a *gauge*: the segment length some expert (itself,
or another) expects in the document,

    n / (1 + sum over the n - 1 gaps of q(yes | gap))

(the gauge expert's boundary probabilities q of Section 4; the expected number of boundaries is their sum).  The
first expert whose gauge is at most its threshold segments the document, with its own decision rule (Section 7);
when none claims it, the last one does (:class:`Check`, :class:`Route`: the decision list asked of one document).
(A text of more than :data:`GAUGE_SENTENCES` sentences is gauged on evenly spread windows of that many sentences in
all: the expected boundary rate carries over.)  The thresholds are tuned on held-out documents as the decision
rule's α and ε are (Section 7), by the same tuning implementation (:func:`segviz.tuning.coordinate_search`, choosing
as :func:`segviz.tuning.best_on_grid` does): for the best mean score over the held-out documents, each held-out
domain weighing the same, one threshold at a time until none moves.

The router is an estimator in scikit-learn's style: ``experts`` (name and fitted segmenter, in order), ``gauges``
and the threshold grid are stored verbatim; :meth:`fit` / :meth:`fit_iter` tune ``thresholds_``; :meth:`route`
says which expert a document gets and why.  It implements the model layer's protocol
(:class:`segviz.model_protocol.SegmentationModel`): :meth:`apply` routes each document on its own and answers
with the chosen expert and that expert's own decision rule, and :meth:`predict`, :meth:`predict_proba` and
:meth:`score` are built on it, so a router segments exactly as a single segmenter would be asked to.  It is saved as one bundle (:mod:`segviz.bundle`, kind ``router``) holding every segmenter, and read
back by :meth:`ExpertRouter.load` or :func:`segviz.models.load_model`.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from segviz import __version__
from segviz.bundle import read_bundle, write_bundle
from segviz.corpus import Corpus, Document
from segviz.errors import SegvizError
from segviz.evaluation import evaluation_units
from segviz.events import Progress, run_to_end
from segviz.limits import MAX_MEAN_LENGTH
from segviz.lm.models import LanguageModels
from segviz.metrics import score_row
from segviz.model_protocol import AppliedDocument, InducedFeatures, SegmentationModel, TrainingLengths, as_corpus
from segviz.params import Choice, Number, ParamsMixin, check_plain_numbers, checked_fields
from segviz.params import Sequence as ListOf
from segviz.rules import DecisionRule, document_sizes
from segviz.segmentation import boundaries_to_masses
from segviz.segmenter import SEGMENTER_NAME, Segmenter
from segviz.tuning import coordinate_search

__all__ = ["ExpertRouter", "Route", "Check", "EXPERT_NAME", "DEFAULT_THRESHOLDS", "KIND", "expected_segment_length",
           "route_choices", "routed_scores", "gauge_windows", "GAUGE_SENTENCES", "GAUGE_WINDOWS"]

KIND = "router"
FORMAT = "segviz-router"
VERSION = 1
#: the tuning grid of each threshold on a gauge (an expected segment length, in sentences)
DEFAULT_THRESHOLDS = tuple(float(t) for t in np.round(np.geomspace(3.0, 400.0, 161), 2))
#: held-out scores within this of the best count as tied, so that one held-out document near a threshold does not
#: set it (0.1 points of P_k or P_mu)
DEFAULT_TOLERANCE = 0.001
#: passes over the thresholds, one at a time, before the tuning gives up waiting for them to settle
MAX_TUNING_PASSES = 10
#: at most this many settings of all thresholds together are tried on the coarse grid the tuning starts from
COARSE_SETTINGS = 100_000
_TUNING_METRICS = ("p_k", "p_mu")
#: a threshold on a gauge: an expected segment length in sentences
_THRESHOLD = Number(0.0, MAX_MEAN_LENGTH, open_low=True)
#: an expert's name: a lowercase word
EXPERT_NAME = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
_NAME = EXPERT_NAME
#: a text longer than this is gauged on GAUGE_WINDOWS windows spread evenly over it, GAUGE_SENTENCES sentences in
#: all: a gauge is a rate, and on 70k sentences an expert's questions on every sentence would cost as much as
#: applying the chosen expert (docs/benchmarks.md)
GAUGE_SENTENCES = 1200
GAUGE_WINDOWS = 6


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
class Check:
    """One rule of a router's decision list asked of a document: ``expert`` claims it when the segment length
    the ``gauge`` expert expects there, ``expected_length``, is at most ``threshold``."""

    expert: str
    gauge: str
    expected_length: float
    threshold: float

    @property
    def claims(self) -> bool:
        return self.expected_length <= self.threshold


@dataclass(frozen=True)
class Route:
    """Which expert answered for a document (``expert``) and the checks of the decision list that led there, in
    the order they were asked."""

    expert: str
    checks: tuple[Check, ...] = ()

    def describe(self) -> str:
        """``the excerpts expert: the excerpts expert expects segments of 6.7 sentences here (at most 10.2)``; for
        an expert further down the list, why each one before it declined (each gauge said once)."""
        by_gauge: dict[str, list[Check]] = {}
        for check in self.checks:
            by_gauge.setdefault(check.gauge, []).append(check)
        said = []
        for gauge, checks in by_gauge.items():
            declined = [c for c in checks if not c.claims]
            claimed = [c for c in checks if c.claims]
            bits = []
            if declined:
                bits.append(f"more than {' and '.join(f'{c.threshold:g}' for c in declined)}: not the "
                            f"{' or the '.join(c.expert for c in declined)} expert")
            if claimed:
                bits.append(f"at most {claimed[0].threshold:g}")
            said.append(f"the {gauge} expert expects segments of {checks[0].expected_length:.1f} sentences here "
                        f"({'; '.join(bits)})")
        return f"the {self.expert} expert: " + "; ".join(said) if said else f"the {self.expert} expert"

    def summary(self) -> str:
        """One short line: ``the long-form expert (expected segment lengths: excerpts 22.2, mixed 188.2)``."""
        lengths: dict[str, float] = {}
        for check in self.checks:
            lengths.setdefault(check.gauge, check.expected_length)
        said = ", ".join(f"{gauge} {length:.1f}" for gauge, length in lengths.items())
        return f"the {self.expert} expert" + (f" (expected segment lengths: {said})" if said else "")

    def to_dict(self) -> dict:
        return {"expert": self.expert, "checks": [[c.expert, c.gauge, c.expected_length, c.threshold]
                                                  for c in self.checks]}

    @classmethod
    def from_dict(cls, d: dict) -> Route:
        """The route :meth:`to_dict` wrote, its fields checked (ValueError otherwise)."""
        if not isinstance(d, dict):
            raise ValueError("a route must be an object")
        expert, checks = d.get("expert"), d.get("checks")
        if not (isinstance(expert, str) and EXPERT_NAME.match(expert)) or not isinstance(checks, list) \
                or len(checks) > 64:
            raise ValueError("an unknown route")
        out = []
        for item in checks:
            if not isinstance(item, list) or len(item) != 4:
                raise ValueError("an unknown route")
            name, gauge, length, threshold = item
            if not all(isinstance(x, str) and EXPERT_NAME.match(x) for x in (name, gauge)) or not all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                    for x in (length, threshold)) or length < 0:   # a length: never negative
                raise ValueError("an unknown route")
            out.append(Check(name, gauge, float(length), float(threshold)))
        return cls(expert, tuple(out))


class ExpertRouter(ParamsMixin, SegmentationModel):
    """Per-document choice among fitted segmenters by a decision list over gauges (module docstring).

    Parameters (keyword-only, stored verbatim)
    ------------------------------------------
    experts : ``(name, fitted Segmenter)`` pairs, finest segment scale first; the last takes what no other claims.
        Names are lowercase words (``excerpts``, ``long-form``).
    gauges : for each expert but the last, the name of the expert whose expected segment length decides whether
        it claims a document (itself, or an expert that tells the scales apart better).
    thresholds : the tuning grid of every threshold.
    tuning_metric : ``"p_k"`` (minimised) or ``"p_mu"`` (maximised), each held-out document scored with the
        expert the thresholds give it.
    tolerance : thresholds whose held-out score is within this of the best count as tied; the middle of the
        longest run of tied neighbours is kept.

    Learned state
    -------------
    thresholds_ : one per rule: the expert claims a document when its gauge is at most this many sentences.
    tuning_ : the held-out score of every value of the last tuned threshold of each rule, and per held-out domain
        how many documents each expert took and the scores, routed and of each expert alone.
    info_ : provenance (what the experts and the tuning saw).
    """

    #: what the tuning settings accept (checked by :meth:`check_params` and when a saved router is read)
    PARAM_CONSTRAINTS = {"thresholds": ListOf(_THRESHOLD, 1, 10_000), "tuning_metric": Choice(_TUNING_METRICS),
                         "tolerance": Number(0.0, 1.0, open_high=True)}

    def __init__(self, *, experts: Sequence[tuple[str, Segmenter]] = (), gauges: Sequence[str] = (),
                 thresholds: Sequence[float] = DEFAULT_THRESHOLDS, tuning_metric: str = "p_k",
                 tolerance: float = DEFAULT_TOLERANCE):
        self.experts = experts
        self.gauges = gauges
        self.thresholds = thresholds
        self.tuning_metric = tuning_metric
        self.tolerance = tolerance

    def __repr__(self) -> str:
        parts = [f"{name}={len(expert.features_)} features" for name, expert in self.experts_.items()] \
            if self._experts_valid() else ["unchecked experts"]
        if self.is_fitted:
            parts.append("thresholds=" + "/".join(f"{t:g}" for t in self.thresholds_))
        return f"ExpertRouter({', '.join(parts)})" if self.is_fitted else "ExpertRouter(unfitted)"

    # ------------------------------------------------------------------ validation
    def _experts_valid(self) -> bool:
        try:
            self._check_experts()
        except SegvizError:
            return False
        return True

    def _check_experts(self) -> None:
        pairs = list(self.experts)
        if len(pairs) < 2:
            raise SegvizError("a router needs at least two experts, as (name, fitted Segmenter) pairs")
        names = []
        for pair in pairs:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise SegvizError("experts must be (name, fitted Segmenter) pairs")
            name, expert = pair
            if not isinstance(name, str) or not _NAME.match(name):
                raise SegvizError(f"expert name {name!r} must be a lowercase word (letters, digits, '-')")
            if not isinstance(expert, Segmenter) or not expert.is_fitted:
                raise SegvizError(f"the router's {name} expert must be a fitted Segmenter")
            names.append(name)
        if len(set(names)) != len(names):
            raise SegvizError(f"two experts share a name: {names}")
        gauges = list(self.gauges)
        if len(gauges) != len(names) - 1 or not all(g in names for g in gauges):
            raise SegvizError(f"gauges must name, for each expert but the last ({', '.join(names[:-1])}), one of "
                              f"the experts; got {gauges!r}")

    def _validate_params(self) -> None:
        self._check_experts()
        self.check_declared_params()

    @property
    def is_fitted(self) -> bool:
        return getattr(self, "thresholds_", None) is not None

    def _check_fitted(self) -> None:
        if not self.is_fitted:
            raise SegvizError("this ExpertRouter is not fitted yet: call fit() or load() first")

    @property
    def experts_(self) -> dict[str, Segmenter]:
        """The experts by name, in order."""
        return {name: expert for name, expert in self.experts}

    @property
    def names_(self) -> list[str]:
        return [name for name, _ in self.experts]

    @property
    def fallback_(self) -> Segmenter:
        """The last expert: what a document gets when no rule claims it (and what is shown before any text)."""
        return list(self.experts)[-1][1]

    # ------------------------------------------------------------------ fitting
    def fit(self, heldout) -> ExpertRouter:
        """Tune ``thresholds_`` on held-out documents (:meth:`fit_iter` run to the end)."""
        return run_to_end(self.fit_iter(heldout))

    def fit_iter(self, heldout) -> Generator[Progress, None, ExpertRouter]:
        """Tune ``thresholds_`` on ``heldout``: a corpus, or a sequence of corpora (held-out domains, each weighing
        the same in the mean), each scored document by document (its source files).

        Every expert segments every held-out document with its own decision rule, and every gauge is measured.
        The best setting of all thresholds together on a coarse grid (:data:`COARSE_SETTINGS` settings at most)
        is the start; then each threshold in turn is set, on the whole grid, to the value that gives the best mean
        score with the others held (:func:`routed_scores`; scores within ``tolerance`` of the best tie, and the
        middle of the longest run of tied neighbours is kept; :func:`segviz.tuning.coordinate_search`), until a
        pass moves none.
        (One threshold at a time from a poor start stalls: an expert claiming little cannot show what it would
        gain while the one before it claims its documents.)  Yields
        ``Progress("tuning the router", documents_done, n_documents)``."""
        self._validate_params()
        domains = [heldout] if isinstance(heldout, Corpus) else list(heldout)
        if not domains or not all(isinstance(c, Corpus) for c in domains):
            raise SegvizError("the router is tuned on a held-out corpus or a sequence of them")
        units = [evaluation_units(c, "per-document") for c in domains]
        total = sum(len(u) for u in units)
        names, experts, gauge_names = self.names_, self.experts_, list(self.gauges)
        yield Progress("tuning the router", 0, total)
        gauges, scores, done = [], [], 0
        for domain_units in units:
            g = np.zeros((len(domain_units), len(gauge_names)))
            s = np.zeros((len(domain_units), len(names)))
            for i, unit in enumerate(domain_units):
                probabilities = {name: expert.boundary_probabilities(unit) for name, expert in experts.items()}
                for j, gauge in enumerate(gauge_names):
                    g[i, j] = (expected_segment_length(probabilities[gauge]) if unit.n_sentences <= GAUGE_SENTENCES
                               else self._gauge(gauge, unit))
                reference = unit.masses()
                sizes = document_sizes(unit.sentences())
                for k, (name, expert) in enumerate(experts.items()):
                    masses = _masses(expert.rule_for(unit).decide(probabilities[name], sizes), unit.n_sentences)
                    s[i, k] = score_row(reference, masses)[self.tuning_metric]
                done += 1
                yield Progress("tuning the router", done, total)
            gauges.append(g)
            scores.append(s)
        grid = np.asarray(sorted(set(float(t) for t in self.thresholds)))
        # the one tuning implementation (segviz.tuning): every threshold together on a coarse grid, then one at a
        # time on the whole grid, the middle of a plateau of scores within the tolerance kept
        chosen, curves = coordinate_search(lambda thresholds: routed_scores(thresholds, gauges, scores), grid,
                                           len(gauge_names), minimise=self.tuning_metric == "p_k",
                                           tolerance=float(self.tolerance), max_start=COARSE_SETTINGS,
                                           max_passes=MAX_TUNING_PASSES)
        self.thresholds_ = [float(grid[c]) for c in chosen]
        labels = [c.name if [d.name for d in domains].count(c.name) == 1 else f"{c.name} ({i + 1})"
                  for i, c in enumerate(domains)]
        thresholds = np.asarray(self.thresholds_)
        self.tuning_ = {
            "metric": self.tuning_metric,
            "grid": [float(t) for t in grid],
            "curves": {f"{names[r]} (gauge: {gauge_names[r]})": curves[r] for r in range(len(gauge_names))},
            "domains": {label: {"documents": int(g.shape[0]),
                                "taken": {name: int(n) for name, n in zip(
                                    names, np.bincount(route_choices(thresholds, g), minlength=len(names)))},
                                "routed": float(routed_scores(thresholds, [g], [s])),
                                "alone": {name: float(s[:, k].mean()) for k, name in enumerate(names)}}
                        for label, g, s in zip(labels, gauges, scores)},
        }
        self.info_ = {"tuned_on": labels, "tuned_score": float(routed_scores(thresholds, gauges, scores))}
        return self

    # ------------------------------------------------------------------ queries
    def _gauge(self, name: str, corpus: Corpus) -> float:
        pieces = gauge_windows(corpus)
        expert = self.experts_[name]
        if len(pieces) == 1:
            return expected_segment_length(expert.boundary_probabilities(corpus))
        expected = gaps = 0.0
        for piece in pieces:
            q = expert.boundary_probabilities(piece)
            expected, gaps = expected + float(q.sum()), gaps + q.size
        n = corpus.n_sentences
        return float(n / (1.0 + expected / gaps * (n - 1)))

    def gauge(self, name: str, corpus) -> float:
        """The segment length expert ``name`` expects on ``corpus`` (:func:`expected_segment_length`); on a text
        longer than :data:`GAUGE_SENTENCES`, its boundary rate is measured on :func:`gauge_windows` and carried to
        the whole text: n / (1 + rate (n - 1))."""
        if name not in self.experts_:
            raise SegvizError(f"no expert called {name!r}; the router has {', '.join(self.names_)}")
        return self._gauge(name, as_corpus(corpus))

    def expert_for(self, document) -> str:
        """The expert :meth:`route` chooses for ``document``."""
        if document is None:
            raise SegvizError("a router decides each document with its chosen expert's rule: give the document")
        return self.route(document).expert

    def route(self, corpus) -> Route:
        """Which expert segments ``corpus`` (one document or stream), and the gauges that decided (each measured
        once, and only when asked).  A gauge measured on every sentence leaves its expert's feature matrix cached
        on that corpus (:meth:`Segmenter.feature_matrix`), so applying the chosen expert next costs nothing more."""
        self._check_fitted()
        corpus = as_corpus(corpus)
        measured: dict[str, float] = {}
        checks = []
        for (name, _), gauge, threshold in zip(self.experts, self.gauges, self.thresholds_):
            if gauge not in measured:
                measured[gauge] = self._gauge(gauge, corpus)
            check = Check(name, gauge, measured[gauge], threshold)
            checks.append(check)
            if check.claims:
                return Route(name, tuple(checks))
        return Route(self.names_[-1], tuple(checks))

    def apply(self, document, *, n_jobs: int = 1) -> AppliedDocument:
        """The chosen expert on one document (:meth:`route`): its gap probabilities and its own decision rule
        (``n_jobs``: :meth:`Segmenter.apply`)."""
        document = as_corpus(document)
        route = self.route(document)
        applied = self.experts_[route.expert].apply(document, n_jobs=n_jobs)
        return AppliedDocument(applied.probabilities, applied.rule, route.expert, applied.segmenter, route,
                               applied.sizes)

    # ------------------------------------------------------------------ the model protocol's accessors
    def segmenters(self) -> dict[str, Segmenter]:
        """The experts by name, in order."""
        return self.experts_

    def _of_each(self, accessor) -> dict:
        # each expert is a lone segmenter: its accessor's one entry, under the expert's name
        return {name: accessor(expert)[SEGMENTER_NAME] for name, expert in self.experts}

    def rules(self) -> dict[str, DecisionRule]:
        """Each expert's decision rule."""
        return self._of_each(Segmenter.rules)

    def language_models(self) -> dict[str, LanguageModels | None]:
        """Each expert's language models."""
        return self._of_each(Segmenter.language_models)

    def features(self) -> dict[str, InducedFeatures]:
        """Each expert's induced features."""
        return self._of_each(Segmenter.features)

    def training_lengths(self) -> dict[str, TrainingLengths]:
        """What each expert's training text measured."""
        return self._of_each(Segmenter.training_lengths)

    def provenance(self) -> dict[str, dict]:
        """What each expert's training recorded."""
        return self._of_each(Segmenter.provenance)

    def decision_list(self) -> list[tuple[str, str, float]]:
        """The decision list: ``(expert, gauge, threshold)`` for each expert but the last, in the order asked."""
        self._check_fitted()
        return [(name, gauge, float(t)) for (name, _), gauge, t in zip(self.experts, self.gauges, self.thresholds_)]

    def with_rule(self, rule: DecisionRule, *, expert: str | None = None) -> ExpertRouter:
        """A copy of this router whose experts decide with ``rule`` (``expert``: only that one); the experts'
        probabilities, the gauges and the thresholds are unchanged."""
        self._check_fitted()
        if expert is not None and expert not in self.experts_:
            raise SegvizError(f"no expert called {expert!r}; the router has {', '.join(self.names_)}")
        experts = [(name, seg.with_rule(rule) if expert in (None, name) else seg) for name, seg in self.experts]
        router = ExpertRouter(experts=experts, gauges=self.gauges, thresholds=self.thresholds,
                              tuning_metric=self.tuning_metric, tolerance=self.tolerance)
        router.thresholds_ = list(self.thresholds_)
        router.tuning_ = self.tuning_
        router.info_ = self.info_
        return router

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """The router's own JSON document (the experts are stored beside it by :meth:`save`)."""
        self._check_fitted()
        return {"format": FORMAT, "version": VERSION, "segviz_version": __version__,
                "params": {"thresholds": [float(t) for t in self.thresholds], "tuning_metric": self.tuning_metric,
                           "tolerance": float(self.tolerance), "gauges": list(self.gauges)},
                "experts": self.names_, "thresholds": [float(t) for t in self.thresholds_],
                "tuning": self.tuning_, "info": self.info_}

    def save(self, path: str | os.PathLike, *, parents: bool = False) -> Path:
        """Write the router and its experts (with any language models) as ONE bundle file, atomically."""
        self._check_fitted()
        self._check_experts()
        documents: dict[str, dict] = {"router": self.to_dict()}
        arrays: dict[str, np.ndarray] = {}
        for name, expert in self.experts:
            expert_documents, expert_arrays = expert.bundle_parts(f"experts/{name}")
            documents.update(expert_documents)
            arrays.update(expert_arrays)
        return write_bundle(path, KIND, documents, arrays, parents=parents)

    @classmethod
    def load(cls, path: str | os.PathLike) -> ExpertRouter:
        """Read a router saved by :meth:`save`, validating every field before use."""
        return cls.from_bundle(read_bundle(path, kind=KIND))

    @classmethod
    def from_bundle(cls, bundle) -> ExpertRouter:
        source = bundle.source
        d = bundle.document("router")
        if d.get("format") != FORMAT:
            raise SegvizError(f"{source}: router.json is not a segviz router (format {d.get('format')!r})")
        if d.get("version") != VERSION:
            raise SegvizError(f"{source}: router version {d.get('version')!r} is not supported "
                              f"(this segviz reads version {VERSION})")
        names = d.get("experts")
        if not isinstance(names, list) or not 2 <= len(names) <= 16 or not all(
                isinstance(n, str) and _NAME.match(n) for n in names) or len(set(names)) != len(names):
            raise SegvizError(f"{source}: field 'experts' must list 2-16 distinct lowercase names")
        params = d.get("params")
        if not isinstance(params, dict):
            raise SegvizError(f"{source}: field 'params' must be an object")
        gauges = params.get("gauges")
        if not isinstance(gauges, list) or len(gauges) != len(names) - 1 or not all(g in names for g in gauges):
            raise SegvizError(f"{source}: field 'params.gauges' must name an expert for each expert but the last")
        # types before values (a 4,000-digit integer is out of range, never converted): segviz.params
        learned = checked_fields(d, {"thresholds": ListOf(_THRESHOLD, len(names) - 1, len(names) - 1)},
                                 source=source)["thresholds"]
        checked = checked_fields(params, {name: cls.PARAM_CONSTRAINTS[name]
                                          for name in ("thresholds", "tuning_metric", "tolerance")},
                                 source=source, prefix="params.")
        grid, metric, tolerance = checked["thresholds"], checked["tuning_metric"], checked["tolerance"]
        for field_name in ("tuning", "info"):
            if not isinstance(d.get(field_name), dict):
                raise SegvizError(f"{source}: field {field_name!r} must be an object")
            check_plain_numbers(d[field_name], field_name, source=source)
        experts = [(name, Segmenter.from_bundle(bundle, f"experts/{name}")) for name in names]
        router = cls(experts=experts, gauges=tuple(gauges), thresholds=tuple(float(t) for t in grid),
                     tuning_metric=metric, tolerance=float(tolerance))
        router.thresholds_ = [float(t) for t in learned]
        router.tuning_ = d["tuning"]
        router.info_ = d["info"]
        return router


def route_choices(thresholds: np.ndarray, gauges: np.ndarray) -> np.ndarray:
    """Per document (a row of ``gauges``, one column per rule), the index of the expert the decision list gives
    it: the first rule whose gauge is at most its threshold, else the last expert."""
    claims = np.asarray(gauges) <= np.asarray(thresholds)[None, :]
    first = np.argmax(claims, axis=1)
    return np.where(claims.any(axis=1), first, claims.shape[1])


def routed_scores(thresholds: np.ndarray, gauges: Sequence[np.ndarray], scores: Sequence[np.ndarray]) -> float:
    """The held-out score of one setting of the thresholds: per domain, the mean over its documents of the score
    of the expert :func:`route_choices` gives each (``scores``: documents x experts); then the mean over domains
    (each weighs the same)."""
    per_domain = []
    for g, s in zip(gauges, scores):
        choice = route_choices(thresholds, g)
        per_domain.append(float(np.mean(s[np.arange(s.shape[0]), choice])))
    return float(np.mean(per_domain))


def _masses(boundaries, n: int) -> tuple[int, ...]:
    return tuple(int(m) for m in boundaries_to_masses(boundaries, n))
