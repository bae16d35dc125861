"""Build a Choi-format corpus of a given number of sentences (default 10^6) from the shared corpora, for measuring
the app and the engine at a size no shared corpus has (docs/benchmarks.md).

The 26 Gutenberg books are read with their headings (each chapter one segment) and the 300 wiki300 articles
(each section one segment); their segments are written one after another, the whole sequence repeated until the
files hold ``--sentences`` sentences (the last segment cut to fit).  A corpus file may hold at most
``segviz.readers.source.MAX_FILE_BYTES`` (64 MiB), so a large corpus is written as several files, ``OUT-1.ref``,
``OUT-2.ref``, ..., each under that limit (10^6 sentences of book prose take about 107 MiB: two files).  Repeated text is fine for timing and memory
(every sentence is parsed, featured and drawn again); it would not be for scoring.  Public-domain books and
CC BY-SA articles only (Reuters is research-only and stays out).

    python benchmarks/build_large_corpus.py /tmp/million              # /tmp/million-1.ref, -2.ref: 10^6 sentences
    python benchmarks/build_large_corpus.py /tmp/300k --sentences 300000
    python benchmarks/build_large_corpus.py /tmp/m4 --files 4          # four files of 250,000 sentences each

``--files N`` writes N files of (nearly) equal sentence counts, as a user opens a folder of a few large files
(each must still fit under the size limit).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz import read_corpus  # noqa: E402
from segviz.persist import atomic_write_text, check_output_path  # noqa: E402
from segviz.readers.choi import CHOI_SEPARATOR  # noqa: E402
from segviz.readers.source import MAX_FILE_BYTES  # noqa: E402

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


def build(segments: list[list[str]], n_sentences: int, max_bytes: int = MAX_FILE_BYTES) -> list[str]:
    """The Choi-format texts of ``n_sentences`` sentences in all (segments cycled), each under ``max_bytes``."""
    files: list[str] = []
    lines, size = [CHOI_SEPARATOR], len(CHOI_SEPARATOR) + 1
    left, i = n_sentences, 0
    while left > 0:
        # a sentence text never spans lines in the Choi format
        block = [" ".join(t.split()) for t in segments[i % len(segments)][:left]] + [CHOI_SEPARATOR]
        grows = sum(len(line.encode()) + 1 for line in block)
        if size + grows > max_bytes * 0.95 and len(lines) > 1:
            files.append("\n".join(lines) + "\n")
            lines, size = [CHOI_SEPARATOR], len(CHOI_SEPARATOR) + 1
        lines += block
        size += grows
        left -= len(block) - 1
        i += 1
    files.append("\n".join(lines) + "\n")
    return files


def build_files(segments: list[list[str]], n_sentences: int, n_files: int,
                max_bytes: int = MAX_FILE_BYTES) -> list[str]:
    """``n_files`` Choi-format texts of ``n_sentences`` sentences in all, as equal in sentences as whole counts
    allow; the segments continue from file to file (each file starts where the last one stopped)."""
    files: list[str] = []
    i, cut = 0, 0   # the next segment, and how many of its sentences the previous file already took
    for k in range(n_files):
        want = n_sentences // n_files + (1 if k < n_sentences % n_files else 0)
        lines = [CHOI_SEPARATOR]
        while want > 0:
            segment = segments[i % len(segments)][cut:]
            take = segment[:want]
            lines += [" ".join(t.split()) for t in take] + [CHOI_SEPARATOR]
            want -= len(take)
            if len(take) < len(segment):
                cut += len(take)
            else:
                i, cut = i + 1, 0
        text = "\n".join(lines) + "\n"
        if len(text.encode()) > max_bytes:
            raise SystemExit(f"file {k + 1} would be {len(text.encode()) / 2**20:.0f} MiB, over the readers' limit "
                             f"of {max_bytes / 2**20:.0f} MiB: ask for more files")
        files.append(text)
    return files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--sentences", type=int, default=1_000_000)
    ap.add_argument("--shared", default=str(SHARED))
    ap.add_argument("--files", type=int, default=None,
                    help="this many files of equal sentence counts (default: as few as the size limit allows)")
    args = ap.parse_args(argv)
    if args.sentences < 1:
        ap.error("--sentences must be at least 1")
    if args.files is not None and not 1 <= args.files <= args.sentences:
        ap.error("--files must be from 1 to --sentences")
    segments = source_segments(Path(args.shared))
    texts = build(segments, args.sentences) if args.files is None else build_files(segments, args.sentences,
                                                                                   args.files)
    paths = [f"{args.out}-{k}.ref" for k in range(1, len(texts) + 1)]
    for path in paths:
        check_output_path(path)
    for path, text in zip(paths, texts):
        atomic_write_text(path, text)
    print(f"{args.sentences:,} sentences from {len(segments):,} distinct source segments in "
          f"{len(paths)} file(s): " + ", ".join(f"{p} ({len(t.encode()) / 2**20:.0f} MiB)" for p, t in zip(paths, texts)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
