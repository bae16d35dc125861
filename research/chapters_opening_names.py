"""Does a chapter's first paragraph open on a name where the paragraphs around it open on a pronoun?  A screen on
the ``chapters`` protocol's training and held-out books only (the test books are never read).

Most of the chapters model's error is local (``chapters_local_placement.py``): among the twenty or so paragraph
starts near a chapter start the trees rarely put the true one first.  A new chapter often brings its people back by
name ("Fanny had by no means forgotten Mr. Crawford", "William, her brother, ... was in England again") where a
paragraph inside a scene goes on with "he" or "she".  Seven columns more at every paragraph start, from the
sentence that opens it and the book's own names (:func:`segviz.features.names.context_names`, decided per book):
whether its first word is a personal pronoun, whether it is a name, how many names the sentence holds, how many of
them the previous 20 and 60 sentences did not name, whether it opens on "the"/"a"/"an", and the pronouns among its
first six words.  The first trees are fitted with and without them (cross-fitted as the product does); each
held-out book decided by a segment-count rule told its true count and with the count from its length, and how often
the trees put a held-out chapter start first among the paragraph starts within 30 and 60 sentences of it.

    nice python research/chapters_opening_names.py [--data ../shared/corpora] [--cache DIR] [--jobs 2] [--json OUT]
"""
from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from chapters_count_screen import score_books
from chapters_local_placement import WINDOWS, first_among_neighbours
from chapters_pool_screen import count_rule_rows, screen_books, screen_parser, summarise

from segviz.features import FeatureContext
from segviz.features.names import context_names
from segviz.features.paragraph_measures import paragraph_start_gaps
from segviz.protocols import CHAPTER_BOOKS, read_books

PRONOUNS = frozenset("he she it they i we you his her their its my our them him".split())
ARTICLES = frozenset(("the", "a", "an"))
COLUMNS = ("pronoun opens", "name opens", "names", "names not in the previous 20 sentences",
           "names not in the previous 60 sentences", "article opens", "pronouns in the first 6 words")


def opening_columns(args) -> np.ndarray:
    """One book's :data:`COLUMNS` at its paragraph starts (rows as the cached measurements'), cached as ``.npy``:
    ``args`` is (corpora, book name, cache directory)."""
    data, name, cache = args
    path = Path(cache) / (name.replace("/", "__") + ".opening.npy")
    if path.exists():
        return np.load(path)
    context = FeatureContext.from_corpus(read_books(data, [name], name))
    names = [{n.lower() for n in sentence} for sentence in context_names(context)]
    unit = context.group_of_sentence()
    rows = []
    for gap in np.flatnonzero(paragraph_start_gaps(context)):
        opening = gap + 1
        words = [t.lower() for t in context.sentences[opening] if any(ch.isalnum() for ch in t)]
        first = words[0] if words else ""
        before = {span: set().union(*(names[j] for j in range(max(0, opening - span), opening)
                                      if unit[j] == unit[opening])) for span in (20, 60)}
        here = names[opening]
        rows.append([first in PRONOUNS, first in here, len(here), len(here - before[20]), len(here - before[60]),
                     first in ARTICLES, sum(w in PRONOUNS for w in words[:6])])
    columns = np.array(rows, dtype=float).reshape(-1, len(COLUMNS))
    np.save(path, columns)
    return columns


def main(argv=None) -> int:
    args = screen_parser(__doc__).parse_args(argv)
    train, held = screen_books(args)
    with ProcessPoolExecutor(args.jobs) as pool:
        for books, role in ((train, "train"), (held, "heldout")):
            extra = pool.map(opening_columns, [(args.data, n, args.cache) for n in CHAPTER_BOOKS[role]])
            for book, columns in zip(books, extra):
                if columns.shape[0] != book["X"].shape[0]:
                    raise SystemExit(f"{book['name']}: the cache was read by another reader; use a fresh --cache")
                book["measurements"], book["with opening"] = book["X"], np.c_[book["X"], columns]
    words_per_chapter = sum(b["words"] for b in train) / sum(len(b["masses"]) for b in train)
    out: dict = {}
    for label in ("measurements", "with opening"):
        for book in train + held:
            book["X"] = book[label]
        score_books(train, held, lambda b: b["X"])
        for count in ("true", "words"):
            rows = count_rule_rows(held, lambda b: b["p"], count, words_per_chapter)
            summarise(f"{label}, count {count}", held, rows, out)
        for window in WINDOWS:
            first = first_among_neighbours(held, window, lambda b, rows: b["p"][rows])
            out[f"{label}, top-1 within {window}"] = float(np.mean(first))
            print(f"  {label}: a held-out chapter start first within ±{window} sentences {np.mean(first):.3f}",
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
