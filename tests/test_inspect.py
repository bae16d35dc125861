"""``segviz inspect`` and :mod:`segviz.inspection`: what the readers made of the input, and the warnings."""
from __future__ import annotations

import json

from segviz.cli import main
from segviz.corpus import read_corpus
from segviz.inspection import LONG_SENTENCE_TOKENS, inspect_corpus

WRAPPED = ("The committee met on a grey morning in March. Nobody had expected the\n"
           "chairman to resign, least of all the members who had voted for him only\n"
           "a year before. He spoke for ten minutes and then left the room without\n"
           "a word to anyone, and the members sat on in silence for a long while.\n")


def test_inspect_json_keys_and_counts(capsys, sample_dir):
    assert main(["inspect", str(sample_dir / "choi"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"format", "documents", "sentences", "reference_segments", "warnings"} <= set(report)
    corpus = read_corpus(sample_dir / "choi")
    assert report["format"] == "choi" and report["documents"] == 5
    assert report["sentences"] == corpus.n_sentences and report["reference_segments"] == 50
    assert report["mean_segment_length"] == corpus.n_sentences / 50
    assert report["warnings"] == [] and len(report["first_sentences"]) == 5
    assert all(f["detected"] for f in report["files"])


def test_inspect_text_output_for_prose(capsys, tmp_path):
    f = tmp_path / "memo.txt"
    f.write_text(WRAPPED)
    assert main(["inspect", str(f)]) == 0
    out = capsys.readouterr().out
    assert "format      text" in out and "reference   none (unlabelled text)" in out
    assert "1. The committee met on a grey morning in March." in out
    assert "no reference boundaries" in out


def test_wrapped_lines_read_as_lines_are_flagged(capsys, tmp_path):
    f = tmp_path / "memo.txt"
    f.write_text(WRAPPED)
    assert main(["inspect", str(f), "--format", "lines", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["format"] == "lines" and report["sentences"] == 4
    assert any("hard-wrapped" in w and "--format text" in w for w in report["warnings"])
    assert any("terminal punctuation" in w for w in report["warnings"])
    assert main(["inspect", str(f), "--json"]) == 0
    assert not any("hard-wrapped" in w for w in json.loads(capsys.readouterr().out)["warnings"])


def test_long_sentences_and_tiny_corpora_are_reported(tmp_path):
    f = tmp_path / "long.txt"
    f.write_text(" ".join(["word"] * (LONG_SENTENCE_TOKENS + 5)) + ".\n")
    report = inspect_corpus(read_corpus(f))
    assert report["long_sentences"] == 1 and report["sentences"] == 1
    assert any("longer than" in w for w in report["warnings"])
    assert any("nothing to segment" in w for w in report["warnings"])


def test_inspect_bad_input_is_one_line(capsys, tmp_path):
    assert main(["inspect", "/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("segviz: error:") and err.count("\n") == 1
    assert main(["inspect", str(tmp_path / "absent.txt")]) == 2
    assert "no such file" in capsys.readouterr().err


BOOK = ("THE TWO CHAPTERS\n\nBy an Author\n\nCONTENTS\n\nCHAPTER I. Rain\nCHAPTER II. Sun\n\n\n"
        "CHAPTER I.\n\nThe Rain.\n\n" + WRAPPED + "\nCHAPTER II.\n\nThe sun came out. Everyone went outside.\n")


def test_inspect_lists_every_heading_taken(capsys, tmp_path):
    f = tmp_path / "book.txt"
    f.write_text(BOOK)
    assert main(["inspect", str(f), "--headings", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["reference_segments"] == 2
    assert report["headings"] == [
        {"file": str(f), "line": 11, "text": "CHAPTER I.", "title": "CHAPTER I. The Rain."},
        {"file": str(f), "line": 20, "text": "CHAPTER II.", "title": "CHAPTER II."}]
    assert main(["inspect", str(f), "--headings"]) == 0
    out = capsys.readouterr().out
    assert "headings    2 headings taken as segment starts" in out
    assert "  line 11  CHAPTER I.  (title: CHAPTER I. The Rain.)" in out and "  line 20  CHAPTER II.\n" in out
    assert main(["inspect", str(f), "--json"]) == 0   # without --headings nothing is taken
    assert json.loads(capsys.readouterr().out)["headings"] == []


def test_inspect_reads_a_book_as_a_book_and_says_so(capsys, tmp_path):
    f = tmp_path / "book.txt"
    f.write_text("My Book\n\n" + "".join(f"CHAPTER {n}\n\n{WRAPPED}\n" for n in ("I", "II", "III", "IV")))
    assert main(["inspect", str(f), "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["files"][0]["headings_decision"] == "book" and report["reference_segments"] == 4
    assert [h["text"] for h in report["headings"]] == ["CHAPTER I", "CHAPTER II", "CHAPTER III", "CHAPTER IV"]
    assert err == (f"segviz: {f} looks like a book (4 chapter headings): read with its headings; --no-headings "
                   "reads it as plain prose\n")
    assert main(["inspect", str(f)]) == 0
    assert "text (detected), read as a book (it looks like one), 1 document" in capsys.readouterr().out
    # read as plain prose, as asked, it says that it looks like a book
    assert main(["inspect", str(f), "--json", "--no-headings"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["files"][0]["book_headings"] == 4 and report["reference_segments"] is None
    assert report["files"][0]["headings_decision"] == "refused" and err == ""
    assert any("looks like a book with 4 chapter headings" in w for w in report["warnings"])
    assert main(["inspect", str(f), "--json", "--headings"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["files"][0]["book_headings"] == 0 and report["reference_segments"] == 4
    assert report["files"][0]["headings_decision"] == "asked" and err == ""


def test_compare_and_evaluate_score_a_book_against_its_chapters_without_being_asked(capsys, tmp_path):
    from segviz.paths import bundled

    f = tmp_path / "book.txt"
    f.write_text("My Book\n\n" + "".join(f"CHAPTER {n}\n\n{WRAPPED}\n" for n in ("I", "II", "III", "IV")))
    said = f"segviz: {f} looks like a book (4 chapter headings): read with its headings"
    assert main(["compare", str(f), "--peers", "", "--json"]) == 0
    out, err = capsys.readouterr()
    assert said in err and json.loads(out)
    model = bundled("resources", "sample_model.segviz")
    assert main(["evaluate", "--model", str(model), str(f), "--json"]) == 0
    out, err = capsys.readouterr()
    assert said in err and json.loads(out)
    assert main(["evaluate", "--model", str(model), str(f), "--no-headings"]) == 2
    assert "looks like a book with 4 chapter headings" in capsys.readouterr().err


def test_scoring_a_book_read_as_plain_prose_says_how_to_read_it(capsys, tmp_path):
    f = tmp_path / "book.txt"
    f.write_text("My Book\n\n" + "".join(f"CHAPTER {n}\n\n{WRAPPED}\n" for n in ("I", "II", "III", "IV")))
    assert main(["compare", str(f), "--peers", "", "--no-headings"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("segviz: error: ") and "looks like a book with 4 chapter headings" in err
    assert "--headings" in err
