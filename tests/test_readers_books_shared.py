"""The book reader (``text`` with ``headings``; :mod:`segviz.readers.books`) on all 175 shared Project Gutenberg
books: ``../shared/corpora/gutenberg_novels`` (26) and ``gutenberg_more`` (149).

``tests/data/gutenberg_chapter_counts.tsv`` pins each book's chapters as read, beside the count of
``gutenberg_more/MANIFEST.tsv`` (a pattern count of chapter headings, not ground truth); its note column says why
a count differs from the manifest's (a prologue, an epilogue or a conclusion is a section of its own besides the
numbered chapters).  Each count was checked against the book's text with ``research/book_headings_audit.py``.
The books are read once (about two minutes)."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from segviz.corpus import read_corpus
from segviz.readers.books import match_heading

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
COUNTS = Path(__file__).resolve().parent / "data" / "gutenberg_chapter_counts.tsv"


def _pinned() -> list[dict[str, str]]:
    with open(COUNTS, encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


ROWS = _pinned()


@pytest.fixture(scope="module")
def books() -> dict[str, object]:
    if not (SHARED / "gutenberg_more").is_dir() or not (SHARED / "gutenberg_novels").is_dir():
        pytest.skip(f"needs the shared Gutenberg corpora under {SHARED} (absent on this machine)")
    return {row["file"]: read_corpus(SHARED / row["corpus"] / row["file"], kind="text", headings=True)
            for row in ROWS}


def test_every_shared_book_is_pinned():
    if not SHARED.is_dir():
        pytest.skip(f"needs the shared corpora at {SHARED}")
    on_disk = sorted(p.name for corpus in ("gutenberg_more", "gutenberg_novels")
                     for p in (SHARED / corpus).glob("*.txt"))
    assert sorted(row["file"] for row in ROWS) == on_disk


def test_differences_from_the_manifest_are_explained():
    for row in ROWS:
        if row["manifest"] and int(row["manifest"]) != int(row["chapters"]):
            assert row["note"], row["file"]


# reading 175 books whole (sentences split) takes two minutes alone, longer on a busy machine: more than the
# suite's default timeout, which guards against a hang, not against this much work
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_chapter_counts_titles_and_no_heading_left_in_the_text(books):
    wrong: list[str] = []
    for row in ROWS:
        corpus = books[row["file"]]
        if len(corpus) != int(row["chapters"]):
            wrong.append(f"{row['file']}: {len(corpus)} chapters, pinned {row['chapters']}")
            continue
        for doc in corpus:
            if not doc.title:
                wrong.append(f"{row['file']}: a chapter without a title")
                continue
            first = doc.texts[0].strip()
            match = match_heading(first)
            # a heading or a title line left as the chapter's first sentence would give its boundary away
            # (the number of a chapter's first sub-section too, "I"; a later one, "II", may stay inside it)
            pieces = {doc.title, *(piece.strip() for piece in re.split(r":\s|--|—", doc.title))}
            if first in pieces or (match is not None and (match.kind != "numeral" or first in ("I", "I.", "1"))):
                wrong.append(f"{row['file']}: {doc.title[:50]!r} opens with {first[:60]!r}")
        texts = corpus.sentence_texts()
        if any("Project Gutenberg" in t for t in texts[-200:]):
            wrong.append(f"{row['file']}: the Gutenberg licence is in the text")
    assert not wrong, "\n".join(wrong)
