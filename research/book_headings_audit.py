"""Audit of the book reader (``segviz.readers.books``) on the 175 shared Project Gutenberg books: per book the
chapters taken, the count the corpus manifest gives (``gutenberg_more/MANIFEST.tsv``; the 26 novels have their
counts pinned in ``tests/test_readers_books.py``), the first and last titles, and what looks wrong -- a chapter
whose first block reads like a title or heading (a title left in the text), a very short chapter, back-matter
words in the last chapter.

    python research/book_headings_audit.py [--only N,N,...] [--all]

Without ``--all`` only books that differ from the expected count or have something suspicious are printed.
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

from segviz.readers.books import book_layout, is_title_like, match_heading
from segviz.readers.prose import strip_gutenberg
from segviz.readers.source import decode_text, read_source

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora"
PINNED = Path(__file__).resolve().parents[1] / "tests" / "data" / "gutenberg_chapter_counts.tsv"
#: a chapter with less text than this (characters) is reported
SHORT_CHAPTER = 1500
BACK_MATTER_RE = re.compile(r"^(?:FOOTNOTES?:?|NOTES?\b|A NOTE ON THE TEXT|APPENDIX|INDEX|THE END|FINIS|"
                            r"TRANSCRIBER|GLOSSARY|ADVERTISEMENT|BIBLIOGRAPHY|\[?Footnote)", re.IGNORECASE)


def books() -> list[tuple[Path, int | None]]:
    out: list[tuple[Path, int | None]] = []
    with open(SHARED / "gutenberg_more" / "MANIFEST.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            out.append((SHARED / "gutenberg_more" / row["file"], int(row["chapters_counted"])))
    out += [(p, None) for p in sorted((SHARED / "gutenberg_novels").glob("*.txt"))]
    return out


def pinned() -> dict[str, int]:
    if not PINNED.is_file():
        return {}
    with open(PINNED, encoding="utf-8") as fh:
        return {row["file"]: int(row["chapters"]) for row in csv.DictReader(fh, delimiter="\t")}


def audit(path: Path) -> tuple[list, list[str]]:
    text = decode_text(read_source(path), source=str(path))
    body, _ = strip_gutenberg(text)
    lines = body.split("\n")
    layout = book_layout(lines)
    gone = list(layout.dropped)
    for s in layout.sections:
        gone[s.start:s.end] = [True] * (s.end - s.start)
    shown = ["" if out else line.strip() for line, out in zip(lines, gone)]
    bounds = [s.start for s in layout.sections] + [len(lines)]
    problems: list[str] = []
    for k, section in enumerate(layout.sections):
        body = shown[section.end:bounds[k + 1]]
        chars = sum(len(x) for x in body)
        block: list[str] = []
        for x in body:
            if x:
                block.append(x)
            elif block:
                break
        if chars < SHORT_CHAPTER:
            problems.append(f"short chapter ({chars} chars) {section.title[:60]!r}")
        if block and len(block) <= 3 and len(" ".join(block)) < 90 and (
                is_title_like(block) or match_heading(block[0]) is not None):
            problems.append(f"title-like first block of {section.title[:40]!r}: {' / '.join(block)[:80]!r}")
        if k == len(layout.sections) - 1:
            for i, x in enumerate(body):
                if x and BACK_MATTER_RE.match(x) and (i == 0 or not body[i - 1]):
                    problems.append(f"back matter? in the last chapter: {x[:60]!r} "
                                    f"(line {section.end + i}, {len(body) - i} lines from the end)")
                    break
    return layout.sections, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="ebook numbers, comma separated")
    parser.add_argument("--all", action="store_true", help="print every book, not only those with findings")
    parser.add_argument("--titles", type=int, default=3, help="first and last titles shown")
    args = parser.parse_args(argv)
    only = {n for n in args.only.split(",") if n}
    expected_pinned = pinned()
    mismatches = 0
    for path, manifest in books():
        number = path.name.split("_")[0]
        if only and number not in only:
            continue
        sections, problems = audit(path)
        expected = expected_pinned.get(path.name, manifest)
        differs = expected is not None and expected != len(sections)
        mismatches += differs
        if not (args.all or differs or problems or only):
            continue
        print(f"== {path.name}: {len(sections)} chapters (manifest {manifest}, pinned "
              f"{expected_pinned.get(path.name)}){'  MISMATCH' if differs else ''}")
        shown = sections if len(sections) <= 2 * args.titles else sections[:args.titles] + sections[-args.titles:]
        for s in shown:
            print(f"     {s.start:6d}  {s.title[:110]}")
        for p in problems[:12]:
            print(f"   ! {p}")
        if len(problems) > 12:
            print(f"   ! ... {len(problems) - 12} more")
    print(f"{mismatches} book(s) differ from the expected count", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
