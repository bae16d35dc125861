"""Decision rules: how boundary probabilities become boundaries, as interchangeable strategy objects.

A model's boundary probabilities q(yes | gap) (Section 4) say where a boundary is likely; a *decision rule* says
where boundaries go.  Every rule has the same small surface, so no caller ever asks which kind it holds:

``decide(probabilities, sizes=None)``
    boundary positions b (sorted, 1..n-1) for the n - 1 gaps of one document; ``sizes``, each of its n
    sentences' word count, for a rule that measures segments in words (every other rule ignores them, so a
    caller always passes what it has).
``tune(probabilities, reference, ...)``
    a copy with its settings chosen on held-out data, and the held-out score (:func:`segviz.tuning.tune_rule`,
    the one tuning implementation: by P_mu or P_k, on one stream or document by document).
``with_mean_length(m)``
    a copy that takes ``m`` as the expected segment length where it was left open (the training mean).
``controls()``
    the rule's adjustable settings with their ranges (what the app's decision panel shows): each range is the one
    the rule declares for that setting, and always holds the setting's value.
``to_dict()`` / :func:`rule_from_dict`
    a JSON document, validated when read.

Each rule declares what its settings accept in ``PARAM_CONSTRAINTS`` (:mod:`segviz.params`, built from the limits of
:mod:`segviz.limits`; scikit-learn's ``_parameter_constraints``): its own :meth:`~DecisionRule.check`, a saved
model's rule, the ranges of :meth:`~DecisionRule.controls` and the command line's rule options all read it.

The rules:

:class:`ThresholdRule` (α, ε) -- the paper's rule (Section 7): a boundary wherever q > α, at least ε sentences
    apart (:mod:`segviz.decode`).
:class:`LengthPriorRule` (mean length, shape, bias) -- beyond the paper: the exact maximiser of the boundary
    log-odds plus a gamma prior on segment lengths (:mod:`segviz.length_prior`), in sentences or in words; right
    for segments of a hundred sentences and more, where the threshold rule cuts wherever one sentence looks fresh.
:class:`SegmentCountRule` (segments N, or mean length L) -- "about 30 chapters": the length-prior rule with its
    bias set so that a document gets exactly N segments (N = n / L rounded when a mean length is given).
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numpy as np

from .decode import (
    DEFAULT_ALPHAS,
    DEFAULT_EPSILONS,
    check_probabilities,
    decode,
    greedy_keep_in_order,
    greedy_order,
    greedy_order_keep,
)
from .errors import SegvizError
from .length_prior import DEFAULT_BIASES, DEFAULT_SHAPES, decode_length_prior, length_prior_gains

# the limits of every setting a rule may hold: one source, shared with the CLI and the model schema
from .limits import (
    MAX_ABS_BIAS,
    MAX_EPSILON,
    MAX_GRID,
    MAX_MEAN_LENGTH,
    MAX_SCALE,
    MAX_SEGMENTS,
    MAX_SHAPE,
    MAX_WORDS_PER_SENTENCE,
)
from .params import Choice, Constraint, Integer, Number, Optional, ParamsMixin, show_value
from .params import Sequence as ListOf
from .tuning import tune_rule

__all__ = ["DecisionRule", "ThresholdRule", "LengthPriorRule", "SegmentCountRule", "RULES", "rule_from_dict",
           "MAX_EPSILON", "MAX_MEAN_LENGTH", "LENGTH_UNITS", "document_sizes"]
#: what a length-prior rule measures a segment's length in
LENGTH_UNITS = ("sentences", "words")
#: the bias search of :class:`SegmentCountRule`: its bracket and how many halvings
_COUNT_BIAS_RANGE = (-60.0, 60.0)
_COUNT_BISECTIONS = 40


# what the settings accept (segviz.params: the type first -- no string, list or bool --, an integer compared with
# the bounds exactly -- a 4,000-digit one is out of range, not an OverflowError --, then the value)
_ALPHA = Number(0.0, 1.0)
_EPSILON = Integer(1, MAX_EPSILON, integral_floats=True)
_MEAN_LENGTH = Number(1.0, MAX_MEAN_LENGTH)
_SHAPE = Number(0.0, MAX_SHAPE, open_low=True)
_BIAS = Number(-MAX_ABS_BIAS, MAX_ABS_BIAS)
_SCALE = Number(0.0, MAX_SCALE, open_low=True)


def _grid(item: Constraint) -> ListOf:
    """A tuning grid: 1 to :data:`~segviz.limits.MAX_GRID` values, each what ``item`` accepts."""
    return ListOf(item, 1, MAX_GRID)


def _control(rule: DecisionRule, name: str, label: str, step: float, *, value=None, **extra) -> dict:
    """Setting ``name`` of ``rule`` as a control (:meth:`DecisionRule.controls`).  Its range is the one the rule
    declares for the setting (an open end moved in by one step: the nearest value a control moving in steps can
    reach), widened to the setting's value, so that a control always shows the value the rule decides by."""
    constraint = rule.PARAM_CONSTRAINTS[name]
    value = getattr(rule, name) if value is None else value
    integer = constraint.integral
    value = int(value) if integer else float(value)
    low, high = constraint.bounds(step)
    return {"name": name, "label": label, "value": value, "low": min(low, value), "high": max(high, value),
            "step": step, "integer": integer, **extra}


def document_sizes(sentences) -> np.ndarray:
    """Each sentence's size as the rules measure it (:mod:`segviz.length_prior`): its number of tokens."""
    return np.fromiter((len(s) for s in sentences), dtype=np.float64)


def _sizes_of(sizes, start: int, stop: int):
    """The sizes of the sentences around gaps ``start..stop-1`` of a stream (None stays None)."""
    return None if sizes is None else np.asarray(sizes, dtype=np.float64)[start:stop + 1]


class DecisionRule(ParamsMixin):
    """The interface every rule implements (module docstring)."""

    #: the rule's name in saved models and on the command line
    kind: ClassVar[str] = ""

    def decide(self, probabilities, sizes=None) -> np.ndarray:
        raise NotImplementedError

    def candidates(self) -> Iterator[tuple[DecisionRule, Any]]:
        """The tuning grid, in tie-break order: ``(rule, None)`` pairs (a rule may yield a shared precomputation
        instead of None through :meth:`decisions`)."""
        yield self, None

    def preparation_key(self) -> str:
        """What :meth:`prepare` depends on: two rules with the same key share a preparation of the same
        probabilities (by default the whole rule: the preparation is the decision itself)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def prepare(self, probabilities, sizes=None):
        """The part of a decision that a live control can reuse (:meth:`decide_prepared`); by default the
        decision itself.  A view that moves one setting keeps preparations by :meth:`preparation_key`."""
        return self.decide(probabilities, sizes)

    def decide_prepared(self, prepared, probabilities) -> np.ndarray:
        """:meth:`decide` from a :meth:`prepare` of the same probabilities (with the same preparation key)."""
        return prepared

    def prepare_documents(self, probabilities, spans, *, scratch: dict | None = None, sizes=None):
        """:meth:`prepare` of several documents of one stream: ``spans`` are their ``(start, stop)`` slices of the
        stream's gap probabilities (each document decided on its own; ``sizes``: one per sentence of the stream).
        ``scratch`` is a dict the caller keeps for as long as these probabilities and spans stay the same: a rule
        may keep there what does not depend on its settings (the threshold rule: the greedy pass's visiting order,
        a sort of the stream that a new epsilon then does not redo)."""
        p = np.asarray(probabilities, dtype=np.float64)
        return [self.prepare(p[start:stop], _sizes_of(sizes, start, stop)) for start, stop in spans]

    def decide_documents(self, prepared, probabilities, spans) -> np.ndarray:
        """Boundary positions in the stream (a document's boundary ``b`` at ``start + b``) of every document of
        :meth:`prepare_documents`, sorted."""
        p = np.asarray(probabilities, dtype=np.float64)
        parts = [np.asarray(self.decide_prepared(prep, p[start:stop]), dtype=np.int64) + start
                 for prep, (start, stop) in zip(prepared, spans)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def decisions(self, probabilities, sizes=None) -> Iterator[tuple[DecisionRule, np.ndarray]]:
        """``(candidate, its boundaries)`` for every candidate of the tuning grid on one document."""
        for rule, _ in self.candidates():
            yield rule, rule.decide(probabilities, sizes)

    def tune(self, probabilities, reference: Sequence[int], *, groups: Sequence[int] | None = None,
             metric: str = "p_mu", units: str = "stream", mu: float | None = None, sizes=None
             ) -> tuple[DecisionRule, float]:
        """The candidate of the grid best on held-out data and its score (:func:`segviz.tuning.tune_rule`)."""
        return tune_rule(self, probabilities, reference, groups=groups, metric=metric, units=units, mu=mu,
                         sizes=sizes)

    def with_mean_length(self, mean_length: float, words_per_sentence: float | None = None) -> DecisionRule:
        """This rule with ``mean_length`` as its expected segment length (in sentences) where it has none, and
        ``words_per_sentence`` (the training corpus's mean) where it needs one (others: itself)."""
        return self

    def controls(self) -> list[dict]:
        """The settings a user may move: ``name``, ``label``, ``value``, ``low``, ``high``, ``step``, ``integer``
        (and, for a view, ``decimals``, ``slider``: drawn as a slider too, ``unit``: what one of it counts).  The
        range is the declared one of the setting and always holds ``value``."""
        return []

    def with_setting(self, name: str, value) -> DecisionRule:
        """A copy with one of its :meth:`controls` set to ``value`` (validated)."""
        if name not in {c["name"] for c in self.controls()}:
            raise SegvizError(f"the {self.kind.replace('_', ' ')} rule has no setting {name!r}")
        params = self.get_params(deep=False)
        params[name] = value
        return type(self)(**params).check()

    def check(self) -> DecisionRule:
        """Validate the settings by their declared constraints (``PARAM_CONSTRAINTS``); returns ``self`` (every
        problem one :class:`SegvizError`)."""
        self.check_declared_params()
        return self

    def check_ready(self) -> DecisionRule:
        """:meth:`check`, and that nothing the rule decides by is still left open (a model's rule must be ready
        to decide); returns ``self``."""
        return self.check()

    def describe(self) -> str:
        raise NotImplementedError

    def label(self) -> str:
        """What kind of rule this is, in a few words (a table row's name: "threshold rule")."""
        return f"{self.kind.replace('_', ' ')} rule"

    def to_dict(self) -> dict:
        out = {"kind": self.kind}
        for name, value in self.get_params(deep=False).items():
            if isinstance(value, (tuple, list, np.ndarray)):
                value = [float(v) if not isinstance(v, (int, np.integer)) else int(v) for v in value]
            elif isinstance(value, np.integer):
                value = int(value)
            elif isinstance(value, np.floating):
                value = float(value)
            out[name] = value
        return out


class ThresholdRule(DecisionRule):
    """The paper's rule (Section 7): a boundary where q(yes) > ``alpha``, at least ``epsilon`` sentences apart
    (ties: the higher probability wins, :mod:`segviz.decode`).  ``alphas`` x ``epsilons`` is its tuning grid."""

    kind = "threshold"
    PARAM_CONSTRAINTS = {"alpha": _ALPHA, "epsilon": _EPSILON, "alphas": _grid(_ALPHA), "epsilons": _grid(_EPSILON)}

    def __init__(self, *, alpha: float = 0.5, epsilon: int = 1, alphas: Sequence[float] = DEFAULT_ALPHAS,
                 epsilons: Sequence[int] = DEFAULT_EPSILONS):
        self.alpha = alpha
        self.epsilon = epsilon
        self.alphas = alphas
        self.epsilons = epsilons

    def decide(self, probabilities, sizes=None) -> np.ndarray:
        return decode(probabilities, float(self.alpha), int(self.epsilon))

    # alpha moves cost one comparison per position: the greedy pass depends on epsilon only (decode's docstring)
    def preparation_key(self) -> str:
        return f"threshold, epsilon {int(self.epsilon)}"

    def prepare(self, probabilities, sizes=None):
        p = check_probabilities(probabilities)
        kept = np.flatnonzero(greedy_order_keep(p, int(self.epsilon)))
        return kept, p[kept]

    def decide_prepared(self, prepared, probabilities) -> np.ndarray:
        kept, kept_p = prepared
        return kept[kept_p > float(self.alpha)] + 1

    def prepare_documents(self, probabilities, spans, *, scratch: dict | None = None, sizes=None):
        # each document's greedy pass, laid end to end in stream positions: a new alpha is then one comparison over
        # the whole stream, however many documents it holds; the visiting orders (sorts of the documents' gaps)
        # are kept in ``scratch``, so a new epsilon is one compiled pass per document (on 10^6 sentences the
        # sorts were 60-80 ms of every epsilon step)
        p = np.asarray(probabilities, dtype=np.float64)
        orders = None if scratch is None else scratch.get("greedy orders")
        if orders is None:
            orders = [greedy_order(check_probabilities(p[start:stop])) for start, stop in spans]
            if scratch is not None:
                scratch["greedy orders"] = orders
        parts = []
        for order, (start, stop) in zip(orders, spans):
            kept = np.flatnonzero(greedy_keep_in_order(order, int(self.epsilon)))
            parts.append((kept + start, p[start:stop][kept]))
        if not parts:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return np.concatenate([k for k, _ in parts]), np.concatenate([q for _, q in parts])

    def decide_documents(self, prepared, probabilities, spans) -> np.ndarray:
        kept, kept_p = prepared
        return np.sort(kept[kept_p > float(self.alpha)] + 1)

    def candidates(self):
        for epsilon in self.epsilons:
            for alpha in self.alphas:
                yield self._at(alpha, epsilon), None

    def _at(self, alpha, epsilon) -> ThresholdRule:
        return ThresholdRule(alpha=float(alpha), epsilon=int(epsilon), alphas=self.alphas, epsilons=self.epsilons)

    def decisions(self, probabilities, sizes=None):
        # the boundaries kept at threshold alpha are those kept at 0 that exceed alpha (decode's docstring): one
        # greedy pass per epsilon serves every alpha of the grid
        p = check_probabilities(probabilities)
        for epsilon in self.epsilons:
            kept = np.flatnonzero(greedy_order_keep(p, int(epsilon)))
            kept_p = p[kept]
            for alpha in self.alphas:
                yield self._at(alpha, epsilon), kept[kept_p > float(alpha)] + 1

    def controls(self) -> list[dict]:
        return [_control(self, "alpha", "threshold α", 0.01, decimals=3, slider=True),
                _control(self, "epsilon", "min. separation ε", 1, unit="sentence")]

    def describe(self) -> str:
        return f"threshold rule: α = {float(self.alpha):.3g}, ε = {int(self.epsilon)}"


class LengthPriorRule(DecisionRule):
    """The length-prior rule (beyond the paper; :mod:`segviz.length_prior`): the segmentation maximising the
    boundary log-odds + ``bias`` per boundary + a gamma prior on segment lengths of mean ``mean_length`` and
    ``shape``.  ``mean_length=None`` takes the training mean (:meth:`with_mean_length`); ``shapes`` x ``biases``
    is the tuning grid.

    ``scale`` (None: off) measures the expected segment length on each document instead: ``scale`` times the
    length the model itself expects there, n / (1 + sum q) (the expected number of boundaries is the sum of the
    gap probabilities, Section 4; the router's gauge, :mod:`segviz.routing`).  Books have chapters of 60 sentences
    (Moby-Dick) or 260 (Jane Eyre): one training mean fits neither.  ``scales`` is its tuning grid (None: not
    tuned).

    ``unit="words"`` measures a segment's length in words (the sum of its sentences' sizes,
    :func:`document_sizes`) instead of sentences: the prior's mean is then ``mean_length`` sentences of
    ``words_per_sentence`` words (the training corpus's means, :meth:`with_mean_length`), so a book of long
    sentences is expected to have fewer of them to a chapter (:mod:`segviz.length_prior`).  Deciding in words
    needs each sentence's size (``decide(probabilities, sizes)``)."""

    kind = "length_prior"
    PARAM_CONSTRAINTS = {"mean_length": Optional(_MEAN_LENGTH), "shape": _SHAPE, "bias": _BIAS,
                         "shapes": _grid(_SHAPE), "biases": _grid(_BIAS), "scale": Optional(_SCALE),
                         "scales": Optional(_grid(_SCALE)), "unit": Choice(LENGTH_UNITS, "a length unit"),
                         "words_per_sentence": Optional(Number(0.0, MAX_WORDS_PER_SENTENCE, open_low=True))}

    def __init__(self, *, mean_length: float | None = None, shape: float = 2.0, bias: float = 0.0,
                 shapes: Sequence[float] = DEFAULT_SHAPES, biases: Sequence[float] = DEFAULT_BIASES,
                 scale: float | None = None, scales: Sequence[float] | None = None, unit: str = "sentences",
                 words_per_sentence: float | None = None):
        self.mean_length = mean_length
        self.shape = shape
        self.bias = bias
        self.shapes = shapes
        self.biases = biases
        self.scale = scale
        self.scales = scales
        self.unit = unit
        self.words_per_sentence = words_per_sentence

    def check(self) -> LengthPriorRule:
        self.check_declared_params()
        if self.unit == "words" and (self.scale is not None or self.scales is not None):
            raise SegvizError("the length-prior rule measures each document's own length scale in sentences; "
                              "it cannot also measure segments in words")
        return self

    def _in_words(self) -> bool:
        return self.unit == "words"

    def check_ready(self) -> LengthPriorRule:
        self.check()
        if self.mean_length is None and self.scale is None:
            raise SegvizError("the length-prior rule has no expected segment length (mean_length)")
        if self._in_words() and self.words_per_sentence is None:
            raise SegvizError("the length-prior rule measures segments in words but has no training mean of words "
                              "per sentence (words_per_sentence)")
        return self

    def _mean(self, probabilities=None) -> float:
        if self.scale is not None and probabilities is not None:
            p = np.asarray(probabilities, dtype=np.float64)
            return max(1.0, float(self.scale) * (p.size + 1) / (1.0 + float(p.sum())))
        if self.mean_length is None:
            raise SegvizError("the length-prior rule has no expected segment length yet (mean_length)")
        return float(self.mean_length)

    def decide(self, probabilities, sizes=None) -> np.ndarray:
        p = check_probabilities(probabilities)
        if not self._in_words():
            return decode_length_prior(p, mean_length=self._mean(p), shape=float(self.shape),
                                       bias=float(self.bias))
        if sizes is None:
            raise SegvizError("the length-prior rule measures segments in words: it needs each sentence's size")
        if self.words_per_sentence is None:
            raise SegvizError("the length-prior rule measures segments in words but has no training mean of "
                              "words per sentence yet (words_per_sentence)")
        return decode_length_prior(p, mean_length=self._mean(p) * float(self.words_per_sentence),
                                   shape=float(self.shape), bias=float(self.bias), sizes=sizes)

    def _with(self, **changes) -> LengthPriorRule:
        params = self.get_params(deep=False)
        params.update(changes)
        return LengthPriorRule(**params)

    def candidates(self):
        scales = (self.scale,) if self.scales is None else tuple(float(x) for x in self.scales)
        for scale in scales:
            for shape in self.shapes:
                for bias in self.biases:
                    yield self._with(shape=float(shape), bias=float(bias), scale=scale), None

    def with_mean_length(self, mean_length: float, words_per_sentence: float | None = None) -> LengthPriorRule:
        changes = {}
        if self.mean_length is None:
            changes["mean_length"] = float(mean_length)
        if self._in_words() and self.words_per_sentence is None and words_per_sentence is not None:
            changes["words_per_sentence"] = float(words_per_sentence)
        return self._with(**changes) if changes else self

    def controls(self) -> list[dict]:
        first = (_control(self, "scale", "segment length × model's expectation", 0.05) if self.scale is not None
                 else _control(self, "mean_length", self._mean_label(), 1.0, value=self._mean()))
        return [first, _control(self, "shape", "prior shape k", 0.25), _control(self, "bias", "boundary bias β", 0.25)]

    def label(self) -> str:
        return "length prior rule in words" if self._in_words() else super().label()

    def _mean_label(self) -> str:
        if self._in_words() and self.words_per_sentence is not None:
            # the setting stays in sentences (as the training mean is); the decision counts words
            return f"expected segment length (sentences of {float(self.words_per_sentence):.1f} words)"
        return "expected segment length"

    def describe(self) -> str:
        if self.scale is not None:
            mean = f"{float(self.scale):g} x the model's expected segment length in each document"
        else:
            mean = "the training mean" if self.mean_length is None else f"{float(self.mean_length):.1f}"
        if self._in_words():
            words = "" if self.mean_length is None or self.words_per_sentence is None else \
                f" = {float(self.mean_length) * float(self.words_per_sentence):,.0f} words"
            mean = f"{mean} sentences{words}, measured in words"
        return f"length-prior rule: expected segment length {mean}, shape {float(self.shape):g}, " \
               f"bias {float(self.bias):+g}"


class SegmentCountRule(DecisionRule):
    """Exactly ``segments`` segments per document, or one per ``mean_length`` sentences (rounded, at least one):
    the length-prior rule's maximiser with the prior's mean set to n / N and its per-boundary bias moved until
    the count is N (:func:`segviz.length_prior.length_prior_gains`; a Lagrangian search, then the nearest
    gaps added or dropped by log-odds when the count jumps past N).  Nothing to tune but the mean length, which
    :meth:`tune` takes from the held-out reference when neither is given."""

    kind = "segment_count"
    PARAM_CONSTRAINTS = {"segments": Optional(Integer(1, MAX_SEGMENTS, integral_floats=True)),
                         "mean_length": Optional(_MEAN_LENGTH), "shape": _SHAPE}

    def __init__(self, *, segments: int | None = None, mean_length: float | None = None, shape: float = 2.0):
        self.segments = segments
        self.mean_length = mean_length
        self.shape = shape

    def check(self) -> SegmentCountRule:
        if self.segments is not None and self.mean_length is not None:
            raise SegvizError("give the number of segments or the mean segment length, not both")
        self.check_declared_params()
        return self

    def target(self, n: int) -> int:
        """How many segments a document of ``n`` sentences gets."""
        if self.segments is not None:
            return max(1, min(int(self.segments), n))
        if self.mean_length is None:
            raise SegvizError("the segment-count rule needs a number of segments or a mean segment length")
        return max(1, min(n, int(round(n / float(self.mean_length)))))

    def decide(self, probabilities, sizes=None) -> np.ndarray:
        p = check_probabilities(probabilities)
        n = p.size + 1
        want = self.target(n) - 1
        if want <= 0:
            return np.zeros(0, dtype=np.int64)
        if want >= n - 1:
            return np.arange(1, n, dtype=np.int64)
        mean = n / (want + 1)
        shape = float(self.shape)
        lo, hi = _COUNT_BIAS_RANGE
        fewer = decode_length_prior(p, mean_length=mean, shape=shape, bias=lo)
        more = decode_length_prior(p, mean_length=mean, shape=shape, bias=hi)
        for _ in range(_COUNT_BISECTIONS):
            if fewer.size == want:
                return fewer
            if more.size == want:
                return more
            if fewer.size > want or more.size < want:
                break
            mid = 0.5 * (lo + hi)
            found = decode_length_prior(p, mean_length=mean, shape=shape, bias=mid)
            if found.size < want:
                lo, fewer = mid, found
            else:
                hi, more = mid, found
        return _adjust_count(p, fewer if abs(fewer.size - want) <= abs(more.size - want) else more, want)

    def tune(self, probabilities, reference, *, groups=None, metric="p_mu", units="stream", mu=None, sizes=None):
        rule = self
        if self.segments is None and self.mean_length is None:
            ref = [int(m) for m in reference]
            rule = SegmentCountRule(mean_length=sum(ref) / len(ref), shape=self.shape)
        return tune_rule(rule, probabilities, reference, groups=groups, metric=metric, units=units, mu=mu,
                         sizes=sizes)

    def with_mean_length(self, mean_length: float, words_per_sentence: float | None = None) -> SegmentCountRule:
        if self.segments is not None or self.mean_length is not None:
            return self
        return SegmentCountRule(mean_length=float(mean_length), shape=self.shape)

    def controls(self) -> list[dict]:
        if self.segments is not None:
            return [_control(self, "segments", "segments per document", 1)]
        return [_control(self, "mean_length", "mean segment length", 1.0, value=float(self.mean_length or 1.0))]

    def describe(self) -> str:
        if self.segments is not None:
            return f"segment-count rule: {int(self.segments)} segments per document"
        if self.mean_length is None:
            return "segment-count rule: the held-out mean segment length"
        return f"segment-count rule: one segment per {float(self.mean_length):.1f} sentences"


def _adjust_count(p: np.ndarray, boundaries: np.ndarray, want: int) -> np.ndarray:
    """``boundaries`` brought to ``want`` entries: the weakest (lowest log-odds) dropped, or the strongest free
    gaps added, when the length-prior search jumped past the count."""
    chosen = set(int(b) for b in boundaries)
    gains = length_prior_gains(p)
    if len(chosen) > want:
        ranked = sorted(chosen, key=lambda b: (gains[b - 1], b))
        for b in ranked[:len(chosen) - want]:
            chosen.discard(b)
    else:
        for r in np.argsort(-gains, kind="stable"):
            if len(chosen) >= want:
                break
            chosen.add(int(r) + 1)
    return np.asarray(sorted(chosen), dtype=np.int64)


#: the rules by kind (saved models name theirs)
RULES: dict[str, type[DecisionRule]] = {rule.kind: rule for rule in (ThresholdRule, LengthPriorRule,
                                                                        SegmentCountRule)}


def rule_from_dict(d, *, source: str = "rule") -> DecisionRule:
    """The rule :meth:`DecisionRule.to_dict` wrote, every field checked (one :class:`SegvizError` otherwise)."""
    if not isinstance(d, dict):
        raise SegvizError(f"{source}: the decision rule must be an object")
    kind = d.get("kind")
    # a string first: a list or an object as the kind is refused, never looked up (it cannot be hashed)
    if not isinstance(kind, str) or kind not in RULES:
        raise SegvizError(f"{source}: unknown decision rule {show_value(kind)} (known: {', '.join(RULES)})")
    cls = RULES[kind]
    names = cls._param_names()
    unknown = sorted(set(d) - set(names) - {"kind"})
    if unknown:
        raise SegvizError(f"{source}: the {kind} rule has no setting {unknown[0]!r}")
    params = {}
    for name in names:
        if name in d:
            value = d[name]
            params[name] = tuple(value) if isinstance(value, list) else value
    try:
        return cls(**params).check()
    except (SegvizError, TypeError, ValueError, OverflowError) as exc:
        raise SegvizError(f"{source}: {exc}") from None
