"""Choosing a segmenter's configuration on held-out data: what ``segviz train`` does unless told otherwise.

The paper's setup (Sections 3-7: vocabulary and relevance questions, maximum likelihood, the α/ε rule tuned for
P_mu on one stream) suits streams of news stories.  On natural boundaries -- chapters, sections, whole texts --
it over-fits on rare words and places boundaries that score no better than "none"; there the natural-boundary
setup wins (multi-scale cohesion, sentence shape, position and paragraph starts; a Gaussian prior on the
weights; a decision rule tuned for the mean P_k over held-out documents; docs/reproduction.md).  A user should
not have to know which applies to their text, so :func:`select_iter` trains each configuration of
:data:`PRESETS` (or the ones asked for), each stopped at its best held-out round and tuned on the held-out
corpus, scores every one on the held-out documents the way a test would (each document on its own, rates averaged
over documents), each document decided by the rule as tuned on the *other* held-out documents
(:func:`crossfit_scores`), and keeps the one best on both metrics at once: the highest P_mu - P_k (P_mu rewards
the right number of segments, P_k forgives missing ones; a rule tuned for one alone can lose on the other, as
books show).  What was tried and how each scored is stored in the chosen model's ``info_["selection"]``, beside
the trivial baselines ("none", "even") scored the same way on the same documents (:func:`baseline_scores`), so
that a user sees at once whether the chosen model is worth anything there.  Configurations that differ only in
how their rule is tuned (``natural`` and ``natural-pmu``) induce the same features and stop at the same round:
they share one fit, and only the rule is tuned again.

Cross-fitting matters because a rule tuned and judged on the same documents flatters the metric it was tuned for,
so a P_k-tuned and a P_mu-tuned candidate would each look best on their own metric.  The model kept is still
tuned on all the held-out documents, and its held-out scores still saw them in choosing the configuration: report
test scores from data none of the candidates saw.
"""
from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .baselines import even_masses, none_masses
from .errors import SegvizError
from .evaluation import macro_average, model_segmenter
from .events import Progress
from .metrics import score_row
from .model_protocol import as_corpus
from .rules import LengthPriorRule, ThresholdRule, document_sizes
from .segmentation import boundaries_to_masses
from .segmenter import Segmenter

__all__ = ["PRESETS", "AUTO_PRESETS", "Selection", "select_iter", "heldout_scores", "crossfit_scores",
           "baseline_scores"]

#: the natural-boundary families (docs/reproduction.md): cohesion at many scales, sentence shape, position, paragraph
#: starts, proper-name change and dialogue (the last two chosen on held-out books, research/chapters_select.py), and
#: the learned paragraph score (segviz.gap_scorer; asked only of text with paragraphs in 4+ training files)
_NATURAL_FAMILIES = ("cohesion", "tfidf", "shape", "position", "paragraphs", "paragraph-score", "names", "dialogue")
_WIDE_ALPHAS = (0.005, 0.01) + tuple(float(a) for a in np.round(np.arange(0.02, 0.99, 0.02), 2))
_WIDE_EPSILONS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)
_LONG_SHAPES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
_LONG_BIASES = tuple(float(b) for b in np.round(np.arange(-4.0, 10.01, 0.5), 2))
#: in words the prior is a density over lengths only sentence ends can take: about log(words per sentence), some 3,
#: below a probability per segment, which the bias makes up (segviz.length_prior), so its grid reaches higher
_WORD_BIASES = tuple(float(b) for b in np.round(np.arange(-4.0, 16.01, 0.5), 2))

def _natural(**changes) -> dict[str, Any]:
    """The natural-boundary configuration (docs/reproduction.md): the families of natural boundaries, a Gaussian
    prior, the held-out stop, the length-prior rule tuned for the mean P_k per document; ``changes`` over it."""
    return {"families": _NATURAL_FAMILIES, "l2": 1.0, "stopping": "heldout",
            "rule": LengthPriorRule(shapes=_LONG_SHAPES, biases=_LONG_BIASES),
            "tuning_metric": "p_k", "tuning_units": "per-document", **changes}


#: named configurations (Segmenter keyword arguments); ``paper`` is the paper's setup (relevance questions only
#: when language models are given), the others the natural-boundary setups of docs/reproduction.md
PRESETS: dict[str, dict[str, Any]] = {
    "paper": {"families": ("vocabulary", "relevance", "cohesion"), "l2": 0.0, "rule": ThresholdRule(),
              "tuning_metric": "p_mu", "tuning_units": "stream"},
    "natural": _natural(),
    "natural-pmu": _natural(tuning_metric="p_mu"),
    "natural-threshold": _natural(rule=ThresholdRule(alphas=_WIDE_ALPHAS, epsilons=_WIDE_EPSILONS)),
    "natural-strong-prior": _natural(l2=10.0),
    "natural-words": _natural(rule=LengthPriorRule(unit="words", shapes=_LONG_SHAPES, biases=_WORD_BIASES)),
    "natural-words-pmu": _natural(rule=LengthPriorRule(unit="words", shapes=_LONG_SHAPES, biases=_WORD_BIASES),
                                  tuning_metric="p_mu"),
}
#: what ``segviz train`` compares by default
AUTO_PRESETS = ("paper", "natural", "natural-pmu", "natural-threshold", "natural-strong-prior", "natural-words",
                "natural-words-pmu")


@dataclass
class Selection:
    """The outcome: the chosen model, its preset's name, and every candidate's held-out row (P_k, P_mu, ...)."""

    model: Segmenter
    chosen: str
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    #: the trivial baselines on the same held-out documents, scored the same way (:func:`baseline_scores`)
    baselines: dict[str, dict[str, float]] = field(default_factory=dict)

    @classmethod
    def of(cls, model: Segmenter, name: str, heldout) -> Selection:
        """One fitted model scored as :func:`select_iter` scores its candidates (a configuration named, not
        searched), with the baselines beside it."""
        return cls(model, name, {name: _candidate_row(model, heldout)}, baseline_scores(heldout))

    def table(self) -> list[str]:
        """One line per candidate, the chosen one marked, then one per trivial baseline."""
        lines = []
        for name, row in self.scores.items():
            mark = "*" if name == self.chosen else " "
            lines.append(f"{mark} {name:<22} held-out P_k {row['p_k']:.3f}  P_mu {row['p_mu']:.3f}  "
                         f"{row['features']} features, {row['rule']}")
        for name, row in self.baselines.items():
            lines.append(f"  {name:<22} held-out P_k {row['p_k']:.3f}  P_mu {row['p_mu']:.3f}  "
                         f"baseline: {_BASELINE_WORDS[name]}")
        return lines

    def shortfalls(self) -> list[str]:
        """Where the chosen configuration does not beat a trivial baseline on the held-out documents, in words
        (P_k lower is better, P_mu higher): what a user should know before trusting the model on such text."""
        row = self.scores[self.chosen]
        out = []
        for name, base in self.baselines.items():
            if row["p_k"] >= base["p_k"]:
                out.append(f"held-out P_k {row['p_k']:.3f} is no better than \"{name}\" ({base['p_k']:.3f})")
            if row["p_mu"] <= base["p_mu"]:
                out.append(f"held-out P_mu {row['p_mu']:.3f} is no better than \"{name}\" ({base['p_mu']:.3f})")
        return out


_BASELINE_WORDS = {"none": "no boundary", "even": "a boundary every mean reference segment length"}
_BASELINES = {"none": none_masses, "even": even_masses}
_TUNING = ("tuning_metric", "tuning_units")


def _candidate_row(model: Segmenter, heldout) -> dict[str, Any]:
    """A candidate's row of the search: its cross-fitted held-out scores (:func:`crossfit_scores`), those where
    its rule was tuned, its size and its rule."""
    row = crossfit_scores(model, heldout)
    return {"p_k": row["p_k"], "p_mu": row["p_mu"], "window_diff": row["window_diff"],
            "cross_fitted": bool(row["cross_fitted"]), "tuned_here_p_k": row["tuned_here_p_k"],
            "tuned_here_p_mu": row["tuned_here_p_mu"], "features": len(model.features_),
            "rule": model.rule_.describe()}


def _fit_key(config: Mapping[str, Any]) -> str:
    """Every setting the induction and its held-out stop depend on: all but how the decision rule is tuned, and the
    rule itself unless it is the threshold rule, the one a round's held-out score is taken with
    (:meth:`Segmenter.fit_iter`); any other rule is applied once induction is over."""
    def plain(key, value):
        if key == "rule" and not isinstance(value, ThresholdRule):
            return "decided after induction"
        return value.to_dict() if hasattr(value, "to_dict") else repr(value)

    return repr(sorted((k, plain(k, v)) for k, v in config.items() if k not in _TUNING))


def heldout_scores(model, heldout) -> dict[str, float]:
    """The model on each held-out document (source unit) on its own, rates averaged over documents -- how a
    per-document test scores it."""
    heldout = as_corpus(heldout, what="held-out corpus")
    rows = []
    for unit in heldout.by_file():
        if unit.n_sentences < 3:
            continue
        rows.append(score_row(unit.masses(), model_segmenter(model)(unit)))
    if not rows:
        raise SegvizError("no held-out document has 3 or more sentences to score the configurations on")
    return {key: float(value) for key, value in macro_average(rows).items()}


def crossfit_scores(model: Segmenter, heldout, *, folds: int = 5) -> dict[str, float]:
    """:func:`heldout_scores` without the rule's home advantage: the held-out documents (source units) of 3+
    sentences are dealt into ``folds`` folds (the i-th of them to fold i mod folds), and each is decided by the
    model's rule tuned, as ``fit`` tunes it (the model's ``tuning_metric`` and ``tuning_units``), on the documents
    outside its fold only.  A rule tuned and judged on the same documents flatters the metric it was tuned for
    (the books: P_k 33.7 % scored where it was tuned, 35.4 % cross-fitted); cross-fitted, candidates tuned for
    different metrics compare fairly.  ``cross_fitted`` in the result is 1.0, or 0.0 when fewer than two held-out
    documents have 3+ sentences (then the scores are :func:`heldout_scores`'); ``tuned_here_p_k`` /
    ``tuned_here_p_mu`` are the model's own rule's, tuned on every held-out document (what :func:`heldout_scores`
    gives).

    The model's boundary probabilities are computed once for the whole held-out stream (every question is
    answered within its source unit, so a document's probabilities are its slice of them); a fold's tuning stream
    lays its documents' slices end to end, joined by the gap that led into each document in the held-out stream.
    """
    heldout = as_corpus(heldout, what="held-out corpus")
    units = heldout.by_file()
    lengths = [unit.n_sentences for unit in units]
    scored = [i for i, n in enumerate(lengths) if n >= 3]   # as the evaluation, shorter ones are not scored
    if len(scored) < 2:
        row = heldout_scores(model, heldout)
        return {**row, "cross_fitted": 0.0, "tuned_here_p_k": row["p_k"], "tuned_here_p_mu": row["p_mu"]}
    probs = np.asarray(model.boundary_probabilities(heldout), dtype=np.float64)
    words = document_sizes(heldout.sentences())
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)

    def gaps(i):
        return probs[starts[i]:starts[i + 1] - 1]

    def sizes(i):
        return words[starts[i]:starts[i + 1]]

    k = max(2, min(int(folds), len(scored)))
    fold_of = {i: n % k for n, i in enumerate(scored)}   # documents too short to score are never left out
    rows, home = [], []
    for i in scored:
        found = model.rule_.decide(gaps(i), sizes(i))
        home.append(score_row(units[i].masses(), boundaries_to_masses(found, lengths[i])))
    for fold in range(k):
        inside = [i for i in range(len(units)) if fold_of.get(i) != fold]
        parts = []
        for j, i in enumerate(inside):
            if j:
                parts.append(probs[starts[i] - 1:starts[i]])          # the gap that led into document i
            parts.append(gaps(i))
        rule, _ = model.tuned_rule(np.concatenate(parts), [m for i in inside for m in units[i].masses()],
                                   [lengths[i] for i in inside], sizes=np.concatenate([sizes(i) for i in inside]))
        for i in scored:
            if fold_of[i] == fold:
                found = rule.decide(gaps(i), sizes(i))
                rows.append(score_row(units[i].masses(), boundaries_to_masses(found, lengths[i])))
    tuned_here = macro_average(home)
    return {**{key: float(value) for key, value in macro_average(rows).items()}, "cross_fitted": 1.0,
            "tuned_here_p_k": float(tuned_here["p_k"]), "tuned_here_p_mu": float(tuned_here["p_mu"])}


def baseline_scores(heldout) -> dict[str, dict[str, float]]:
    """"none" and "even" on each held-out document (source unit) of 3+ sentences, rates averaged over documents,
    as :func:`heldout_scores` scores a model: what a configuration must beat to be worth anything."""
    heldout = as_corpus(heldout, what="held-out corpus")
    references = [unit.masses() for unit in heldout.by_file() if unit.n_sentences >= 3]
    if not references:
        raise SegvizError("no held-out document has 3 or more sentences to score the configurations on")
    out = {}
    for name, masses in _BASELINES.items():
        row = macro_average([score_row(ref, masses(ref)) for ref in references])
        out[name] = {"p_k": float(row["p_k"]), "p_mu": float(row["p_mu"]), "window_diff": float(row["window_diff"])}
    return out


def select_iter(train, heldout, lms=None, *, presets: Sequence[str] = AUTO_PRESETS,
                params: Mapping[str, Any] | None = None,
                references: Mapping[str, Segmenter] | None = None) -> Generator[Any, None, Selection]:
    """Train the configurations ``presets`` (each with ``params`` over it, e.g. ``n_features``), score each on
    ``heldout`` (:func:`heldout_scores`) and return the best by P_mu - P_k, then P_k (module docstring).  Yields each
    fit's events, their progress stages prefixed with the preset's name.

    ``references``: segmenters trained elsewhere (the bundled default model's expert for such text), entered as
    candidates as they are, only their rule tuned on ``heldout`` as a candidate's is: training is kept only when it
    beats them, so what ``train`` keeps is never worse on the held-out documents than what a user already has.
    (A reference that was trained or tuned on the held-out documents themselves would be flattered: the bundled
    model never saw the test books of the shared corpora, but it did see their training and held-out books.)"""
    if heldout is None:
        raise SegvizError("choosing a configuration needs held-out data (--heldout)")
    unknown = [p for p in presets if p not in PRESETS]
    if unknown or not presets:
        raise SegvizError(f"unknown configuration {unknown[0] if unknown else '(none)'}; "
                          f"choose from {', '.join(PRESETS)}")
    scores: dict[str, dict[str, float]] = {}
    models: dict[str, Segmenter] = {}
    fitted: dict[str, Segmenter] = {}   # by _fit_key: configurations that differ only in tuning share one fit
    for i, name in enumerate(presets):
        yield Progress(f"configuration {name}", i, len(presets))
        config = {**PRESETS[name], **dict(params or {})}
        seg = Segmenter(**config).check_params()
        same = fitted.get(_fit_key(config))
        if same is not None:
            # the same induction and held-out stop; only the rule's tuning differs, done on the same held-out data
            yield Progress(f"{name}: tuning the decision rule", 0, 1)
            seg = same.with_tuned_rule(seg.base_rule(), heldout, tuning_metric=seg.tuning_metric,
                                       tuning_units=seg.tuning_units)
            yield Progress(f"{name}: tuning the decision rule", 1, 1)
        else:
            for event in seg.fit_iter(train, heldout, lms):
                yield Progress(f"{name}: {event.stage}", event.done, event.total) if isinstance(event, Progress) \
                    else event
            fitted[_fit_key(config)] = seg
        yield Progress(f"{name}: scoring on the held-out documents", 0, 1)
        scores[name] = _candidate_row(seg, heldout)
        yield Progress(f"{name}: scoring on the held-out documents", 1, 1)
        models[name] = seg
    order = list(presets)
    for name, reference in dict(references or {}).items():
        yield Progress(f"{name}: tuning its rule on the held-out documents", 0, 1)
        seg = reference.with_tuned_rule(reference.base_rule(), heldout)
        scores[name] = _candidate_row(seg, heldout)
        models[name] = seg
        order.append(name)
        yield Progress(f"{name}: tuning its rule on the held-out documents", 1, 1)
    yield Progress("configuration", len(presets), len(presets))
    chosen = min(scores, key=lambda n: (round(scores[n]["p_k"] - scores[n]["p_mu"], 6), scores[n]["p_k"],
                                        order.index(n)))
    baselines = baseline_scores(heldout)
    model = models[chosen]
    model.info_["selection"] = {"chosen": chosen, "heldout": scores, "baselines": baselines,
                                "how": "each configuration on each held-out document, decided by its rule tuned on "
                                       "the other documents (cross-fitted, 5 folds); highest mean P_mu - P_k"}
    return Selection(model, chosen, scores, baselines)
