"""The app's session state, in plain Python (no Qt).

A :class:`SessionState` holds the open corpus and its reference segmentation, the open model
(:class:`segviz.model_protocol.SegmentationModel`: one segmenter or a router of several), its boundary
probabilities, the plan of the documents (:class:`PlanUnit`: each source unit decided on its own by the decision
rule of the segmenter that answered for it, exactly as ``segviz segment`` decides it), the resulting hypothesis and
every metrics row, the peer segmenters' hypotheses and the feature-induction history.  The decision panel edits
the rule of the *shown* segmenter (:attr:`SessionState.shown_expert`); every document that segmenter answers for
is decided again.  Views listen through :meth:`SessionState.subscribe`; :class:`segviz.app.qt_session.QtSession`
is the thin QObject wrapper that turns those notifications into Qt signals.  Every number comes from the engine
(:mod:`segviz.rules`, :mod:`segviz.metrics`, :mod:`segviz.baselines`, :mod:`segviz.segmentation`); the state only
caches what a control would otherwise recompute: each document's rule preparation
(:meth:`segviz.rules.DecisionRule.prepare`: for the threshold rule the greedy pass of one epsilon, so moving alpha
costs one comparison per position).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..baselines import BASELINES, baseline_masses
from ..metrics import score_row
from ..rules import DecisionRule, ThresholdRule
from ..segmentation import boundaries_to_masses, default_mu, masses_to_boundaries, segment_starts
from ..segmented import SegmentedDocument
from ..service.corpus_outline import CorpusOutline
from ..service.plan import PlanUnit, check_units

# Notification topics (one per kind of change, so views redraw only what changed).
CORPUS = "corpus"            # corpus, reference, baselines replaced
PROBABILITIES = "probabilities"  # model probabilities (and relevance) replaced
HYPOTHESIS = "hypothesis"    # alpha / epsilon / hypothesis / model metrics changed
PEERS = "peers"              # a peer's masses arrived or its visibility toggled
FEATURES = "features"        # induction history grew or was reset
MODEL = "model"              # segmenter replaced
METRICS = "metrics"          # the model's metrics row was recomputed on its own (after a deferred update)
RELEVANCE = "relevance"      # per-sentence relevance and its profile replaced on their own

MODEL_ROW = "model"

#: rule preparations kept (per document and preparation key); a slider visits few epsilons, each pass O(n log n)
MAX_CACHED_PREPARATIONS = 4096
#: from this many sentences a moved rule's hypothesis is shown first and the model's metrics row follows in a later
#: event-loop pass (when the window gives a :attr:`SessionState.metrics_scheduler`): scoring costs 2 ms at 70k
#: sentences, 6.5 ms at 2*10^5 and 18-26 ms at 10^6 (``score_row``), most of an α step on the largest streams
DEFER_METRICS_FROM = 200_000


@dataclass
class InductionRound:
    """One induced feature as the feature panel shows it (from an engine ``FeatureAdded`` event)."""

    round: int
    feature: Any
    gain: float
    weight: float                    # e^lambda of this feature right after it was added
    train_loglik: float
    heldout_p_mu: float | None


def check_decision(alpha: float, epsilon: int) -> tuple[float, int]:
    """``(alpha, epsilon)`` as the decision rule takes them, or ValueError (0 <= alpha <= 1, epsilon >= 1)."""
    alpha = float(alpha)
    if not (math.isfinite(alpha) and 0.0 <= alpha <= 1.0):
        raise ValueError(f"the threshold α must lie in [0, 1], got {alpha}")
    if isinstance(epsilon, float) and not (math.isfinite(epsilon) and epsilon == int(epsilon)):
        raise ValueError(f"the minimum separation ε must be a whole number of sentences, got {epsilon}")
    epsilon = int(epsilon)
    if epsilon < 1:
        raise ValueError(f"the minimum separation ε must be at least 1 sentence, got {epsilon}")
    return alpha, epsilon


class SessionState:
    """Plain-Python state of one segviz session.

    Everything derived (hypothesis, metrics) is recomputed by the setters, so ``state.hypothesis_boundaries`` and
    ``state.metrics`` are always consistent with the rules in ``state.rules``.
    """

    def __init__(self, *, alpha: float = 0.5, epsilon: int = 2, seed: int = 0):
        try:
            alpha, epsilon = check_decision(alpha, epsilon)
        except ValueError:
            alpha, epsilon = 0.5, 2
        #: the threshold rule shown before any model is open (the panel's starting α and ε)
        self._idle_rule = ThresholdRule(alpha=alpha, epsilon=epsilon)
        self.seed = seed
        self.corpus = None
        self.prepared: PreparedCorpus | None = None
        self.corpus_paths: tuple[str, ...] = ()
        self.has_reference = True
        self.reference_masses: tuple[int, ...] = ()
        self.reference_boundaries = np.zeros(0, dtype=np.int64)
        self.mu: float | None = None
        self.texts: list[str] = []
        self.probabilities: np.ndarray | None = None
        self.relevance: np.ndarray | None = None
        self.relevance_profile: dict | None = None
        #: where the relevance comes from: None for the model's own language models, else a label (the bundled
        #: general-English ones, segviz.general_lm)
        self.relevance_source: str | None = None
        self.hypothesis_boundaries = np.zeros(0, dtype=np.int64)
        self.hypothesis_masses: tuple[int, ...] = ()
        self.baseline_masses: dict[str, tuple[int, ...]] = {}
        self.peer_masses: dict[str, tuple[int, ...]] = {}
        self.shown_peers: set[str] = set()
        self.metrics: dict[str, dict[str, float]] = {}
        self.segmenter = None       # the shown segmenter (its features, curve and rule are what the panels show)
        self.model_path: str | None = None
        self.model_note = ""        # e.g. "trained on documents 1-240 of this corpus" (in-sample warning)
        self.coverage = None        # segviz.domain.Coverage of the shown text by the shown model's vocabulary
        self.opened_model = None    # what was opened: a SegmentationModel (one segmenter, or a router of several)
        self.rules: dict[str, DecisionRule] = {}   # the decision rule of each segmenter of the model, by name
        self.shown_expert: str | None = None
        self.units: tuple[PlanUnit, ...] = ()
        self.rounds: list[InductionRound] = []
        #: the e^lambda of every feature as the latest round (or the loaded model) has them: one vector for the
        #: whole table, replaced each round -- a copy per round made memory quadratic in the number of features
        #: (100,000 features: 10^10 floats)
        self.weights: tuple[float, ...] = ()
        self._listeners: list[Callable[[str], None]] = []
        self._n = 0
        self._starts = np.zeros(0, dtype=np.int64)
        #: ``scheduler(callback)`` runs ``callback`` in a later event-loop pass (the window's); None = score at once
        self.metrics_scheduler: Callable[[Callable[[], None]], None] | None = None
        self._metrics_due = False
        self._prepared_rules: dict[tuple[Any, str], Any] = {}
        # per segmenter, what its rule may keep while the probabilities and documents stay (DecisionRule
        # .prepare_documents' scratch): emptied with the preparations
        self._rule_scratch: dict[Any, dict] = {}
        self._spans: dict | None = None

    # -- notification ---------------------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[str], None]) -> None:
        self._listeners.append(callback)

    def _notify(self, topic: str) -> None:
        for callback in list(self._listeners):
            callback(topic)

    # -- derived sizes --------------------------------------------------------------------------------------
    @property
    def n_sentences(self) -> int:
        return self._n

    @property
    def has_model(self) -> bool:
        return self.probabilities is not None

    # -- corpus ---------------------------------------------------------------------------------------------
    def set_corpus(self, corpus: CorpusOutline, path: str | None = None, *, paths=(), has_reference: bool = True,
                   prepared: PreparedCorpus | None = None) -> None:
        """Replace the corpus (its outline, :mod:`segviz.service.corpus_outline`); the model's probabilities, peers and
        relevance of the old corpus are dropped.

        ``has_reference`` False: the documents are not a segmentation to score against (unlabelled text), so
        no metric that needs a reference is computed; a corpus that says it has none (``corpus.has_reference``)
        is taken as unlabelled whatever the argument.  ``prepared`` (:func:`prepare_corpus`, computed in the
        background for a long corpus) holds everything derived from it."""
        if prepared is None or prepared.corpus is not corpus or prepared.seed != self.seed:
            prepared = prepare_corpus(corpus, seed=self.seed, has_reference=has_reference)
        elif not has_reference and prepared.has_reference:
            prepared = prepare_corpus(corpus, seed=self.seed, has_reference=False)
        masses = corpus.masses
        self.prepared = prepared
        self.corpus = corpus
        self._n = int(sum(masses))
        self.corpus_paths = tuple(str(p) for p in paths) or ((path,) if path else ())
        self.has_reference = prepared.has_reference
        self.reference_masses = masses
        self.reference_boundaries = prepared.reference_boundaries
        self._starts = prepared.starts
        self.texts = corpus.texts
        # Section 6: mu is the reciprocal of the mean reference segment length
        self.mu = default_mu(masses) if self.has_reference else None
        self.baseline_masses = dict(prepared.baseline_masses)
        self.peer_masses = {}
        self.probabilities = None
        self._prepared_rules = {}
        self._rule_scratch = {}
        self._spans = None
        self.units = self._default_units()
        self.relevance = None
        self.relevance_profile = None
        self.relevance_source = None
        self.model_note = ""
        self.coverage = None
        self.metrics = {name: dict(row) for name, row in prepared.baseline_metrics.items()}
        self._notify(CORPUS)
        self._recompute_hypothesis()

    def _default_units(self, expert: str | None = None) -> tuple[PlanUnit, ...]:
        """One unit per source unit of the corpus (a file, a JSONL object), each answered by ``expert``."""
        if self.corpus is None:
            return ()
        out, start = [], 0
        for size in self.corpus.source_groups():
            out.append(PlanUnit(start, start + int(size), expert))
            start += int(size)
        return tuple(out)

    def _score(self, masses) -> dict[str, float]:
        return dict(score_row(self.reference_masses, masses))

    # -- model output ---------------------------------------------------------------------------------------
    def set_probabilities(self, probabilities, relevance=None, profile=None, *, units=None,
                          metrics: bool = True, decisions: DecisionPreparation | None = None) -> None:
        """Boundary probabilities for positions 1..n-1 (index b-1 holds position b).

        ``units`` (:class:`PlanUnit` s covering the stream in order) say which segmenter answered for each
        document; without them every source unit is the shown segmenter's.  ``metrics=False`` leaves the model's
        metrics row to :meth:`refresh_metrics` (a live training round: the curve first, the table in the next
        event-loop pass).  ``decisions`` (:func:`prepare_decisions` for these probabilities and units, computed in
        the background) saves the rules' preparation here: on 10^6 sentences the sorts alone held the window
        for 150 ms."""
        if self.corpus is None:
            raise ValueError("load a corpus before setting probabilities")
        probs = np.asarray(probabilities, dtype=np.float64)
        if probs.shape != (self.n_sentences - 1,):
            raise ValueError(f"expected {self.n_sentences - 1} probabilities, got shape {probs.shape}")
        if probs.size and not (np.all(np.isfinite(probs)) and probs.min() >= 0.0 and probs.max() <= 1.0):
            raise ValueError("boundary probabilities must be finite numbers in [0, 1]")
        rel = None
        if relevance is not None:
            rel = np.asarray(relevance, dtype=np.float64)
            if rel.shape != (self.n_sentences,):
                raise ValueError(f"expected {self.n_sentences} relevance values, got shape {rel.shape}")
        plan = self._default_units(self.shown_expert) if units is None else tuple(units)
        check_units(plan, self.n_sentences)
        self.probabilities = probs
        self.units = plan
        self._prepared_rules = {}
        self._rule_scratch = {}
        self._spans = None
        if decisions is not None and decisions.probabilities is probabilities and decisions.units == plan:
            self._prepared_rules = dict(decisions.prepared)
            self._rule_scratch = {expert: dict(scratch) for expert, scratch in decisions.scratch.items()}
        if rel is not None:
            self.relevance = rel
            self.relevance_source = None
        if profile is not None:
            self.relevance_profile = profile
        self._notify(PROBABILITIES)
        self._recompute_hypothesis(metrics=metrics)

    def refresh_metrics(self) -> None:
        """Score the current hypothesis (after ``set_probabilities(..., metrics=False)``)."""
        if self.probabilities is not None and self.has_reference and self.hypothesis_masses:
            self.metrics[MODEL_ROW] = self._score(self.hypothesis_masses)
            self._notify(METRICS)

    def set_relevance(self, relevance, profile, *, source: str | None = None) -> None:
        """Per-sentence relevance (Section 3.3) and its profile, or None for a model without language models;
        ``source`` names language models other than the model's own (the bundled general-English ones)."""
        rel = None
        if relevance is not None:
            rel = np.asarray(relevance, dtype=np.float64)
            if rel.shape != (self.n_sentences,):
                raise ValueError(f"expected {self.n_sentences} relevance values, got shape {rel.shape}")
        self.relevance = rel
        self.relevance_profile = profile
        self.relevance_source = source if rel is not None else None
        self._notify(RELEVANCE)

    def clear_model(self) -> None:
        """Forget the model's curve, hypothesis, metrics row and relevance (e.g. when training starts anew)."""
        self.probabilities = None
        self._prepared_rules = {}
        self._rule_scratch = {}
        self._spans = None
        self.relevance = None
        self.relevance_profile = None
        self.relevance_source = None
        self.segmenter = None
        self.model_path = None
        self.model_note = ""
        self.coverage = None
        self.opened_model = None
        self.rules = {}
        self.shown_expert = None
        self.units = self._default_units()
        self._notify(MODEL)
        self._notify(PROBABILITIES)
        self._recompute_hypothesis()

    def set_model(self, model, path: str | None = None, *, shown: str | None = None) -> None:
        """Take the model (a :class:`~segviz.model_protocol.SegmentationModel`) and the decision rule of each of
        its segmenters (ValueError if one is unusable).  ``shown`` names the segmenter the panels show (default:
        the one answering for most sentences, else the last: a router's expert for the longest segments)."""
        segmenters = dict(model.segmenters())
        rules = {}
        for name, rule in model.rules().items():
            try:
                rules[name] = rule.check()
            except AttributeError:   # not a decision rule at all
                raise ValueError(f"the {name} segmenter has no usable decision rule") from None
            except Exception as exc:   # SegvizError: a rule out of range
                raise ValueError(str(exc)) from None
        if shown is None:
            shown = self._busiest_expert(segmenters) or list(segmenters)[-1]
        if shown not in segmenters:
            raise ValueError(f"the model has no segmenter called {shown!r}")
        self.opened_model = model
        self.rules = rules
        self.shown_expert = shown
        self.segmenter = segmenters[shown]
        self.model_path = path
        self._prepared_rules = {}
        self._rule_scratch = {}
        self._spans = None
        self._notify(MODEL)

    def set_segmenter(self, segmenter, path: str | None = None) -> None:
        """:meth:`set_model` for a model of one segmenter (a model trained in the window)."""
        self.set_model(segmenter, path)

    def _busiest_expert(self, segmenters) -> str | None:
        sizes: dict[str, int] = {}
        for unit in self.units:
            if unit.expert in segmenters:
                sizes[unit.expert] = sizes.get(unit.expert, 0) + unit.end - unit.start
        return max(sizes, key=sizes.get) if sizes else None

    def show_expert(self, name: str) -> None:
        """Show (and let the panels edit) the rule of segmenter ``name``."""
        segmenters = self.opened_model.segmenters() if self.opened_model is not None else {}
        if name not in segmenters:
            raise ValueError(f"the model has no segmenter called {name!r}")
        if name != self.shown_expert:
            self.shown_expert = name
            self.segmenter = segmenters[name]
            self._notify(MODEL)
            self._notify(HYPOTHESIS)

    # -- the decision rules ---------------------------------------------------------------------------------
    @property
    def shown_rule(self) -> DecisionRule:
        """The rule the decision panel shows: the shown segmenter's (a threshold rule before any model)."""
        return self.rules.get(self.shown_expert, self._idle_rule)

    def rule_setting(self, name: str):
        """The shown rule's setting ``name`` (one of its controls), or None when it has no such setting."""
        for control in self.shown_rule.controls():
            if control["name"] == name:
                return control["value"]
        return None

    @property
    def alpha(self) -> float:
        """The threshold rule's α (Section 7) when the shown rule has one, else the idle rule's."""
        value = self.rule_setting("alpha")
        return float(_setting(self._idle_rule, "alpha") if value is None else value)

    @property
    def epsilon(self) -> int:
        value = self.rule_setting("epsilon")
        return int(_setting(self._idle_rule, "epsilon") if value is None else value)

    def set_rule(self, rule: DecisionRule, expert: str | None = None) -> None:
        """Decide the documents of segmenter ``expert`` (default: the shown one) with ``rule``."""
        rule = rule.check()
        expert = self.shown_expert if expert is None else expert
        if expert is None:
            # the idle rule stays one with a threshold α and a separation ε (what the panel shows before a model)
            if _setting(rule, "alpha") is not None and _setting(rule, "epsilon") is not None:
                self._idle_rule = rule
        else:
            lengths = self.opened_model.training_lengths().get(expert) if self.opened_model is not None else None
            self.rules[expert] = rule if lengths is None else \
                rule.with_mean_length(lengths.mean_length, lengths.words_per_sentence)
        defer = self.metrics_scheduler is not None and self.n_sentences >= DEFER_METRICS_FROM
        self._recompute_hypothesis(metrics=not defer)
        if defer and self.has_reference and self.probabilities is not None:
            self._metrics_due = True
            self.metrics_scheduler(self._score_if_due)

    def _score_if_due(self) -> None:
        if self._metrics_due:
            self._metrics_due = False
            self.refresh_metrics()

    def due_metrics(self) -> tuple | None:
        """``(reference masses, hypothesis masses)`` of the model's metrics row a deferred move left to score (on
        the longest streams), None when none is due: what a caller scores elsewhere (off the GUI thread) and hands
        back with :meth:`set_due_metrics`."""
        if not self._metrics_due or not self.has_reference or self.probabilities is None:
            return None
        return self.reference_masses, self.hypothesis_masses

    def set_due_metrics(self, masses, row: dict) -> bool:
        """Take ``row`` (``score_row`` of ``masses`` against the reference) as the model's metrics row when
        ``masses`` are still the hypothesis and its row is still due (a later move makes it stale); True if taken."""
        if not self._metrics_due or masses is not self.hypothesis_masses:
            return False
        self._metrics_due = False
        self.metrics[MODEL_ROW] = dict(row)
        self._notify(METRICS)
        return True

    def set_rule_setting(self, name: str, value) -> None:
        """Move one setting of the shown rule (a control of :meth:`segviz.rules.DecisionRule.controls`)."""
        rule = self.shown_rule
        if self.rule_setting(name) is None or self.rule_setting(name) == value:
            return
        self.set_rule(rule.with_setting(name, value))

    def restore_rules(self) -> None:
        """Back to the rules the open model was saved with (tuned on its own held-out data)."""
        if self.opened_model is None:
            return
        self.rules = dict(self.opened_model.rules())
        self._recompute_hypothesis()

    def model_with_rules(self):
        """The open model deciding with the rules shown now (what "Save model" writes)."""
        model = self.opened_model
        own = model.rules()
        for name, rule in self.rules.items():
            if rule is not own[name]:
                model = model.with_rule(rule, expert=name)
        return model

    def set_alpha(self, alpha: float) -> None:
        alpha = float(alpha)
        if not math.isfinite(alpha):
            return
        alpha = min(max(alpha, 0.0), 1.0)
        if self.rule_setting("alpha") is None:
            self._idle_rule = self._idle_rule.with_setting("alpha", alpha)
            self._notify(HYPOTHESIS)
            return
        self.set_rule_setting("alpha", alpha)

    def set_epsilon(self, epsilon: int) -> None:
        epsilon = max(int(epsilon), 1)
        if self.rule_setting("epsilon") is None:
            self._idle_rule = self._idle_rule.with_setting("epsilon", epsilon)
            self._notify(HYPOTHESIS)
            return
        self.set_rule_setting("epsilon", epsilon)

    def set_decision(self, alpha: float, epsilon: int) -> None:
        """The threshold rule at ``alpha``, ``epsilon`` for the shown segmenter (replacing another kind)."""
        alpha, epsilon = check_decision(min(max(float(alpha), 0.0), 1.0), max(int(epsilon), 1))
        rule = self.shown_rule
        if self.rule_setting("alpha") is not None and self.rule_setting("epsilon") is not None:
            # the shown rule has both settings (a threshold rule): moved, its tuning grids kept
            self.set_rule(rule.with_setting("alpha", alpha).with_setting("epsilon", epsilon))
        else:
            self.set_rule(ThresholdRule(alpha=alpha, epsilon=epsilon))

    def _decide_documents(self, expert, spans: list[tuple[int, int]]) -> np.ndarray:
        """Boundary positions of the documents one segmenter answers for (``spans``: their slices of the gap
        probabilities), by its rule; the rule's preparation is kept per segmenter and preparation key, so a move
        of the threshold α is one comparison over the stream."""
        rule = self.rules.get(expert, self.shown_rule)
        key = (expert, rule.preparation_key())
        prepared = self._prepared_rules.get(key)
        if prepared is None:
            prepared = rule.prepare_documents(self.probabilities, spans,
                                              scratch=self._rule_scratch.setdefault(expert, {}),
                                              sizes=self.corpus.sentence_sizes)
            if len(self._prepared_rules) >= MAX_CACHED_PREPARATIONS:
                self._prepared_rules.pop(next(iter(self._prepared_rules)))
            self._prepared_rules[key] = prepared
        return rule.decide_documents(prepared, self.probabilities, spans)

    def _recompute_hypothesis(self, *, metrics: bool = True) -> None:
        if self.corpus is None:
            return
        if self.probabilities is None:
            self.hypothesis_boundaries = np.zeros(0, dtype=np.int64)
            self.hypothesis_masses = ()
            self.metrics.pop(MODEL_ROW, None)
        else:
            # a document edge is always a boundary; inside, each segmenter decides the documents it answers for
            parts = [np.asarray([u.start for u in self.units if u.start > 0], dtype=np.int64)]
            for expert, spans in self._spans_by_expert().items():
                parts.append(self._decide_documents(expert, spans))
            self.hypothesis_boundaries = np.sort(np.concatenate(parts))
            self.hypothesis_masses = boundaries_to_masses(self.hypothesis_boundaries, self.n_sentences)
            if self.has_reference and metrics:
                self.metrics[MODEL_ROW] = self._score(self.hypothesis_masses)
                self._metrics_due = False
        self._notify(HYPOTHESIS)

    def _spans_by_expert(self) -> dict:
        """Per segmenter, the gap-probability slices of the documents (of two sentences or more) it answers for."""
        if self._spans is None:
            self._spans = spans_by_expert(self.units)
        return self._spans

    # -- the plan -------------------------------------------------------------------------------------------
    def unit_at(self, sentence: int) -> PlanUnit | None:
        """The document (unit of the plan) holding ``sentence``."""
        starts = [u.start for u in self.units]
        i = int(np.searchsorted(starts, sentence, side="right")) - 1
        return self.units[i] if 0 <= i < len(self.units) else None

    def documents_per_expert(self) -> dict[str, int]:
        """How many documents each segmenter answers for, in the model's order."""
        counts: dict[str, int] = {}
        for unit in self.units:
            if unit.expert is not None:
                counts[unit.expert] = counts.get(unit.expert, 0) + 1
        return counts

    def segmented_documents(self) -> list:
        """The shown segmentation as ``segviz segment`` writes it (:class:`segviz.segmented.SegmentedDocument`, one
        per document): the same documents, probabilities, boundaries, experts and rules."""
        if self.corpus is None or self.probabilities is None:
            raise ValueError("no segmentation is shown: open a corpus and a model first")
        out = []
        for unit, source in zip(self.units, self.corpus.units):
            inside = self.hypothesis_boundaries[(self.hypothesis_boundaries > unit.start)
                                                & (self.hypothesis_boundaries < unit.end)] - unit.start
            masses = tuple(int(m) for m in boundaries_to_masses(inside, unit.end - unit.start))
            probabilities = tuple(float(p) for p in self.probabilities[unit.start:unit.end - 1])
            rule = self.rules.get(unit.expert, self.shown_rule)
            out.append(SegmentedDocument(source.name, tuple(self.texts[unit.start:unit.end]), masses, probabilities,
                                         source.paragraph_flags(), unit.expert, rule.describe(), source.titles))
        return out

    @property
    def route(self):
        """Why the router chose the shown segmenter, for a single document; None otherwise."""
        routed = [u for u in self.units if u.route is not None]
        return routed[0].route if len(routed) == 1 else None

    # -- peers ----------------------------------------------------------------------------------------------
    def set_peer(self, name: str, masses, row: dict | None = None) -> None:
        """A peer's masses over the stream; ``row``: their metrics row when it was scored elsewhere (a worker
        thread: ``score_row`` on 10^6 sentences is tens of milliseconds), else it is scored here."""
        masses = tuple(int(m) for m in masses)
        if sum(masses) != self.n_sentences:
            raise ValueError(f"peer {name}: masses cover {sum(masses)} sentences, corpus has {self.n_sentences}")
        self.peer_masses[name] = masses
        if self.has_reference:
            self.metrics[name] = dict(row) if row is not None else self._score(masses)
        self.shown_peers.add(name)
        self._notify(PEERS)

    def show_peer(self, name: str, shown: bool) -> None:
        if shown:
            self.shown_peers.add(name)
        else:
            self.shown_peers.discard(name)
        self._notify(PEERS)

    def visible_rows(self) -> list[str]:
        """Metrics rows in display order: the model, shown peers, then the baselines."""
        rows = [MODEL_ROW] if MODEL_ROW in self.metrics else []
        rows += [p for p in self.peer_masses if p in self.shown_peers and p in self.metrics]
        rows += [b for b in self.baseline_masses if b in self.metrics]
        return rows

    # -- feature induction ----------------------------------------------------------------------------------
    def add_round(self, event) -> InductionRound:
        """Record an engine ``FeatureAdded`` event (round, feature, gain, weights, train_loglik, heldout_p_mu)."""
        weights = tuple(float(w) for w in event.weights)   # the factors e^lambda of all features so far
        row = InductionRound(round=int(event.round), feature=event.feature, gain=float(event.gain),
                             weight=weights[-1] if weights else float("nan"),
                             train_loglik=float(event.train_loglik),
                             heldout_p_mu=None if event.heldout_p_mu is None else float(event.heldout_p_mu))
        self.rounds.append(row)
        self.weights = weights
        self._notify(FEATURES)
        return row

    def shown_features(self):
        """The shown segmenter's induced features (:class:`segviz.model_protocol.InducedFeatures`), or None
        without a model."""
        if self.opened_model is None or self.shown_expert is None:
            return None
        return self.opened_model.features()[self.shown_expert]

    def shown_language_models(self):
        """The shown segmenter's language models, or None (no model, or a model without them)."""
        if self.opened_model is None or self.shown_expert is None:
            return None
        return self.opened_model.language_models()[self.shown_expert]

    def shown_provenance(self) -> dict:
        """What the shown segmenter's training recorded (empty without a model)."""
        if self.opened_model is None or self.shown_expert is None:
            return {}
        return self.opened_model.provenance()[self.shown_expert]

    def load_history(self, segmenter) -> None:
        """Show a loaded model's induction history (its features, final e^λ, gains, held-out P_mu per round):
        ``segmenter``, a model of one segmenter (:meth:`segviz.model_protocol.SegmentationModel.features`)."""
        (induced,) = segmenter.features().values()
        features = list(induced.specs)
        weights = [float(w) for w in np.asarray(induced.weights, dtype=np.float64)]
        history = list(induced.history)
        rounds = []
        for i, feature in enumerate(features):
            h = history[i] if i < len(history) and isinstance(history[i], dict) else {}
            rounds.append(InductionRound(
                round=_int(h.get("round"), i + 1), feature=feature, gain=_float(h.get("gain")),
                weight=weights[i], train_loglik=_float(h.get("train_loglik")),
                heldout_p_mu=None if h.get("heldout_p_mu") is None else _float(h.get("heldout_p_mu"))))
        self.rounds = rounds
        self.weights = tuple(weights)
        self._notify(FEATURES)

    def reset_rounds(self) -> None:
        self.rounds = []
        self.weights = ()
        self._notify(FEATURES)

    def current_weights(self) -> tuple[float, ...]:
        """The e^λ of every feature in the table as the latest round (or the loaded model) has them."""
        return self.weights

    # -- lookups for hover / export -------------------------------------------------------------------------
    def document_of(self, sentence: int) -> int:
        """Index of the reference document holding sentence ``sentence`` (0-based)."""
        return int(np.searchsorted(self._starts, sentence, side="right")) - 1

    def document_starts(self) -> np.ndarray:
        return self._starts

    def title_starts(self) -> np.ndarray:
        """The first sentences of the documents that have a title (ascending; empty for most corpora)."""
        return self.prepared.title_starts if self.prepared is not None else np.zeros(0, dtype=np.int64)

    def titles(self) -> tuple[str, ...]:
        """The titles of the documents starting at :meth:`title_starts`, in the same order."""
        return self.prepared.titles if self.prepared is not None else ()

    def document_title(self, document: int) -> str:
        """Document ``document``'s title (a book's chapter heading as the book gives it), or "" without one."""
        starts = self.title_starts()
        if not starts.size or not 0 <= document < self._starts.size:
            return ""
        first = int(self._starts[document])
        k = int(np.searchsorted(starts, first))
        return self.titles()[k] if k < starts.size and int(starts[k]) == first else ""

    def source_name(self, sentence: int) -> str:
        """The name of the source unit (a file, a JSONL object) holding ``sentence``."""
        if self.prepared is None or not self.corpus.units:
            return ""
        k = int(np.searchsorted(self.prepared.unit_starts, sentence, side="right")) - 1
        return self.corpus.units[min(max(k, 0), len(self.corpus.units) - 1)].name

    def is_document_start(self, sentence: int) -> bool:
        i = int(np.searchsorted(self._starts, sentence))
        return i < self._starts.size and int(self._starts[i]) == sentence

    def is_hypothesis_boundary(self, position: int) -> bool:
        b = self.hypothesis_boundaries
        i = int(np.searchsorted(b, position))
        return i < b.size and int(b[i]) == position

    def probability_at(self, position: int) -> float | None:
        if self.probabilities is None or not 1 <= position <= self.n_sentences - 1:
            return None
        return float(self.probabilities[position - 1])


@dataclass(frozen=True)
class PreparedCorpus:
    """Everything the state derives from a corpus's outline, computed once (in the background for a long corpus)."""

    corpus: Any = field(repr=False)   # the CorpusOutline it was derived from
    seed: int
    has_reference: bool
    reference_boundaries: np.ndarray = field(repr=False)
    starts: np.ndarray = field(repr=False)
    baseline_masses: dict = field(repr=False)
    baseline_metrics: dict = field(repr=False)
    #: the documents that carry a title (a book's chapter heading, a Wiki section title): their first sentences,
    #: ascending, and ``titles[k]`` the title of the one starting at ``title_starts[k]``; empty for most corpora
    title_starts: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, dtype=np.int64))
    titles: tuple[str, ...] = field(repr=False, default=())
    #: the first sentence of each source unit (a file, a JSONL object)
    unit_starts: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(1, dtype=np.int64))


def prepare_corpus(outline: CorpusOutline, *, seed: int = 0, has_reference: bool = True) -> PreparedCorpus:
    """Reference boundaries, document starts, the four baselines and their metrics rows, the documents' titles."""
    has_reference = bool(has_reference) and outline.has_reference
    masses = outline.masses
    n = sum(masses)
    boundaries = masses_to_boundaries(masses) if has_reference else np.zeros(0, np.int64)
    baselines = ({name: tuple(baseline_masses(name, masses, seed=seed)) for name in BASELINES}
                 if has_reference and n >= 2 else {})
    metrics = {name: dict(score_row(masses, m)) for name, m in baselines.items()}
    starts = segment_starts(masses)
    title_starts, titles = document_titles(outline, starts)
    unit_starts = segment_starts(outline.source_groups()) if outline.units else np.zeros(1, dtype=np.int64)
    return PreparedCorpus(outline, seed, has_reference, boundaries, starts, baselines, metrics, title_starts, titles,
                          unit_starts)


def document_titles(outline: CorpusOutline, starts: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """The first sentence and the title of every document that has a non-empty title, in stream order.

    The outline says titles per source unit, as ``(first sentence within the unit, title)``; a pair that does not
    open one of the documents (``starts``) names no document the window shows and is left out."""
    positions: list[int] = []
    titles: list[str] = []
    offset = 0
    for unit in outline.units:
        for at, title in unit.titles:
            if title:
                positions.append(offset + at)
                titles.append(title)
        offset += unit.size
    if not positions:
        return np.zeros(0, dtype=np.int64), ()
    at = np.asarray(positions, dtype=np.int64)
    k = np.minimum(np.searchsorted(starts, at), max(len(starts) - 1, 0))
    opens = (starts[k] == at) if len(starts) else np.zeros(len(at), dtype=bool)
    order = np.argsort(at[opens], kind="stable")
    kept = np.flatnonzero(opens)[order]
    return at[kept], tuple(titles[i] for i in kept.tolist())


def spans_by_expert(units) -> dict:
    """Per segmenter, the gap-probability slices ``(start, stop)`` of the documents (of two sentences or more) it
    answers for in the plan ``units``."""
    spans: dict = {}
    for unit in units:
        if unit.end - unit.start > 1:
            spans.setdefault(unit.expert, []).append((unit.start, unit.end - 1))
    return spans


@dataclass(frozen=True)
class DecisionPreparation:
    """Each segmenter's rule prepared on the documents it answers for (:meth:`DecisionRule.prepare_documents`,
    keyed as :class:`SessionState` keeps them), and what the preparation keeps across settings (the threshold
    rule's visiting orders, so a new ε costs no sort), for one array of probabilities and one plan."""

    probabilities: np.ndarray = field(repr=False)
    units: tuple
    prepared: dict = field(repr=False)
    scratch: dict = field(repr=False)


def prepare_decisions(model, probabilities, units, sizes=None) -> DecisionPreparation:
    """:class:`DecisionPreparation` for ``model``'s segmenters' own rules (what :meth:`SessionState.set_model` shows
    first; ``sizes``: each sentence's, for a rule that measures segments in words); Qt-free and touching no state,
    so it runs on a worker thread."""
    rules = model.rules()
    units = tuple(units)
    prepared, scratch = {}, {}
    for expert, spans in spans_by_expert(units).items():
        rule = rules[expert]
        prepared[(expert, rule.preparation_key())] = rule.prepare_documents(
            probabilities, spans, scratch=scratch.setdefault(expert, {}), sizes=sizes)
    return DecisionPreparation(probabilities, units, prepared, scratch)


def _setting(rule: DecisionRule, name: str):
    """Setting ``name`` of ``rule`` (one of its controls), or None when the rule has no such setting."""
    for control in rule.controls():
        if control["name"] == name:
            return control["value"]
    return None


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
