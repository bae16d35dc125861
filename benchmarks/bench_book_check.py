"""What the "looks like a book" check costs when prose is read without its headings: the share of the ``text``
reader's time spent finding out whether a text has chapter headings (``segviz.readers.books.may_be_book``, then
``book_layout`` when it may), on the shared Gutenberg books and on Brown fiction rebuilt as hard-wrapped prose
(no headings: only the quick look runs).

    python benchmarks/bench_book_check.py

Not collected by pytest.  Needs ../shared/corpora (gutenberg_novels, Brown).
"""
from __future__ import annotations

import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.readers.books import book_layout, may_be_book  # noqa: E402
from segviz.readers.prose import MIN_BOOK_HEADINGS, read_text, strip_gutenberg  # noqa: E402
from tests.realtext import brown_paragraphs, hard_wrapped  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpora"
FICTION = ("fiction", "romance", "mystery", "adventure", "science_fiction", "humor")


def check_seconds(text: str) -> float:
    t0 = time.perf_counter()
    lines = strip_gutenberg(text)[0].split("\n")
    if may_be_book(lines, MIN_BOOK_HEADINGS):
        book_layout(lines)
    return time.perf_counter() - t0


def measure(name: str, texts: list[str]) -> None:
    read = check = 0.0
    for text in texts:
        t0 = time.perf_counter()
        read_text(text, source="x.txt", headings=False)   # as plain prose: the check only advises
        read += time.perf_counter() - t0
        check += check_seconds(text)
    print(f"{name:40s} {len(texts):3d} texts  read {read:6.1f} s  of which the book check {check:5.2f} s "
          f"({check / read:.1%})", flush=True)


def main() -> int:
    books = sorted((SHARED / "gutenberg_novels").glob("*.txt"))
    measure("Gutenberg books (headings: full check)", [b.read_text(encoding="utf-8") for b in books])
    brown = SHARED / "brown_nltk" / "brown.zip"
    cats = zipfile.ZipFile(brown).read("brown/cats.txt").decode().split("\n")
    ids = [line.split()[0] for line in cats if line.strip() and line.split()[1] in FICTION]
    fiction = [hard_wrapped(brown_paragraphs(brown, i)) for i in ids]
    measure("Brown fiction as prose (no headings)", fiction)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
