"""The recipe of the bundled default model (``resources/default_model.segviz``), the model ``segment``,
``compare`` and the app use when none is given; ``segviz reproduce default`` runs it (:func:`build_iter`).

A router of five experts (:mod:`segviz.routing`), finest segment scale first, none shown any test text of any
protocol (docs/protocols.md); the first whose gauge is at most its threshold segments a document:

============  ===========================================================  ====================================  =========
expert        training                                                     held out (decision rule, stop)        gauge
============  ===========================================================  ====================================  =========
excerpts      Choi's set 4 without a sentence of sets 1-2 or of a          set-4 documents of 3-11-sentence      its own
              long-form held-out or test text (:func:`excerpts_data`)      segments it was not trained on
mixed         ``reut2-014..016``, the long-form training texts,            ``reut2-017`` in parts of 40 stories, its own
              ``wiki_test_1..200`` (:func:`build_mixed`)                   long-form held-out texts 2-3 per
                                                                           stream, ``wiki_test_201..250``
sections      ``wiki_test_1..200`` (the ``wiki`` protocol's model)         ``wiki_test_201..250``                mixed
long-form     the long-form training texts (the ``longform`` protocol's    its held-out streams                  long-form
              model, :func:`build_longform`)
chapters      15 Gutenberg books (the ``chapters`` protocol's model,       5 held-out books                      --
              :func:`build_chapters`)
============  ===========================================================  ====================================  =========

The thresholds are tuned (:meth:`ExpertRouter.fit`) on the mixed held-out documents, held-out set-4 documents of
each of Choi's length classes and the held-out books (:func:`router_heldout`), each of the five domains weighing
the same.  Choi's sets 1 and 2 are never tuned on: set 1 shares 1,310 of the 1,329 distinct sentences of the test
set 2.

**Brown texts in Choi's sets are left out.**  Choi's (2000) benchmark is cut from Brown texts; every Brown text
with a sentence that also occurs in Choi's sets 1 (tuning) or 2 (test) is dropped from the training and held-out
streams (:func:`choi_brown_texts`, by sentence matching; they are the 124 texts of the news and learned
categories, ``ca01..ca44`` and ``cj01..cj80``, the sections Choi's README names).  Long-form *test* texts are
never read.  The wiki test articles (251-300) and the Reuters test files (018-021) are never read.

**Balance.**  The mixed expert's decision rule is tuned on the mean over held-out *documents*
(``tuning_units="per-document"``), so each domain's share of held-out documents is its weight: Reuters 017 is cut
into parts of about 40 whole stories (a Reuters "document" the length of a wiki article) and the Brown held-out
texts into streams of 2-3 texts, so that each domain contributes a comparable number of held-out documents.

No expert asks relevance questions (no language models to ship), which keeps the file small.

    segviz reproduce default --out DIR [--data ../shared/corpora]      # DIR/default_model.segviz

**Choi's data in the mixed expert** is an experiment (``research/default_model_variants.py``): the options
``choi_heldout_every`` (:func:`mixed_data`) add the source-disjoint segments of Choi's set 4
(:func:`choi_segments`) and ``choi_tuning_documents`` documents of his tuning set 1/3-11 to the mix.
Measured (docs/reproduction.md, "A default model that travels"), they bring one model level with C99 on Choi's
benchmark and cost long-form prose 3-11 points of P_k, which is why the default model routes instead.
"""
from __future__ import annotations

import functools
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import numpy as np

from .corpus import Corpus, Document, read_corpus, tokenize
from .events import Progress
from .protocols import (
    CHAPTERS_SEGMENTER,
    NATURAL_SEGMENTER,
    NATURAL_THRESHOLD,
    REUTERS_HELD,
    REUTERS_TRAIN,
    chapter_books,
    choi_disjoint_training,
    longform_data,
    read_brown_texts,
    wiki_data,
)
from .routing import ExpertRouter
from .segmenter import Segmenter

__all__ = ["build_iter", "mixed_data", "choi_brown_texts", "choi_segments", "EXPERTS", "GAUGES", "PARAMS",
           "EXCERPT_PARAMS", "MATCH_MIN_WORDS"]

#: stories per held-out Reuters part (a part is one held-out document for the per-document tuning)
REUTERS_PART_STORIES = 40
#: Brown held-out texts per held-out stream
BROWN_HELD_TEXTS = (2, 3)
#: Choi-style spliced documents cut from the Brown training / held-out texts, excerpts per document and their
#: lengths.  None by default: measured on the held-out documents and Choi's tuning set 1/3-11, 100 spliced training
#: and 25 spliced held-out documents made Choi worse (P_k 0.207 against 0.165) and the other domains no better
#: (``research/natural_select.py mixed --spliced 100,25``)
SPLICED_DOCUMENTS = (0, 0)
SPLICED_EXCERPTS = 10
SPLICED_LENGTHS = (3, 11)
#: Choi's set 4, source-disjoint (:func:`choi_segments`): the segments of every CHOI_HELDOUT_EVERY-th source text
#: held out for the tuning (0 = all trained on; None = no Choi documents)
CHOI_HELDOUT_EVERY: int | None = None
#: segments per held-out Choi document
CHOI_HELDOUT_SEGMENTS = 5
#: how many documents of Choi's tuning set 1/3-11 join the held-out documents (as the choi-disjoint protocol tunes
#: on it); 0 = none
CHOI_TUNING_DOCUMENTS = 0
#: the excerpts expert of the router (:func:`build_excerpts`): cohesion and the peers' evidence, the questions
#: that make the ``choi-disjoint`` protocol's model (docs/reproduction.md), no vocabulary and no relevance questions
#: (no language models to ship), stopped and tuned on Choi's tuning set 1/3-11 for the mean per-document P_k
EXCERPT_PARAMS = {
    "families": ("cohesion", "peer"),
    "n_features": 30,
    "l2": 1.0,
    "min_support": 5,
    "stopping": "heldout",
    "tuning_metric": "p_k",
    "tuning_units": "per-document",
}
#: the default model's experts, finest segment scale first (:func:`build`), and the expert whose expected segment
#: length decides whether each but the last claims a document: the excerpts expert gauges itself; the mixed expert
#: gauges itself and the sections expert (its expected lengths tell newswire, sections and whole texts apart on the
#: held-out documents; docs/reproduction.md)
EXPERTS = ("excerpts", "mixed", "sections", "long-form", "chapters")
GAUGES = ("excerpts", "mixed", "mixed", "long-form")
#: a Choi sentence is matched on its words (letters and digits only) when it has at least this many
MATCH_MIN_WORDS = 4
#: or on any run of this many words it shares with a Brown text (specific enough to name a text: no 8-word run of
#: one Brown text is a common phrase)
MATCH_NGRAM = 8
#: the excerpts expert is tuned (and the router's Choi domain measured) on set-4 segments of every K-th source text,
#: never trained on, in Choi-style documents of this many segments: Choi's set 1 shares 1,310 of the 1,329 distinct
#: sentences of his test set 2, so tuning on it would tune on the test
EXCERPT_HELDOUT_EVERY = 5
EXCERPT_HELDOUT_SEGMENTS = 10
#: held-out documents per length class, and the classes (Choi's test sets; set 4 also cuts 12-15)
EXCERPT_HELDOUT_DOCUMENTS = 50
EXCERPT_HELDOUT_CLASSES = ((3, 5), (6, 8), (9, 11), (3, 11))
#: the class the excerpts expert is tuned on (the router's thresholds see every class)
EXCERPT_TUNING_CLASS = (3, 11)

#: what the default model is derived from, and on what terms
LICENCE = ("derived from Reuters-21578 (research use only), the Brown corpus and Choi's (2000) benchmark cut from it "
           "(non-commercial research/education), Wikipedia (CC BY-SA 3.0) and Project Gutenberg e-texts (public domain "
           "in the USA)")
#: the chapters expert (:func:`build_chapters`): the ``chapters`` protocol's model (research/chapters_select.py,
#: docs/reproduction.md "Chapters")
CHAPTERS_PARAMS = {**CHAPTERS_SEGMENTER, "stopping": "heldout"}

#: the default model's parameters, chosen on held-out data only (the mixed held-out documents and Choi's tuning
#: set 1/3-11; research/natural_select.py, docs/reproduction.md "A default model that travels"): vocabulary
#: questions about the 2,000 most frequent words that fire on 20+ training gaps, no relevance questions (no
#: language models to ship), the families of natural boundaries, a Gaussian prior, the threshold rule tuned for
#: the mean P_k over the held-out documents
PARAMS = {
    **NATURAL_SEGMENTER,   # no relevance, l2 = 1, the wide grids, tuned for the mean per-document P_k
    "n_features": 200,     # the held-out stop keeps the best round (152): 100 scored 26.9% held out, 200 25.4%
    "families": ("vocabulary", "cohesion", "tfidf", "names", "dialogue", "paragraphs", "shape", "position"),
    "vocabulary": 2000,
    "min_support": 20,
    "stopping": "heldout",
    "rule": NATURAL_THRESHOLD,
}


def _words(tokens) -> tuple[str, ...]:
    return tuple(t for t in tokens if t.isalnum())


@functools.lru_cache(maxsize=2)
def _sentence_owners(data: Path) -> dict[tuple[str, ...], set[str]]:
    """Each Brown sentence of 4+ words (its letters-and-digits tokens) -> the ids of the texts that hold it."""
    texts = read_brown_texts(data / "brown_nltk" / "brown.zip")
    owner: dict[tuple[str, ...], set[str]] = {}
    for text_id, text in texts.items():
        for line in text.sentences:
            key = _words(tokenize(line))
            if len(key) >= MATCH_MIN_WORDS:
                owner.setdefault(key, set()).add(text_id)
    return owner


@functools.lru_cache(maxsize=2)
def choi_brown_texts(data: Path) -> frozenset[str]:
    """Ids of the Brown texts with a sentence (of 4+ words) that also occurs in Choi's sets 1 or 2."""
    owner = _sentence_owners(data)
    found: set[str] = set()
    root = data / "choi2000"
    for choi_set in ("1", "2"):
        corpus = read_corpus(str(root / choi_set / "*" / "*.ref"), kind="choi")
        for sentence in corpus.sentences():
            found |= owner.get(_words(sentence), set())
    return frozenset(found)


def choi_segments(data: Path, left_out_texts: set[str]) -> Corpus:
    """Choi's set 4 as the ``choi-disjoint`` protocol trains on it (every segment sharing a sentence with sets 1
    or 2 removed), minus every segment with a sentence of a Brown text in ``left_out_texts`` (the long-form
    held-out and test texts, Choi's own texts); each set-4 file stays one source unit."""
    root = data / "choi2000"
    excluded = [read_corpus(str(root / s / "*" / "*.ref"), kind="choi") for s in ("1", "2")]
    disjoint = choi_disjoint_training(root, excluded)
    kept = _without_sources(zip(disjoint.documents, disjoint.files), data, left_out_texts)
    return Corpus([d for d, _ in kept], name=f"choi 4/* ({len(kept)} source-disjoint segments)",
                  files=[f for _, f in kept])


@functools.lru_cache(maxsize=4)
def _text_ngrams(data: Path, texts: frozenset[str]) -> frozenset[tuple[str, ...]]:
    """Every run of :data:`MATCH_NGRAM` words (letters and digits) of the Brown ``texts``."""
    brown = read_brown_texts(data / "brown_nltk" / "brown.zip")
    grams: set[tuple[str, ...]] = set()
    for text_id in texts:
        for line in brown[text_id].sentences:
            words = _words(tokenize(line))
            grams.update(words[i:i + MATCH_NGRAM] for i in range(len(words) - MATCH_NGRAM + 1))
    return frozenset(grams)


def _without_sources(pairs, data: Path, texts: set[str]) -> list:
    """The (document, file) pairs none of whose document's sentences comes from one of the Brown ``texts``.

    A sentence comes from a text when it is one of the text's sentences (4+ words, as words) or shares a run of
    :data:`MATCH_NGRAM` words with it: Choi's files split and tokenise Brown's sentences their own way, so whole
    sentences alone miss some (three set-4 segments of long-form held-out and test texts passed an exact match)."""
    owner = _sentence_owners(data)
    grams = _text_ngrams(data, frozenset(texts))

    def from_texts(sentence) -> bool:
        words = _words(sentence)
        if owner.get(words, set()) & texts:
            return True
        return any(words[i:i + MATCH_NGRAM] in grams for i in range(len(words) - MATCH_NGRAM + 1))

    return [(d, f) for d, f in pairs if not any(from_texts(s) for s in d.sentences)]


def _regroup(corpus: Corpus, sizes, label: str, rng: np.random.Generator) -> Corpus:
    """The documents of ``corpus`` in order, relabelled into source units of ``sizes`` (lo, hi) documents."""
    docs, files, k = list(corpus.documents), [], 0
    lo, hi = sizes
    while k < len(docs):
        take = int(rng.integers(lo, hi + 1))
        if len(docs) - k - take < lo:
            take = len(docs) - k
        files += [f"{label} {len(set(files)) + 1}"] * take
        k += take
    return Corpus(docs, name=corpus.name, files=files)


def spliced(texts: Corpus, n_documents: int, label: str, rng: np.random.Generator, *, excerpts: str = "anywhere"
            ) -> Corpus:
    """Choi-style documents cut from ``texts``: each joins 10 excerpts of 3-11 consecutive sentences from 10
    different texts.  A source of short segments from the same Brown texts, never from a Choi set.

    ``excerpts="anywhere"``: each excerpt starts at a random place and keeps its paragraph marks as they stand.
    ``excerpts="starts"``: each is the first n sentences of its text, without paragraph marks, as Choi (2000)
    made his segments (his files record no paragraphs)."""
    if excerpts not in ("anywhere", "starts"):
        raise ValueError(f"excerpts must be 'anywhere' or 'starts', not {excerpts!r}")
    docs, files = [], []
    pool = list(texts.documents)
    for i in range(n_documents):
        for j in rng.choice(len(pool), size=SPLICED_EXCERPTS, replace=False):
            text = pool[int(j)]
            length = int(rng.integers(SPLICED_LENGTHS[0], SPLICED_LENGTHS[1] + 1))
            if excerpts == "starts":
                docs.append(Document(f"{text.name}@0", text.sentences[:length], text.texts[:length]))
            else:
                start = int(rng.integers(0, len(text) - length + 1))
                part = slice(start, start + length)
                marks = text.paragraph_starts[part] if text.paragraph_starts else ()
                docs.append(Document(f"{text.name}@{start}", text.sentences[part], text.texts[part],
                                     paragraph_starts=marks))
            files.append(f"{label} {i + 1}")
    return Corpus(docs, name=f"{label} ({n_documents} documents of {SPLICED_EXCERPTS} excerpts)", files=files)


def _without_texts(corpus: Corpus, banned: set[str], label: str) -> Corpus:
    """A long-form portion without the banned Brown texts; a stream left with fewer than 2 texts is dropped."""
    kept = [(d, f) for d, f in zip(corpus.documents, corpus.files) if d.name not in banned]
    count: dict[str, int] = {}
    for _, f in kept:
        count[f] = count.get(f, 0) + 1
    kept = [(d, f) for d, f in kept if count[f] >= 2]
    return Corpus([d for d, _ in kept], name=f"{label} ({len(kept)} texts, Choi's texts left out)",
                  files=[f for _, f in kept])


def mixed_data(data: str | Path, *, seed: int = 0, spliced_documents: tuple[int, int] = SPLICED_DOCUMENTS,
               excerpts: str = "anywhere", choi_heldout_every: int | None = CHOI_HELDOUT_EVERY,
               choi_tuning_documents: int = CHOI_TUNING_DOCUMENTS) -> dict:
    """The mixed training and held-out corpora (module docstring) and what went into them.

    ``choi_heldout_every``: None = no Choi documents; 0 = :func:`choi_segments` in the training only; k = the
    segments of every k-th source text held out for the tuning, the others trained on.
    ``choi_tuning_documents``: that many documents of Choi's tuning set 1/3-11 held out as well."""
    data = Path(data)
    rng = np.random.default_rng(seed)
    banned = choi_brown_texts(data)
    reuters_root = data / "reuters21578"
    reuters_train = read_corpus([reuters_root / f for f in REUTERS_TRAIN], name="reut2-014..016")
    reuters_held = read_corpus([reuters_root / f for f in REUTERS_HELD], name="reut2-017")
    reuters_held = _regroup(reuters_held, (REUTERS_PART_STORIES, REUTERS_PART_STORIES), "reut2-017 part", rng)
    longform = longform_data(data)
    brown_train = _without_texts(longform.train, banned, "brown long-form train")
    brown_held = _without_texts(longform.heldout, banned, "brown long-form held out")
    brown_held = _regroup(brown_held, BROWN_HELD_TEXTS, "brown held-out stream", rng)
    wiki = wiki_data(data)
    train_parts = [reuters_train, brown_train, wiki.train]
    held_parts = [reuters_held, brown_held, wiki.heldout]
    choi_parts: dict[str, int] = {}
    if choi_heldout_every is not None:
        notes = longform.notes["texts"]
        choi = choi_segments(data, banned | set(notes["heldout"]) | set(notes["test"]))
        # held out by source text, not by file: set 4 cuts the same text's opening at several lengths in several
        # files, and a segment is a text's first sentences, so its first sentence names its text
        sources = sorted({d.sentences[0] for d in choi.documents})
        held_sources = set(sources[::choi_heldout_every]) if choi_heldout_every else set()
        choi_train = [(d, f) for d, f in zip(choi.documents, choi.files) if d.sentences[0] not in held_sources]
        trained_sentences = {s for d, _ in choi_train for s in d.sentences}
        choi_held = [(d, f) for d, f in zip(choi.documents, choi.files)
                     if d.sentences[0] in held_sources and trained_sentences.isdisjoint(d.sentences)]
        # a held-out segment cut from a long-form text trained on would flatter the tuning too
        trained_texts = {d.name.split("@")[0] for d in brown_train.documents}
        choi_held = _without_sources(choi_held, data, trained_texts)
        if choi_train:
            train_parts.append(Corpus([d for d, _ in choi_train], name=f"choi 4/* ({len(choi_train)} segments)",
                                      files=[f"choi {f}" for _, f in choi_train]))
        if choi_held:
            # documents of CHOI_HELDOUT_SEGMENTS segments: about as many held-out documents as the other domains
            held = Corpus([d for d, _ in choi_held], name=f"choi 4/* held out ({len(choi_held)} segments)")
            held_parts.append(_regroup(held, (CHOI_HELDOUT_SEGMENTS, CHOI_HELDOUT_SEGMENTS), "choi held-out document",
                                       rng))
        choi_parts = {"choi_train_segments": len(choi_train), "choi_heldout_segments": len(choi_held)}
    if choi_tuning_documents:
        tuning = read_corpus(data / "choi2000" / "1" / "3-11", kind="choi", name="choi 1/3-11")
        names = sorted(set(tuning.files), key=lambda f: (len(Path(f).name), Path(f).name))
        chosen = set(names[::max(1, len(names) // choi_tuning_documents)][:choi_tuning_documents])
        kept = [(d, f) for d, f in zip(tuning.documents, tuning.files) if f in chosen]
        held_parts.append(Corpus([d for d, _ in kept], name=f"choi 1/3-11 ({len(chosen)} documents)",
                                 files=[f"choi 1/3-11 {Path(f).name}" for _, f in kept]))
        choi_parts["choi_tuning_documents"] = len(chosen)
    if spliced_documents[0]:
        train_parts.append(spliced(brown_train, spliced_documents[0], "brown spliced train", rng, excerpts=excerpts))
    if spliced_documents[1]:
        held_parts.append(spliced(brown_held, spliced_documents[1], "brown spliced held-out", rng, excerpts=excerpts))
    train = Corpus.concatenate(train_parts, name="mixed training: " + ", ".join(c.name for c in train_parts))
    held = Corpus.concatenate(held_parts, name="mixed held out: " + ", ".join(c.name for c in held_parts))
    brown_ids = [{d.name.split("@")[0] for d in c.documents} for c in (train, held)]
    brown_ids = [{i for i in ids if i in longform.notes["texts"]["train"] + longform.notes["texts"]["heldout"]
                  + longform.notes["texts"]["test"]} for ids in brown_ids]
    test_ids = set(longform.notes["texts"]["test"])
    if brown_ids[0] & brown_ids[1] or (brown_ids[0] | brown_ids[1]) & (test_ids | banned):
        raise RuntimeError("a Brown text is in two portions, in the long-form test or in Choi's sets")
    return {"train": train, "heldout": held, "heldout_parts": held_parts, "choi_texts_left_out": sorted(banned),
            "longform_test_texts": longform.notes["texts"]["test"],
            "parts": {"reuters_train": len(reuters_train), "reuters_heldout_parts": len(set(reuters_held.files)),
                      "brown_train_texts": len(brown_train), "brown_heldout_texts": len(brown_held),
                      "brown_heldout_streams": len(set(brown_held.files)), "wiki_train": len(set(wiki.train.files)),
                      "wiki_heldout": len(set(wiki.heldout.files)), "brown_spliced_train": spliced_documents[0],
                      "brown_spliced_heldout": spliced_documents[1], **choi_parts}}


def build_mixed(data: Path, params: dict | None = None, **mix) -> Generator[Any, None, tuple[Segmenter, dict]]:
    """Train the mixed expert on the mix (module docstring); ``mix``: the options of :func:`mixed_data`.
    Returns it and the mixed data (whose held-out parts also tune the router)."""
    mixed = mixed_data(data, **mix)
    train, held = mixed["train"], mixed["heldout"]
    seg = Segmenter(**(params or PARAMS))
    yield from _fit(seg, train, held, "mixed")
    seg.info_.update(trained_on="mixed: " + ", ".join(f"{k} {v}" for k, v in mixed["parts"].items()),
                     choi_brown_texts_left_out=len(mixed["choi_texts_left_out"]),
                     licence="derived from Reuters-21578 (research use only), the Brown corpus "
                             + ("and Choi's (2000) benchmark cut from it " if _has_choi(mixed["parts"]) else "")
                             + "(non-commercial research/education) and Wikipedia (CC BY-SA 3.0)")
    return seg, mixed


def excerpts_data(data: Path, *, seed: int = 0, classes=None) -> tuple[Corpus, Corpus]:
    """The excerpts expert's training and held-out data, both from Choi's set 4, source-disjoint
    (:func:`choi_segments`: no sentence of sets 1-2, nor of the long-form held-out and test texts, nor of Choi's
    own Brown texts).  The segments of every :data:`EXCERPT_HELDOUT_EVERY`-th source text are held out (a held-out
    segment sharing a sentence with a trained one is dropped) and drawn into Choi-style documents of
    :data:`EXCERPT_HELDOUT_SEGMENTS` segments, :data:`EXCERPT_HELDOUT_DOCUMENTS` for each of Choi's length
    classes (``classes``, default :data:`EXCERPT_HELDOUT_CLASSES`: 3-5, 6-8, 9-11 and 3-11 sentences, as his
    test sets are cut).
    Nothing of Choi's sets 1 (which shares its sentences with the test set 2) or 2."""
    notes = longform_data(data).notes["texts"]
    choi = choi_segments(data, choi_brown_texts(data) | set(notes["heldout"]) | set(notes["test"]))
    # held out by source text, not by file: set 4 cuts the same text's opening at several lengths in several files,
    # and a segment is a text's first sentences, so its first sentence names its text
    sources = sorted({d.sentences[0] for d in choi.documents})
    held_sources = set(sources[::EXCERPT_HELDOUT_EVERY])
    train = [(d, f) for d, f in zip(choi.documents, choi.files) if d.sentences[0] not in held_sources]
    trained = {s for d, _ in train for s in d.sentences}
    held = [d for d in choi.documents if d.sentences[0] in held_sources and trained.isdisjoint(d.sentences)]
    rng = np.random.default_rng(seed)
    docs, files = [], []
    for low, high in (EXCERPT_HELDOUT_CLASSES if classes is None else classes):
        pool = [d for d in held if low <= len(d) <= high]
        if len(pool) < EXCERPT_HELDOUT_SEGMENTS:
            continue
        for k in range(EXCERPT_HELDOUT_DOCUMENTS):
            # a segment may stand in several held-out documents of its class, never twice in one
            for index in rng.choice(len(pool), size=EXCERPT_HELDOUT_SEGMENTS, replace=False):
                docs.append(pool[int(index)])
                files.append(f"choi 4 held-out {low}-{high} document {k + 1}")
    train_corpus = Corpus([d for d, _ in train], name=f"choi 4/* ({len(train)} source-disjoint segments)",
                          files=[f for _, f in train])
    held_corpus = Corpus(docs, name=f"choi 4/* held out ({len(set(files))} documents of "
                                    f"{EXCERPT_HELDOUT_SEGMENTS} segments)", files=files)
    return train_corpus, held_corpus


def build_excerpts(data: Path) -> Generator[Any, None, Segmenter]:
    """Train the excerpts expert on Choi's set 4 and tune it on set-4 documents of 3-11-sentence segments it was
    not trained on (:func:`excerpts_data`, :data:`EXCERPT_PARAMS`; as the ``choi-disjoint`` protocol tunes on
    3-11 documents)."""
    train, held = excerpts_data(data, classes=(EXCERPT_TUNING_CLASS,))
    seg = Segmenter(**EXCERPT_PARAMS)
    yield from _fit(seg, train, held, "excerpts")
    seg.info_.update(trained_on=f"{train.name}, tuned on {held.name}",
                     licence="derived from Choi's (2000) benchmark, cut from the Brown corpus (non-commercial "
                             "research/education)")
    return seg


def build_sections(data: Path) -> Generator[Any, None, Segmenter]:
    """Train the sections expert: the ``wiki`` protocol's model (wiki300 1-200, tuned on 201-250, titles dropped;
    the natural-boundary parameters with the threshold rule, :data:`segviz.protocols.NATURAL_SEGMENTER`)."""
    wiki = wiki_data(data)
    seg = Segmenter(**wiki.segmenter_defaults)
    yield from _fit(seg, wiki.train, wiki.heldout, "sections")
    seg.info_.update(trained_on=f"{wiki.train.name}, tuned on {wiki.heldout.name}",
                     licence="derived from English Wikipedia (CC BY-SA 3.0)")
    return seg


def build_longform(data: Path) -> Generator[Any, None, Segmenter]:
    """Train the long-form expert: the ``longform`` protocol's model (streams of whole Brown texts, the length-prior
    rule), on its training texts and tuned on its held-out streams, both without the Brown texts Choi's sets were
    cut from (:func:`choi_brown_texts`)."""
    longform = longform_data(data)
    banned = choi_brown_texts(data)
    train = _without_texts(longform.train, banned, "brown long-form train")
    held = _without_texts(longform.heldout, banned, "brown long-form held out")
    seg = Segmenter(**longform.segmenter_defaults)
    yield from _fit(seg, train, held, "long-form")
    seg.info_.update(trained_on=f"{train.name}, tuned on {held.name}",
                     licence="derived from the Brown corpus (non-commercial research/education)")
    return seg


def build_chapters(data: Path) -> Generator[Any, None, Segmenter]:
    """Train the chapters expert: the ``chapters`` protocol's model (15 Gutenberg books read raw with their
    headings, tuned on 5 held-out books; :data:`CHAPTERS_PARAMS`); the test books are never read."""
    train, held = chapter_books(data, "train"), chapter_books(data, "heldout")
    seg = Segmenter(**CHAPTERS_PARAMS)
    yield from _fit(seg, train, held, "chapters")
    return _with_chapters_provenance(seg)


def _with_chapters_provenance(seg: Segmenter) -> Segmenter:
    """The chapters expert's provenance in ``info_``: what it was trained and tuned on, and the texts' licence (the
    same whether it was trained here or taken from the ``chapters`` protocol's run, which records its corpora)."""
    seg.info_.update(trained_on=f"{seg.info_.get('train_corpus')}, tuned on {seg.info_.get('heldout_corpus')}",
                     licence="derived from Project Gutenberg e-texts (public domain in the USA)")
    return seg


def _fit(seg: Segmenter, train: Corpus, held: Corpus, label: str) -> Generator[Any, None, None]:
    """Fit ``seg``, passing its events on, each progress stage named after the expert (``label``)."""
    for event in seg.fit_iter(train, held, None):
        yield Progress(f"{label}: {event.stage}", event.done, event.total) if isinstance(event, Progress) else event


def router_heldout(data: Path, mixed: dict) -> list[Corpus]:
    """The held-out domains the router's thresholds are tuned on: the mixed held-out parts (Reuters 017 parts,
    Brown held-out streams, wiki300 201-250), the excerpts expert's held-out set-4 documents
    (:func:`excerpts_data`) and the chapters protocol's held-out books (:func:`segviz.protocols.chapter_books`)."""
    return [*mixed["heldout_parts"], excerpts_data(data)[1], chapter_books(data, "heldout")]


def build_iter(data: str | Path, params: dict | None = None, *, mixed_only: bool = False,
               mixed_model: Segmenter | None = None, reuse: dict[str, Segmenter] | None = None,
               **mix) -> Generator[Any, None, Segmenter | ExpertRouter]:
    """Train the default model: a router of the experts (:data:`EXPERTS`), or with ``mixed_only`` the mixed
    expert alone; ``mixed_model``: an already-trained mixed expert to route to; ``reuse``: experts by name taken as
    they are instead of trained again (built by this recipe before; the router is always tuned anew); ``mix``:
    :func:`mixed_data`'s options.  Yields the experts' training events (progress stages named after each expert)
    and ``Progress("tuning the router", ...)``; returns the model (its ``tuning_`` holds the held-out table)."""
    data = Path(data)
    t0 = time.perf_counter()
    reuse = dict(reuse or {})
    if mixed_model is not None:
        reuse["mixed"] = mixed_model
    mixed_split = mixed_data(data, **mix) if "mixed" in reuse else None
    if "mixed" in reuse:
        mixed = reuse["mixed"]
    else:
        mixed, mixed_split = yield from build_mixed(data, params, **mix)
    if mixed_only:
        return mixed
    builders = {"excerpts": build_excerpts, "sections": build_sections, "long-form": build_longform,
                "chapters": build_chapters}
    experts = {"mixed": mixed}
    for name, builder in builders.items():
        experts[name] = reuse[name] if name in reuse else (yield from builder(data))
    if "chapters" in reuse and "trained_on" not in experts["chapters"].info_:
        experts["chapters"] = _with_chapters_provenance(experts["chapters"])
    model = ExpertRouter(experts=[(name, experts[name]) for name in EXPERTS], gauges=GAUGES)
    yield from model.fit_iter(router_heldout(data, mixed_split))
    model.info_.update(licence=LICENCE, build_seconds=round(time.perf_counter() - t0))
    return model


def _has_choi(parts: dict) -> bool:
    return any(parts.get(k) for k in ("choi_train_segments", "choi_heldout_segments", "choi_tuning_documents"))
