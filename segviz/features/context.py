"""What the candidate questions look at on one sentence stream, validated once and computed once.

A :class:`FeatureContext` carries the tokenised sentences of a stream and every precomputed signal the
question families may ask about: the language models' relevance (Section 3.3), the source groups (runs of
consecutive documents from one file, on which peers and per-document statistics run separately), the raw
sentence texts (capitalisation and punctuation, which tokenisation lowercases away) and the paragraph starts
when the reader knows them.  Signal values are cached inside the context (:meth:`FeatureContext.values`), so
building candidates and evaluating features on the same stream computes each signal once, and nothing is cached
anywhere else.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from segviz.errors import SegvizError
from segviz.features.questions import Signal, Window

if TYPE_CHECKING:  # annotations only
    from segviz.corpus import Corpus

__all__ = ["FeatureContext"]


class FeatureContext:
    """One stream of ``n`` sentences (``n - 1`` candidate boundaries) and its precomputed inputs.

    Parameters
    ----------
    sentences : the tokenised sentences (at least 2).
    relevance : per-sentence relevance ``(n,)`` from the language models, or None.
    groups : sentence counts of consecutive source groups (documents/files), summing to ``n``; None = one group.
    texts : the raw text of each sentence; None = the tokens joined by spaces (no capitals, no quotes).
    paragraph_starts : per sentence, whether it opens a paragraph (True/False), NaN where unknown; None = unknown
        everywhere.
    gap_score : per event (n-1,), a learned score of the gap in [0, 1] (:class:`segviz.gap_scorer.GapScorer`), NaN
        where it gives none; None = not given (:meth:`set_gap_score` gives it later).
    """

    def __init__(self, sentences: Sequence[Sequence[str]], *, relevance=None, groups: Sequence[int] | None = None,
                 texts: Sequence[str] | None = None, paragraph_starts=None, gap_score=None):
        self.sentences = list(sentences)
        n = len(self.sentences)
        if n < 2:
            raise SegvizError(f"need at least 2 sentences to form boundary events, got {n}")
        self.n_sentences = n
        self.n_events = n - 1
        self.relevance = None
        if relevance is not None:
            r = np.asarray(relevance, dtype=np.float64)
            if r.shape != (n,):
                raise SegvizError(f"relevance must have shape ({n},) (one value per sentence), got {r.shape}")
            self.relevance = r
        sizes = [n] if groups is None else [int(g) for g in groups]
        if any(g < 1 for g in sizes) or sum(sizes) != n:
            raise SegvizError(f"groups must be positive sentence counts summing to {n} (got {len(sizes)} groups "
                              f"summing to {sum(sizes)})")
        self.groups = tuple(sizes)
        self.has_texts = texts is not None
        if texts is None:
            self.texts = [" ".join(s) for s in self.sentences]
        else:
            self.texts = [str(t) for t in texts]
            if len(self.texts) != n:
                raise SegvizError(f"texts must hold one string per sentence ({n}), got {len(self.texts)}")
        self.paragraph_starts = None
        if paragraph_starts is not None:
            p = np.asarray(paragraph_starts, dtype=np.float64)
            if p.shape != (n,):
                raise SegvizError(f"paragraph_starts must have shape ({n},), got {p.shape}")
            if not np.isnan(p).all():
                self.paragraph_starts = p
        self._memo: dict = {}
        self.gap_score = None
        if gap_score is not None:
            self.set_gap_score(gap_score)

    def set_gap_score(self, values) -> None:
        """Give the learned gap score (one value in [0, 1] or NaN per event); signals computed from an earlier
        score are forgotten."""
        v = np.array(values, dtype=np.float64)
        if v.shape != (self.n_events,):
            raise SegvizError(f"gap_score must have shape ({self.n_events},) (one value per gap), got {v.shape}")
        present = v[~np.isnan(v)]
        if present.size and (present.min() < 0.0 or present.max() > 1.0):
            raise SegvizError("gap_score values must lie in [0, 1]")
        v.setflags(write=False)
        self.gap_score = v
        self._memo = {k: value for k, value in self._memo.items() if not (isinstance(k, tuple) and k[:2] == (
            "signal", "paragraph_score"))}

    @classmethod
    def from_corpus(cls, corpus: Corpus, *, relevance=None) -> FeatureContext:
        """The context of a corpus's stream: its sentences, texts, source groups and paragraph starts.

        Paragraph starts come from each document's ``paragraph_starts`` (one flag per sentence) where the reader
        recorded them.  Marks that fall exactly on the reference boundaries and nowhere else are dropped: they
        restate the labels (a reader that starts a paragraph with every document) and would leak them.
        """
        docs = list(corpus.documents)
        sentences = corpus.sentences()
        marks: list[float] = []
        known = False
        for doc in docs:
            flags = getattr(doc, "paragraph_starts", None)
            try:
                ok = flags is not None and len(flags) == len(doc)
            except TypeError:
                ok = False
            if ok:
                marks.extend(1.0 if bool(f) else 0.0 for f in flags)
                known = True
            else:
                marks.extend([np.nan] * len(doc))
        paragraphs = np.asarray(marks) if known else None
        if paragraphs is not None and len(docs) > 1:
            edges = np.zeros(len(sentences), dtype=bool)
            edges[np.cumsum([len(d) for d in docs])[:-1]] = True
            inner = paragraphs[1:] == 1.0
            if np.array_equal(inner, edges[1:]):
                paragraphs = None
        return cls(sentences, relevance=relevance, groups=corpus.source_groups(), texts=corpus.sentence_texts(),
                   paragraph_starts=paragraphs)

    # ------------------------------------------------------------------ inputs
    def provides(self, need: str) -> bool:
        """True when the input ``need`` ("relevance", "paragraph_starts", "texts") is known for this stream."""
        if need == "texts":
            return self.has_texts
        return getattr(self, need, None) is not None

    def require(self, needs) -> None:
        missing = [need for need in sorted(needs) if not self.provides(need)]
        if missing:
            raise SegvizError(f"these features ask about {', '.join(missing)}, but no {' or '.join(missing)} "
                              f"values were given")

    @property
    def group_starts(self) -> np.ndarray:
        """Index of the first sentence of each source group."""
        return np.concatenate([[0], np.cumsum(self.groups)[:-1]]).astype(np.int64)

    def group_edges(self) -> np.ndarray:
        """Per event (n-1,): True where the boundary falls between two source groups."""
        edge = np.zeros(self.n_events, dtype=bool)
        starts = self.group_starts[1:]
        edge[starts - 1] = True
        return edge

    def group_of_sentence(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.groups)), self.groups)

    def group_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per gap b = 1..n-1: the first sentence of the group of sentence b-1 and the end (exclusive) of the group
        of sentence b (the same group except at a group edge)."""
        group = self.group_of_sentence()
        starts = self.group_starts
        ends = starts + np.asarray(self.groups, dtype=np.int64)
        return starts[group[:-1]], ends[group[1:]]

    def window_sums(self, per_sentence: np.ndarray, window: Window) -> tuple[np.ndarray, np.ndarray]:
        """Sum and count of a per-sentence quantity over sentences b+start .. b+end-1 for every gap b, the
        window clipped to the source group on its side of the gap (the previous sentences to the group of
        sentence b-1, the next ones to the group of sentence b)."""
        x = np.asarray(per_sentence, dtype=np.float64)
        c = np.zeros(self.n_sentences + 1)
        np.cumsum(x, out=c[1:])
        b = np.arange(1, self.n_sentences)
        first, end = self.group_bounds()
        lo = np.clip(b + window.start, first, end)
        hi = np.clip(b + window.end, first, end)
        hi = np.maximum(hi, lo)
        return c[hi] - c[lo], (hi - lo).astype(np.float64)

    def window_mean(self, per_sentence: np.ndarray, window: Window) -> np.ndarray:
        """:meth:`window_sums` as a mean; NaN where the clipped window holds no sentence."""
        total, count = self.window_sums(per_sentence, window)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.where(count > 0, count, 1.0), np.nan)

    def inside_groups(self, values: np.ndarray) -> np.ndarray:
        """``values`` with NaN at the gaps between two source groups.

        A file boundary is not evidence the text gives: families beyond the paper answer "no" there, so the
        model cannot learn that the edge between two training files is a boundary."""
        out = np.array(values, dtype=np.float64, copy=True)
        out[self.group_edges()] = np.nan
        return out

    # ------------------------------------------------------------------ cache
    def memo(self, key, compute: Callable[[], object]):
        """``compute()`` once per key for this stream (the cache lives and dies with the context)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def is_cached(self, key) -> bool:
        return key in self._memo

    def forget(self, key) -> None:
        """Drop one cached value (a :meth:`memo` key) that nothing will read again, to give its memory back."""
        self._memo.pop(key, None)

    def values(self, signal: Signal, window: Window) -> np.ndarray:
        """The signal's value at every event (n-1,), computed once per (signal, window)."""
        self.require(signal.needs)

        def compute() -> np.ndarray:
            v = np.asarray(signal.compute(self, window), dtype=np.float64)
            if v.shape != (self.n_events,):
                raise SegvizError(f"signal {signal.name!r} gave shape {v.shape}, expected ({self.n_events},)")
            v.setflags(write=False)
            return v

        return self.memo(("signal", signal.name, window), compute)
