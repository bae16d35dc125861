"""The learned paragraph score: measurements per source unit, cross-fitted training scores, one model file."""
from __future__ import annotations

import numpy as np
import pytest

from segviz import Segmenter, load_model
from segviz.documents import Corpus, Document
from segviz.errors import SegvizError
from segviz.events import run_to_end
from segviz.features import FeatureContext
from segviz.features.paragraph_cues import CUES_MEMO, cue_matrix
from segviz.features.paragraph_measures import (
    MEASUREMENTS,
    MEASUREMENTS_MEMO,
    paragraph_measurements,
    paragraph_start_gaps,
)
from segviz.features.score_context import (
    CONTEXT_SPANS,
    CONTEXT_THRESHOLDS,
    SCORE_CONTEXT,
    score_context,
    unit_word_offsets,
)
from segviz.gap_scorer import GapScorer
from segviz.segmentation import masses_to_indicator

pytest.importorskip("sklearn.ensemble", reason="scikit-learn fits the trees")


def _book(rng, name: str, chapters: int) -> list[Document]:
    """A book of chapters of paragraphs: each chapter opens with a short time-word paragraph about a new topic
    and a quoted exchange follows, so the paragraph-level measurements carry a (noisy) signal."""
    docs = []
    for c in range(chapters):
        topic = [f"{name}t{c}w{i}" for i in range(12)]
        sentences, starts = [], []
        for p in range(int(rng.integers(4, 9))):
            for s in range(1 if p == 0 else int(rng.integers(1, 5))):
                words = list(rng.choice(topic, size=6)) + ["the", "end"]
                if p == 0:
                    words = ["morning", "came", *words]
                text = " ".join(words).capitalize() + "."
                if p > 0 and rng.random() < 0.4:
                    text = f'"{text}" she said.'
                sentences.append(text)
                starts.append(s == 0)
        docs.append(Document(f"{name}#{c}", tuple(tuple(t.lower().replace('"', "").rstrip(".").split())
                                                  for t in sentences), tuple(sentences), tuple(starts)))
    return docs


def _corpus(seed: int, books: int, chapters: int = 6) -> Corpus:
    rng = np.random.default_rng(seed)
    docs, files = [], []
    for b in range(books):
        book = _book(rng, f"b{seed}x{b}", chapters)
        docs += book
        files += [f"book{seed}-{b}.txt"] * len(book)
    return Corpus(docs, name=f"books {seed}", files=files)


def test_measurements_of_a_book_do_not_depend_on_the_books_beside_it():
    together = _corpus(0, 3)
    alone = Corpus(list(together.documents[6:12]), name="one", files=list(together.files[6:12]))
    both, one = FeatureContext.from_corpus(together), FeatureContext.from_corpus(alone)
    n_first = sum(len(d) for d in together.documents[:6])
    rows = paragraph_measurements(both)[n_first:n_first + one.n_events]
    np.testing.assert_array_equal(np.isnan(rows), np.isnan(paragraph_measurements(one)))
    np.testing.assert_allclose(rows[~np.isnan(rows)], paragraph_measurements(one)[~np.isnan(rows)])
    assert paragraph_measurements(both).shape == (both.n_events, len(MEASUREMENTS))
    # between two books there is no row: the edge is not a paragraph start the text gives
    assert not paragraph_start_gaps(both)[n_first - 1]


@pytest.mark.slow
def test_training_scores_are_cross_fitted():
    """A book's first-look training score comes from trees that never saw it: changing its own labels leaves it
    alone.  (The second look's trees never see the book either, but the first scores they learn from on the other
    books come from trees that did, as in any stacking: that path is indirect and is not what this checks.)"""
    corpus = _corpus(1, 6)
    context = FeatureContext.from_corpus(corpus)
    y = masses_to_indicator(corpus.masses())
    first = list(GapScorer(max_iter=20, folds=3, score_context=False).fit_iter(context, y))
    scorer = GapScorer(max_iter=20, folds=3, score_context=False)
    scores = run_to_end(scorer.fit_iter(context, y))
    flipped = y.copy()
    n_first = sum(len(d) for d in corpus.documents[:6])
    at = paragraph_start_gaps(context)
    flipped[:n_first - 1] = at[:n_first - 1] & ~y[:n_first - 1]       # book 0's labels turned upside down
    again = run_to_end(GapScorer(max_iter=20, folds=3, score_context=False).fit_iter(context, flipped))
    np.testing.assert_array_equal(scores[:n_first - 1], again[:n_first - 1])
    assert not np.array_equal(scores[n_first:], again[n_first:])
    assert first and np.isnan(scores[~at]).all() and (scores[at] >= 0).all()
    # the trees of every book score new text
    assert np.isfinite(scorer.scores(context)[at]).all()


@pytest.mark.slow
def test_the_measurements_are_given_back_once_the_score_is_set(monkeypatch):
    """The measurements and cue terms are cached only while the score is made: induction asks about the score, and
    on 127 books they would hold some 0.6 GB while the candidate matrix is built."""
    corpus = _corpus(1, 6)
    context = FeatureContext.from_corpus(corpus)
    scorer = GapScorer(max_iter=20, folds=3)
    run_to_end(scorer.fit_iter(context, masses_to_indicator(corpus.masses())))
    scores = scorer.scores(context)
    assert context.is_cached(MEASUREMENTS_MEMO) and context.is_cached(CUES_MEMO)
    scorer.release(context)
    assert not context.is_cached(MEASUREMENTS_MEMO) and not context.is_cached(CUES_MEMO)
    np.testing.assert_array_equal(scorer.scores(context), scores)   # made again when asked again
    # a segmenter gives them back on its training and held-out contexts, and on a context it applies to
    released = []
    release = GapScorer.release
    monkeypatch.setattr(GapScorer, "release", staticmethod(lambda c: (released.append(c), release(c))))
    seg = Segmenter(families=("paragraphs", "paragraph-score"), n_features=2).fit(_corpus(3, 6), _corpus(4, 2))
    seg.predict_proba(_corpus(5, 2))
    assert len(released) >= 3   # training, held-out (and held-out again as the rule is tuned), applied
    assert not any(c.is_cached(MEASUREMENTS_MEMO) or c.is_cached(CUES_MEMO) for c in released)


def test_too_few_books_are_refused_and_a_segmenter_then_does_not_ask():
    corpus = _corpus(2, 2)
    context = FeatureContext.from_corpus(corpus)
    with pytest.raises(SegvizError, match="at least 4 source units"):
        run_to_end(GapScorer().fit_iter(context, masses_to_indicator(corpus.masses())))
    seg = Segmenter(families=("paragraphs", "paragraph-score"), n_features=2).fit(corpus)
    assert "paragraph-score" not in seg.info_["families"] and seg.scorer_ is None


@pytest.mark.slow
def test_a_segmenter_with_the_score_saves_and_loads_as_one_file(tmp_path):
    train, held = _corpus(3, 6), _corpus(4, 2)
    seg = Segmenter(families=("paragraphs", "paragraph-score"), n_features=4, l2=1.0).fit(train, held)
    assert any(f.kind == "paragraph-score" for f in seg.features_)
    path = seg.save(tmp_path / "m.segviz")
    loaded = load_model(path)
    np.testing.assert_allclose(loaded.predict_proba(held), seg.predict_proba(held), rtol=0, atol=1e-12)
    assert loaded.predict(held) == seg.predict(held)


@pytest.mark.slow
def test_a_model_whose_scorer_is_from_another_model_is_refused(tmp_path):
    import zipfile

    train, held = _corpus(5, 6), _corpus(6, 2)
    one = Segmenter(families=("paragraphs", "paragraph-score"), n_features=3).fit(train, held).save(tmp_path / "a")
    other = Segmenter(families=("paragraphs", "paragraph-score"), n_features=3,
                      l2=5.0).fit(_corpus(7, 6), held).save(tmp_path / "b")
    # a file made of the first model's segmenter and the second's scorer, its index re-computed so that only the
    # segmenter's own record of its scorer can tell
    from segviz.bundle import read_bundle, write_bundle

    a, b = read_bundle(one), read_bundle(other)
    documents = {**a.documents, **{k: v for k, v in b.documents.items() if k.startswith("scorer")}}
    arrays = {**a.arrays, **{k: v for k, v in b.arrays.items() if k.startswith("scorer/")}}
    mixed = write_bundle(tmp_path / "mixed.segviz", "segmenter", documents, arrays)
    assert zipfile.is_zipfile(mixed)
    with pytest.raises(SegvizError, match="paragraph scorer does not match"):
        load_model(mixed)


def test_the_score_questions_answer_score_above_t_inside_a_unit():
    from segviz.features import build_candidates

    sentences = [("w",)] * 7
    score = np.array([0.0, 0.02, 0.5, np.nan, 0.95, 0.3])
    context = FeatureContext(sentences, groups=[4, 3], gap_score=score)
    X, specs = build_candidates(context, families=("paragraph-score",), drop_empty=False)
    for j, spec in enumerate(specs):
        want = np.nan_to_num(score, nan=-1.0) > spec.low
        want[3] = False                                   # the gap between the two units
        np.testing.assert_array_equal(X.toarray()[:, j].astype(bool), want, err_msg=spec.description)
    # without a score the family asks nothing
    assert build_candidates(FeatureContext(sentences), families=("paragraph-score",))[1] == []
    with pytest.raises(SegvizError, match="in \\[0, 1\\]"):
        FeatureContext(sentences, gap_score=np.full(6, 2.0))


def test_cue_terms_read_the_words_around_the_gap_in_lower_case_and_stop_at_a_unit_edge():
    from segviz.features.paragraph_cues import CUE_HASH_SIZE, cue_matrix, cue_terms

    terms = cue_terms(["The", "next", "morning"], ["good", "night"])
    assert {"o:The", "o@0:The", "o2:next_morning", "c@0:night", "c@1:good", "c2:good_night"} <= set(terms)
    sentences = [("She", "slept"), ("Good", "night"), ("The", "next", "morning"), ("It", "rained"),
                 ("Far", "away"), ("A", "ship")]
    # two units of three sentences; paragraphs start at sentences 2 and 4 (the start of unit two is no gap)
    context = FeatureContext(sentences, groups=[3, 3], paragraph_starts=np.array([1, 0, 1, 1, 1, 0], float))
    matrix = cue_matrix(context)
    assert matrix.shape == (2, CUE_HASH_SIZE) and set(np.unique(matrix.data)) == {1.0}
    from sklearn.feature_extraction import FeatureHasher

    hashed = FeatureHasher(n_features=CUE_HASH_SIZE, input_type="string", alternate_sign=False)
    first = hashed.transform([cue_terms(["the", "next", "morning"], ["she", "slept", "good", "night"])]).toarray()
    np.testing.assert_array_equal(matrix[0].toarray() > 0, first > 0)
    # at sentence 4, the opening is unit two's own ("far away", "a ship") and the closing never reaches unit one
    second = hashed.transform([cue_terms(["far", "away", "a", "ship"], ["it", "rained"])]).toarray()
    np.testing.assert_array_equal(matrix[1].toarray() > 0, second > 0)


def test_a_scorer_with_damaged_cue_weights_is_refused(tmp_path):
    from segviz.bundle import read_bundle, write_bundle

    train, held = _corpus(8, 6), _corpus(9, 2)
    path = Segmenter(families=("paragraphs", "paragraph-score"), n_features=3).fit(train, held).save(tmp_path / "a")
    bundle = read_bundle(path)
    for damaged, message in ((np.zeros(7, np.float32), "cue weights"),
                             (np.full(bundle.arrays["scorer/cue_weights"].shape, np.inf), "cue weights")):
        arrays = {**bundle.arrays, "scorer/cue_weights": damaged}
        bad = read_bundle(write_bundle(tmp_path / "bad.segviz", "segmenter", dict(bundle.documents), arrays))
        with pytest.raises(SegvizError, match=message):   # the scorer's own check, below the file's checksums
            GapScorer.from_bundle(bad, "scorer", source="bad.segviz")
    assert GapScorer.from_bundle(bundle, "scorer", source="a").cue_weights_.dtype == np.float32


def _brute_context(offsets, gaps, scores, units):
    """SCORE_CONTEXT's columns by their definitions, one paragraph start at a time."""
    rows = []
    for i, g in enumerate(gaps):
        mine = [j for j in range(len(gaps)) if units[j] == units[i]]
        x = {j: offsets[gaps[j] + 1] for j in mine}
        row = []
        for t in CONTEXT_THRESHOLDS:
            before = [x[i] - x[j] for j in mine if j < i and scores[j] > t]
            after = [x[j] - x[i] for j in mine if j > i and scores[j] > t]
            row += [np.log1p(min(before)) if before else np.nan, np.log1p(min(after)) if after else np.nan]
        for w in CONTEXT_SPANS:
            near = [j for j in mine if abs(x[j] - x[i]) <= w]
            row += [scores[i] - max(scores[j] for j in near), sum(scores[j] > scores[i] for j in near)]
        rows.append(row + [scores[i]])
    return np.array(rows)


def test_the_second_look_reads_each_start_among_its_own_books_neighbours():
    corpus = _corpus(11, 3, chapters=12)
    context = FeatureContext.from_corpus(corpus)
    gaps = np.flatnonzero(paragraph_start_gaps(context))
    rng = np.random.default_rng(0)
    scores = rng.choice([0.1, 0.35, 0.6, 0.8, 0.95], size=gaps.size)
    columns = score_context(context, gaps, scores)
    assert columns.shape == (gaps.size, len(SCORE_CONTEXT))
    offsets = unit_word_offsets(context)
    units = context.group_of_sentence()[gaps + 1]
    expected = _brute_context(offsets, gaps, scores, units)
    np.testing.assert_array_equal(np.isnan(columns), np.isnan(expected))
    np.testing.assert_allclose(columns[~np.isnan(columns)], expected[~np.isnan(expected)])
    # word offsets restart at each book, and a book's columns are those it has read alone
    starts = np.cumsum([0, *context.groups[:-1]])
    assert (offsets[starts] == 0).all() and np.isnan(columns[:, 0]).any()
    book = units == 1
    alone = Corpus([d for d, f in zip(corpus.documents, corpus.files) if f == "book11-1.txt"], name="one",
                   files=[f for f in corpus.files if f == "book11-1.txt"])
    one = FeatureContext.from_corpus(alone)
    np.testing.assert_allclose(score_context(one, gaps[book] - starts[1], scores[book]), columns[book])


def test_a_scorer_without_its_second_trees_is_refused_and_one_without_the_second_look_loads(tmp_path):
    from segviz.bundle import read_bundle, write_bundle

    corpus = _corpus(12, 5)
    context = FeatureContext.from_corpus(corpus)
    y = masses_to_indicator(corpus.masses())
    looked = GapScorer(max_iter=10, folds=2)
    run_to_end(looked.fit_iter(context, y))
    plain = GapScorer(max_iter=10, folds=2, score_context=False)
    run_to_end(plain.fit_iter(context, y))
    assert looked.context_trees_ is not None and plain.context_trees_ is None
    at = paragraph_start_gaps(context)
    # the second trees read the first trees' columns and where the first score stands among its neighbours
    first_columns = np.c_[paragraph_measurements(context)[at],
                          cue_matrix(context) @ looked.cue_weights_.astype(np.float64) + looked.cue_bias_]
    first = looked.trees_.predict_proba(first_columns)
    np.testing.assert_allclose(plain.scores(context)[at], plain.trees_.predict_proba(first_columns))
    expected = looked.context_trees_.predict_proba(np.c_[first_columns, score_context(context, np.flatnonzero(at),
                                                                                      first)])
    np.testing.assert_allclose(looked.scores(context)[at], expected, rtol=0, atol=1e-12)
    assert looked.context_trees_.n_features == len(MEASUREMENTS) + 1 + len(SCORE_CONTEXT)
    for scorer, name in ((looked, "looked"), (plain, "plain")):
        documents, arrays = scorer.bundle_parts("scorer")
        bundle = read_bundle(write_bundle(tmp_path / f"{name}.segviz", "segmenter", documents, arrays))
        again = GapScorer.from_bundle(bundle, "scorer", source=name)
        np.testing.assert_allclose(again.scores(context)[at], scorer.scores(context)[at], rtol=0, atol=1e-12)
    documents, arrays = looked.bundle_parts("scorer")
    stripped = {k: v for k, v in arrays.items() if not k.startswith("scorer/context/")}
    bundle = read_bundle(write_bundle(tmp_path / "stripped.segviz", "segmenter", documents, stripped))
    with pytest.raises(SegvizError, match="no second trees"):
        GapScorer.from_bundle(bundle, "scorer", source="stripped")
    documents, arrays = plain.bundle_parts("scorer")
    documents["scorer"]["params"]["score_context"] = "yes"
    bundle = read_bundle(write_bundle(tmp_path / "bad.segviz", "segmenter", documents, arrays))
    with pytest.raises(SegvizError, match="score_context must be true or false"):
        GapScorer.from_bundle(bundle, "scorer", source="bad")
