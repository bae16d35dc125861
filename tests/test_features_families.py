"""The candidate families beyond the paper, each cross-checked against a slow, literal reading of its questions."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from segviz.features import FeatureContext, IntervalQuestion, Window, build_candidates, evaluate_features
from segviz.features.questions import signal_named
from segviz.peers import default_stopwords

WORDS = ["apple", "pear", "fruit", "engine", "fuel", "car", "violin", "music", "song", "the", "of", "1998"]


def _stream(seed: int, n_groups: int = 3):
    rng = np.random.default_rng(seed)
    sents, groups = [], []
    for _ in range(n_groups):
        g = int(rng.integers(3, 30))
        for _ in range(g):
            sents.append(tuple(rng.choice(WORDS, size=int(rng.integers(0, 8)))))
        groups.append(g)
    return sents, groups


def _columns_match_slow(context, questions, slow):
    """Every question's column equals the literal interval test on the slow signal values."""
    X = evaluate_features(questions, context).toarray().astype(bool)
    for j, q in enumerate(questions):
        want = [(not math.isnan(v)) and q.low < v <= q.high for v in (slow(q, b) for b in range(1, context.n_sentences))]
        assert X[:, j].tolist() == want, q.description


# ----------------------------------------------------------------------------------------------- tf-idf


def _slow_tfidf(sentences, groups, k):
    stop = default_stopwords()
    n = len(sentences)
    cos = [math.nan] * (n - 1)
    start = 0
    for m in groups:
        part = [[t for t in s if t not in stop and any(c.isalpha() for c in t)] for s in sentences[start:start + m]]
        df = Counter(t for s in part for t in set(s))
        vecs = []
        for s in part:
            v = {t: c * (math.log((1 + m) / (1 + df[t])) + 1) for t, c in Counter(s).items()}
            norm = math.sqrt(sum(x * x for x in v.values()))
            vecs.append({t: x / norm for t, x in v.items()} if norm else {})
        for j in range(1, m):
            left, right = Counter(), Counter()
            for v in vecs[max(0, j - k):j]:
                left.update(v)
            for v in vecs[j:min(m, j + k)]:
                right.update(v)
            dot = sum(left[t] * right[t] for t in left)
            norm = math.sqrt(sum(x * x for x in left.values()) * sum(x * x for x in right.values()))
            cos[start + j - 1] = dot / norm if norm else 0.0
        start += m
    return np.array(cos)


def _slow_depth(v):
    out = []
    for i in range(len(v)):
        a = i
        while a > 0 and v[a - 1] > v[a]:
            a -= 1
        b = i
        while b < len(v) - 1 and v[b + 1] > v[b]:
            b += 1
        out.append((v[a] - v[i]) + (v[b] - v[i]))
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tfidf_cohesion_matches_the_literal_definition(seed, monkeypatch):
    import segviz.features.tfidf as tfidf

    monkeypatch.setattr(tfidf, "CHUNK", 7)     # many chunks: the chunk seams must not show
    sents, groups = _stream(seed)
    ks = (1, 2, 5, 100)
    got = tfidf.tfidf_cohesion(sents, groups, ks)
    edges = np.cumsum(groups)[:-1] - 1
    for k in ks:
        slow = _slow_tfidf(sents, groups, k)
        np.testing.assert_allclose(got[k]["cosine"], slow, atol=1e-12, equal_nan=True)
        assert np.isnan(got[k]["z"][edges]).all() and np.isnan(got[k]["depth"][edges]).all()
        start = 0
        for m in groups:
            inner = slow[start:start + m - 1]
            if inner.size:
                sd = inner.std()
                z = (inner - inner.mean()) / sd if sd > 0 else np.zeros_like(inner)
                np.testing.assert_allclose(got[k]["z"][start:start + m - 1], z, atol=1e-9)
                np.testing.assert_allclose(got[k]["depth"][start:start + m - 1], _slow_depth(inner), atol=1e-12)
            start += m


def test_tfidf_cohesion_does_not_depend_on_the_windows_computed_together():
    """A model's questions ask for their windows one at a time, training computes them together: the chunk
    layout changes the last bits of the block sums, and the values (the depth compares neighbours for equality)
    must not change with it.  Blocks without content words have cosine 0."""
    import segviz.features.tfidf as tfidf

    content = [("ships", "oil", "port"), ("oil", "prices", "rose"), ("wheat", "harvest", "rain"),
               ("rain", "wheat", "crop"), ("bank", "rates", "cut"), ("rates", "bank", "loans")]
    empty = [("the", "of", "."), ("and", "to", "a"), ("1", ",", "2"), ("it", "is", "!")]
    sents = content * 40 + empty * 3 + content * 40
    lone = tfidf.tfidf_cohesion(sents, None, (2,))
    together = tfidf.tfidf_cohesion(sents, None, (2, 5, 25, 100))
    gaps = slice(len(content) * 40 + 2, len(content) * 40 + len(empty) * 3 - 1)   # both blocks empty
    assert (lone[2]["cosine"][gaps] == 0.0).all()
    for part in ("cosine", "z", "depth"):
        np.testing.assert_array_equal(lone[2][part], together[2][part])


def test_valley_depth_on_a_hand_example():
    from segviz.features.tfidf import valley_depth

    v = np.array([0.5, 0.3, 0.1, 0.4, 0.2, 0.2, 0.6])
    np.testing.assert_allclose(valley_depth(v), _slow_depth(v))
    assert valley_depth(v)[2] == pytest.approx(0.4 + 0.3)


def test_tfidf_questions_evaluate_from_the_context():
    sents, groups = _stream(4)
    context = FeatureContext(sents, groups=groups)
    X, specs = build_candidates(context, families=("tfidf",), drop_empty=False)
    assert {s.kind for s in specs} == {"tfidf"} and {s.signal for s in specs} == {"tfidf", "tfidf_z", "tfidf_depth"}
    assert {s.window.end for s in specs} == {2, 5, 10, 25, 50, 100}
    fresh = FeatureContext(sents, groups=groups)
    np.testing.assert_array_equal(evaluate_features(specs, fresh).toarray(), X.toarray())
    q = IntervalQuestion("tfidf_depth", Window("sentence", -25, 25), 0.1, math.inf)
    assert q.description == ("is the depth of the tf-idf cosine valley (previous 25 / next 25 sentences) at this "
                             "gap D > 0.1?")
    assert q.short == "Td±25 in (0.1,inf]"


# ----------------------------------------------------------------------------------------------- names

CAST = ["Anna", "Boris", "Clara", "Dmitri", "Elena", "Fyodor"]


def _prose(seed: int, n_groups: int = 3):
    rng = np.random.default_rng(seed)
    texts, groups = [], []
    for _ in range(n_groups):
        g = int(rng.integers(4, 25))
        for _ in range(g):
            who = list(rng.choice(CAST, size=int(rng.integers(0, 3)), replace=False))
            texts.append(" ".join(["Then"] + [w for name in who for w in (name, "and")] + ["the", "cat", "slept."]))
        groups.append(g)
    sentences = [tuple(t.lower().rstrip(".").split()) + (".",) for t in texts]
    return sentences, texts, groups


def test_sentence_names_reads_capitalised_non_initial_words():
    from segviz.features.names import sentence_names

    texts = ["John met Mary in Paris.", "Then they went home.", 'He said: "Come here, Mary."', "THE STORM",
             "It rained in paris.", "I saw Bob."]
    assert sentence_names(texts) == [("mary",), (), ("mary",), (), (), ("bob",)]


def test_names_are_decided_per_source_unit():
    """A word one book writes in lower case ("hope") stays a name in another book that never does, and a book's
    names do not change with the books read beside it."""
    from segviz.features.names import sentence_names, unit_names

    first = ["Then Hope came in.", "Later Hope left.", "They sat down."]
    second = ["There was no hope left.", "They went on.", "It was over."]
    assert sentence_names(first + second)[:2] == [(), ()]            # read as one text, "hope" is no name
    assert unit_names(first + second, [3, 3])[:2] == [("hope",), ("hope",)]
    assert unit_names(first + second, [3, 3])[:3] == unit_names(first, [3])


# ----------------------------------------------------------------------------------------------- novelty


def _long_prose(seed: int):
    """Three documents of a few hundred sentences over a Zipfian vocabulary and a cast of 40, so that words and
    names come back after absences of more than 100 and 300 sentences."""
    rng = np.random.default_rng(seed)
    cast = [f"Name{chr(65 + i // 26)}{chr(97 + i % 26)}" for i in range(40)]
    texts, groups = [], []
    for _ in range(3):
        g = int(rng.integers(150, 420))
        for _ in range(g):
            who = list(rng.choice(cast, size=int(rng.integers(0, 3)), replace=False))
            words = [f"w{min(int(x), 3000)}" for x in rng.zipf(1.4, size=int(rng.integers(0, 7)))]
            texts.append(" ".join(["Then"] + [w for name in who for w in (name, "and")] + words + ["the", "end."]))
        groups.append(g)
    sentences = [tuple(t.lower().rstrip(".").split()) + (".",) for t in texts]
    return sentences, texts, groups


def _slow_novelty(sentences, texts, groups):
    """The literal reading: per sentence, a direct scan of the sentences before it for each word it holds; the
    windows' shares from those counts.  Returns ``value(signal, window, b)``."""
    from segviz.features.names import unit_names

    stop = default_stopwords()
    per_kind = {"names": [set(names) for names in unit_names(texts, groups)],
                "words": [{t for t in s if t not in stop and any(c.isalpha() for c in t)} for s in sentences]}
    group = np.repeat(np.arange(len(groups)), groups)
    counts = {}

    def returning(kind, lookback):
        if (kind, lookback) not in counts:
            sets = per_kind[kind]
            out = []
            for s in range(len(sentences)):
                first = 0 if lookback is None else max(0, s - lookback)
                earlier = {w for t in range(first, s) if group[t] == group[s] for w in sets[t]}
                out.append((len(sets[s] - earlier), len(sets[s])))
            counts[kind, lookback] = out
        return counts[kind, lookback]

    def value(signal, window, b):
        if group[b - 1] != group[b]:
            return math.nan
        kind, tag = signal.split("_")[1:]
        lookback = None if tag == "new" else int(tag)
        rows = returning("words" if kind == "shift" else kind, lookback)

        def share(lo, hi, side):
            picked = [rows[s] for s in range(max(lo, 0), min(hi, len(sentences))) if group[s] == group[side]]
            total = sum(t for _, t in picked)
            return sum(r for r, _ in picked) / total if total else math.nan

        k = window.end
        if kind == "shift":
            return share(b, b + k, b) - share(b - k, b, b - 1)
        return share(b, b + k, b)

    return value


def test_novelty_questions_match_the_literal_definition():
    sentences, texts, groups = _long_prose(3)
    context = FeatureContext(sentences, texts=texts, groups=groups)
    X, specs = build_candidates(context, families=("novelty",), drop_empty=False)
    signals = {s.signal for s in specs}
    assert signals == {"novelty_words_100", "novelty_words_300", "novelty_words_new", "novelty_shift_100",
                       "novelty_shift_300", "novelty_shift_new", "novelty_names_100", "novelty_names_300"}
    # the long absences occur in this stream: a lookback of 300 finds fewer returning words than one of 100
    values = {name: context.values(signal_named(name), Window("sentence", 0, 25)) for name in
              ("novelty_words_100", "novelty_words_300", "novelty_words_new")}
    assert np.nanmean(values["novelty_words_100"]) > np.nanmean(values["novelty_words_300"]) \
        > np.nanmean(values["novelty_words_new"]) > 0
    # one window of each signal against the literal reading, at every gap (the slow reading is quadratic)
    chosen = [q for q in specs if q.window.end == 10 and math.isinf(q.low)]
    slow = _slow_novelty(sentences, texts, groups)
    _columns_match_slow(context, chosen, lambda q, b: slow(q.signal, q.window, b))
    # without raw texts (tokens only) the family proposes nothing
    assert build_candidates(FeatureContext(sentences, groups=groups), families=("novelty",))[1] == []


# ----------------------------------------------------------------------------------------------- dialogue


def test_dialogue_questions_match_the_literal_definition():
    rng = np.random.default_rng(7)
    marks = ['"', "\u201c", "``", "''", "", "", ""]
    texts = [f"{rng.choice(marks)}Words here.{rng.choice(marks)}" for _ in range(60)]
    groups = [20, 15, 25]
    sentences = [("words", "here", ".")] * 60
    context = FeatureContext(sentences, texts=texts, groups=groups)
    quoting = [any(m in t for m in ('"', "\u201c", "``", "''")) for t in texts]
    group = np.repeat(np.arange(3), groups)

    def share(lo, hi, side_group):
        idx = [s for s in range(max(lo, 0), min(hi, 60)) if group[s] == side_group]
        return np.mean([quoting[s] for s in idx]) if idx else math.nan

    def slow(q, b):
        if group[b - 1] != group[b]:
            return math.nan
        if q.signal == "quote_shift":
            k = q.window.end
            return share(b, b + k, group[b]) - share(b - k, b, group[b])
        return share(b + q.window.start, b + q.window.end, group[b])

    X, specs = build_candidates(context, families=("dialogue",), drop_empty=False)
    assert {s.signal for s in specs} == {"quotes", "quote_shift"}
    _columns_match_slow(context, specs, slow)


# ----------------------------------------------------------------------------------------------- paragraphs


def test_paragraph_questions_from_marks_given_to_the_context():
    sentences = [(f"w{i}", ".") for i in range(7)]
    context = FeatureContext(sentences, groups=[4, 3], paragraph_starts=[1, 0, 1, 0, 1, np.nan, 0])
    X, specs = build_candidates(context, families=("paragraphs",), drop_empty=False)
    # gap 4 lies between the groups, gap 5 opens a sentence whose mark is unknown: neither answers
    np.testing.assert_array_equal(X.toarray(), [[0, 1], [1, 0], [0, 1], [0, 0], [0, 0], [0, 1]])
    assert build_candidates(FeatureContext(sentences), families=("paragraphs",))[1] == []


def test_paragraph_questions_read_the_marks_and_drop_marks_that_restate_the_reference():
    from segviz.corpus import Corpus, Document

    if "paragraph_starts" not in getattr(Document, "__dataclass_fields__", {}):
        pytest.skip("this version's readers record no paragraph starts")

    def doc(name, n, marks):
        sents = tuple((f"w{i}", ".") for i in range(n))
        return Document(name=name, sentences=sents, texts=tuple(" ".join(s) for s in sents), paragraph_starts=marks)

    docs = [doc("a", 4, (True, False, True, False)), doc("b", 3, (True, True, False))]
    corpus = Corpus(docs, name="c", files=["f1", "f1"])
    context = FeatureContext.from_corpus(corpus)
    np.testing.assert_array_equal(context.paragraph_starts, [1, 0, 1, 0, 1, 1, 0])
    X, specs = build_candidates(context, families=("paragraphs",), drop_empty=False)
    assert [s.description for s in specs] == ["does a paragraph start at this gap?",
                                              "does the gap fall inside a paragraph?"]
    np.testing.assert_array_equal(X.toarray(), [[0, 1], [1, 0], [0, 1], [1, 0], [1, 0], [0, 1]])
    # marks only where the documents start: they restate the reference, so they are dropped
    only_edges = Corpus([doc("a", 4, (True, False, False, False)), doc("b", 3, (True, False, False))], name="c")
    assert FeatureContext.from_corpus(only_edges).paragraph_starts is None
    assert build_candidates(FeatureContext.from_corpus(only_edges), families=("paragraphs",))[1] == []
    # a model asking about paragraphs answers "no" on text without them
    plain = FeatureContext([("a",), ("b",), ("c",)])
    assert evaluate_features(specs, plain).nnz == 0
    # a file edge is not a paragraph mark the text gives
    two_files = FeatureContext.from_corpus(Corpus(docs, name="c", files=["f1", "f2"]))
    assert evaluate_features(specs, two_files).toarray()[3].tolist() == [0, 0]


# ----------------------------------------------------------------------------------------------- shape


def test_sentence_shape_on_hand_examples():
    from segviz.features.shape import sentence_shape

    shape = sentence_shape(["Early life", "He was born in 1967.", "CHAPTER IV", '"Go home," she said.',
                            "Total 1,200 3.5 tons", "1998", "It ends with a quote''"])
    assert shape["length"].tolist() == [2, 5, 2, 4, 4, 1, 5]
    assert shape["heading"].tolist() == [1, 0, 1, 0, 1, 0, 0]    # "1998" has no letter
    assert shape["numerals"].tolist() == pytest.approx([0, 0.2, 0, 0, 0.5, 1.0, 0])


def test_shape_questions_match_the_literal_definition():
    from segviz.features.shape import sentence_shape

    rng = np.random.default_rng(3)
    pieces = ["Results", "The 3 cats slept.", "Part 2", "A long sentence with many words in it, truly.", "1,000"]
    texts = [str(rng.choice(pieces)) for _ in range(30)]
    groups = [12, 18]
    sentences = [tuple(t.lower().split()) for t in texts]
    context = FeatureContext(sentences, texts=texts, groups=groups)
    per = sentence_shape(texts)
    group = np.repeat(np.arange(2), groups)

    def slow(q, b):
        if group[b - 1] != group[b]:
            return math.nan
        return per[q.signal][b - 1 if q.window.end <= 0 else b]

    X, specs = build_candidates(context, families=("shape",), drop_empty=False)
    assert {s.signal for s in specs} == {"length", "heading", "numerals"}
    _columns_match_slow(context, specs, slow)
    assert "look like a heading" in specs[[s.signal for s in specs].index("heading")].description


# ----------------------------------------------------------------------------------------------- transitions


def test_transition_counts_on_hand_examples():
    from segviz.features.transitions import OPENING_WORDS, transition_counts

    late = " ".join(["word"] * OPENING_WORDS) + " morning"        # a time word past the opening does not count
    counts = transition_counts(["The next morning, Emma woke early.", "She went home and slept.", late,
                                "To-morrow, said he; Good-bye!", "Nothing of the sort."])
    assert counts["time_opening"].tolist() == [3, 0, 0, 1, 0]     # next, morning, early; to-morrow
    assert counts["leaving"].tolist() == [0, 3, 0, 1, 0]          # went, home, slept; good-bye


def test_transition_questions_match_the_literal_definition():
    from segviz.features.transitions import transition_counts

    rng = np.random.default_rng(11)
    pieces = ["The next day it rained.", "He went home to bed.", "Nothing happened.", "Days later, she left.",
              "A plain sentence with words."]
    texts = [str(rng.choice(pieces)) for _ in range(40)]
    groups = [15, 25]
    sentences = [tuple(t.lower().split()) for t in texts]
    context = FeatureContext(sentences, texts=texts, groups=groups)
    per = transition_counts(texts)
    group = np.repeat(np.arange(2), groups)

    def slow(q, b):
        if group[b - 1] != group[b]:
            return math.nan
        idx = [s for s in range(b + q.window.start, b + q.window.end)
               if 0 <= s < 40 and group[s] == group[b - 1 if q.window.end <= 0 else b]]
        return np.mean([per[q.signal][s] for s in idx]) if idx else math.nan

    X, specs = build_candidates(context, families=("transitions",), drop_empty=False)
    assert {s.signal for s in specs} == {"time_opening", "leaving"}
    _columns_match_slow(context, specs, slow)


# ----------------------------------------------------------------------------------------------- position


def test_position_questions_match_the_literal_definition():
    groups = [7, 30, 100]
    sentences = [("w",)] * sum(groups)
    context = FeatureContext(sentences, groups=groups)
    starts = np.concatenate([[0], np.cumsum(groups)[:-1]])
    group = np.repeat(np.arange(3), groups)

    def slow(q, b):
        g = group[b]
        if group[b - 1] != g:
            return math.nan
        before, after = b - starts[g], starts[g] + groups[g] - b
        return {"from_start": before, "to_end": after, "relative_position": before / groups[g]}[q.signal]

    X, specs = build_candidates(context, families=("position",), drop_empty=False)
    assert {s.signal for s in specs} == {"from_start", "to_end", "relative_position"}
    _columns_match_slow(context, specs, slow)
    edges = np.cumsum(groups)[:-1] - 1
    assert X.toarray()[edges].sum() == 0       # the gap between two files is never answered


# ----------------------------------------------------------------------------------------------- relevance horizons


def test_relevance_over_longer_horizons_matches_the_literal_definition():
    rng = np.random.default_rng(8)
    sentences = [("w",)] * 40
    relevance = rng.normal(0, 0.5, size=40)
    context = FeatureContext(sentences, relevance=relevance)

    def slow(q, b):
        idx = [s for s in range(b + q.window.start, b + q.window.end) if 0 <= s < 40]
        return float(np.mean(relevance[idx])) if idx else math.nan

    X, specs = build_candidates(context, families=("relevance_horizons",), drop_empty=False)
    assert {(s.window.start, s.window.end) for s in specs} == {(0, 5), (0, 10), (-5, 0), (-10, 0)}
    assert {s.kind for s in specs} == {"relevance"} and all(s.needs == {"relevance"} for s in specs)
    _columns_match_slow(context, specs, slow)
    assert "the mean relevance of the previous 10 sentences" in specs[-1].description
    assert build_candidates(FeatureContext(sentences), families=("relevance_horizons",))[1] == []


def test_every_family_is_registered_described_and_reloadable():
    from segviz.features import FAMILIES, FeatureSpec

    sentences, texts, groups = _prose(5)
    context = FeatureContext(sentences, texts=texts, groups=groups, relevance=np.linspace(-1, 1, len(sentences)),
                             paragraph_starts=np.arange(len(sentences)) % 3 == 0,
                             gap_score=np.linspace(0, 1, len(sentences) - 1))   # a learned score, given
    for name, family in FAMILIES.items():
        assert family.summary, name
        X, specs = build_candidates(context, families=(name,), vocabulary=5, drop_empty=False)
        assert specs, name
        assert len({s.description for s in specs}) == len(specs), name       # every question reads differently
        back = [FeatureSpec.from_dict(s.to_dict()) for s in specs]
        assert back == specs, name
        np.testing.assert_array_equal(evaluate_features(back, context).toarray(), X.toarray())
