"""Katz-backoff trigram model: the paper's short-range "prior" p_tri(w | w-2, w-1) (Section 3.1).

Vocabulary
    The ``vocab_size`` most frequent training words (ties broken alphabetically) plus three specials with fixed
    ids: ``<unk>`` = 0 (every other word maps to it and it is predicted like a word), ``<s>`` = 1 and
    ``</s>`` = 2.

Sentence handling (the ARPA / kenlm convention, so an exported model scores identically in kenlm)
    Each sentence ``w1..wn`` is scored as ``<s> w1 .. wn </s>``: the n+1 predicted tokens are the words and
    ``</s>``; ``<s>`` is context only and never predicted (probability 0, ``-99`` in ARPA).  The first word is
    predicted from the one-word history ``<s>`` (a bigram); internally that position has the history
    ``(<s>, <s>)``, a context that never occurs in the trigram table, so its backoff weight is 1 and the lookup
    falls to the bigram -- exactly what kenlm does.  The trigram history restarts at every sentence;
    only the trigger model's cache (Section 3.2) crosses sentence and document boundaries.

Smoothing (Katz 1987)
    At each order, counts ``r <= discount_cutoff`` (5) are discounted by the Good--Turing ratio
    ``d_r = (r*/r - (k+1) n_{k+1}/n_1) / (1 - (k+1) n_{k+1}/n_1)`` computed from that order's counts of counts;
    larger counts are trusted.  When an order's counts of counts give a ratio outside ``(0, 1)`` (tiny or odd
    corpora) the whole order falls back to absolute discounting ``d_r = (r - D)/r`` with
    ``D = n_1/(n_1 + 2 n_2)``.  The mass freed in a context goes to the unseen words in proportion to the
    next-lower-order distribution, through the backoff weight ``alpha = leftover / (1 - sum of lower-order
    probabilities of the seen words)``.  The unigram level backs off to the uniform distribution over the
    predicted vocabulary (this is what gives ``<unk>`` a probability when every word of the corpus is in the
    vocabulary).

Contexts with no leftover mass
    Katz leaves nothing for unseen words in a context whose continuations were all seen more than ``k`` times
    (common in newswire boilerplate: "shr ... cts vs").  Those contexts would give probability 0 to every other
    word.  We handle them explicitly: when the Good--Turing leftover of a context is below ``min_leftover``,
    that context uses the Witten--Bell reservation instead, ``p(w | h) = c(h, w) / (c(h) + T(h))`` with leftover
    ``T(h) / (c(h) + T(h))`` (``T`` = number of distinct continuations) -- the estimated probability of a novel
    continuation.  The opposite corner (every word of the vocabulary already seen in a context, possible only
    with tiny vocabularies) renormalises the discounted probabilities to sum to one and stores a backoff weight of
    1, which is never used.

Normalisation is exact: for every history the probabilities of the predicted vocabulary sum to 1 (tested by
brute force in ``tests/test_lm_trigram.py``).  Scoring a token stream is vectorised: n-grams are hashed into
sorted int64 keys (21 bits per id) and looked up with :func:`numpy.searchsorted`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import SegvizError
from ..params import Custom, Integer, Number, checked_fields, show_value
from ..params import Sequence as ListOf
from .ngram_counts import (
    ID_BITS,
    NgramCounts,
    count_stream,
    count_words,
    ngram_key2,
    ngram_key3,
)

UNK, BOS, EOS = "<unk>", "<s>", "</s>"
UNK_ID, BOS_ID, EOS_ID = 0, 1, 2
SPECIALS = (UNK, BOS, EOS)

_BITS = ID_BITS  # ids < 2**21 so that a trigram key (3 x 21 bits) fits in a signed int64
_MAX_IDS = 1 << _BITS
_LOG10E = np.log10(np.e)


@dataclass(frozen=True)
class TokenStream:
    """A sentence sequence encoded for scoring: one entry per *predicted* token (the words and each ``</s>``).

    ``w`` is the predicted id, ``h1``/``h2`` the previous two ids (``<s>`` padded), ``sentence`` the index of the
    sentence the token belongs to, ``is_word`` False for the ``</s>`` tokens, ``oov`` True where a word mapped to
    ``<unk>``.
    """

    w: np.ndarray
    h1: np.ndarray
    h2: np.ndarray
    sentence: np.ndarray
    is_word: np.ndarray
    oov: np.ndarray
    n_sentences: int

    def __len__(self) -> int:
        return int(self.w.shape[0])


def _validate_sentences(sentences) -> list[Sequence[str]]:
    if isinstance(sentences, (str, bytes)):
        raise SegvizError("expected a sequence of tokenised sentences, got a string")
    try:
        sentences = list(sentences)
    except TypeError:
        raise SegvizError("expected a sequence of tokenised sentences") from None
    for s in sentences[:50]:
        if isinstance(s, (str, bytes)):
            raise SegvizError("expected sentences as sequences of tokens, got a string (tokenise first)")
    return sentences


def encode_stream(sentences: Sequence[Sequence[str]], word_index: dict[str, int]) -> TokenStream:
    """Encode sentences into the predicted-token arrays of :class:`TokenStream` (vectorised padding)."""
    sentences = _validate_sentences(sentences)
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
    n_words = int(lengths.sum())
    get = word_index.get
    flat = np.fromiter((get(t, UNK_ID) for s in sentences for t in s), dtype=np.int64, count=n_words)
    # Padded layout per sentence: <s> <s> w1 .. wn </s>  (length n + 3); predicted = last n + 1 slots.
    padded_len = lengths + 3
    starts = np.zeros(len(sentences), dtype=np.int64)
    if len(sentences) > 1:
        np.cumsum(padded_len[:-1], out=starts[1:])
    total = int(padded_len.sum())
    padded = np.full(total, BOS_ID, dtype=np.int64)
    sent_of_word = np.repeat(np.arange(len(sentences)), lengths)
    word_rank = np.arange(n_words) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    padded[starts[sent_of_word] + 2 + word_rank] = flat
    padded[starts + lengths + 2] = EOS_ID
    predicted = np.ones(total, dtype=bool)
    predicted[starts] = False
    predicted[starts + 1] = False
    idx = np.flatnonzero(predicted)
    w = padded[idx]
    is_word = np.ones(len(idx), dtype=bool)
    eos_pos = np.cumsum(lengths + 1) - 1
    is_word[eos_pos] = False
    oov = np.zeros(len(idx), dtype=bool)
    oov[is_word] = flat == UNK_ID
    return TokenStream(
        w=w,
        h1=padded[idx - 1],
        h2=padded[idx - 2],
        sentence=np.repeat(np.arange(len(sentences)), lengths + 1),
        is_word=is_word,
        oov=oov,
        n_sentences=len(sentences),
    )


_key2 = ngram_key2
_key3 = ngram_key3


def _discounts(value, name: str) -> dict:
    """Katz's discount ratios per order ("1", "2", "3"), each a list of ratios in [0, 1]."""
    if not isinstance(value, dict) or not set(value) <= {"1", "2", "3"}:
        raise SegvizError(f"{name} must be an object of the orders 1, 2, 3, got {show_value(value)}")
    return {order: _RATIOS.check(ratios, f"{name}.{order}") for order, ratios in value.items()}


_RATIOS = ListOf(Number(0.0, 1.0), max_len=1001)
#: the fields of a saved trigram model's description, each checked before use
_SAVED_FIELDS = {
    "vocab_size": Integer(1, _MAX_IDS - 4), "discount_cutoff": Integer(1, 1000),
    "min_leftover": Number(0.0, 0.5, open_low=True, open_high=True), "n_train_tokens": Integer(0, 2 ** 62),
    "discounts": Custom(_discounts, "the discount ratios per order"),
    "vocab": Custom(lambda words, name: _words(words, name), "a list of words"),
}


def _words(value, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > _MAX_IDS or not all(isinstance(w, str) for w in value):
        raise SegvizError(f"{name} must be a list of at most {_MAX_IDS:,} words")
    return tuple(value)


def _lookup(keys: np.ndarray, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``query`` in the sorted ``keys`` and a found mask (positions clipped where not found)."""
    if keys.size == 0:
        return np.zeros(query.shape, dtype=np.int64), np.zeros(query.shape, dtype=bool)
    pos = np.searchsorted(keys, query)
    pos = np.minimum(pos, keys.size - 1)
    return pos, keys[pos] == query


def good_turing_discounts(counts: np.ndarray, k: int = 5) -> np.ndarray:
    """Katz's discount ratios ``d[r]`` for ``r = 0..k`` (``d[0]`` unused) from the counts of counts.

    Falls back to absolute discounting for the whole order if any Good--Turing ratio is outside ``(0, 1)``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    nr = np.bincount(counts[counts <= k + 1], minlength=k + 2).astype(float)
    d = np.ones(k + 1)
    if counts.size == 0 or nr[1] == 0:
        return d
    common = (k + 1) * nr[k + 1] / nr[1]
    ok = common < 1
    for r in range(1, k + 1):
        if nr[r] == 0:
            continue
        rstar = (r + 1) * nr[r + 1] / nr[r]
        d[r] = (rstar / r - common) / (1 - common) if ok else np.nan
    used = nr[1 : k + 1] > 0
    if not ok or not np.all((d[1:][used] > 0) & (d[1:][used] < 1)):
        big_d = nr[1] / (nr[1] + 2 * nr[2]) if nr[1] + 2 * nr[2] > 0 else 0.5
        big_d = min(max(big_d, 0.05), 0.95)
        r = np.arange(1, k + 1)
        d[1:] = (r - big_d) / r
    return d


def _katz_level(ctx: np.ndarray, counts: np.ndarray, lower_p: np.ndarray, n_ctx: int, d: np.ndarray, k: int,
                n_predictable: int, min_leftover: float):
    """Katz probabilities of seen n-grams and backoff weights of their contexts (vectorised over contexts).

    ``ctx`` is a dense context index per seen n-gram, ``lower_p`` the lower-order probability of each n-gram's
    word given the shorter context.  Returns (p_seen, alpha per context).
    """
    c = counts.astype(float)
    disc = np.where(counts <= k, d[np.minimum(counts, k)], 1.0)
    total = np.bincount(ctx, weights=c, minlength=n_ctx)
    types = np.bincount(ctx, minlength=n_ctx).astype(float)
    p = disc * c / total[ctx]
    leftover = np.bincount(ctx, weights=(1.0 - disc) * c, minlength=n_ctx) / np.maximum(total, 1e-300)
    # Contexts with (almost) no leftover: Witten-Bell reservation, see the module docstring.
    starved = leftover < min_leftover
    if np.any(starved):
        s = starved[ctx]
        p = np.where(s, c / (total[ctx] + types[ctx]), p)
        leftover = np.where(starved, types / (total + types), leftover)
    lower_seen = np.bincount(ctx, weights=lower_p, minlength=n_ctx)
    unseen_lower = 1.0 - lower_seen
    full = types >= n_predictable
    if np.any(full):
        # Every predictable word seen in this context: renormalise, the backoff weight is never used.
        seen_sum = np.bincount(ctx, weights=p, minlength=n_ctx)
        p = np.where(full[ctx], p / seen_sum[ctx], p)
    alpha = np.where(full, 1.0, leftover / np.where(full, 1.0, np.maximum(unseen_lower, 1e-300)))
    return p, alpha


class TrigramLM:
    """Katz-backoff trigram language model over the top ``vocab_size`` words (Section 3.1 of the paper).

    Parameters
    ----------
    vocab_size : int
        Number of most frequent training words kept; all others map to ``<unk>``.
    discount_cutoff : int
        Katz's ``k``: counts up to this value are Good--Turing discounted.
    min_leftover : float
        A context whose Good--Turing leftover mass is below this uses the Witten--Bell reservation.

    Attributes (after :meth:`fit`)
    ------------------------------
    vocab_ : tuple of str, index = id (``<unk>``, ``<s>``, ``</s>`` first); word_index_ : dict;
    n_train_tokens_ : number of predicted training tokens; discounts_ : Good--Turing ratios per order.
    """

    def __init__(self, *, vocab_size: int = 20000, discount_cutoff: int = 5, min_leftover: float = 1e-6):
        self.vocab_size = vocab_size
        self.discount_cutoff = discount_cutoff
        self.min_leftover = min_leftover

    # ------------------------------------------------------------------ fitting
    def _check_params(self):
        if not isinstance(self.vocab_size, (int, np.integer)) or not 1 <= self.vocab_size < _MAX_IDS - 3:
            raise SegvizError(f"vocab_size must be an integer in 1..{_MAX_IDS - 4}, got {self.vocab_size!r}")
        if not isinstance(self.discount_cutoff, (int, np.integer)) or self.discount_cutoff < 1:
            raise SegvizError(f"discount_cutoff must be a positive integer, got {self.discount_cutoff!r}")
        if not 0 < float(self.min_leftover) < 0.5:
            raise SegvizError(f"min_leftover must be in (0, 0.5), got {self.min_leftover!r}")

    def fit(self, sentences: Sequence[Sequence[str]]) -> TrigramLM:
        """Count uni/bi/trigrams of ``sentences`` (a stream of tokenised sentences) and build the Katz model."""
        self._check_params()
        sentences = _validate_sentences(sentences)
        self.set_vocabulary(count_words(sentences))
        return self.fit_counts(count_stream(self.encode_unfitted(sentences), len(self.vocab_), BOS_ID))

    def set_vocabulary(self, freq) -> TrigramLM:
        """Keep the ``vocab_size`` most frequent words of the word counts ``freq`` (ties alphabetically) after the
        three specials; :class:`SegvizError` when there is no token to count."""
        self._check_params()
        if not any(freq.values()):
            raise SegvizError("cannot train a trigram model on an empty corpus (no tokens)")
        freq = {w: c for w, c in freq.items() if w not in SPECIALS}
        words = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[: self.vocab_size]
        self.vocab_ = SPECIALS + tuple(w for w, _ in words)
        self.word_index_ = {w: i for i, w in enumerate(self.vocab_)}
        return self

    def encode_unfitted(self, sentences: Sequence[Sequence[str]]) -> TokenStream:
        """``sentences`` encoded in the vocabulary chosen by :meth:`set_vocabulary` (before the model is built)."""
        return encode_stream(sentences, self.word_index_)

    def fit_counts(self, counts: NgramCounts) -> TrigramLM:
        """Build the Katz model from n-gram counts in this model's vocabulary (:meth:`set_vocabulary`): the counts
        of the training text, counted at once or merged from parts (:mod:`segviz.lm.ngram_counts`)."""
        if counts.n_ids != len(self.vocab_):
            raise SegvizError(f"n-gram counts of {counts.n_ids} ids for a vocabulary of {len(self.vocab_)}")
        self._build_counts(counts)
        return self

    def _build_counts(self, counts: NgramCounts) -> None:
        k = int(self.discount_cutoff)
        n_ids = len(self.vocab_)
        n_pred = n_ids - 1  # every id but <s>
        self.n_train_tokens_ = counts.n_tokens
        # -- unigrams: one context; the lower order is uniform over the predictable ids.
        cu = counts.unigrams
        seen_u = np.flatnonzero(cu > 0)
        d1 = good_turing_discounts(cu[seen_u], k)
        p1, a1 = _katz_level(np.zeros(seen_u.size, dtype=np.int64), cu[seen_u], np.full(seen_u.size, 1.0 / n_pred),
                             1, d1, k, n_pred, self.min_leftover)
        uni = np.full(n_ids, a1[0] / n_pred)
        uni[seen_u] = p1
        uni[BOS_ID] = 0.0
        with np.errstate(divide="ignore"):
            self.uni_logp_ = np.log(uni)
        # -- bigrams
        bkeys, bcounts = counts.bigram_keys, counts.bigram_counts
        bh = bkeys >> _BITS
        bw = bkeys & (_MAX_IDS - 1)
        bctx_ids, bctx = np.unique(bh, return_inverse=True)
        d2 = good_turing_discounts(bcounts, k)
        p2, a2 = _katz_level(bctx, bcounts, uni[bw], bctx_ids.size, d2, k, n_pred, self.min_leftover)
        self.bi_keys_ = bkeys
        self.bi_logp_ = np.log(p2)
        self.uni_bow_ = np.zeros(n_ids)
        self.uni_bow_[bctx_ids] = np.log(a2)
        # -- trigrams (the sentence-initial (<s>, <s>) history is bigram-only, see the module docstring)
        tkeys, tcounts = counts.trigram_keys, counts.trigram_counts
        tctx_keys = tkeys >> _BITS
        tctx_ids, tctx = np.unique(tctx_keys, return_inverse=True)
        pos, found = _lookup(bkeys, tkeys & ((1 << (2 * _BITS)) - 1))
        assert found.all(), "every trigram's suffix bigram is counted"
        d3 = good_turing_discounts(tcounts, k)
        p3, a3 = _katz_level(tctx, tcounts, p2[pos], tctx_ids.size, d3, k, n_pred, self.min_leftover)
        self.tri_keys_ = tkeys
        self.tri_logp_ = np.log(p3)
        self.bi_bow_ = np.zeros(bkeys.size)
        cpos, cfound = _lookup(bkeys, tctx_ids)
        assert cfound.all(), "every trigram context is a counted bigram"
        self.bi_bow_[cpos] = np.log(a3)
        self.discounts_ = {"1": d1.tolist(), "2": d2.tolist(), "3": d3.tolist()}

    # ------------------------------------------------------------------ queries
    def _check_fitted(self):
        if not hasattr(self, "tri_keys_"):
            raise SegvizError("this TrigramLM is not fitted yet; call fit(sentences) or load a saved model")

    @property
    def n_ids(self) -> int:
        self._check_fitted()
        return len(self.vocab_)

    def encode(self, sentences: Sequence[Sequence[str]]) -> TokenStream:
        self._check_fitted()
        return encode_stream(sentences, self.word_index_)

    def context_backoff(self, h2: np.ndarray, h1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Natural-log backoff weights ``(log alpha(h2, h1), log alpha(h1))`` for arrays of histories."""
        self._check_fitted()
        h2 = np.asarray(h2, dtype=np.int64)
        h1 = np.asarray(h1, dtype=np.int64)
        cpos, cfound = _lookup(self.bi_keys_, _key2(h2, h1))
        bow3 = np.where(cfound, self.bi_bow_[cpos], 0.0)
        return bow3, self.uni_bow_[h1]

    def logprob_ids(self, h2, h1, w) -> np.ndarray:
        """Natural-log p_tri(w | h2, h1) for aligned id arrays (vectorised Katz backoff)."""
        self._check_fitted()
        h2, h1, w = (np.asarray(a, dtype=np.int64) for a in (h2, h1, w))
        h2, h1, w = np.broadcast_arrays(h2, h1, w)
        p3, f3 = _lookup(self.tri_keys_, _key3(h2, h1, w))
        p2, f2 = _lookup(self.bi_keys_, _key2(h1, w))
        bow3, bow2 = self.context_backoff(h2, h1)
        with np.errstate(invalid="ignore"):
            low = np.where(f2, self.bi_logp_[p2], self.uni_logp_[w] + bow2)
        return np.where(f3, self.tri_logp_[p3], low + bow3)

    def logprob_stream(self, stream: TokenStream) -> np.ndarray:
        """Natural-log probability of every predicted token of an encoded stream."""
        return self.logprob_ids(stream.h2, stream.h1, stream.w)

    def score(self, sentences: Sequence[Sequence[str]]) -> np.ndarray:
        """Natural-log probability of every predicted token (words and ``</s>``) of ``sentences``."""
        return self.logprob_stream(self.encode(sentences))

    def _ids(self, words: Iterable[str]) -> list[int]:
        return [self.word_index_.get(x, UNK_ID) for x in words]

    def logprob(self, word: str, context: Sequence[str] = ()) -> float:
        """Natural-log p(word | last two words of context); ``context`` may start with ``<s>``."""
        self._check_fitted()
        ids = [BOS_ID, BOS_ID] + self._ids(context)
        return float(self.logprob_ids(ids[-2], ids[-1], self.word_index_.get(word, UNK_ID)))

    def prob_vector(self, context: Sequence[str] = (BOS,)) -> np.ndarray:
        """p(w | context) for every id ``w`` (``<s>`` gets 0); sums to 1 for any history."""
        self._check_fitted()
        ids = [BOS_ID, BOS_ID] + self._ids(context)
        return self.prob_vector_ids(ids[-2], ids[-1])

    def prob_vector_ids(self, h2: int, h1: int) -> np.ndarray:
        w = np.arange(self.n_ids)
        return np.exp(self.logprob_ids(np.full_like(w, h2), np.full_like(w, h1), w))

    def perplexity(self, sentences: Sequence[Sequence[str]]) -> float:
        """exp of the mean negative log probability per predicted token (words + ``</s>``, OOVs as ``<unk>``)."""
        lp = self.score(sentences)
        if lp.size == 0:
            raise SegvizError("cannot compute perplexity of an empty corpus")
        return float(np.exp(-lp.mean()))

    # ------------------------------------------------------------------ export / persistence
    def to_arpa(self, path: str | Path | None = None) -> str:
        """The model in ARPA format (log10 probabilities and backoff weights); written atomically if ``path``."""
        self._check_fitted()
        vocab = np.array(self.vocab_, dtype=object)
        lines = ["", "\\data\\", f"ngram 1={len(self.vocab_)}", f"ngram 2={self.bi_keys_.size}",
                 f"ngram 3={self.tri_keys_.size}", "", "\\1-grams:"]
        u10 = np.where(np.isfinite(self.uni_logp_), self.uni_logp_ * _LOG10E, -99.0)
        b10 = self.uni_bow_ * _LOG10E
        for i, word in enumerate(self.vocab_):
            if i == EOS_ID:
                lines.append(f"{u10[i]:.7f}\t{word}")
            else:
                lines.append(f"{u10[i]:.7f}\t{word}\t{b10[i]:.7f}")
        lines += ["", "\\2-grams:"]
        bh = vocab[self.bi_keys_ >> _BITS]
        bw = vocab[self.bi_keys_ & (_MAX_IDS - 1)]
        bp = self.bi_logp_ * _LOG10E
        bb = self.bi_bow_ * _LOG10E
        has_bow = np.zeros(self.bi_keys_.size, dtype=bool)
        cpos, _ = _lookup(self.bi_keys_, np.unique(self.tri_keys_ >> _BITS))
        has_bow[cpos] = True
        for i in range(self.bi_keys_.size):
            if has_bow[i]:
                lines.append(f"{bp[i]:.7f}\t{bh[i]} {bw[i]}\t{bb[i]:.7f}")
            else:
                lines.append(f"{bp[i]:.7f}\t{bh[i]} {bw[i]}")
        lines += ["", "\\3-grams:"]
        t1 = vocab[self.tri_keys_ >> (2 * _BITS)]
        t2 = vocab[(self.tri_keys_ >> _BITS) & (_MAX_IDS - 1)]
        t3 = vocab[self.tri_keys_ & (_MAX_IDS - 1)]
        tp = self.tri_logp_ * _LOG10E
        lines.extend(f"{tp[i]:.7f}\t{t1[i]} {t2[i]} {t3[i]}" for i in range(self.tri_keys_.size))
        lines += ["", "\\end\\", ""]
        text = "\n".join(lines)
        if path is not None:
            from ..persist import atomic_write_text

            atomic_write_text(path, text)
        return text

    def get_arrays(self) -> dict[str, np.ndarray]:
        self._check_fitted()
        return {
            "uni_logp": self.uni_logp_, "uni_bow": self.uni_bow_, "bi_keys": self.bi_keys_, "bi_logp": self.bi_logp_,
            "bi_bow": self.bi_bow_, "tri_keys": self.tri_keys_, "tri_logp": self.tri_logp_,
        }

    def get_meta(self) -> dict:
        self._check_fitted()
        return {
            "vocab_size": int(self.vocab_size), "discount_cutoff": int(self.discount_cutoff),
            "min_leftover": float(self.min_leftover), "n_train_tokens": int(self.n_train_tokens_),
            "discounts": self.discounts_, "vocab": list(self.vocab_),
        }

    @classmethod
    def from_saved(cls, meta: dict, arrays: dict[str, np.ndarray], *, source: str = "model") -> TrigramLM:
        """Rebuild from :meth:`get_meta` / :meth:`get_arrays` output, validating shapes and dtypes."""
        # types before values, every number range-checked after conversion (segviz.params): a 4,000-digit
        # integer or a string where a number belongs is refused, never converted
        fields = checked_fields(meta, _SAVED_FIELDS, source=f"{source}: trigram")
        lm = cls(vocab_size=fields["vocab_size"], discount_cutoff=fields["discount_cutoff"],
                 min_leftover=fields["min_leftover"])
        vocab = fields["vocab"]
        lm.n_train_tokens_ = fields["n_train_tokens"]
        lm.discounts_ = {order: list(ratios) for order, ratios in fields["discounts"].items()}
        if vocab[:3] != SPECIALS:
            raise SegvizError(f"{source}: trigram vocabulary does not start with {SPECIALS}")
        n = len(vocab)
        checks = [("uni_logp", (n,)), ("uni_bow", (n,)), ("bi_logp", None), ("bi_bow", None), ("tri_logp", None)]
        for name, shape in checks:
            a = arrays.get(name)
            if a is None or a.dtype.kind != "f" or (shape is not None and a.shape != shape):
                raise SegvizError(f"{source}: trigram array {name!r} missing or of the wrong shape/type")
        for name in ("bi_keys", "tri_keys"):
            if arrays.get(name) is None or arrays[name].dtype != np.int64:
                raise SegvizError(f"{source}: trigram array {name!r} missing or not int64")
        if arrays["bi_keys"].shape != arrays["bi_logp"].shape or arrays["bi_keys"].shape != arrays["bi_bow"].shape \
                or arrays["tri_keys"].shape != arrays["tri_logp"].shape:
            raise SegvizError(f"{source}: trigram arrays disagree in length")
        if not 3 < n <= _MAX_IDS:
            raise SegvizError(f"{source}: trigram vocabulary of {n} entries is outside 4..{_MAX_IDS}")
        for name in ("uni_logp", "bi_logp", "tri_logp"):
            a = arrays[name]
            # -inf is a legal log-probability only for the unigram of <s>, which is never predicted
            finite = np.isfinite(a)
            if name == "uni_logp" and a.shape == (n,):
                finite[SPECIALS.index(BOS)] = not np.isnan(a[SPECIALS.index(BOS)])
            values = a[np.isfinite(a)]
            if a.ndim != 1 or not np.all(finite) or (values.size and (values.max() > 1e-9 or values.min() < -1e3)) \
                    or (a.size and np.nanmax(a) > 1e-9):
                raise SegvizError(f"{source}: trigram array {name!r} holds values that are not finite "
                                  "log-probabilities (<= 0)")
        for name in ("uni_bow", "bi_bow"):
            # a log backoff weight beyond +-1000 is no probability model; it would overflow every score
            if not np.all(np.isfinite(arrays[name])) or (arrays[name].size and np.abs(arrays[name]).max() > 1e3):
                raise SegvizError(f"{source}: trigram array {name!r} holds values that are not finite "
                                  "log-weights within +-1000")
        for name, width in (("bi_keys", 2), ("tri_keys", 3)):
            keys = arrays[name]
            if keys.ndim != 1 or (keys.size and (keys[0] < 0 or np.any(np.diff(keys) <= 0))):
                raise SegvizError(f"{source}: trigram array {name!r} is not a sorted list of distinct keys")
            if keys.size:
                ids = [(keys >> (_BITS * k)) & (_MAX_IDS - 1) for k in range(width)]
                if keys.max() >> (_BITS * width) or any(int(i.max()) >= n for i in ids):
                    raise SegvizError(f"{source}: trigram array {name!r} refers to words outside the vocabulary")
        lm.vocab_ = vocab
        lm.word_index_ = {w: i for i, w in enumerate(vocab)}
        lm.uni_logp_, lm.uni_bow_ = arrays["uni_logp"], arrays["uni_bow"]
        lm.bi_keys_, lm.bi_logp_, lm.bi_bow_ = arrays["bi_keys"], arrays["bi_logp"], arrays["bi_bow"]
        lm.tri_keys_, lm.tri_logp_ = arrays["tri_keys"], arrays["tri_logp"]
        return lm
