"""The recipe of the bundled general-English language models (``resources/general_english.segviz-lm``).

A Katz trigram (Section 3.1) and a trigger model over it (Section 3.2), trained on shared corpora whose terms let a
derived model ship, so that relevance (Section 3.3) can be shown for any text when the model in use has no language
models of its own (:mod:`segviz.general_lm` loads and chooses them).  ``segviz reproduce general-lm --out DIR`` runs
it (:func:`build_iter`).

==================  ==================================================  ==========================================
domain              LM training text                                    held out (perplexity, never trained on)
==================  ==================================================  ==========================================
Brown               every text but the long-form protocol's test        the long-form test texts not cut by Choi
                    texts and the 124 texts Choi cut his benchmark
                    from (:func:`segviz.default_model.choi_brown_texts`)
Gutenberg books     the ``chapters`` protocol's 20 training and         its 6 test books
                    held-out books, read raw with their headings
wiki300             articles 1-250 (titles dropped)                     articles 251-300
==================  ==================================================  ==========================================

Reuters-21578 (research use only) is never read.  The last ``heldout_fraction`` of each domain's training documents
stops IIS; the other documents (a chapter, a section, a Brown text) are shuffled with a fixed seed before training,
so that every cross-fitting block of the trigger training (Section 3.2) holds text of every domain.

**Pruning.**  The trigram of 4-5 M training tokens holds millions of n-grams, most seen once.  :func:`prune_trigram`
drops every trigram and bigram seen fewer than ``min_count`` times (count cut-offs, as Katz back-off models are
usually shipped), keeps the bigrams that kept trigrams need (their history and their suffix) and recomputes every
back-off weight, so each history's distribution still sums to 1 exactly.  The kept n-grams keep their Katz
probabilities; the trigger model is then trained over the pruned trigram, its real prior.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .corpus import Corpus, tokenize
from .default_model import choi_brown_texts
from .documents import Document
from .errors import SegvizError
from .events import Progress
from .general_lm import GENERAL_LM_SUMMARY
from .lm.models import LanguageModels
from .lm.triggers import TriggerLM
from .lm.trigram import BOS, TrigramLM
from .params import Constraint, Integer, Number
from .protocols import GENERAL_LM_BOOKS, chapter_books, longform_data, read_books, read_brown_texts, wiki_data

__all__ = ["PARAMS", "build_iter", "general_lm_data", "prune_trigram", "evaluate_domains"]

#: the recipe's parameters (``build_iter(params=...)`` overrides them)
PARAMS: dict[str, Any] = {
    "vocab_size": 20000,      # trigram vocabulary
    "min_count": 2,           # n-grams seen fewer times are pruned (prune_trigram)
    "n_triggers": 20000,      # K trigger pairs over the top trigger_vocab words
    "trigger_vocab": 10000,
    "window": 500,
    "max_iter": 12,           # cap on IIS iterations (a pass over 4.5 M tokens each); held-out convergence may stop first
    "tol": 1e-4,
    "heldout_fraction": 0.05,  # the last documents of each domain, for IIS's stopping rule
    "seed": 0,                # the order of the training documents
}

#: what each parameter accepts (:mod:`segviz.params`' declared constraints, checked before anything is read)
PARAM_CONSTRAINTS: dict[str, Constraint] = {
    "vocab_size": Integer(1, 1_000_000), "min_count": Integer(1, 1_000_000), "n_triggers": Integer(0, 1_000_000),
    "trigger_vocab": Integer(1, 1_000_000), "window": Integer(1, 100_000), "max_iter": Integer(1, 1000),
    "tol": Number(0.0, 1.0), "heldout_fraction": Number(0.0, 0.5), "seed": Integer(0, 2**32 - 1)}


def _known(name) -> Constraint:
    if name not in PARAM_CONSTRAINTS:
        raise SegvizError(f"the general-LM recipe has no parameter {str(name)[:40]!r}; it has "
                          f"{', '.join(sorted(PARAMS))}")
    return PARAM_CONSTRAINTS[name]


def checked_params(params: dict | None) -> dict[str, Any]:
    """The recipe's parameters with ``params`` over :data:`PARAMS`, each name known and each value meeting its
    constraint in :data:`PARAM_CONSTRAINTS`; otherwise one :class:`SegvizError`."""
    return {**PARAMS, **{name: _known(name).check(value, name) for name, value in (params or {}).items()}}


def param_from_text(item: str) -> tuple[str, Any]:
    """``NAME=VALUE`` of the command line, the value read by its constraint (one :class:`SegvizError`)."""
    name, _, value = item.partition("=")
    return name, _known(name).from_text(value, name)


#: the key layout of a saved trigram (docs/language_models.md: n-grams hashed into int64 keys, 21 bits per id)
_ID_BITS = 21
_ID_MASK = (1 << _ID_BITS) - 1


# ----------------------------------------------------------------------------------------------- the data
def _brown_corpus(texts: dict, ids: Sequence[str], name: str) -> Corpus:
    docs = []
    for text_id in ids:
        sentences = [tuple(tokenize(line)) for line in texts[text_id].sentences]
        sentences = [s for s in sentences if s]
        if sentences:
            docs.append(Document(text_id, tuple(sentences), tuple(" ".join(s) for s in sentences)))
    return Corpus(docs, name=name)


def general_lm_data(data: str | Path) -> dict[str, tuple[Corpus, Corpus]]:
    """Per domain, ``(training text, held-out test text)`` as corpora (see the module's table)."""
    data = Path(data)
    texts = read_brown_texts(data / "brown_nltk" / "brown.zip")
    banned = set(choi_brown_texts(data))
    test_texts = set(longform_data(data).notes["texts"]["test"])
    brown_train = sorted(t for t in texts if t not in banned and t not in test_texts)
    brown_test = sorted(test_texts - banned)
    wiki = wiki_data(data)
    wiki_train = Corpus(list(wiki.train.documents) + list(wiki.heldout.documents), name="wiki300 1-250",
                        files=list(wiki.train.files) + list(wiki.heldout.files))
    books = read_books(data, GENERAL_LM_BOOKS, "general-LM")
    return {
        "brown": (_brown_corpus(texts, brown_train, f"brown ({len(brown_train)} texts)"),
                  _brown_corpus(texts, brown_test, f"brown long-form test ({len(brown_test)} texts)")),
        "gutenberg": (books, chapter_books(data, "test")),
        "wiki": (wiki_train, wiki.tests["test"]),
    }


# ----------------------------------------------------------------------------------------------- pruning
def _logsumexp_by(groups: np.ndarray, logp: np.ndarray, n: int) -> np.ndarray:
    """sum of exp(logp) per group id in 0..n-1 (plain sums: the probabilities are well above underflow)."""
    return np.bincount(groups, weights=np.exp(logp), minlength=n)


def prune_trigram(lm: TrigramLM, sentences: Sequence[Sequence[str]], *, min_count: int = 2) -> TrigramLM:
    """``lm`` (fitted on ``sentences``) without the n-grams seen fewer than ``min_count`` times (Section 3.1).

    Bigrams that a kept trigram needs (its history and its suffix) stay.  Kept n-grams keep their discounted Katz
    probabilities; every back-off weight is recomputed, ``alpha(h) = (1 - sum of kept p(w|h)) / (1 - sum of the
    lower-order p(w|h') of the kept w)``, so every history's distribution still sums to 1.
    """
    if min_count < 1:
        raise SegvizError(f"min_count must be at least 1, got {min_count!r}")
    stream = lm.encode(sentences)
    bos = lm.word_index_[BOS]
    w, h1, h2 = stream.w.astype(np.int64), stream.h1.astype(np.int64), stream.h2.astype(np.int64)
    bkeys, bcounts = np.unique((h1 << _ID_BITS) | w, return_counts=True)
    m = ~((h2 == bos) & (h1 == bos))
    tkeys, tcounts = np.unique((h2[m] << (2 * _ID_BITS)) | (h1[m] << _ID_BITS) | w[m], return_counts=True)
    if not (np.array_equal(bkeys, lm.bi_keys_) and np.array_equal(tkeys, lm.tri_keys_)):
        raise SegvizError("prune_trigram needs the very sentences the trigram was fitted on")
    keep3 = tcounts >= min_count
    kt = tkeys[keep3]
    need = np.union1d(kt >> _ID_BITS, kt & ((1 << (2 * _ID_BITS)) - 1))
    keep2 = (bcounts >= min_count) | np.isin(bkeys, need)
    n = lm.n_ids
    # bigram level: one back-off weight per history word
    kb = bkeys[keep2]
    kb_logp = lm.bi_logp_[keep2]
    kb_h, kb_w = kb >> _ID_BITS, kb & _ID_MASK
    s2 = _logsumexp_by(kb_h, kb_logp, n)
    s1 = _logsumexp_by(kb_h, lm.uni_logp_[kb_w], n)
    has2 = np.bincount(kb_h, minlength=n) > 0
    uni_bow = np.zeros(n)
    uni_bow[has2] = np.log1p(-s2[has2]) - np.log1p(-s1[has2])
    # trigram level: one back-off weight per history (h2, h1), stored at that bigram
    kt_logp = lm.tri_logp_[keep3]
    ctx_keys, ctx = np.unique(kt >> _ID_BITS, return_inverse=True)
    suffix_pos = np.searchsorted(kb, kt & ((1 << (2 * _ID_BITS)) - 1))
    s3 = _logsumexp_by(ctx, kt_logp, ctx_keys.size)
    sb = _logsumexp_by(ctx, kb_logp[suffix_pos], ctx_keys.size)
    bi_bow = np.zeros(kb.size)
    bi_bow[np.searchsorted(kb, ctx_keys)] = np.log1p(-s3) - np.log1p(-sb)
    arrays = {"uni_logp": lm.uni_logp_.copy(), "uni_bow": uni_bow, "bi_keys": kb, "bi_logp": kb_logp.copy(),
              "bi_bow": bi_bow, "tri_keys": kt, "tri_logp": kt_logp.copy()}
    return TrigramLM.from_saved(lm.get_meta(), arrays, source="pruned trigram")


# ----------------------------------------------------------------------------------------------- training
def evaluate_domains(lms: LanguageModels, tests: dict[str, Corpus], *,
                     trigram: TrigramLM | None = None) -> dict[str, dict]:
    """Per domain: tokens, OOV rate, trigram and trigger perplexities (and the unpruned ``trigram``'s, if given)."""
    out = {}
    for name, corpus in tests.items():
        sentences = corpus.sentences()
        row = lms.evaluate(sentences)
        if trigram is not None:
            row["unpruned_trigram_perplexity"] = float(trigram.perplexity(sentences))
        out[name] = row
    return out


def build_iter(data: str | Path, params: dict | None = None) -> Generator[Any, None, tuple[LanguageModels, dict]]:
    """Train the general-English LMs; a generator of :class:`Progress` (and IIS) events returning
    ``(language models, report)``.  The report holds the data sizes, the pruning, the timings and the held-out
    perplexities of each domain (trigram alone, unpruned trigram, trigger model)."""
    p = checked_params(params)
    t0 = time.perf_counter()
    yield Progress("general LMs: reading the corpora", 0, 1)
    domains = general_lm_data(data)
    yield Progress("general LMs: reading the corpora", 1, 1)
    # the last documents of each domain stop IIS; the rest are shuffled document by document (a chapter, a
    # section, a Brown text), so that each cross-fitting block of the trigger training holds every domain: blocks of
    # one domain each gave a block's words no prior probability and their self-triggers absurd weights
    pool, held = [], []
    for corpus, _ in domains.values():
        documents = [d.sentences for d in corpus.documents]
        n_held = max(1, int(round(len(documents) * p["heldout_fraction"])))
        pool += documents[: len(documents) - n_held]
        held += [s for d in documents[len(documents) - n_held:] for s in d]
    order = np.random.default_rng(p["seed"]).permutation(len(pool))
    train = [s for i in order for s in pool[i]]
    t1 = time.perf_counter()
    yield Progress("general LMs: trigram", 0, 1)
    full = TrigramLM(vocab_size=p["vocab_size"]).fit(train)
    trigram = prune_trigram(full, train, min_count=p["min_count"])
    yield Progress("general LMs: trigram", 1, 1)
    t2 = time.perf_counter()
    trigger = TriggerLM(window=p["window"], n_triggers=p["n_triggers"], trigger_vocab=p["trigger_vocab"],
                        max_iter=p["max_iter"], tol=p["tol"])
    trigger = yield from trigger.fit_iter(train, prior=trigram, heldout=held)
    t3 = time.perf_counter()
    info = {
        "train_sentences": len(train), "heldout_sentences": len(held), "train_tokens": int(full.n_train_tokens_),
        "trigram_seconds": round(t2 - t1, 3), "trigger_seconds": round(t3 - t2, 3),
        "recipe": "segviz.general_lm_recipe", "params": p, "summary": GENERAL_LM_SUMMARY,
        "training_text": {name: corpus.name for name, (corpus, _) in domains.items()},
        "ngrams": {"bigrams": [int(full.bi_keys_.size), int(trigram.bi_keys_.size)],
                   "trigrams": [int(full.tri_keys_.size), int(trigram.tri_keys_.size)]},
    }
    lms = LanguageModels.from_fitted(trigram, trigger, info=info)
    lms.vocab_size, lms.window, lms.n_triggers = p["vocab_size"], p["window"], p["n_triggers"]
    lms.trigger_vocab, lms.max_iter, lms.tol = p["trigger_vocab"], p["max_iter"], p["tol"]
    lms.heldout_fraction, lms.refit_prior = p["heldout_fraction"], False
    yield Progress("general LMs: held-out perplexities", 0, 1)
    perplexities = evaluate_domains(lms, {name: test for name, (_, test) in domains.items()}, trigram=full)
    yield Progress("general LMs: held-out perplexities", 1, 1)
    report = {**info, "perplexity": perplexities,
              "test_text": {name: test.name for name, (_, test) in domains.items()},
              "seconds": round(time.perf_counter() - t0, 1)}
    lms.info_["perplexity"] = perplexities
    return lms, report


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m segviz.general_lm_recipe --out FILE [--data DIR]``: the same as ``segviz reproduce general-lm``."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m segviz.general_lm_recipe", description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="the language-model file to write")
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpora"))
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    try:
        params = dict(param_from_text(item) for item in args.param)
    except SegvizError as exc:
        print(f"segviz: error: {parser.prog}: {exc}", file=sys.stderr)
        return 2
    gen = build_iter(args.data, params)
    try:
        while True:
            event = next(gen)
            print(event, file=sys.stderr, flush=True)
    except StopIteration as stop:
        lms, report = stop.value
    lms.save(args.out)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
