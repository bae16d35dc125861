"""``segviz segment``: the bundled default model, every output format parsed back, the removed MODEL CORPUS form,
the decision-rule options, the out-of-domain warning, and bad input as one line."""
from __future__ import annotations

import csv
import json

import pytest

from segviz.cli import main
from segviz.corpus import read_corpus
from segviz.domain import OUT_OF_DOMAIN_COVERAGE, Coverage, model_coverage, vocabulary_coverage
from segviz.paths import bundled
from segviz.segmenter import Segmenter

MODEL = bundled("resources", "sample_model.segviz")
pytestmark = pytest.mark.skipif(not MODEL.is_file(), reason="needs the bundled demo model")

PROSE = """\
The central bank raised its key interest rate by half a point on Tuesday,
the third increase this year. Analysts had expected a smaller move. The
decision sent the currency higher against the dollar.

Shares of the company fell sharply after it reported a loss for the
quarter. The company said sales had dropped in every region. It cut its
forecast for the year and said it would close two plants.

Oil prices rose for a fifth day as traders worried about supplies. Crude
for delivery next month gained a dollar a barrel. Heating oil also rose.
"""


@pytest.fixture
def prose(tmp_path):
    f = tmp_path / "news.txt"
    f.write_text(PROSE)
    return f


@pytest.mark.parametrize("name", ["out.ref", "out.jsonl", "out.csv", "out.txt"])
def test_default_model_writes_every_format(prose, tmp_path, capsys, name):
    out = tmp_path / name
    assert main(["segment", str(prose), "-o", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "bundled default model" in err
    assert f"read {prose} as text (detected): 1 document, 9 sentences, no reference boundaries" in err
    assert f"wrote {out}" in err   # (no coverage line: the default model has no language models to measure it)
    corpus = read_corpus(prose)
    if name.endswith(".ref"):
        again = read_corpus(out)
        assert again.sentences() == corpus.sentences() and again.formats == ("choi",)
    elif name.endswith(".jsonl"):
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert rows[0]["start"] == 0 and rows[-1]["end"] == 9
        assert all(a["end"] == b["start"] for a, b in zip(rows, rows[1:]))
        assert read_corpus(out).sentences() == corpus.sentences()
    elif name.endswith(".csv"):
        rows = list(csv.DictReader(out.open()))
        assert [r["text"] for r in rows] == corpus.sentence_texts()
        assert all(r["probability"] == "" or 0 <= float(r["probability"]) <= 1 for r in rows)
    else:
        text = out.read_text()
        assert text.startswith(f"======== {prose} ========") and "-------- segment 1 --------" in text


def test_stdout_and_the_removed_model_first_form(prose, capsys):
    assert main(["segment", str(prose), "--model", str(MODEL), "-o", "-", "--quiet"]) == 0
    default = capsys.readouterr().out
    assert default.startswith("==========\n") and default.endswith("==========\n")
    # the earlier `segment MODEL CORPUS` form is gone: the model file is read as a corpus, and refused
    assert main(["segment", str(MODEL), str(prose), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"segviz: error: {MODEL}: looks like a binary file, not a text corpus\n"
    assert main(["segment", "--model", str(MODEL), str(prose), "--quiet", "--output-format", "jsonl"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["segment"] == 0


def _segments(out: str) -> list[int]:
    """Segment lengths of Choi output on standard output."""
    sizes, n = [], 0
    for line in out.splitlines()[1:]:
        if line == "==========":
            sizes.append(n)
            n = 0
        else:
            n += 1
    return sizes


def test_alpha_overrides_the_decision_rule(prose, capsys):
    assert main(["segment", str(prose), "--alpha", "0", "--epsilon", "1", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("==========") == 10  # every gap a boundary: 9 segments
    # the default model's long-form expert decides by the length prior: replacing it is said on one note line
    notes = [line for line in captured.err.splitlines() if line.startswith("segviz: note:")]
    assert len(notes) == 1 and "length-prior rule" in notes[0] and notes[0].endswith("with the threshold rule")


@pytest.mark.parametrize("options,sizes", [(["--segments", "3"], 3), (["--mean-length", "3"], 3),
                                           (["--segments", "1"], 1), (["--mean-length", "2"], 4),
                                           (["--segments", "40"], 9)])
def test_segment_count_options_replace_the_models_rule(prose, capsys, options, sizes):
    model = Segmenter.load(MODEL)
    assert model.rule_.kind == "threshold"
    assert main(["segment", str(prose), "--model", str(MODEL), "--quiet", *options]) == 0
    captured = capsys.readouterr()
    got = _segments(captured.out)
    assert len(got) == sizes and sum(got) == 9      # 9 sentences: n / L rounded, at most one per sentence
    [note] = [line for line in captured.err.splitlines() if line.startswith("segviz: note:")]
    assert f"({model.rule_.describe()})" in note and "with the segment-count rule" in note


def test_alpha_alone_keeps_the_models_epsilon(prose, capsys):
    model = Segmenter.load(MODEL)
    own = model.rule_
    assert main(["segment", str(prose), "--model", str(MODEL), "--quiet", "--alpha", "0.05"]) == 0
    captured = capsys.readouterr()
    assert "note" not in captured.err                      # a threshold rule replaced by a threshold rule
    from segviz.rules import ThresholdRule

    want = model.with_rule(ThresholdRule(alpha=0.05, epsilon=own.epsilon)).predict(read_corpus(prose))
    assert [tuple(_segments(captured.out))] == want


@pytest.mark.parametrize("argv,word", [
    (["segment", "{PROSE}", "-o", "{DIR}/out.dat"], "--output-format"),
    (["segment", "{PROSE}", "-o", "{DIR}"], "directory"),
    (["segment", "{PROSE}", "-o", "{DIR}/no/such/out.ref"], "--parents"),
    (["segment", "{MODEL}"], "looks like a binary file, not a text corpus"),
    (["segment", "{MODEL}", "{PROSE}", "--model", "{MODEL}"], "looks like a binary file"),
    (["segment", "{PROSE}", "--model", "{PROSE}"], "not a segviz model archive"),
    (["segment", "{ONE}"], "nothing to segment"),
    (["segment", "/dev/zero"], "device"),
    (["segment", "{PROSE}", "--alpha", "2"], "--alpha"),
    (["segment", "{PROSE}", "--segments", "0"], "--segments"),
    (["segment", "{PROSE}", "--mean-length", "0.5"], "--mean-length"),
    (["segment", "{PROSE}", "--segments", "3", "--alpha", "0.2"], "two different rules; give one"),
    (["segment", "{PROSE}", "--segments", "3", "--mean-length", "2"], "give --segments or --mean-length, not both"),
])
def test_bad_input_is_one_line(prose, tmp_path, capsys, argv, word):
    one = tmp_path / "one.txt"
    one.write_text("Just one sentence here.\n")
    filled = [a.format(PROSE=prose, DIR=tmp_path, MODEL=MODEL, ONE=one) for a in argv]
    assert main(filled) == 2
    err = capsys.readouterr().err
    assert err.startswith("segviz") and err.count("\n") == 1 and "Traceback" not in err, err
    assert word in err
    assert not (tmp_path / "out.dat").exists()


def test_out_of_domain_warning_on_stderr(shared_corpora, tmp_path, capsys):
    """The Reuters demo model (it has language models, hence a vocabulary) on Brown fiction says it is out of its
    domain, with the figure."""
    from tests.realtext import brown_paragraphs, hard_wrapped

    book = tmp_path / "chapter.txt"
    book.write_text(hard_wrapped(brown_paragraphs(shared_corpora / "brown_nltk" / "brown.zip", "cp01")))
    assert main(["segment", str(book), "--model", str(MODEL), "-o", str(tmp_path / "s.jsonl"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "out of domain?" in err and "% of this text's words" in err


def test_coverage_of_known_and_unknown_text(sample_dir):
    model = Segmenter.load(MODEL)
    news = read_corpus(sample_dir / "reuters_sample.sgm")  # Reuters the model was not trained on
    choi = read_corpus(sample_dir / "choi")  # Brown text
    in_domain, out_of_domain = model_coverage(model, news), model_coverage(model, choi)
    assert in_domain.fraction > OUT_OF_DOMAIN_COVERAGE > out_of_domain.fraction
    assert not in_domain.out_of_domain and out_of_domain.out_of_domain
    assert "out of domain?" in out_of_domain.message()
    tiny = vocabulary_coverage({"the", "cat"}, read_corpus.__globals__["Corpus"].from_sentences(
        [["the", "cat", "sat", "."], ["the", "dog", "!"]]))
    assert (tiny.covered, tiny.words) == (3, 5)  # punctuation is not counted
    assert Coverage(0, 0, 10).fraction == 1.0


#: a small book: a title page and a contents list, then four chapters on four subjects
BOOK = "THE FOUR SEASONS\n\nby A. Writer\n\n\nCONTENTS\n\n" + "\n".join(
    f"CHAPTER {n}. {title}" for n, title in (("I", "Spring"), ("II", "Summer"), ("III", "Autumn"), ("IV", "Winter")))
BOOK += "".join(f"\n\n\nCHAPTER {n}. {title}\n\n{PROSE}" for n, title in (
    ("I", "Spring"), ("II", "Summer"), ("III", "Autumn"), ("IV", "Winter")))


def test_segment_reads_a_book_as_a_book_and_says_so(tmp_path, capsys):
    """The README's recipe as written: ``segviz segment book.txt -o chapters.jsonl`` reads the book by its
    chapters (titled segments, no heading or front matter left as sentences); ``--no-headings`` reads it as plain
    prose; prose that is no book is read as ever."""
    book = tmp_path / "book.txt"
    book.write_text(BOOK)
    out = tmp_path / "chapters.jsonl"
    assert main(["segment", str(book), "-o", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert (f"segviz: {book} looks like a book (4 chapter headings): read with its headings; --no-headings reads "
            "it as plain prose\n") in err
    assert f"read {book} as a book (detected): 1 document, 36 sentences, 3 reference boundaries" in err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["title"] == "CHAPTER I. Spring" and all(r["title"].startswith("CHAPTER ") for r in rows)
    text = "\n".join(r["text"] for r in rows)
    assert "CHAPTER" not in text and "CONTENTS" not in text and "A. Writer" not in text
    assert rows[-1]["end"] == 36

    plain = tmp_path / "plain.jsonl"
    assert main(["segment", str(book), "--no-headings", "-o", str(plain), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "read with its headings" not in err and f"read {book} as text (detected)" in err
    assert "this looks like a book with 4 chapter headings" in err   # the reader's note: how to read it as one
    rows = [json.loads(line) for line in plain.read_text().splitlines()]
    assert not any("title" in r for r in rows)
    assert "CHAPTER II. Summer" in "\n".join(r["text"] for r in rows)

    prose = tmp_path / "news.txt"
    prose.write_text(PROSE * 4)
    assert main(["segment", str(prose), "-o", str(tmp_path / "news.jsonl"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "looks like a book" not in err and f"read {prose} as text (detected)" in err
    assert main(["segment", str(book), "--headings", "--no-headings"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
