"""What one decision of the length-prior rule costs on a whole book, with segment lengths in words (the default
model's chapters expert) against the same prior in sentences: median milliseconds per decision, what a move of
the bias or the shape costs the window (docs/benchmarks.md, "A length prior in words").

    python benchmarks/bench_length_units.py [--repeat 7] [BOOK.txt ...]   # default: two of the chapters test books

Needs ../shared/corpora/gutenberg_novels unless books are given.  Each book is read raw with its headings.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from segviz import load_model, read_corpus  # noqa: E402
from segviz.rules import document_sizes  # noqa: E402

BOOKS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "gutenberg_novels"
DEFAULT_BOOKS = ("98_a-tale-of-two-cities.txt", "2701_moby-dick--or-the-whale.txt")


def median_ms(rule, probabilities, sizes, repeat: int) -> float:
    rule.decide(probabilities, sizes)   # compiled and warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        rule.decide(probabilities, sizes)
        times.append(time.perf_counter() - start)
    return 1000.0 * float(np.median(times))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("books", nargs="*", help="raw books (default: two of the chapters protocol's test books)")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    paths = [Path(b) for b in args.books] or [BOOKS / name for name in DEFAULT_BOOKS]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print(f"bench_length_units: error: {missing[0]}: no such book", file=sys.stderr)
        return 2
    expert = load_model().segmenters()["chapters"]
    in_words = expert.rule_
    in_sentences = type(in_words)(**{**in_words.get_params(), "unit": "sentences", "words_per_sentence": None})
    print(f"load average {os.getloadavg()[0]:.2f}; {in_words.describe()}")
    print(f"{'book':40s} {'sentences':>9s} {'in words':>10s} {'in sentences':>13s}")
    for path in paths:
        book = read_corpus([path], kind="text", headings=True)
        probabilities = expert.boundary_probabilities(book)
        sizes = document_sizes(book.sentences())
        words = median_ms(in_words, probabilities, sizes, args.repeat)
        sentences = median_ms(in_sentences, probabilities, sizes, args.repeat)
        print(f"{path.name:40s} {book.n_sentences:9,d} {words:8.1f} ms {sentences:11.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
