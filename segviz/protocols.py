"""Evaluation protocols: fixed train / held-out / test splits of the shared corpora, run end to end.

A protocol trains language models (or loads cached ones), induces a segmenter on the training portion, tunes its
decision rule and the held-out stop on the held-out portion, and scores the model, the peers (C99, TextTiling)
and the paper's baselines on every test portion, all with the same metrics (:mod:`segviz.evaluation`).  The
splits are documented in docs/protocols.md:

``reuters``
    The paper's Table 5 analogue: LMs on ``reut2-000..013``, train ``014..016``, tune ``017``, test ``018..021``
    as one stream.
``choi`` / ``choi-disjoint``
    Choi (2000): train ``3/3-11`` and tune ``1/3-11``, or (source-disjoint) train and tune on the segments of set 4
    sharing no sentence with sets 1-2, split by source text; test ``2/{3-11,3-5,6-8,9-11}`` file by file.
``wiki``
    wiki300: train ``wiki_test_1..200``, tune ``201..250``, test ``251..300`` (by the number in the file name),
    article by article, the title line dropped for every segmenter.
``longform``
    Brown texts of 100+ sentences, whole, concatenated into streams of 4-8 texts; train, held-out and test texts
    disjoint.

Every protocol is a generator (:func:`run_protocol`) of the engine's events (progress, induced features)
returning a :class:`ProtocolResult`.  Segmenter parameters go through verbatim (``segmenter_params``), so any
option of :class:`segviz.segmenter.Segmenter` (new candidate families, another decision rule) can be switched on
in any protocol.
"""
from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .bundle import DataArchive
from .corpus import Corpus, Document, read_corpus, tokenize
from .errors import SegvizError
from .evaluation import compare_segmenters, model_segmenter, table_payload
from .events import Progress
from .lm.models import LanguageModels
from .persist import check_output_path
from .readers.source import MAX_FILE_BYTES
from .rules import LengthPriorRule, ThresholdRule
from .segmenter import Segmenter

# ------------------------------------------------------------------------------------------------ splits

REUTERS_LM = tuple(f"reut2-{i:03d}.sgm" for i in range(0, 14))
REUTERS_TRAIN = tuple(f"reut2-{i:03d}.sgm" for i in (14, 15, 16))
REUTERS_HELD = ("reut2-017.sgm",)
REUTERS_TEST = tuple(f"reut2-{i:03d}.sgm" for i in (18, 19, 20, 21))

CHOI_TEST_SETS = ("3-11", "3-5", "6-8", "9-11")

WIKI_TRAIN = range(1, 201)
WIKI_HELD = range(201, 251)
WIKI_TEST = range(251, 301)

#: the categories of the Brown corpus (``brown/cats.txt``)
BROWN_CATEGORIES = ("adventure", "belles_lettres", "editorial", "fiction", "government", "hobbies", "humor",
                    "learned", "lore", "mystery", "news", "religion", "reviews", "romance", "science_fiction")
#: Brown categories of narrative fiction (``longform --category fiction``)
BROWN_FICTION = ("adventure", "fiction", "mystery", "romance", "science_fiction")
#: the shortest Brown text a long-form stream takes, in sentences
LONGFORM_MIN_SENTENCES = 100
#: texts per long-form stream: drawn uniformly from this range, so the count says nothing about a boundary
LONGFORM_TEXTS_PER_STREAM = (4, 8)
#: fractions of the texts (per category) for training and held-out; the rest is test
LONGFORM_FRACTIONS = (0.6, 0.2)

#: The Segmenter's parameters for natural boundaries (the ``wiki`` and ``longform`` protocols), chosen on their
#: held-out portions only (docs/reproduction.md, "Choosing the natural-boundary defaults"): the multi-scale tf-idf
#: cohesion, sentence shape and position families beside cohesion; no vocabulary questions (they over-fit: worse
#: held-out P_k with them) and no relevance questions (no better held out, and no language models to train); a
#: Gaussian prior on lambda; the decision rule tuned for the mean P_k over the held-out documents, on grids wide
#: enough for segments of 100+ sentences.
NATURAL_SEGMENTER: dict[str, Any] = {
    "families": ("cohesion", "tfidf", "shape", "position"),
    "l2": 1.0,
    "tuning_metric": "p_k",
    "tuning_units": "per-document",
}
#: the two decision rules of the natural protocols, with their wide tuning grids
NATURAL_THRESHOLD = ThresholdRule(
    alphas=(0.005, 0.01) + tuple(float(a) for a in np.round(np.arange(0.02, 0.99, 0.02), 2)),
    epsilons=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128))
NATURAL_LENGTH_PRIOR = LengthPriorRule(shapes=(1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
                                       biases=tuple(float(b) for b in np.round(np.arange(-4.0, 10.01, 0.5), 2)))
#: the same prior with segment lengths measured in words (segviz.length_prior): in words the prior is a density over
#: lengths only sentence ends can take, about log(words per sentence) below a probability per segment, which the
#: bias makes up, so its grid reaches higher
NATURAL_WORD_LENGTH_PRIOR = LengthPriorRule(unit="words", shapes=(1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
                                            biases=tuple(float(b) for b in np.round(np.arange(-4.0, 16.01, 0.5), 2)))
#: the decision rule each natural protocol's model uses (the better of the two on its held-out portion); the other
#: is scored beside it
NATURAL_RULES = {"wiki": NATURAL_THRESHOLD, "longform": NATURAL_LENGTH_PRIOR}
#: the decision rules a protocol scores side by side (each tuned on the held-out portion)
PAPER_RULES = (ThresholdRule(), LengthPriorRule())
NATURAL_RULE_PAIR = (NATURAL_THRESHOLD, NATURAL_LENGTH_PRIOR)


@dataclass
class ProtocolData:
    """The corpora of one protocol, read and split, ready to train and score.

    ``tests`` maps a test portion's name to its corpus; ``evaluation`` says whether each is one stream or a set
    of documents scored one by one (:mod:`segviz.evaluation`).  ``lm_sentences`` returns the language models'
    training text (never any tuning or test text); ``lm_name`` names their cache.  ``segmenter_defaults`` are
    the protocol's own Segmenter parameters, overridden by the caller's; ``rules`` the decision rules scored side
    by side (the model's own, and each other kind tuned on the held-out portion).
    """

    protocol: str
    train: Corpus
    heldout: Corpus
    tests: dict[str, Corpus]
    evaluation: str
    lm_name: str
    lm_sentences: Callable[[], list]
    segmenter_defaults: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    rules: tuple = PAPER_RULES


def _need(path: Path) -> Path:
    if not path.exists():
        raise SegvizError(f"{path}: missing (pass --data DIR pointing at the shared corpora)")
    return path


def reuters_data(data: str | Path) -> ProtocolData:
    """The Reuters protocol: LMs 000-013, train 014-016, tune 017, test 018-021, each portion one stream."""
    root = _need(Path(data) / "reuters21578")
    train = read_corpus([_need(root / f) for f in REUTERS_TRAIN], name="reut2-014..016")
    held = read_corpus([_need(root / f) for f in REUTERS_HELD], name="reut2-017")
    test = read_corpus([_need(root / f) for f in REUTERS_TEST], name="reut2-018..021")
    lm_files = [_need(root / f) for f in REUTERS_LM]
    return ProtocolData("reuters", train, held, {"test": test}, "stream", "reuters",
                        lambda: read_corpus(lm_files).sentences(),
                        notes={"licence": "Reuters-21578: research use only"})


def choi_lm_sentences(root: Path, exclude: Sequence[Corpus]) -> list:
    """LM text for Choi: sets 3 and 4, minus every sentence that also occurs in the tuning or test sets.

    Choi documents are excerpts of the same Brown texts, so an excerpt in set 3 or 4 can repeat sentences of a
    test document; dropping every sentence seen in sets 1 and 2 guarantees the LMs never saw test text.
    """
    banned = {s for c in exclude for s in c.sentences()}
    lm_corpus = read_corpus([str(root / "3" / "*" / "*.ref"), str(root / "4" / "*" / "*.ref")], kind="choi")
    return [s for s in lm_corpus.sentences() if s not in banned]


def choi_disjoint_training(root: Path, exclude: Sequence[Corpus]) -> Corpus:
    """Set 4 with every segment that shares a sentence with sets 1 or 2 removed (source-disjoint training).

    Sets 1-3 are all cut from the same Brown sections: every test segment's first sentence is also a segment
    start in set 3, so a model trained there can memorise the openings.  Set 4 also draws on other sections;
    what survives the filter shares no sentence with tuning or test data.
    """
    banned = {s for c in exclude for s in c.sentences()}
    src = read_corpus(str(root / "4" / "*" / "*.ref"), kind="choi")
    kept = [(d, f) for d, f in zip(src.documents, src.files) if not any(s in banned for s in d.sentences)]
    return Corpus([d for d, _ in kept], name="choi 4/* (source-disjoint segments)", files=[f for _, f in kept])


#: the source-disjoint Choi protocol tunes on the set-4 segments of every CHOI_HELDOUT_EVERY-th source text (never
#: trained on), drawn into CHOI_HELDOUT_DOCUMENTS Choi-style documents of CHOI_HELDOUT_SEGMENTS segments of 3-11
#: sentences, as the default model's excerpts expert is tuned: Choi's tuning set 1/3-11 holds 1,279 of the 1,297
#: distinct (5+ word) sentences of the test set 2, so tuning there would tune on the test
CHOI_HELDOUT_EVERY = 5
CHOI_HELDOUT_SEGMENTS = 10
CHOI_HELDOUT_DOCUMENTS = 50
CHOI_HELDOUT_LENGTHS = (3, 11)
#: a tuning segment is dropped when it shares a run of this many words with sets 1 or 2 (Choi's files tokenise
#: the same Brown sentence their own way now and then, so an exact sentence match alone could miss one)
CHOI_MATCH_NGRAM = 8


def _word_runs(sentences, n: int) -> set[tuple[str, ...]]:
    runs: set[tuple[str, ...]] = set()
    for sentence in sentences:
        words = tuple(t for t in sentence if t.isalnum())
        runs.update(words[i:i + n] for i in range(len(words) - n + 1))
    return runs


def choi_disjoint_split(root: Path, exclude: Sequence[Corpus], *, seed: int = 0
                        ) -> tuple[Corpus, Corpus, list[str]]:
    """The source-disjoint segments of set 4 (:func:`choi_disjoint_training`) split by source text: those of every
    :data:`CHOI_HELDOUT_EVERY`-th text held out and drawn into Choi-style tuning documents, the rest trained on.

    Held out by source text, not by file: set 4 cuts the same text's opening at several lengths in several files,
    and a segment is a text's first sentences, so its first sentence names its text.  A held-out segment sharing a
    sentence with a trained one, or a run of :data:`CHOI_MATCH_NGRAM` words with ``exclude``, is dropped.  A segment
    may stand in several tuning documents, never twice in one.  Returns the training corpus, the tuning corpus and
    the segments tuned on (``choi2000/4/DIR/FILE.ref#segN``, relative to the data directory)."""
    disjoint = choi_disjoint_training(root, exclude)
    sources = sorted({d.sentences[0] for d in disjoint.documents})
    held_sources = set(sources[::CHOI_HELDOUT_EVERY])
    train = [(d, f) for d, f in zip(disjoint.documents, disjoint.files) if d.sentences[0] not in held_sources]
    trained = {s for d, _ in train for s in d.sentences}
    banned_runs = _word_runs((s for c in exclude for s in c.sentences()), CHOI_MATCH_NGRAM)
    low, high = CHOI_HELDOUT_LENGTHS
    pool = [(d, f) for d, f in zip(disjoint.documents, disjoint.files)
            if d.sentences[0] in held_sources and low <= len(d) <= high and trained.isdisjoint(d.sentences)
            and banned_runs.isdisjoint(_word_runs(d.sentences, CHOI_MATCH_NGRAM))]
    if len(pool) < CHOI_HELDOUT_SEGMENTS:
        raise SegvizError(f"{root}: only {len(pool)} held-out set-4 segments, too few for a tuning document")
    rng = np.random.default_rng(seed)
    docs, files, used = [], [], set()
    for k in range(CHOI_HELDOUT_DOCUMENTS):
        for index in rng.choice(len(pool), size=CHOI_HELDOUT_SEGMENTS, replace=False):
            doc, source = pool[int(index)]
            docs.append(doc)
            files.append(f"choi 4 held-out document {k + 1}")
            used.add(f"{_relative(source, root)}#{doc.name.rpartition('#')[2]}")
    train_corpus = Corpus([d for d, _ in train], name=f"choi 4/* ({len(train)} source-disjoint segments)",
                          files=[f for _, f in train])
    held_corpus = Corpus(docs, name=f"choi 4/* held out ({CHOI_HELDOUT_DOCUMENTS} documents of "
                                    f"{CHOI_HELDOUT_SEGMENTS} segments of {low}-{high} sentences)", files=files)
    return train_corpus, held_corpus, sorted(used)


def choi_data(data: str | Path, *, disjoint: bool = False) -> ProtocolData:
    """Choi: train 3/3-11 and tune 1/3-11 (the literature protocol), or train and tune on disjoint parts of the
    source-disjoint segments of set 4 (:func:`choi_disjoint_split`); test set 2 file by file.

    The source-disjoint variant asks the peer-evidence questions by default (docs/reproduction.md) and records
    the set-4 segments it tunes on (``tuning_files``)."""
    root = _need(Path(data) / "choi2000")
    tests = {s: read_corpus(_need(root / "2" / s), kind="choi", name=f"choi 2/{s}") for s in CHOI_TEST_SETS}
    excluded = [read_corpus(str(root / "1" / "*" / "*.ref"), kind="choi"),
                read_corpus(str(root / "2" / "*" / "*.ref"), kind="choi")]
    notes: dict[str, Any] = {}
    if disjoint:
        train, held, segments = choi_disjoint_split(root, excluded)
        # file and segment (FILE#segN): most set-4 files hold segments of sets 1-2 as well, which are not tuned on
        notes["tuning_files"] = segments
    else:
        held = read_corpus(_need(root / "1" / "3-11"), kind="choi", name="choi 1/3-11")
        train = read_corpus(_need(root / "3" / "3-11"), kind="choi", name="choi 3/3-11")
    return ProtocolData("choi-disjoint" if disjoint else "choi", train, held, tests, "per-document", "choi",
                        lambda: choi_lm_sentences(root, excluded),
                        segmenter_defaults=(
                            {"families": ("vocabulary", "relevance", "cohesion", "peer")} if disjoint else {}),
                        notes=notes)


def _relative(path: str, root: Path) -> str:
    """``path`` relative to the Choi directory's parent (``choi2000/4/3-15/12.ref``): the same on every machine."""
    try:
        return str(Path(path).resolve().relative_to(root.resolve().parent))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class BrownText:
    """One Brown text: its category, its sentences (tags stripped) and which of them open a paragraph."""

    category: str
    sentences: tuple[str, ...]
    paragraph_starts: tuple[bool, ...]


_WIKI_NAME = re.compile(r"wiki_test_(\d+)\.ref$")


def drop_titles(corpus: Corpus) -> Corpus:
    """``corpus`` without the first sentence of each source file (a wiki300 article's title line).

    A first segment left empty by the cut disappears, so the next section's start is the article's start."""
    docs, files, seen = [], [], set()
    for doc, source in zip(corpus.documents, corpus.files):
        if source not in seen:
            seen.add(source)
            doc = replace(doc, sentences=doc.sentences[1:], texts=doc.texts[1:],
                          paragraph_starts=doc.paragraph_starts[1:])
            if not doc.sentences:
                continue
        docs.append(doc)
        files.append(source)
    return Corpus(docs, name=corpus.name, files=files)


def wiki_data(data: str | Path, *, keep_titles: bool = False) -> ProtocolData:
    """wiki300: train articles 1-200, tune 201-250, test 251-300 (the number in ``wiki_test_N.ref``).

    The first line of every article is its title.  By default it is dropped before anything sees the text, so
    every segmenter (model, peers, baselines) gets the same sentences; ``keep_titles`` keeps it, again for all.
    """
    root = _need(Path(data) / "wiki300_badjatiya")
    by_number = {}
    for path in root.glob("wiki_test_*.ref"):
        match = _WIKI_NAME.search(path.name)
        if match:
            by_number[int(match.group(1))] = path

    def portion(numbers: range, name: str) -> Corpus:
        missing = [n for n in numbers if n not in by_number]
        if missing:
            raise SegvizError(f"{root}: wiki_test_{missing[0]}.ref missing ({len(missing)} of the split absent)")
        corpus = read_corpus([by_number[n] for n in numbers], kind="choi", name=name)
        return corpus if keep_titles else drop_titles(corpus)

    title = "titles kept" if keep_titles else "titles dropped"
    train = portion(WIKI_TRAIN, f"wiki300 1-200 ({title})")
    held = portion(WIKI_HELD, f"wiki300 201-250 ({title})")
    test = portion(WIKI_TEST, f"wiki300 251-300 ({title})")
    lm_name = lm_cache_name("wiki", {"keep_titles": keep_titles})
    return ProtocolData("wiki", train, held, {"test": test}, "per-document", lm_name, train.sentences,
                        segmenter_defaults={**NATURAL_SEGMENTER, "rule": NATURAL_RULES["wiki"]}, rules=NATURAL_RULE_PAIR,
                        notes={"titles": "kept" if keep_titles else "dropped",
                               "licence": "Wikipedia text, CC BY-SA 3.0"})


def read_brown_texts(path: str | Path) -> dict[str, BrownText]:
    """The texts of NLTK's ``brown.zip`` by text id (:class:`BrownText`: category, sentences, paragraph marks).

    Each line of a Brown file is one sentence of ``word/TAG`` tokens; the words are joined with spaces and the
    tagset's quote tokens (````` and ``''``) become ``"``.  A sentence opens a paragraph when it follows a blank
    line or is indented with a tab, as the files lay paragraphs out.  A text's first line is no exception: about
    half of the samples begin in the middle of a paragraph (no indent, no blank line before it), and marking every
    first line would mark every text boundary -- the reference itself.  Headline lines
    stay where they are: 55 of the 500 texts open with one and 1,661 more fall inside texts, so a heading is no
    give-away of a text's start.
    """
    path = Path(path)
    # read with the checks of any input: a regular file within the corpus-file limit (a FIFO, a directory or a
    # link to /dev/zero refused at once), zip features and unpacked sizes checked before anything is unpacked
    with DataArchive(_need(path), what="zip archive like NLTK's brown.zip", max_bytes=MAX_FILE_BYTES,
                     max_member_bytes=MAX_FILE_BYTES) as archive:
        try:
            cats = archive.read("brown/cats.txt").decode("ascii")
        except UnicodeDecodeError as exc:
            raise SegvizError(f"{path}: brown/cats.txt is not ASCII text (byte {exc.start}); expected NLTK's "
                              "brown.zip") from None
        texts = {}
        for line in cats.splitlines():
            parts = line.split()
            if len(parts) != 2:
                continue
            text_id, category = parts
            if f"brown/{text_id}" not in archive:
                raise SegvizError(f"{path}: brown/cats.txt names {text_id[:40]!r}, which the archive lacks")
            raw = archive.read(f"brown/{text_id}").decode("ascii", errors="replace")
            sentences, starts, after_blank = [], [], False
            for tagged in raw.split("\n"):
                words = [tok.rsplit("/", 1)[0] for tok in tagged.split()]
                if not words:
                    after_blank = True
                    continue
                words = ['"' if w in ("``", "''") else w for w in words]
                sentences.append(" ".join(words))
                starts.append(after_blank or tagged.startswith("\t"))
                after_blank = False
            texts[text_id] = BrownText(category, tuple(sentences), tuple(starts))
    return texts


def check_category(category: str) -> tuple[str, ...]:
    """The Brown categories a ``longform`` category name stands for (one line of error for an unknown name)."""
    if category == "all":
        return BROWN_CATEGORIES
    if category == "all-fiction":
        return BROWN_FICTION
    if category in BROWN_CATEGORIES:
        return (category,)
    raise SegvizError(f"unknown Brown category {category!r}; choose all, all-fiction or one of "
                      f"{', '.join(BROWN_CATEGORIES)}")


def longform_data(data: str | Path, *, category: str = "all", split_seed: int = 0) -> ProtocolData:
    """Long-form prose from Brown: streams of 4-8 whole texts of 100+ sentences; disjoint texts per portion.

    ``category``: ``all`` (every Brown category mixed in each stream), ``all-fiction`` (the five narrative
    fiction categories) or one Brown category (e.g. ``fiction``, ``news``, ``learned``): a stream of texts of
    one kind, like chapters of one genre.  The texts of each category are shuffled with ``split_seed`` and split 60 /
    20 / 20 into training, held-out and test texts, so no text appears in two portions; each portion's texts
    are then shuffled and cut into streams.  Every text is one reference segment; the LMs see the training
    texts only.
    """
    categories = check_category(category)
    texts = read_brown_texts(Path(data) / "brown_nltk" / "brown.zip")
    rng = np.random.default_rng(split_seed)
    portions: dict[str, list[str]] = {"train": [], "heldout": [], "test": []}
    for cat in categories:
        ids = sorted(t for t, text in texts.items()
                     if text.category == cat and len(text.sentences) >= LONGFORM_MIN_SENTENCES)
        ids = [ids[i] for i in rng.permutation(len(ids))]
        n_train = int(round(LONGFORM_FRACTIONS[0] * len(ids)))
        n_held = int(round(LONGFORM_FRACTIONS[1] * len(ids)))
        portions["train"] += ids[:n_train]
        portions["heldout"] += ids[n_train:n_train + n_held]
        portions["test"] += ids[n_train + n_held:]

    def streams(ids: list[str], portion: str) -> Corpus:
        if len(ids) < 2:
            raise SegvizError(f"Brown category {category!r}: only {len(ids)} {portion} text(s) of "
                              f"{LONGFORM_MIN_SENTENCES}+ sentences; pick a larger category")
        order = [ids[i] for i in rng.permutation(len(ids))]
        docs, files, k = [], [], 0
        lo, hi = LONGFORM_TEXTS_PER_STREAM
        while k < len(order):
            take = int(rng.integers(lo, hi + 1))
            if len(order) - k - take < lo:  # never leave a stream of fewer than `lo` texts at the end
                take = len(order) - k
            stream = f"brown {portion} stream {len(set(files)) + 1}"
            for text_id in order[k:k + take]:
                text = texts[text_id]
                kept = [(tuple(tokenize(line)), line, start)
                        for line, start in zip(text.sentences, text.paragraph_starts) if tokenize(line)]
                docs.append(Document(text_id, tuple(s for s, _, _ in kept), tuple(t for _, t, _ in kept),
                                     paragraph_starts=tuple(p for _, _, p in kept)))
                files.append(stream)
            k += take
        return Corpus(docs, name=f"brown {category} {portion} ({len(ids)} texts)", files=files)

    train = streams(portions["train"], "train")
    held = streams(portions["heldout"], "heldout")
    test = streams(portions["test"], "test")
    lm_name = lm_cache_name("longform", {"category": category, "split_seed": split_seed})
    return ProtocolData("longform", train, held, {"test": test}, "per-document", lm_name,
                        train.sentences,
                        segmenter_defaults={**NATURAL_SEGMENTER, "rule": NATURAL_RULES["longform"]},
                        rules=NATURAL_RULE_PAIR,
                        notes={"category": category, "split_seed": split_seed, "categories": list(categories),
                               "texts": {k: sorted(v) for k, v in portions.items()},
                               "licence": "Brown corpus (NLTK packaging): non-commercial research/education"})


#: the Gutenberg books of the ``chapters`` protocol by role, fixed before any training (docs/protocols.md): 175
#: books, each in one portion only, named ``<folder>/<file stem>`` under the shared corpora.  ``test`` is the six
#: test books of ``gutenberg_novels`` (spanning heading styles and kinds of writing); ``test_more`` is every 7th
#: book of ``gutenberg_more`` sorted by e-book number, from the 4th (24, 77, 110, ..., 9182); the held-out books
#: (the decision rule, the held-out stop, every choice) are the five held-out novels and every 8th of the remaining
#: ``gutenberg_more`` books from the 3rd; the rest train.
_NOVELS_TRAIN = ("105_persuasion", "120_treasure-island", "1260_jane-eyre", "1400_great-expectations",
                 "161_sense-and-sensibility", "174_the-picture-of-dorian-gray", "203_uncle-tom-s-cabin",
                 "215_the-call-of-the-wild", "219_heart-of-darkness", "33_the-scarlet-letter",
                 "36_the-war-of-the-worlds", "45_anne-of-green-gables", "514_little-women",
                 "74_the-adventures-of-tom-sawyer", "768_wuthering-heights")
_NOVELS_HELDOUT = ("158_emma", "730_oliver-twist", "345_dracula", "76_adventures-of-huckleberry-finn",
                   "1232_the-prince")
_MORE_TRAIN = (
        "11_alices_adventures_in_wonderland", "12_through_the_looking_glass", "47_anne_of_avonlea",
        "51_anne_of_the_island", "55_the_wonderful_wizard_of_oz", "60_the_scarlet_pimpernel",
        "62_a_princess_of_mars", "73_the_red_badge_of_courage_an_episode_of_the_american_civil_wa", "78_tarzan_of_the_apes",
        "86_a_connecticut_yankee_in_king_arthurs_court", "95_the_prisoner_of_zenda", "103_around_the_world_in_eighty_days",
        "107_far_from_the_madding_crowd", "122_the_return_of_the_native", "139_the_lost_world",
        "140_the_jungle", "143_the_mayor_of_casterbridge", "145_middlemarch",
        "153_jude_the_obscure", "154_the_rise_of_silas_lapham", "155_the_moonstone",
        "159_the_island_of_doctor_moreau", "164_twenty_thousand_leagues_under_the_sea", "217_sons_and_lovers",
        "233_sister_carrie_a_novel", "242_my_antonia", "244_a_study_in_scarlet",
        "245_life_on_the_mississippi", "271_black_beauty", "289_the_wind_in_the_willows",
        "421_kidnapped", "432_the_ambassadors", "498_rebecca_of_sunnybrook_farm",
        "507_adam_bede", "541_the_age_of_innocence", "543_main_street",
        "550_silas_marner", "559_greenmantle", "564_the_mystery_of_edwin_drood",
        "583_the_woman_in_white", "589_catriona", "599_vanity_fair",
        "601_the_monk_a_romance", "619_the_warden", "711_allan_quatermain",
        "718_tono_bungay", "766_david_copperfield", "767_agnes_grey",
        "778_five_children_and_it", "786_hard_times", "821_dombey_and_son",
        "836_the_phoenix_and_the_carpet", "840_lorna_doone_a_romance_of_exmoor", "848_the_black_arrow_a_tale_of_two_roses",
        "863_the_mysterious_affair_at_styles", "883_our_mutual_friend", "910_white_fang",
        "917_barnaby_rudge_a_tale_of_the_riots_of_eighty", "963_little_dorrit", "967_nicholas_nickleby",
        "969_the_tenant_of_wildfell_hall", "974_the_secret_agent_a_simple_tale", "1013_the_first_men_in_the_moon",
        "1023_bleak_house", "1056_martin_eden", "1156_babbitt",
        "1164_the_iron_heel", "1257_the_three_musketeers", "1300_riders_of_the_purple_sage",
        "1399_anna_karenina", "1438_no_name", "1450_pollyanna",
        "1837_the_prince_and_the_pauper", "1874_the_railway_children", "1895_armadale",
        "1900_typee_a_romance_of_the_south_seas", "2021_nostromo_a_tale_of_the_seaboard", "2081_the_blithedale_romance",
        "2084_the_way_of_all_flesh", "2145_ben_hur_a_tale_of_the_christ", "2166_king_solomons_mines",
        "2413_madame_bovary", "2480_under_western_eyes", "2554_crime_and_punishment",
        "2600_war_and_peace", "2610_notre_dame_de_paris", "2759_the_man_in_the_iron_mask",
        "2775_the_good_soldier", "2788_little_men", "2833_the_portrait_of_a_lady_volume_1",
        "2853_quo_vadis_a_narrative_of_the_time_of_nero", "2860_framley_parsonage", "2891_howards_end",
        "3166_doctor_thorne", "3289_the_valley_of_fear", "3409_barchester_towers",
        "3796_rilla_of_ingleside", "4276_north_and_south", "4517_ethan_frome",
        "5230_the_invisible_man_a_grotesque_romance", "5343_rainbow_valley", "5658_lord_jim",
        "6378_victory_an_island_tale", "6593_history_of_tom_jones_a_foundling", "6688_the_mill_on_the_floss",
        "7025_rob_roy_complete", "7308_the_history_of_mr_polly", "10007_carmilla",
        "11696_the_food_of_the_gods_and_how_it_came_to_earth", "14851_uncle_silas_a_tale_of_bartram_haugh", "19717_the_bostonians_vol_i_of_ii",
        "28054_the_brothers_karamazov",
)
_MORE_HELDOUT = (
        "16_peter_pan", "82_ivanhoe_a_romance", "141_mansfield_park",
        "165_mcteague_a_story_of_san_francisco", "394_cranford", "558_the_thirty_nine_steps",
        "624_looking_backward_2000_to_1887", "829_gullivers_travels", "940_the_last_of_the_mohicans_a_narrative_of_1757",
        "1074_the_sea_wolf", "1695_the_man_who_was_thursday_a_nightmare", "2097_the_sign_of_the_four",
        "2638_the_idiot", "3155_she", "5231_the_way_we_live_now",
        "8118_redburn_his_first_voyage",
)
_MORE_TEST = (
        "24_o_pioneers", "77_the_house_of_the_seven_gables", "110_tess_of_the_durbervilles_a_pure_woman",
        "146_a_little_princess", "209_the_turn_of_the_screw", "284_the_house_of_mirth",
        "521_the_life_and_adventures_of_robinson_crusoe", "580_the_pickwick_papers", "700_the_old_curiosity_shop",
        "792_wieland_or_the_transformation_an_american_tale", "864_the_master_of_ballantrae_a_winters_tale", "968_martin_chuzzlewit",
        "1155_the_secret_adversary", "1448_heidi", "1906_erewhon_or_over_the_range",
        "2226_kim", "2641_a_room_with_a_view", "2870_washington_square",
        "4045_omoo_adventures_in_the_south_seas", "5998_waverley_or_tis_sixty_years_since", "9182_villette",
)
CHAPTER_BOOKS = {
    "train": tuple(f"gutenberg_novels/{b}" for b in _NOVELS_TRAIN) + tuple(f"gutenberg_more/{b}" for b in _MORE_TRAIN),
    "heldout": (tuple(f"gutenberg_novels/{b}" for b in _NOVELS_HELDOUT)
                + tuple(f"gutenberg_more/{b}" for b in _MORE_HELDOUT)),
    "test": tuple(f"gutenberg_novels/{b}" for b in (
        "1342_pride-and-prejudice", "98_a-tale-of-two-cities", "2701_moby-dick--or-the-whale", "84_frankenstein",
        "1404_the-federalist-papers", "35_the-time-machine")),
    "test_more": tuple(f"gutenberg_more/{b}" for b in _MORE_TEST),
}
#: the 20 novels the bundled general-English language models were built from (:mod:`segviz.general_lm_recipe`):
#: the training and held-out novels of the first chapters split, none of them a test book
GENERAL_LM_BOOKS = tuple(f"gutenberg_novels/{b}" for b in (*_NOVELS_TRAIN, *_NOVELS_HELDOUT))
#: the ``chapters`` protocol's Segmenter: the natural-boundary families, the paragraph marks the raw books keep, names
#: and dialogue, the length-prior rule with chapter lengths in words, tuned for the mean P_mu over held-out books
#: (research/chapters_select.py, docs/reproduction.md "Chapters")
CHAPTERS_SEGMENTER: dict[str, Any] = {
    **NATURAL_SEGMENTER,
    # the paragraph score: boosted trees over paragraph-level measurements, cross-fitted on the training books
    # (segviz.gap_scorer; research/chapters_pool_screen.py)
    "families": ("cohesion", "tfidf", "shape", "position", "paragraphs", "paragraph-score", "names", "dialogue"),
    # 60, not 100: with the paragraph score the held-out P_mu flattens after some 35 rounds (research/
    # chapters_pool_screen.py's books), and on 127 books each late round costs minutes of IIS
    "n_features": 60,
    "stopping": "heldout",
    # in words: an author of long sentences writes fewer of them to a chapter; cross-fitted on the held-out books
    # (each decided by the rule tuned on the other four) P_k 35.6 / P_mu 80.5 % against 37.7 / 77.8 % in sentences
    "rule": NATURAL_WORD_LENGTH_PRIOR,
    # tuned for P_mu (the paper's metric, per book): tuned for P_k the rule places half the chapters there are, as
    # P_k forgives missing boundaries more than it forgives misplaced ones (docs/reproduction.md, "Chapters")
    "tuning_metric": "p_mu",
}


def read_books(data: str | Path, names: Sequence[str], label: str) -> Corpus:
    """Gutenberg books named ``<folder>/<file stem>`` under ``data``, each read raw with its headings (a chapter is
    a reference segment, its heading and the front and back matter left out of the text)."""
    paths = [_need(Path(data) / name.split("/")[0]) / f"{name.split('/')[1]}.txt" for name in names]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise SegvizError(f"{missing[0]}: missing ({len(missing)} of the {label} books absent)")
    return read_corpus(paths, kind="text", headings=True, name=f"gutenberg {label} ({len(paths)} books)")


def chapter_books(data: str | Path, role: str) -> Corpus:
    """The books of one portion of the ``chapters`` protocol (:data:`CHAPTER_BOOKS`)."""
    return read_books(data, CHAPTER_BOOKS[role], role)


def chapters_data(data: str | Path) -> ProtocolData:
    """Chapters of raw books: train on 127 Gutenberg books, tune on 21, test on two sets (6 and 21 books;
    :data:`CHAPTER_BOOKS`), book by book; each book's chapters, found from its own headings, are the reference."""
    train = chapter_books(data, "train")
    held = chapter_books(data, "heldout")
    tests = {role: chapter_books(data, role) for role in ("test", "test_more")}
    return ProtocolData("chapters", train, held, tests, "per-document", "chapters", train.sentences,
                        segmenter_defaults=dict(CHAPTERS_SEGMENTER),
                        rules=(*NATURAL_RULE_PAIR, NATURAL_WORD_LENGTH_PRIOR),
                        notes={"books": {k: list(v) for k, v in CHAPTER_BOOKS.items()},
                               "licence": "Project Gutenberg e-texts (public domain in the USA)"})


# --------------------------------------------------------------------------------------- running one

@dataclass
class ProtocolResult:
    """What a protocol run produced: the score tables per test portion and the trained models.

    ``tables`` maps a test portion's name to a :func:`segviz.evaluation.table_payload` (rows: the model, its
    held-out stop if that is an earlier round, the peers, the baselines).  ``table`` is the first of them, the
    protocol's headline.  ``to_json`` drops the models themselves.
    """

    protocol: str
    train: str
    heldout: str
    tables: dict[str, dict]
    segmenter: Segmenter
    heldout_stop: Segmenter | None
    seconds: dict[str, float]
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def table(self) -> dict:
        return next(iter(self.tables.values()))

    def to_json(self) -> dict:
        seg = self.segmenter
        return {
            "protocol": self.protocol,
            "train": self.train, "heldout": self.heldout,
            "test": self.table["corpus"],
            "table": self.table,
            "tables": self.tables,
            **self.details,
            "rule": seg.rule_.to_dict(), "mu_train": seg.mu_,
            "heldout_stop_features": None if self.heldout_stop is None else len(self.heldout_stop.features_),
            "features": [{"feature": f.description, "short": f.short, "weight": float(w)}
                         for f, w in zip(seg.features_, seg.weights_)],
            "heldout_p_mu_by_round": [h.get("heldout_p_mu") for h in seg.history_],
            "info": seg.info_,
            "seconds": self.seconds,
        }


def new_segmenter(params: Mapping[str, Any]) -> Segmenter:
    """``Segmenter(**params)`` with an unknown parameter name reported as a :class:`SegvizError`."""
    known = set(Segmenter().get_params())
    unknown = sorted(set(params) - known)
    if unknown:
        raise SegvizError(f"Segmenter has no parameter {unknown[0]!r}; its parameters are {', '.join(sorted(known))}")
    return Segmenter(**params).check_params()


def heldout_stop(seg: Segmenter, heldout: Corpus) -> Segmenter | None:
    """The model truncated at its best held-out round (re-tuned on ``heldout``), or None if that round is the
    last (then the model itself is the held-out stop)."""
    scores = [h.get("heldout_p_mu") for h in seg.history_]
    if not scores or any(x is None for x in scores):
        return None
    best = int(np.argmax(scores)) + 1
    if best == len(seg.features_):
        return None
    return seg.truncated(best, heldout=heldout)


def language_models(name: str, sentences: Callable[[], list], *, out: Path | None = None,
                    lm_path: str | Path | None = None, lm_params: Mapping[str, Any] | None = None
                    ) -> Generator[Any, None, tuple[LanguageModels, str | None]]:
    """The LMs of a protocol: the file ``lm_path`` if given, else the cache ``out/lm-NAME`` of an earlier run, else
    trained on ``sentences()`` (and cached in ``out``).  Returns the models and where they are stored.

    A cache trained with other parameters than ``lm_params`` is refused rather than silently reused."""
    lm_params = dict(lm_params or {})
    if lm_path is not None:
        return LanguageModels.load(lm_path), str(Path(lm_path).resolve())
    cache = Path(out) / f"lm-{name}" if out is not None else None
    if cache is not None and cache.exists():
        lms = LanguageModels.load(cache)
        stored = lms.get_params()
        differ = {k: v for k, v in lm_params.items() if k in stored and stored[k] != v}
        if differ:
            key, value = next(iter(differ.items()))
            raise SegvizError(f"{cache}: cached language models have {key} = {stored[key]!r}, not {value!r}; "
                              f"delete the cache or ask for the same parameters")
        # a cache trained on other text (another split) would let the LMs see tuning or test text: refuse it
        cached = lms.info_.get("train_sentences", 0) + lms.info_.get("heldout_sentences", 0)
        expected = len(sentences())
        if cached != expected:
            raise SegvizError(f"{cache}: cached language models were trained on {cached} sentences, but this "
                              f"split's language-model text has {expected}; delete the cache")
        return lms, str(cache.resolve())
    lms = LanguageModels(**lm_params)
    yield from lms.fit_iter(sentences())
    if cache is not None:
        lms.save(cache)
        return lms, str(cache.resolve())
    return lms, None


def _relabelled(work, stage: str):
    """Pass ``work``'s events through with Progress events renamed to ``stage``; return its value."""
    while True:
        try:
            event = next(work)
        except StopIteration as done:
            return done.value
        yield Progress(stage, event.done, event.total) if isinstance(event, Progress) else event


def score_test_portions(data: ProtocolData, models: Mapping[str, Any], *, peers: Sequence[str] | None = None,
                        seed: int = 0) -> Generator[Any, None, dict[str, dict]]:
    """Score ``models`` (name -> trained model or segment function), the peers and the baselines on every test
    portion of ``data``, the protocol's way (one stream, or document by document); returns the table payloads
    by test portion.  Also how a model trained elsewhere is scored on this protocol's test data."""
    tables = {}
    # "even-words" cuts every mean training segment length in words: what counting words alone achieves
    words_per_segment = data.train.n_tokens / max(1, len(data.train))
    for name, test in data.tests.items():
        comparison = yield from _relabelled(
            compare_segmenters(test, models=models, evaluation=data.evaluation, peers=peers, seed=seed,
                               words_per_segment=words_per_segment),
            f"scoring {test.name}")
        evaluation = ("stream" if data.evaluation == "stream"
                      else f"mean over {len(comparison.units)} files")
        tables[name] = table_payload(test, comparison.score_rows, evaluation=evaluation)
    return tables


def score_models(protocol: str, data: str | Path, models: Mapping[str, Any], *,
                 protocol_options: Mapping[str, Any] | None = None, peers: Sequence[str] | None = None,
                 seed: int = 0) -> Generator[Any, None, dict[str, dict]]:
    """Trained models on the test portions of ``protocol``, nothing trained: the cross-domain table's cells
    (a model trained on one protocol's data, tested on another's)."""
    if protocol not in PROTOCOLS:
        raise SegvizError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    yield Progress(f"reading {protocol}", 0, 1)
    split = PROTOCOLS[protocol](Path(data), **dict(protocol_options or {}))
    yield Progress(f"reading {protocol}", 1, 1)
    return (yield from score_test_portions(split, models, peers=peers, seed=seed))


def run_protocol(data: ProtocolData, *, segmenter_params: Mapping[str, Any] | None = None,
                 out: str | Path | None = None, lm_path: str | Path | None = None,
                 lm_params: Mapping[str, Any] | None = None, peers: Sequence[str] | None = None,
                 seed: int = 0) -> Generator[Any, None, ProtocolResult]:
    """Run one protocol end to end (module docstring); yields the engine's events, returns the result.

    ``segmenter_params`` are :class:`Segmenter` keyword arguments over the protocol's defaults.  With ``out``
    the models are saved there as ``PROTOCOL-model.segviz`` (and ``PROTOCOL-model-heldout-stop.segviz`` when the
    held-out stop is an earlier round) and trained LMs are cached as ``lm-NAME``.  ``peers`` (default: all)
    run beside the model; ``seed`` seeds the random baseline."""
    params = {**data.segmenter_defaults, **dict(segmenter_params or {})}
    seg = new_segmenter(params)
    out = Path(out) if out is not None else None
    t0 = time.perf_counter()
    lms = lm_source = None
    if "relevance" in seg.candidate_families():
        lms, lm_source = yield from language_models(data.lm_name, data.lm_sentences, out=out, lm_path=lm_path,
                                                  lm_params=lm_params)
    t1 = time.perf_counter()
    yield from seg.fit_iter(data.train, data.heldout, lms)
    t2 = time.perf_counter()
    stop = heldout_stop(seg, data.heldout)
    models, rules = {}, {}
    for name, model in (("model", seg), (f"model@{len(stop.features_)} (held-out stop)" if stop else "", stop)):
        if model is None:
            continue
        models[name] = model
        rules[name] = model.rule_.describe()
        for rule in data.rules:  # the other decision rules, each tuned on the held-out portion, side by side
            if rule.label() != seg.base_rule().label():
                tuned = model.with_tuned_rule(rule, data.heldout)
                models[f"{name}, {rule.label()}"] = model_segmenter(tuned)
                rules[f"{name}, {rule.label()}"] = tuned.rule_.describe()
    tables = yield from score_test_portions(data, models, peers=peers, seed=seed)
    t3 = time.perf_counter()
    if out is not None:
        model_file, stop_file = model_files(data.protocol)
        seg.save(out / model_file)
        if stop is not None:
            stop.save(out / stop_file)
    details = {
        "train_sentences": data.train.n_sentences, "train_words": data.train.n_tokens,
        "heldout_sentences": data.heldout.n_sentences,
        "test_sentences": sum(t.n_sentences for t in data.tests.values()),
        "segmenter_params": {k: _jsonable(v) for k, v in seg.get_params().items()},
        "language_models": lm_source,
        "row_rules": rules,   # each model row's decision rule as tuned (the tables print it beside the row)
        **data.notes,
    }
    seconds = {"language_models": round(t1 - t0, 1), "segmenter": round(t2 - t1, 1),
               "scoring": round(t3 - t2, 1), "total": round(time.perf_counter() - t0, 1)}
    return ProtocolResult(data.protocol, data.train.name, data.heldout.name, tables, seg, stop, seconds, details)


def _jsonable(value):
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return repr(value)


# ------------------------------------------------------------------------------------------ by name

PROTOCOLS: dict[str, Callable[..., ProtocolData]] = {
    "reuters": reuters_data,
    "choi": lambda data, **kw: choi_data(data, disjoint=False, **kw),
    "choi-disjoint": lambda data, **kw: choi_data(data, disjoint=True, **kw),
    "wiki": wiki_data,
    "longform": longform_data,
    "chapters": chapters_data,
}

#: the name of each protocol's language-model cache (``out/lm-NAME``), where it differs from the protocol's
LM_NAMES = {"choi-disjoint": "choi"}


def lm_cache_name(protocol: str, options: Mapping[str, Any] | None = None) -> str:
    """The name of the language-model cache (``out/lm-NAME``) of ``protocol`` read with ``options`` (one cache per
    language-model training text: wiki's titles, longform's category and split have their own)."""
    options = dict(options or {})
    if protocol == "wiki":
        return "wiki-titles" if options.get("keep_titles") else "wiki"
    if protocol == "longform":
        seed = options.get("split_seed", 0)
        return f"longform-{options.get('category', 'all')}" + (f"-split{seed}" if seed else "")
    return LM_NAMES.get(protocol, protocol)


def model_files(protocol: str) -> tuple[str, str]:
    """The names :func:`run_protocol` saves a protocol's model and its held-out-stop model under."""
    return f"{protocol}-model.segviz", f"{protocol}-model-heldout-stop.segviz"


def check_outputs(protocol: str, out: str | Path, options: Mapping[str, Any] | None = None, *,
                  lm_path: str | Path | None = None, inputs: Sequence[str | Path] = ()) -> None:
    """Every file :func:`run_protocol` may write under ``out``, checked before any work (a dangling link at the
    language-model cache used to be refused only after the models were trained): the models, and the cache
    ``lm-NAME`` unless ``lm_path`` is given.  An existing cache is read, not written, so it must be a regular
    file; ``inputs`` may not be written over."""
    out = Path(out)
    for name in model_files(protocol):
        check_output_path(out / name, inputs=inputs)
    if lm_path is None:
        cache = out / f"lm-{lm_cache_name(protocol, options)}"
        if cache.exists():
            if not cache.is_file():
                raise SegvizError(f"{cache}: is not a language-model file (the cache of an earlier run); remove it "
                                  "or give another --out")
        else:
            check_output_path(cache, inputs=inputs)


def reproduce(protocol: str, data: str | Path, *, protocol_options: Mapping[str, Any] | None = None,
              **run_params) -> Generator[Any, None, ProtocolResult]:
    """Read the corpora of ``protocol`` (a key of :data:`PROTOCOLS`) under ``data`` and run it.

    ``protocol_options`` go to the split's reader (e.g. ``category`` for ``longform``); ``run_params`` to
    :func:`run_protocol`."""
    if protocol not in PROTOCOLS:
        raise SegvizError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    new_segmenter(run_params.get("segmenter_params") or {})  # a misspelt parameter fails before any reading
    yield Progress(f"reading {protocol}", 0, 1)
    split = PROTOCOLS[protocol](Path(data), **dict(protocol_options or {}))
    yield Progress(f"reading {protocol}", 1, 1)
    return (yield from run_protocol(split, **run_params))
