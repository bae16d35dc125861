"""Build a Choi-format corpus of a given number of sentences (default 10^6) from the shared corpora, for measuring
the app and the engine at a size no shared corpus has (docs/benchmarks.md).

The 26 Gutenberg books are read with their headings (each chapter one segment) and the 300 wiki300 articles
(each section one segment); their segments are written one after another, the whole sequence repeated until the
file holds ``--sentences`` sentences (the last segment cut to fit).  Repeated text is fine for timing and memory
(every sentence is parsed, featured and drawn again); it would not be for scoring.  Public-domain books and
CC BY-SA articles only (Reuters is research-only and stays out).

    python benchmarks/build_large_corpus.py /tmp/million.ref                     # 10^6 sentences
    python benchmarks/build_large_corpus.py /tmp/300k.ref --sentences 300000
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz import read_corpus                       # noqa: E402
from segviz.persist import atomic_write_text, check_output_path   # noqa: E402
from segviz.readers.choi import CHOI_SEPARATOR      # noqa: E402

SHARED = ROOT.parent / "shared" / "corpora"


def source_segments(shared: Path) -> list[list[str]]:
    """Every reference segment of the books and the wiki articles, as lists of sentence texts."""
    books = read_corpus(sorted((shared / "gutenberg_novels").glob("*.txt")), format="text", headings=True)
    wiki = read_corpus(sorted((shared / "wiki300_badjatiya").glob("*.ref")), format="auto")
    segments = []
    for corpus in (books, wiki):
        texts = corpus.sentence_texts()
        start = 0
        for mass in corpus.masses():
            segments.append(texts[start:start + mass])
            start += mass
    return segments


def build(segments: list[list[str]], n_sentences: int) -> tuple[str, int]:
    """The Choi-format text of ``n_sentences`` sentences (segments cycled), and how many segments it holds."""
    lines = [CHOI_SEPARATOR]
    left, count, i = n_sentences, 0, 0
    while left > 0:
        segment = segments[i % len(segments)][:left]
        # a sentence text never spans lines in the Choi format
        lines.extend(" ".join(t.split()) for t in segment)
        lines.append(CHOI_SEPARATOR)
        left -= len(segment)
        count += 1
        i += 1
    return "\n".join(lines) + "\n", count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--sentences", type=int, default=1_000_000)
    ap.add_argument("--shared", default=str(SHARED))
    args = ap.parse_args(argv)
    if args.sentences < 1:
        ap.error("--sentences must be at least 1")
    check_output_path(args.out)
    segments = source_segments(Path(args.shared))
    text, count = build(segments, args.sentences)
    atomic_write_text(args.out, text)
    print(f"{args.out}: {args.sentences:,} sentences in {count:,} segments "
          f"({len(segments):,} distinct source segments), {len(text) / 2**20:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
