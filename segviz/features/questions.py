"""The candidate questions: their two types, the signals interval questions ask about, and their English.

Every candidate feature of the boundary model (paper Sections 3.3-3.4) is a binary question about the
neighbourhood of a candidate boundary.  There are two shapes of question:

* :class:`WordQuestion` -- Section 3.4's vocabulary questions: does a word occur in a window of sentences or
  words around the position (or begin the preceding sentence)?
* :class:`IntervalQuestion` -- does a real-valued *signal* at the position lie in an interval
  ``low < v <= high``?  Section 3.3's relevance questions are the paper's instance; every other interval family
  (lexical cohesion, peer evidence, ...) is the same question about another signal.  A :class:`Signal` names the
  quantity, says how to compute it from a :class:`~segviz.features.context.FeatureContext` and how to say it in
  English; :func:`describe_interval` is the one renderer of every interval question.

Signals are registered by the family modules that define them (:func:`register_signal`), so this module depends
on none of them; ``import segviz.features`` imports every family and so registers every signal.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from segviz.errors import SegvizError

__all__ = [
    "Window",
    "FeatureSpec",
    "WordQuestion",
    "IntervalQuestion",
    "Signal",
    "WORD_KINDS",
    "register_signal",
    "signal_named",
    "registered_signals",
    "interval_grid",
    "interval_phrase",
    "describe_interval",
]


@dataclass(frozen=True)
class Window:
    """A range relative to the candidate boundary (which sits at 0).

    ``unit`` is ``"sentence"`` or ``"word"``; the range is ``[start, end)`` in
    that unit, negative = before the boundary (the past), positive = after it.
    So ``Window("sentence", 0, 1)`` is the next sentence, ``Window("word", -5, 0)``
    the previous five words.  A zero-length window (``start == end``) marks a
    point: ``Window("sentence", -1, -1)`` is the first word of the preceding
    sentence (the "begins the preceding sentence" question).
    """

    unit: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.unit not in ("sentence", "word"):
            raise SegvizError(f"window unit must be 'sentence' or 'word', not {self.unit!r}")
        if self.end < self.start:
            raise SegvizError(f"window end {self.end} precedes start {self.start}")

    @property
    def size(self) -> int:
        return self.end - self.start

    def phrase(self) -> str:
        """Readable English for the window ("the next 5 sentences")."""
        n = self.end - self.start
        unit = self.unit + ("s" if n != 1 else "")
        if self.start == 0:
            return f"the next {unit}" if n == 1 else f"the next {n} {unit}"
        if self.end == 0:
            return f"the previous {unit}" if n == 1 else f"the previous {n} {unit}"
        return f"{self.unit}s {self.start:+d}..{self.end:+d}"

    def to_dict(self) -> dict:
        return {"unit": self.unit, "start": self.start, "end": self.end}

    @classmethod
    def from_dict(cls, d: dict) -> Window:
        return cls(str(d["unit"]), int(d["start"]), int(d["end"]))


class FeatureSpec:
    """What every candidate question offers (the type of a model's ``features_``).

    ``kind`` names what is asked (a vocabulary template kind such as ``"sentences"``, or the family of an
    interval question's signal such as ``"relevance"``); ``window`` is what the app draws relative to the
    boundary and ``not_window`` the negated part of a compound question; ``needs`` the context inputs the
    question cannot be answered without (``{"relevance"}`` for relevance questions).  Concrete questions are
    :class:`WordQuestion` and :class:`IntervalQuestion`; :meth:`from_dict` reads either back.
    """

    __slots__ = ()
    kind: str
    window: Window
    not_window: Window | None = None

    @property
    def description(self) -> str:  # pragma: no cover - every concrete question overrides it
        raise NotImplementedError

    @property
    def short(self) -> str:  # pragma: no cover - every concrete question overrides it
        raise NotImplementedError

    @property
    def needs(self) -> frozenset[str]:
        return frozenset()

    def to_dict(self) -> dict:  # pragma: no cover - every concrete question overrides it
        raise NotImplementedError

    @staticmethod
    def from_dict(d: dict) -> FeatureSpec:
        """A question from its JSON form (:meth:`to_dict`), including the forms saved by earlier versions.

        Interval questions carry ``low``/``high``; everything else is a word question."""
        if not isinstance(d, dict):
            raise SegvizError(f"malformed feature entry {d!r}: expected an object")
        try:
            if "low" in d or "signal" in d:
                return IntervalQuestion.from_dict(d)
            return WordQuestion.from_dict(d)
        except SegvizError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise SegvizError(f"malformed feature entry {d!r}: {exc}") from None


#: Vocabulary question kinds.  ``"sentences"``/``"words"``: the word occurs in ``window``;
#: ``"sentences_not"``: it occurs in ``window`` but not in ``not_window``;
#: ``"begins_previous"``: it is the first token of the preceding sentence.
WORD_KINDS = ("sentences", "words", "sentences_not", "begins_previous")


@dataclass(frozen=True)
class WordQuestion(FeatureSpec):
    """One vocabulary question of Section 3.4 (Figure 5 notation), e.g. 'does "mr." appear in the next sentence?'."""

    kind: str
    word: str
    window: Window
    not_window: Window | None = None

    def __post_init__(self) -> None:
        if self.kind not in WORD_KINDS:
            raise SegvizError(f"unknown vocabulary question kind {self.kind!r} "
                              f"(expected one of {', '.join(WORD_KINDS)})")
        if not isinstance(self.word, str) or not self.word:
            raise SegvizError(f"{self.kind} questions need a word")
        if (self.kind == "sentences_not") != (self.not_window is not None):
            raise SegvizError("sentences_not questions, and only they, have a not_window")

    @property
    def description(self) -> str:
        if self.kind == "begins_previous":
            return f'does "{self.word}" begin the preceding sentence?'
        text = f'does "{self.word}" appear in {self.window.phrase()}'
        if self.not_window is not None:
            text += f" but not in {self.not_window.phrase()}"
        return text + "?"

    @property
    def short(self) -> str:
        """A compact label for plots/tables (e.g. ``S+1 mr.``, ``S-5¬+5 mr.``, ``B-1 the``)."""
        if self.kind == "begins_previous":
            return f"B-1 {self.word}"
        tag = "S" if self.window.unit == "sentence" else "W"
        span = _span(self.window)
        if self.not_window is not None:
            return f"S{span}¬{_span(self.not_window)} {self.word}"
        return f"{tag}{span} {self.word}"

    def to_dict(self) -> dict:
        d: dict = {"kind": self.kind, "word": self.word, "window": self.window.to_dict()}
        if self.not_window is not None:
            d["not_window"] = self.not_window.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> WordQuestion:
        return cls(kind=str(d["kind"]), word=d.get("word"), window=Window.from_dict(d["window"]),
                   not_window=Window.from_dict(d["not_window"]) if d.get("not_window") else None)


def _span(w: Window) -> str:
    return f"{w.end:+d}" if w.start == 0 else f"{w.start:+d}"


# ----------------------------------------------------------------------------------------- signals


@dataclass(frozen=True)
class Signal:
    """A real-valued quantity at each candidate boundary that interval questions ask about.

    ``compute(context, window)`` returns one value per event of the context's stream (``n - 1``; NaN where the
    signal is undefined, so every interval question answers "no" there).  ``kind`` is the family the signal
    belongs to (a question's :attr:`FeatureSpec.kind`).  The English: ``subject(window)`` names the quantity
    ("the mean relevance of the next 2 sentences"), ``symbol`` stands for it in the interval ("R"), ``tag(window)``
    is its compact label ("R[0,2)").  ``wording(low, high, window)`` / ``label(low, high, window)`` may return a
    better sentence / label for particular intervals (None = the generic one).  ``needs``: context inputs
    the signal cannot do without (``"relevance"``).
    """

    name: str
    kind: str
    symbol: str
    subject: Callable[[Window], str]
    tag: Callable[[Window], str]
    compute: Callable[[Any, Window], np.ndarray] = field(compare=False)   # (FeatureContext, window) -> values
    needs: frozenset[str] = frozenset()
    wording: Callable[[float, float, Window], str | None] | None = field(default=None, compare=False)
    label: Callable[[float, float, Window], str | None] | None = field(default=None, compare=False)


_SIGNALS: dict[str, Signal] = {}


def register_signal(signal: Signal) -> Signal:
    """Make ``signal`` known by name (family modules call this once, at import)."""
    known = _SIGNALS.get(signal.name)
    if known is not None and known is not signal:
        raise SegvizError(f"two signals are named {signal.name!r}")
    _SIGNALS[signal.name] = signal
    return signal


def signal_named(name: str) -> Signal:
    try:
        return _SIGNALS[name]
    except (KeyError, TypeError):
        raise SegvizError(f"unknown signal {name!r} (known: {', '.join(sorted(_SIGNALS))})") from None


def registered_signals() -> dict[str, Signal]:
    return dict(_SIGNALS)


def interval_grid(edges: Sequence[float]) -> list[tuple[float, float]]:
    """All intervals ``(lo, hi]`` between the edges of a grid, except the trivial (-inf, inf)."""
    e = sorted(float(x) for x in edges)
    return [(lo, hi) for i, lo in enumerate(e) for hi in e[i + 1:]
            if not (math.isinf(lo) and math.isinf(hi))]


def interval_phrase(subject: str, symbol: str, low: float, high: float) -> str:
    """'is <subject> in <low> < <symbol> <= <high>?' (one-sided when an end is infinite)."""
    if low == -math.inf:
        return f"is {subject} {symbol} <= {high:g}?"
    if high == math.inf:
        return f"is {subject} {symbol} > {low:g}?"
    return f"is {subject} in {low:g} < {symbol} <= {high:g}?"


def describe_interval(signal: Signal, window: Window, low: float, high: float) -> tuple[str, str]:
    """The description and the short label of the question ``low < signal(window) <= high``."""
    text = signal.wording(low, high, window) if signal.wording is not None else None
    short = signal.label(low, high, window) if signal.label is not None else None
    return (text or interval_phrase(signal.subject(window), signal.symbol, low, high),
            short or f"{signal.tag(window)} in ({low:g},{high:g}]")


def _float_to_json(x: float):
    # JSON has no infinities: store them as strings
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


@dataclass(frozen=True)
class IntervalQuestion(FeatureSpec):
    """Does the signal ``signal`` over ``window`` lie in ``low < v <= high``? (Section 3.3's form)."""

    signal: str
    window: Window
    low: float
    high: float

    def __post_init__(self) -> None:
        signal_named(self.signal)
        for name in ("low", "high"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or math.isnan(v):
                raise SegvizError(f"interval questions need a numeric {name}, got {v!r}")
            object.__setattr__(self, name, float(v))
        if not self.low < self.high:
            raise SegvizError(f"empty interval ({self.low:g}, {self.high:g}]")

    @property
    def kind(self) -> str:  # type: ignore[override]
        return signal_named(self.signal).kind

    @property
    def needs(self) -> frozenset[str]:
        return signal_named(self.signal).needs

    @property
    def description(self) -> str:
        return describe_interval(signal_named(self.signal), self.window, self.low, self.high)[0]

    @property
    def short(self) -> str:
        return describe_interval(signal_named(self.signal), self.window, self.low, self.high)[1]

    def answers(self, values: np.ndarray) -> np.ndarray:
        """The question's answer at every event, from the signal's values there (NaN answers "no")."""
        with np.errstate(invalid="ignore"):
            return (values > self.low) & (values <= self.high)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "signal": self.signal, "window": self.window.to_dict(),
                "low": _float_to_json(self.low), "high": _float_to_json(self.high)}

    @classmethod
    def from_dict(cls, d: dict) -> IntervalQuestion:
        # Models saved before signals had names stored the peer signal in "word" and named relevance and
        # cohesion questions by their kind alone.
        name = d.get("signal") or d.get("word") or d.get("kind")
        q = cls(signal=str(name), window=Window.from_dict(d["window"]),
                low=float(d["low"]), high=float(d["high"]))   # float() parses the strings "inf"/"-inf"
        if "kind" in d and d["kind"] != q.kind:
            raise SegvizError(f"signal {q.signal!r} belongs to {q.kind!r} questions, not {d['kind']!r}")
        return q
