"""The pair of language models the segmenter monitors (Sections 3.1-3.3), their training and persistence.

Saved models are one file, a bundle (:mod:`segviz.bundle`) holding::

    lm/models.json          {"format": "segviz-language-models", "version": 1, hyperparameters, vocabulary, ...}
    lm/trigram/*.npy        Katz tables (sorted int64 n-gram keys, natural-log probabilities and backoff weights)
    lm/triggers/*.npy       trigger pairs (trigram ids), weights, selection scores

written with one atomic rename, so an interrupted save leaves the previous file whole.  A segmenter's bundle
embeds its language models under the same names.  Every load validates format, version, array
dtypes, shapes, finiteness and index ranges and raises a one-line :class:`~segviz.errors.SegvizError` for
anything corrupt or foreign.  No pickle anywhere.
"""
from __future__ import annotations

import time
from collections.abc import Generator, Sequence
from pathlib import Path

import numpy as np

from ..bundle import Bundle, is_bundle, read_bundle, write_bundle
from ..errors import SegvizError
from ..events import Progress
from ..params import check_plain_numbers
from .ngram_counts import merge_ngram_counts
from .training_text import SentenceText, TrainingText
from .triggers import TriggerLM
from .trigram import TokenStream, TrigramLM, _validate_sentences

FORMAT = "segviz-language-models"
VERSION = 1


class LanguageModels:
    """The short-range trigram ``trigram_`` and the long-range trigger model ``trigger_`` built on it (§3.1-3.2).

    Parameters (keyword-only, stored verbatim; see :class:`~segviz.lm.trigram.TrigramLM` and
    :class:`~segviz.lm.triggers.TriggerLM`)
    ----------
    vocab_size : the trigram's vocabulary (most frequent training words; the rest are ``<unk>``).
    window, n_triggers, trigger_vocab, ranking : the trigger model's cache window and pair selection (§3.2).
    prior_variance, max_iter, tol, acceleration : its penalised IIS training.
    heldout_fraction : the last part of the sentences held out for IIS's stopping rule.
    refit_prior : refit the trigram on all the text afterwards (the trigger weights are kept).

    Learned state: ``trigram_``, ``trigger_``, ``info_`` (sizes, timings).  :meth:`fit_iter` yields
    :class:`~segviz.events.Progress` and IIS events; :meth:`load` reads a saved pair.
    """

    def __init__(self, *, vocab_size: int = 20000, window: int = 500, n_triggers: int = 20000,
                 trigger_vocab: int = 10000, ranking: str = "residual", prior_variance: float = 1.0,
                 max_iter: int = 200, tol: float = 1e-5, acceleration: str = "overrelaxed",
                 heldout_fraction: float = 0.05, refit_prior: bool = True):
        self.vocab_size = vocab_size
        self.window = window
        self.n_triggers = n_triggers
        self.trigger_vocab = trigger_vocab
        self.ranking = ranking
        self.prior_variance = prior_variance
        self.max_iter = max_iter
        self.tol = tol
        self.acceleration = acceleration
        self.heldout_fraction = heldout_fraction
        self.refit_prior = refit_prior

    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in (
            "vocab_size", "window", "n_triggers", "trigger_vocab", "ranking", "prior_variance", "max_iter", "tol",
            "acceleration", "heldout_fraction", "refit_prior")}

    @classmethod
    def from_fitted(cls, trigram: TrigramLM, trigger: TriggerLM, *, info: dict | None = None) -> LanguageModels:
        """Wrap a fitted trigram and a trigger model fitted over it (what :meth:`load` and :meth:`fit` produce)."""
        trigram._check_fitted()
        trigger._check_fitted()
        if trigger.prior_ is not trigram:
            raise SegvizError("the trigger model was trained over a different trigram model")
        models = cls()
        models.trigram_ = trigram
        models.trigger_ = trigger
        models.info_ = dict(info or {})
        return models

    def _check_fitted(self) -> None:
        if not hasattr(self, "trigram_"):
            raise SegvizError("these language models are not fitted yet; call fit() first")

    def fit(self, sentences: Sequence[Sequence[str]]) -> LanguageModels:
        """Train both models on ``sentences`` (tokenised); returns ``self``."""
        for _ in self.fit_iter(sentences):
            pass
        return self

    def fit_iter(self, sentences: Sequence[Sequence[str]]) -> Generator[object, None, None]:
        """:meth:`fit` as a generator of small events (Progress, IIS iterations); the models are set at the end."""
        yield from self.fit_text_iter(SentenceText(_validate_sentences(sentences)))

    def fit_text_iter(self, text: TrainingText) -> Generator[object, None, None]:
        """:meth:`fit_iter` on a :class:`~segviz.lm.training_text.TrainingText`: its counting passes run where the
        text's work runs (this process, or a cluster's workers: ``segviz.distributed``), and the models are the
        same either way."""
        trigram, trigger, info = yield from _train(text, **self.get_params())
        self.trigram_, self.trigger_, self.info_ = trigram, trigger, info

    @property
    def vocab_(self) -> tuple[str, ...]:
        return self.trigram_.vocab_

    def encode(self, sentences: Sequence[Sequence[str]]) -> TokenStream:
        return self.trigram_.encode(sentences)

    def score(self, sentences: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray, TokenStream]:
        """Natural-log p_exp and p_tri of every predicted token of the stream, and the encoded stream."""
        stream = self.encode(sentences)
        lp_exp, lp_tri = self.trigger_.score_stream(stream)
        return lp_exp, lp_tri, stream

    def evaluate(self, sentences: Sequence[Sequence[str]]) -> dict:
        """``{"tokens", "oov_rate", "trigram_perplexity", "trigger_perplexity"}`` over predicted tokens.

        Tokens are the words plus one ``</s>`` per sentence (the ARPA convention); OOV words are scored as
        ``<unk>``; ``oov_rate`` is over words only.
        """
        lp_exp, lp_tri, st = self.score(sentences)
        if len(st) == 0:
            raise SegvizError("cannot evaluate on an empty corpus")
        n_words = int(st.is_word.sum())
        return {
            "tokens": int(len(st)),
            "oov_rate": float(st.oov.sum() / n_words) if n_words else 0.0,
            "trigram_perplexity": float(np.exp(-lp_tri.mean())),
            "trigger_perplexity": float(np.exp(-lp_exp.mean())),
        }

    # ------------------------------------------------------------------ persistence
    def bundle_parts(self, prefix: str = "lm") -> tuple[dict[str, dict], dict[str, np.ndarray]]:
        """The JSON documents and arrays that describe these models, named under ``prefix/`` in a bundle."""
        self._check_fitted()
        meta = {
            "format": FORMAT, "version": VERSION,
            "trigram": self.trigram_.get_meta(),
            "trigger": self.trigger_.get_meta(),
            "n_pairs": int(self.trigger_.sources_.size),
            "params": self.get_params(),
            "info": self.info_,
        }
        arrays = {f"{prefix}/trigram/{k}": v for k, v in self.trigram_.get_arrays().items()}
        arrays.update({f"{prefix}/triggers/{k}": v for k, v in self.trigger_.get_arrays().items()})
        return {f"{prefix}/models": meta}, arrays

    @classmethod
    def from_bundle(cls, bundle: Bundle, prefix: str = "lm") -> LanguageModels:
        """Rebuild (and validate) the models stored under ``prefix/`` of a :class:`~segviz.bundle.Bundle`."""
        meta = bundle.document(f"{prefix}/models")
        return cls._from_parts(meta, bundle.arrays_under(f"{prefix}/trigram"),
                               bundle.arrays_under(f"{prefix}/triggers"), source=bundle.source)

    def save(self, path: str | Path, *, parents: bool = False) -> Path:
        """Write both models as ONE file (a bundle, see :mod:`segviz.bundle`), atomically."""
        documents, arrays = self.bundle_parts()
        return write_bundle(path, "language-models", documents, arrays, parents=parents)

    @classmethod
    def load(cls, path: str | Path) -> LanguageModels:
        """Read models saved by :meth:`save` (one file), validated before use."""
        path = Path(path)
        if path.is_dir():
            raise SegvizError(f"{path}: is a folder, not a language-model file (the earlier folder layout is not "
                              "read; train them again with `segviz lm train`)")
        if not path.is_file():
            raise SegvizError(f"{path}: no such language-model file (make one with `segviz lm train`)")
        if not is_bundle(path):
            raise SegvizError(f"{path}: not a language-model file (make one with `segviz lm train`)")
        return cls.from_bundle(read_bundle(path, kind="language-models"))

    @classmethod
    def _from_parts(cls, meta: dict, trigram_arrays: dict, trigger_arrays: dict, *, source: str) -> LanguageModels:
        if meta.get("format") != FORMAT:
            raise SegvizError(f"{source}: not a {FORMAT} description (format field is {meta.get('format')!r})")
        if meta.get("version") != VERSION:
            raise SegvizError(f"{source}: unsupported language-model version {meta.get('version')!r} "
                              f"(this segviz reads version {VERSION})")
        if not isinstance(meta.get("trigram"), dict) or not isinstance(meta.get("trigger"), dict):
            raise SegvizError(f"{source}: missing the trigram/trigger sections")
        trigram = TrigramLM.from_saved(meta["trigram"], trigram_arrays, source=f"{source} (trigram)")
        trigger = TriggerLM.from_saved(meta["trigger"], trigger_arrays, trigram, source=f"{source} (triggers)")
        if trigger.sources_.size != meta.get("n_pairs"):
            raise SegvizError(f"{source}: the trigger arrays do not match the description (pair count differs)")
        info = meta.get("info") if isinstance(meta.get("info"), dict) else {}
        params = meta.get("params") if isinstance(meta.get("params"), dict) else {}
        # shown and reused: every number in them must convert to a finite float (segviz.params)
        check_plain_numbers(info, "info", source=source)
        check_plain_numbers(params, "params", source=source)
        models = cls.from_fitted(trigram, trigger, info=info)
        for name, value in params.items():
            if name in models.get_params() and isinstance(value, (int, float, str, bool)):
                setattr(models, name, value)
        return models


def _train(
    text: TrainingText,
    *,
    vocab_size: int = 20000,
    window: int = 500,
    n_triggers: int = 20000,
    trigger_vocab: int = 10000,
    ranking: str = "residual",
    prior_variance: float = 1.0,
    max_iter: int = 200,
    tol: float = 1e-5,
    acceleration: str = "overrelaxed",
    heldout_fraction: float = 0.05,
    refit_prior: bool = True,
) -> Generator[object, None, tuple]:
    """Train both models; a generator of :class:`Progress` (and IIS iteration) events returning the fitted parts.

    The last ``heldout_fraction`` of the sentences is held out: the trigram and the trigger weights are fitted on
    the rest and IIS stops on the held-out likelihood (Section 3.2).  With ``refit_prior`` the trigram is then
    refitted on all the text (the weights are kept; they describe the cache, not the n-gram counts).
    """
    if not 0 <= heldout_fraction < 0.5:
        raise SegvizError(f"heldout_fraction must be in [0, 0.5), got {heldout_fraction!r}")
    n_sentences = text.n_sentences
    n_held = int(round(n_sentences * heldout_fraction))
    n_train = n_sentences - n_held
    # Both models' parameters are checked before any work, so a typo fails in a second, not after the trigram.
    trigger = TriggerLM(window=window, n_triggers=n_triggers, trigger_vocab=trigger_vocab, ranking=ranking,
                        prior_variance=prior_variance, max_iter=max_iter, tol=tol, acceleration=acceleration)
    trigger._check_params()
    TrigramLM(vocab_size=vocab_size)._check_params()
    t0 = time.perf_counter()
    yield Progress("trigram", 0, 1)
    trigram = _fit_trigram(text, n_train, vocab_size)
    yield Progress("trigram", 1, 1)
    t1 = time.perf_counter()
    trigger = yield from trigger.fit_text_iter(text, n_train, prior=trigram)
    t2 = time.perf_counter()
    if refit_prior and n_held:
        yield Progress("trigram refit", 0, 1)
        full = _fit_trigram(text, n_sentences, vocab_size)
        # Pair ids refer to the old vocabulary: map them by word, dropping pairs whose words fell out.
        old_vocab = trigram.vocab_
        idx = full.word_index_
        n_tv = trigger._n_tv(full)
        src = np.array([idx.get(old_vocab[i], -1) for i in trigger.sources_], dtype=np.int64)
        tgt = np.array([idx.get(old_vocab[i], -1) for i in trigger.targets_], dtype=np.int64)
        ok = (src >= 3) & (src < 3 + n_tv) & (tgt >= 3) & (tgt < 3 + n_tv)
        trigger.sources_, trigger.targets_ = src[ok], tgt[ok]
        trigger.weights_, trigger.scores_ = trigger.weights_[ok], trigger.scores_[ok]
        trigger.prior_ = full
        trigger._tables_cache = None
        trigram = full
        yield Progress("trigram refit", 1, 1)
    info = {
        "train_sentences": n_train, "heldout_sentences": n_held, "train_tokens": int(trigram.n_train_tokens_),
        "trigram_seconds": round(t1 - t0, 3), "trigger_seconds": round(t2 - t1, 3),
    }
    return trigram, trigger, info


def _fit_trigram(text: TrainingText, stop: int, vocab_size: int) -> TrigramLM:
    """The trigram of the sentences ``0:stop`` of ``text``: the vocabulary from their word counts, then the model
    from their n-gram counts (:meth:`TrigramLM.fit`'s two passes, run where the text's work runs)."""
    trigram = TrigramLM(vocab_size=vocab_size)
    trigram.set_vocabulary(text.word_counts(0, stop))
    return trigram.fit_counts(merge_ngram_counts(text.ngram_counts([(0, stop)], trigram.word_index_)))
