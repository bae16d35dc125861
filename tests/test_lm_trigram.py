"""Katz trigram: exact normalisation by brute force, Good-Turing, starved contexts, ARPA (own reader and kenlm)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from segviz.errors import SegvizError
from segviz.lm.trigram import BOS_ID, EOS_ID, UNK_ID, TrigramLM, encode_stream, good_turing_discounts


def random_sentences(seed=0, n=300, types=30, max_len=12):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(types)]
    return [[words[j] for j in rng.zipf(1.5, size=rng.integers(1, max_len)) % types] for _ in range(n)]


def all_histories(lm):
    """Every (h2, h1) history the model can meet: (<s>,<s>), (<s>, w) and (u, w) for predictable ids."""
    ids = [i for i in range(lm.n_ids) if i != BOS_ID]
    yield BOS_ID, BOS_ID
    for b in ids:
        yield BOS_ID, b
        for a in ids:
            yield a, b


@pytest.mark.parametrize("vocab", [4, 10, 40])
def test_probabilities_sum_to_one_for_every_history(vocab):
    lm = TrigramLM(vocab_size=vocab).fit(random_sentences())
    for h2, h1 in all_histories(lm):
        p = lm.prob_vector_ids(h2, h1)
        assert p[BOS_ID] == 0.0
        assert np.all(p[np.arange(lm.n_ids) != BOS_ID] > 0), (h2, h1)
        assert abs(p.sum() - 1.0) < 1e-12, (h2, h1, p.sum())


def test_context_with_no_leftover_mass_is_handled():
    # "(<s>, a) -> b" seen 10 times and nothing else: Good-Turing leaves zero mass for other words there.
    sents = [["a", "b"]] * 10 + [["c", "d", "a", "c"]] + [["d"]] * 3
    lm = TrigramLM(vocab_size=10).fit(sents)
    p = lm.prob_vector(["<s>", "a"])
    a, b, c = (lm.word_index_[x] for x in "abc")
    assert abs(p.sum() - 1) < 1e-12
    # Witten-Bell reservation: c(h, b) / (c(h) + T(h)) = 10 / 11
    assert p[b] == pytest.approx(10 / 11)
    assert p[c] > 0 and p[UNK_ID] > 0


def test_good_turing_discounts_match_katz_formula():
    counts = np.array([1] * 50 + [2] * 20 + [3] * 10 + [4] * 6 + [5] * 4 + [6] * 3 + [9] * 5)
    d = good_turing_discounts(counts, 5)
    n = {1: 50, 2: 20, 3: 10, 4: 6, 5: 4, 6: 3}
    common = 6 * n[6] / n[1]
    for r in range(1, 6):
        rstar = (r + 1) * n[r + 1] / n[r]
        assert d[r] == pytest.approx((rstar / r - common) / (1 - common))
    # degenerate counts of counts fall back to absolute discounting, still in (0, 1)
    d = good_turing_discounts(np.array([1, 1, 2, 7]), 5)
    assert np.all((d[1:] > 0) & (d[1:] < 1))


def test_encode_stream_layout():
    st = encode_stream([["a", "b"], [], ["c"]], {"<unk>": 0, "<s>": 1, "</s>": 2, "a": 3, "b": 4})
    assert st.w.tolist() == [3, 4, EOS_ID, EOS_ID, UNK_ID, EOS_ID]
    assert st.h1.tolist() == [BOS_ID, 3, 4, BOS_ID, BOS_ID, UNK_ID]
    assert st.h2.tolist() == [BOS_ID, BOS_ID, 3, BOS_ID, BOS_ID, BOS_ID]
    assert st.sentence.tolist() == [0, 0, 0, 1, 2, 2]
    assert st.is_word.tolist() == [True, True, False, False, True, False]
    assert st.oov.tolist() == [False, False, False, False, True, False]


def test_stream_scores_equal_single_queries_and_perplexity():
    sents = random_sentences(1)
    lm = TrigramLM(vocab_size=12).fit(sents[:200])
    test = sents[200:230]
    lp = lm.score(test)
    manual = []
    for s in test:
        ctx = ["<s>"]
        for w in list(s) + ["</s>"]:
            manual.append(lm.logprob(w, ctx))
            ctx.append(w)
    assert np.allclose(lp, manual)
    assert lm.perplexity(test) == pytest.approx(math.exp(-np.mean(manual)))


def test_errors_are_clear():
    with pytest.raises(SegvizError, match="not fitted"):
        TrigramLM().score([["a"]])
    with pytest.raises(SegvizError, match="empty corpus"):
        TrigramLM().fit([[], []])
    with pytest.raises(SegvizError, match="string"):
        TrigramLM().fit("some text")
    with pytest.raises(SegvizError, match="vocab_size"):
        TrigramLM(vocab_size=0).fit([["a"]])


def read_arpa(text):
    """A minimal independent ARPA reader: {order: {tuple: (log10 p, log10 bow)}}."""
    grams = {1: {}, 2: {}, 3: {}}
    order = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("\\") and line.endswith("-grams:"):
            order = int(line[1])
            continue
        if not line or line.startswith("\\") or line.startswith("ngram") or order is None:
            continue
        parts = line.split("\t")
        words = tuple(parts[1].split(" "))
        grams[order][words] = (float(parts[0]), float(parts[2]) if len(parts) > 2 else 0.0)
    return grams


def arpa_log10(grams, context, word):
    """Standard backoff evaluation (what kenlm/SRILM do)."""
    for n in (3, 2, 1):
        if n - 1 > len(context):
            continue
        ctx = tuple(context[len(context) - (n - 1):]) if n > 1 else ()
        if ctx + (word,) in grams[n]:
            total = grams[n][ctx + (word,)][0]
            for m in range(n, len(context) + 1):  # backoff weights of the longer contexts that were skipped
                c = tuple(context[len(context) - m:])
                if c in grams[len(c)]:
                    total += grams[len(c)][c][1]
            return total
    raise AssertionError("unreachable: every word has a unigram")


def test_arpa_export_matches_our_scores(tmp_path):
    sents = random_sentences(2)
    lm = TrigramLM(vocab_size=15).fit(sents[:250])
    text = lm.to_arpa(tmp_path / "m.arpa")
    assert (tmp_path / "m.arpa").read_text() == text
    grams = read_arpa(text)
    test = sents[250:]
    lp = lm.score(test) / math.log(10)
    i = 0
    for s in test:
        ctx = ["<s>"]
        for w in [x if x in lm.word_index_ else "<unk>" for x in s] + ["</s>"]:
            assert arpa_log10(grams, ctx[-2:], w) == pytest.approx(lp[i], abs=2e-6)
            ctx.append(w)
            i += 1


def test_kenlm_agrees_with_arpa_export(tmp_path):
    kenlm = pytest.importorskip("kenlm", reason="kenlm Python module not installed (pip install kenlm)")
    sents = random_sentences(3, n=400, types=60)
    lm = TrigramLM(vocab_size=40).fit(sents[:350])
    lm.to_arpa(tmp_path / "m.arpa")
    model = kenlm.Model(str(tmp_path / "m.arpa"))
    ours = lm.score(sents[350:]) / math.log(10)
    theirs = [score for s in sents[350:] for score, _, _ in model.full_scores(" ".join(s), bos=True, eos=True)]
    assert np.allclose(ours, theirs, atol=1e-5)
