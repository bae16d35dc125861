"""Relevance (Section 3.3): per sentence = mean log(p_exp / p_tri) over its tokens; the paper's profile."""
from __future__ import annotations

import numpy as np
import pytest

from segviz.corpus import Corpus, Document
from segviz.errors import SegvizError
from segviz.relevance import relevance_profile, sentence_relevance, word_relevance
from tests.test_lm_models import sentences


@pytest.fixture(scope="module")
def lms():
    from segviz.lm import LanguageModels

    return LanguageModels(vocab_size=40, window=20, n_triggers=200, trigger_vocab=30, max_iter=3,
                          heldout_fraction=0.1).fit(sentences())


def test_sentence_relevance_is_mean_word_relevance(lms):
    test = sentences(seed=3, n=60) + [[]]
    rel = sentence_relevance(lms, test)
    assert rel.shape == (len(test),) and rel.dtype == np.float64
    lp_exp, lp_tri, stream = lms.score(test)
    for i in range(len(test)):
        m = stream.sentence == i
        assert m.sum() == len(test[i]) + 1  # words and </s>
        assert rel[i] == pytest.approx(np.mean(lp_exp[m] - lp_tri[m]))
    r, sent = word_relevance(lms, test)
    assert np.allclose(r, lp_exp - lp_tri) and np.array_equal(sent, stream.sentence)


def test_cache_crosses_sentence_and_document_boundaries(lms):
    test = sentences(seed=4, n=40)
    alone = sentence_relevance(lms, test[20:])
    in_stream = sentence_relevance(lms, test)[20:]
    assert not np.allclose(alone[:3], in_stream[:3])  # the history of the earlier text matters


def test_relevance_dips_after_topic_change(lms):
    test = sentences(seed=5, n=400)
    docs = [Document(f"d{i}", tuple(tuple(s) for s in test[i:i + 10]), tuple(" ".join(s) for s in test[i:i + 10]))
            for i in range(0, len(test), 10)]
    corpus = Corpus(docs, name="synthetic")
    prof = relevance_profile(lms, corpus, before=3, after=5)
    assert prof["offsets"] == list(range(-3, 5))
    mean = dict(zip(prof["offsets"], prof["mean"]))
    assert mean[0] < mean[-1] and mean[0] < mean[4]


def test_profile_counts_brute_force(lms):
    masses = [3, 1, 4, 2]
    docs, k = [], 0
    for i, m in enumerate(masses):
        sents = tuple(("the", f"a{(k + j) % 5}") for j in range(m))
        docs.append(Document(f"d{i}", sents, tuple(" ".join(s) for s in sents)))
        k += m
    corpus = Corpus(docs, name="tiny")
    rel = np.arange(10, dtype=float)
    prof = relevance_profile(lms, corpus, before=2, after=3, relevance=rel)
    starts = np.cumsum([0] + masses[:-1])
    sums = {o: [] for o in range(-2, 3)}
    for d, (s0, m) in enumerate(zip(starts, masses)):
        for j in range(m):
            if d > 0 and j < 3:
                sums[j].append(rel[s0 + j])
            if d < len(masses) - 1 and j - m >= -2:
                sums[j - m].append(rel[s0 + j])
    assert prof["count"] == [len(sums[o]) for o in range(-2, 3)]
    assert prof["mean"] == [pytest.approx(np.mean(sums[o])) for o in range(-2, 3)]
    with pytest.raises(SegvizError, match="shape"):
        relevance_profile(lms, corpus, relevance=np.zeros(3))
    with pytest.raises(SegvizError, match="LanguageModels"):
        sentence_relevance(object(), [["a"]])


@pytest.mark.slow
def test_relevance_in_chunks_is_the_whole_stream_relevance():
    """Scored a chunk at a time, each chunk after the sentences that fill the trigger cache, relevance is the whole
    stream's (to rounding): what the app's background job shows at 10^6 sentences without the stream's arrays."""
    from segviz import read_corpus
    from segviz.general_lm import general_language_models
    from segviz.paths import bundled
    from segviz.relevance import cache_prefix, sentence_relevance, sentence_relevance_chunks

    lms = general_language_models()
    sentences = read_corpus(bundled("sample_corpora", "reuters_sample.sgm")).sentences()[:900]
    whole = sentence_relevance(lms, sentences)
    for chunk in (1, 97, 400, 900, 5000):
        parts = list(sentence_relevance_chunks(lms, sentences, chunk=chunk))
        assert [start for start, _ in parts] == list(range(0, len(sentences), chunk))
        np.testing.assert_allclose(np.concatenate([v for _, v in parts]), whole, rtol=0, atol=1e-12)
    # the prefix holds the cache window's words, and no sentence more
    window = lms.trigger_.window
    first = cache_prefix(sentences, 600, window)
    assert sum(len(s) for s in sentences[first:600]) >= window > sum(len(s) for s in sentences[first + 1:600])
    assert cache_prefix(sentences, 3, 10 ** 9) == 0


def test_relevance_on_two_cores_is_the_one_process_relevance(monkeypatch):
    """The engine scores the second half of the chunks in a forked worker: the same values, progress in sentences
    up to the whole stream, and a worker that sends nothing (it died) costs only the time: its chunks are scored
    here."""
    from segviz import read_corpus
    from segviz.events import Progress
    from segviz.general_lm import general_language_models
    from segviz.paths import bundled
    from segviz.service import tasks
    from tests.drive import events_and_value

    lms = general_language_models()
    sentences = read_corpus(bundled("sample_corpora", "reuters_sample.sgm")).sentences()
    whole = sentence_relevance(lms, sentences)
    events, two = events_and_value(tasks.relevance_in_chunks(lms, sentences, "relevance", n_jobs=2, chunk=300))
    np.testing.assert_allclose(two, whole, rtol=0, atol=1e-12)
    done = [e.done for e in events if isinstance(e, Progress)]
    assert done == sorted(done) and done[-1] == len(sentences)

    class Mute(tasks.ForkedWorker):
        def __init__(self, work):
            super().__init__(lambda send: None)

    monkeypatch.setattr(tasks, "ForkedWorker", Mute)
    _, again = events_and_value(tasks.relevance_in_chunks(lms, sentences, "relevance", n_jobs=2, chunk=300))
    np.testing.assert_allclose(again, whole, rtol=0, atol=1e-12)
