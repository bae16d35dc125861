"""Does a second look -- trees that also read where each paragraph start's score stands among its neighbours --
place chapters better?  A screen on the ``chapters`` protocol's training and held-out books only (the test books
are never read).

The first trees (the product's paragraph score without its cue column) are fitted on the training books and
their scores cross-fitted by book (:func:`chapters_count_screen.score_books`); the second trees read the
measurements and :func:`segviz.features.score_context.unit_score_context` of those scores (the words back to the
previous strong start and on to the next, the score against the best within 1,500 and 4,000 words), the product's
columns exactly (positions are counted from the book's first paragraph start rather than its first word: only
differences are read).  Each held-out book is decided by a segment-count rule told its true count and with the
count from its length in words, with the measurements alone and with the second look; per book P_k in the record.

    nice python research/chapters_second_look.py [--data ../shared/corpora] [--cache DIR] [--jobs 2] [--json OUT]
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from chapters_count_screen import scored_books, trees
from chapters_pool_screen import count_rule_rows, screen_parser, summarise

from segviz.features.paragraph_measures import MEASUREMENTS
from segviz.features.score_context import unit_score_context


def second_look_columns(book: dict) -> np.ndarray:
    """The measurements and the context of the book's first scores ``p`` at its paragraph starts."""
    words = np.nan_to_num(book["X"][:, MEASUREMENTS.index("words_after")], nan=0.0)
    position = np.concatenate([[0.0], np.cumsum(words)[:-1]])
    return np.c_[book["X"], unit_score_context(position, book["p"])]


def main(argv=None) -> int:
    args = screen_parser(__doc__).parse_args(argv)
    train, held, words_per_chapter = scored_books(args)
    for book in train + held:
        book["second"] = second_look_columns(book)
    out: dict = {}
    for label, columns in (("measurements", lambda b: b["X"]), ("measurements + second look", lambda b: b["second"])):
        model = trees().fit(np.vstack([columns(b) for b in train]), np.concatenate([b["y"] for b in train]))
        for count in ("true", "words"):
            rows = count_rule_rows(held, lambda b: model.predict_proba(columns(b))[:, 1], count, words_per_chapter)
            summarise(f"{label}, count {count}", held, rows, out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
