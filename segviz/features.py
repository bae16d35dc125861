"""Candidate features for the boundary model (paper Sections 3.3-3.4).

Events
------
An *event* is one inter-sentence position of a sentence stream (the corpus
concatenated, as the paper does).  For a stream of ``n`` sentences (0-based
indices ``0..n-1``) there are ``n - 1`` events; event row ``r`` is the position
``b = r + 1``: the candidate boundary lies *before* sentence ``b``.  Its label is
"yes" when a reference segment starts at sentence ``b``.

Candidate features
------------------
Every feature is a binary question about the neighbourhood of the position.
Section 3.4's vocabulary questions are instantiated for every word of a
candidate vocabulary:

* does the word appear in the next 1, 2, 3, 5 sentences?  the previous 1, 2, 3, 5?
* in the previous 5 sentences but not the next 5?  the next 5 but not the previous 5?
* in the next 1 / 5 words?  the previous 1 / 5 words?
* does the word begin the preceding sentence?

Section 3.3's relevance questions ask whether the (length-normalised) relevance
of the next sentence, or the mean relevance of the next two sentences, falls in an
interval ``low < R <= high`` of a fixed grid (``low = -inf`` gives ``R <= high``).

Two opt-in question families beyond the paper have their own modules:
lexical cohesion (:mod:`segviz.features_cohesion`) and peer evidence from
C99/TextTiling (:mod:`segviz.features_peer`).  They build FeatureSpecs, so they
import this module; it imports them inside the functions that dispatch to them.

All matrices are built with scipy.sparse from token/sentence index arrays; the
only Python loops run over window offsets (at most 5) and feature templates,
never over tokens x candidates.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from segviz.errors import SegvizError
from segviz.segmentation import masses_to_indicator

__all__ = [
    "Window",
    "FeatureSpec",
    "Template",
    "VOCABULARY_TEMPLATES",
    "EXTENDED_TEMPLATES",
    "RELEVANCE_EDGES",
    "relevance_intervals",
    "boundary_labels",
    "select_vocabulary",
    "build_candidates",
    "evaluate_features",
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
    def from_dict(cls, d: dict) -> "Window":
        return cls(str(d["unit"]), int(d["start"]), int(d["end"]))


#: Feature kinds.  ``"sentences"``/``"words"``: the word occurs in ``window``;
#: ``"sentences_not"``: it occurs in ``window`` but not in ``not_window``;
#: ``"begins_previous"``: it is the first token of the preceding sentence;
#: ``"relevance"``: the mean relevance of the sentences in ``window`` lies in (low, high].
#: ``"cohesion"``: see :mod:`segviz.features_cohesion`.
#: ``"peer"``: an unsupervised peer's evidence at the position (``word`` names the signal, see
#: segviz.features_peer.PEER_SIGNALS) lies in (low, high].
KINDS = ("sentences", "words", "sentences_not", "begins_previous", "relevance", "cohesion", "peer")


@dataclass(frozen=True)
class FeatureSpec:
    """One binary candidate question (paper Section 3.4 / Figure 5 notation).

    ``window`` is what the app draws (relative to the boundary); for compound
    questions ``not_window`` is the negated part (the paper's "not in the next
    five sentences").  ``low``/``high`` are only set for relevance questions.
    """

    kind: str
    word: str | None
    window: Window
    not_window: Window | None = None
    low: float | None = None
    high: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise SegvizError(f"unknown feature kind {self.kind!r}")
        if self.kind in ("relevance", "cohesion", "peer"):
            if self.low is None or self.high is None:
                raise SegvizError(f"{self.kind} features need low and high")
            if self.kind == "peer":
                from segviz.features_peer import PEER_SIGNALS  # local import: a cycle (module docstring)
                if self.word not in PEER_SIGNALS:
                    raise SegvizError(f"unknown peer signal {self.word!r} (expected one of {', '.join(PEER_SIGNALS)})")
        elif not self.word:
            raise SegvizError(f"{self.kind} features need a word")
        if self.kind == "sentences_not" and self.not_window is None:
            raise SegvizError("sentences_not features need not_window")

    @property
    def description(self) -> str:
        """The readable question, e.g. 'does "mr." appear in the next sentence?'."""
        if self.kind == "relevance":
            lo, hi = self.low, self.high
            what = "the next sentence's relevance" if self.window.end - self.window.start == 1 else (
                f"the mean relevance of the next {self.window.end - self.window.start} sentences")
            if lo == -math.inf:
                return f"is {what} R <= {hi:g}?"
            if hi == math.inf:
                return f"is {what} R > {lo:g}?"
            return f"is {what} in {lo:g} < R <= {hi:g}?"
        if self.kind == "cohesion":
            from segviz.features_cohesion import _cohesion_description  # local import: a cycle
            return _cohesion_description(self)
        if self.kind == "peer":
            from segviz.features_peer import _peer_description  # local import: a cycle
            return _peer_description(self)
        if self.kind == "begins_previous":
            return f'does "{self.word}" begin the preceding sentence?'
        text = f'does "{self.word}" appear in {self.window.phrase()}'
        if self.kind == "sentences_not":
            assert self.not_window is not None
            text += f" but not in {self.not_window.phrase()}"
        return text + "?"

    @property
    def short(self) -> str:
        """A compact label for plots/tables (e.g. ``S+1 mr.``, ``R(+1) in (-0.5,0]``)."""
        w = self.window
        if self.kind == "relevance":
            return f"R[0,{w.end}) in ({self.low:g},{self.high:g}]"
        if self.kind == "cohesion":
            from segviz.features_cohesion import _cohesion_short  # local import: a cycle
            return _cohesion_short(self)
        if self.kind == "peer":
            from segviz.features_peer import _peer_short  # local import: a cycle
            return _peer_short(self)
        if self.kind == "begins_previous":
            return f"B-1 {self.word}"
        tag = "S" if w.unit == "sentence" else "W"
        span = f"{w.end:+d}" if w.start == 0 else f"{w.start:+d}"
        if self.kind == "sentences_not":
            nw = self.not_window
            assert nw is not None
            nspan = f"{nw.end:+d}" if nw.start == 0 else f"{nw.start:+d}"
            return f"S{span}¬{nspan} {self.word}"
        return f"{tag}{span} {self.word}"

    @property
    def key(self) -> tuple:
        return (self.kind, self.word, self.window, self.not_window, self.low, self.high)

    def to_dict(self) -> dict:
        d: dict = {"kind": self.kind, "word": self.word, "window": self.window.to_dict()}
        if self.not_window is not None:
            d["not_window"] = self.not_window.to_dict()
        if self.low is not None:
            # JSON has no infinities: store them as strings
            d["low"] = _float_to_json(self.low)
            d["high"] = _float_to_json(self.high)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "FeatureSpec":
        try:
            return cls(
                kind=str(d["kind"]),
                word=d.get("word"),
                window=Window.from_dict(d["window"]),
                not_window=Window.from_dict(d["not_window"]) if d.get("not_window") else None,
                low=_float_from_json(d["low"]) if "low" in d else None,
                high=_float_from_json(d["high"]) if "high" in d else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, SegvizError):
                raise
            raise SegvizError(f"malformed feature entry {d!r}: {exc}") from None


def _float_to_json(x: float | None):
    if x is None:
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def _float_from_json(x) -> float:
    return float(x)  # float("inf") / float("-inf") parse the string form


@dataclass(frozen=True)
class Template:
    """A vocabulary question without its word (instantiated once per vocabulary word)."""

    kind: str
    window: Window
    not_window: Window | None = None

    def spec(self, word: str) -> FeatureSpec:
        return FeatureSpec(self.kind, word, self.window, self.not_window)


def _S(a: int, b: int) -> Window:
    return Window("sentence", a, b)


def _W(a: int, b: int) -> Window:
    return Window("word", a, b)


#: The 15 vocabulary questions of Section 3.4, in the paper's order.
VOCABULARY_TEMPLATES: tuple[Template, ...] = (
    *(Template("sentences", _S(0, k)) for k in (1, 2, 3, 5)),
    *(Template("sentences", _S(-k, 0)) for k in (1, 2, 3, 5)),
    Template("sentences_not", _S(-5, 0), _S(0, 5)),
    Template("sentences_not", _S(0, 5), _S(-5, 0)),
    *(Template("words", _W(0, m)) for m in (1, 5)),
    *(Template("words", _W(-m, 0)) for m in (1, 5)),
    Template("begins_previous", _S(-1, -1)),
)

#: The paper's 15 questions plus wider/narrower windows (next/previous 10 sentences, 2 and 3 words):
#: a larger candidate pool for the speed benchmark (>= 300,000 candidates on the Reuters training portion).
EXTENDED_TEMPLATES: tuple[Template, ...] = VOCABULARY_TEMPLATES + (
    Template("sentences", _S(0, 10)), Template("sentences", _S(-10, 0)),
    *(Template("words", _W(0, m)) for m in (2, 3)),
    *(Template("words", _W(-m, 0)) for m in (2, 3)),
)

#: Edges of the relevance interval grid; every pair ``lo < hi`` of edges gives
#: one interval ``lo < R <= hi`` (the paper's -0.5 < R < 0, 0 < R < 0.05, R <= 0 are all in it).
RELEVANCE_EDGES: tuple[float, ...] = (
    -math.inf, -2.0, -1.0, -0.5, -0.25, -0.1, -0.05, 0.0, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, math.inf)

#: Relevance windows: the next sentence and the next two sentences.
RELEVANCE_WINDOWS: tuple[Window, ...] = (_S(0, 1), _S(0, 2))


def relevance_intervals(edges: Sequence[float] = RELEVANCE_EDGES) -> list[tuple[float, float]]:
    """All intervals ``(lo, hi]`` between grid edges, except the trivial (-inf, inf)."""
    e = sorted(float(x) for x in edges)
    return [(lo, hi) for i, lo in enumerate(e) for hi in e[i + 1:]
            if not (math.isinf(lo) and math.isinf(hi))]


# ----------------------------------------------------------------------------- helpers


def boundary_labels(masses: Sequence[int]) -> np.ndarray:
    """Event labels (n-1,) bool: True where a reference segment starts at sentence b=r+1."""
    return masses_to_indicator(masses)


def select_vocabulary(sentences: Iterable[Sequence[str]], size: int, *, min_count: int = 1) -> list[str]:
    """The ``size`` most frequent tokens (ties broken alphabetically, for determinism)."""
    counts = Counter(t for s in sentences for t in s)
    items = sorted((c, w) for w, c in counts.items() if c >= min_count)
    items.sort(key=lambda cw: (-cw[0], cw[1]))
    return [w for _, w in items[:size]]


class _Stream:
    """Integer-coded token stream: token ids (-1 = out of vocabulary) and sentence offsets."""

    def __init__(self, sentences: Sequence[Sequence[str]], vocab: Sequence[str]):
        self.n = len(sentences)
        self.V = len(vocab)
        index = {w: i for i, w in enumerate(vocab)}
        lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=self.n)
        self.starts = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.starts[1:])
        self.T = int(self.starts[-1])
        get = index.get
        self.tok = np.fromiter((get(t, -1) for s in sentences for t in s), dtype=np.int64, count=self.T)
        self.sent = np.repeat(np.arange(self.n, dtype=np.int64), lengths)
        known = self.tok >= 0
        # distinct (sentence, word) pairs = the sentence-by-word incidence matrix W (n x V)
        code = np.unique(self.sent[known] * max(self.V, 1) + self.tok[known])
        self.pair_sent = code // max(self.V, 1)
        self.pair_word = code % max(self.V, 1)

    def _block(self, rows: np.ndarray, cols: np.ndarray) -> sp.csc_matrix:
        n_ev = max(self.n - 1, 0)
        data = np.ones(len(rows), dtype=np.int8)
        m = sp.csc_matrix((data, (rows, cols)), shape=(n_ev, self.V))
        m.sum_duplicates()
        m.data[:] = 1  # binary: a word seen twice in the window still answers "yes"
        return m

    def sentence_window(self, w: Window) -> sp.csc_matrix:
        # sentence s lies in event b's window iff b+start <= s < b+end  ->  b = s - o, o in [start, end)
        rows, cols = [], []
        for o in range(w.start, w.end):
            b = self.pair_sent - o
            ok = (b >= 1) & (b <= self.n - 1)
            rows.append(b[ok] - 1)
            cols.append(self.pair_word[ok])
        return self._block(np.concatenate(rows) if rows else np.zeros(0, np.int64),
                           np.concatenate(cols) if cols else np.zeros(0, np.int64))

    def word_window(self, w: Window) -> sp.csc_matrix:
        # token position p = starts[b] + o, o in [start, end)
        b = np.arange(1, self.n, dtype=np.int64)
        rows, cols = [], []
        for o in range(w.start, w.end):
            p = self.starts[b] + o
            ok = (p >= 0) & (p < self.T)
            t = self.tok[p[ok]]
            known = t >= 0
            rows.append((b[ok] - 1)[known])
            cols.append(t[known])
        return self._block(np.concatenate(rows) if rows else np.zeros(0, np.int64),
                           np.concatenate(cols) if cols else np.zeros(0, np.int64))

    def begins_previous(self) -> sp.csc_matrix:
        b = np.arange(1, self.n, dtype=np.int64)
        prev = b - 1
        nonempty = self.starts[prev + 1] > self.starts[prev]
        t = np.full(len(b), -1, dtype=np.int64)
        t[nonempty] = self.tok[self.starts[prev[nonempty]]]
        ok = t >= 0
        return self._block(b[ok] - 1, t[ok])

    def template_block(self, tpl: Template | FeatureSpec) -> sp.csc_matrix:
        if tpl.kind == "sentences":
            return self.sentence_window(tpl.window)
        if tpl.kind == "words":
            return self.word_window(tpl.window)
        if tpl.kind == "sentences_not":
            a = self.sentence_window(tpl.window)
            assert tpl.not_window is not None
            c = self.sentence_window(tpl.not_window)
            m = (a - a.multiply(c)).tocsc()
            m.eliminate_zeros()
            return m.astype(np.int8)
        if tpl.kind == "begins_previous":
            return self.begins_previous()
        raise SegvizError(f"not a vocabulary template kind: {tpl.kind!r}")


def _window_relevance(relevance: np.ndarray, w: Window, n: int) -> np.ndarray:
    """Mean relevance over sentences b+start..b+end-1 (clipped to the stream) for b=1..n-1."""
    c = np.zeros(n + 1)
    np.cumsum(relevance, out=c[1:])
    b = np.arange(1, n)
    lo = np.clip(b + w.start, 0, n)
    hi = np.clip(b + w.end, 0, n)
    cnt = hi - lo
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (c[hi] - c[lo]) / cnt
    out[cnt == 0] = np.nan  # no sentence in the window: every interval question answers "no"
    return out


def _relevance_block(relevance: np.ndarray, n: int, specs: Sequence[FeatureSpec]) -> sp.csc_matrix:
    cols = []
    cache: dict[Window, np.ndarray] = {}
    for s in specs:
        if s.window not in cache:
            cache[s.window] = _window_relevance(relevance, s.window, n)
        r = cache[s.window]
        with np.errstate(invalid="ignore"):
            cols.append((r > s.low) & (r <= s.high))
    if not cols:
        return sp.csc_matrix((max(n - 1, 0), 0), dtype=np.int8)
    return sp.csc_matrix(np.column_stack(cols).astype(np.int8))


def _check_inputs(sentences, relevance) -> tuple[int, np.ndarray | None]:
    n = len(sentences)
    if n < 2:
        raise SegvizError(f"need at least 2 sentences to form boundary events, got {n}")
    if relevance is None:
        return n, None
    r = np.asarray(relevance, dtype=np.float64)
    if r.shape != (n,):
        raise SegvizError(f"relevance must have shape ({n},) (one value per sentence), got {r.shape}")
    return n, r


def relevance_specs(edges: Sequence[float] = RELEVANCE_EDGES,
                    windows: Sequence[Window] = RELEVANCE_WINDOWS) -> list[FeatureSpec]:
    return [FeatureSpec("relevance", None, w, low=lo, high=hi)
            for w in windows for lo, hi in relevance_intervals(edges)]


def build_candidates(
    sentences: Sequence[Sequence[str]],
    relevance: np.ndarray | None,
    *,
    vocabulary: int | Sequence[str] = 20000,
    templates: Sequence[Template] = VOCABULARY_TEMPLATES,
    relevance_edges: Sequence[float] = RELEVANCE_EDGES,
    cohesion: bool = False,
    peer_evidence: bool = False,
    groups: Sequence[int] | None = None,
    drop_empty: bool = True,
    min_support: int = 1,
) -> tuple[sp.csc_matrix, list[FeatureSpec]]:
    """Build the event-by-candidate binary matrix (Section 3.4).

    Parameters
    ----------
    sentences : the tokenised sentence stream (n sentences -> n-1 events).
    relevance : per-sentence relevance (n,), or None for no relevance questions.
    vocabulary : the candidate words, or an int = that many most frequent words of ``sentences``.
    cohesion : add the lexical-cohesion interval questions (not in the paper; see
        :mod:`segviz.features_cohesion`).
    peer_evidence : add the peer-evidence interval questions (not in the paper; C99/TextTiling evidence, see
        :mod:`segviz.features_peer`), computed per group.
    groups : sentence counts of the consecutive documents the peers run on separately (None = one group).
    drop_empty : drop candidates that never fire on these events (they can have no gain).
    min_support : with ``drop_empty``, also drop candidates firing on fewer events than this (1 = the paper:
        keep everything; larger values keep the greedy induction off one-off questions whose weight
        would run to the cap).

    Returns
    -------
    X : scipy.sparse CSC matrix, shape (n-1, m), int8 0/1 (CSC because induction reads columns).
    specs : the m FeatureSpecs, column order.
    """
    n, r = _check_inputs(sentences, relevance)
    vocab = select_vocabulary(sentences, vocabulary) if isinstance(vocabulary, (int, np.integer)) \
        else list(dict.fromkeys(vocabulary))
    stream = _Stream(sentences, vocab)
    blocks: list[sp.csc_matrix] = []
    specs: list[FeatureSpec] = []
    for tpl in templates:
        blocks.append(stream.template_block(tpl))
        specs.extend(tpl.spec(w) for w in vocab)
    if r is not None:
        rs = relevance_specs(relevance_edges)
        blocks.append(_relevance_block(r, n, rs))
        specs.extend(rs)
    if cohesion:
        from segviz.features_cohesion import _cohesion_block, cohesion_specs  # local import: a cycle
        cs = cohesion_specs()
        blocks.append(_cohesion_block(sentences, cs))
        specs.extend(cs)
    if peer_evidence:
        from segviz.features_peer import _peer_block, peer_specs  # local import: a cycle
        ps = peer_specs()
        blocks.append(_peer_block(sentences, ps, groups))
        specs.extend(ps)
    X = sp.hstack(blocks, format="csc", dtype=np.int8) if blocks else sp.csc_matrix((n - 1, 0), dtype=np.int8)
    if drop_empty:
        keep = np.flatnonzero(np.diff(X.indptr) >= max(1, int(min_support)))
        X = X[:, keep]
        specs = [specs[i] for i in keep]
    X.sort_indices()
    return X, specs


def evaluate_features(
    specs: Sequence[FeatureSpec],
    sentences: Sequence[Sequence[str]],
    relevance: np.ndarray | None,
    *,
    groups: Sequence[int] | None = None,
) -> sp.csr_matrix:
    """The (n-1, len(specs)) 0/1 matrix of the given features on a new stream.

    Builds only the blocks the specs need (one per distinct template, restricted
    to the words they ask about).  Relevance features need ``relevance``; peer features
    run the peers per group of ``groups`` (see :func:`segviz.features_peer.peer_values`).
    """
    n, r = _check_inputs(sentences, relevance)
    n_ev = n - 1
    if not specs:
        return sp.csr_matrix((n_ev, 0), dtype=np.int8)
    word_specs = [(i, s) for i, s in enumerate(specs) if s.kind not in ("relevance", "cohesion", "peer")]
    peer = [(i, s) for i, s in enumerate(specs) if s.kind == "peer"]
    rel_specs = [(i, s) for i, s in enumerate(specs) if s.kind == "relevance"]
    coh_specs = [(i, s) for i, s in enumerate(specs) if s.kind == "cohesion"]
    vocab = list(dict.fromkeys(s.word for _, s in word_specs))
    col_blocks: list[sp.csc_matrix] = []
    order: list[int] = []
    if word_specs:
        stream = _Stream(sentences, vocab)
        windex = {w: j for j, w in enumerate(vocab)}
        by_tpl: dict[tuple, list[tuple[int, FeatureSpec]]] = {}
        for i, s in word_specs:
            by_tpl.setdefault((s.kind, s.window, s.not_window), []).append((i, s))
        for (kind, window, not_window), items in by_tpl.items():
            block = stream.template_block(Template(kind, window, not_window))
            col_blocks.append(block[:, [windex[s.word] for _, s in items]])
            order.extend(i for i, _ in items)
    if rel_specs:
        if r is None:
            raise SegvizError("these features ask about relevance, but no relevance values were given")
        col_blocks.append(_relevance_block(r, n, [s for _, s in rel_specs]))
        order.extend(i for i, _ in rel_specs)
    if coh_specs:
        from segviz.features_cohesion import _cohesion_block  # local import: a cycle
        col_blocks.append(_cohesion_block(sentences, [s for _, s in coh_specs]))
        order.extend(i for i, _ in coh_specs)
    if peer:
        from segviz.features_peer import _peer_block  # local import: a cycle
        col_blocks.append(_peer_block(sentences, [s for _, s in peer], groups))
        order.extend(i for i, _ in peer)
    X = sp.hstack(col_blocks, format="csc", dtype=np.int8)
    inv = np.empty(len(order), dtype=np.int64)
    inv[np.asarray(order)] = np.arange(len(order))
    return X[:, inv].tocsr()
