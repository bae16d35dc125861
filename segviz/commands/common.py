"""Helpers shared by the CLI subcommands: tables, progress bars, JSON output."""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from ..events import Progress
from ..printable import printable
from . import interrupts

T = TypeVar("T")

TABLE_COLUMNS = (
    ("reference segments", "reference_segments", "{:d}"),
    ("hyp. segments", "hypothesis_segments", "{:d}"),
    ("P_mu", "p_mu", "{:.1%}"),
    ("P_k", "p_k", "{:.1%}"),
    ("WindowDiff", "window_diff", "{:.1%}"),
    ("precision", "precision", "{:.1%}"),
    ("recall", "recall", "{:.1%}"),
    ("F", "f1", "{:.1f}"),
)


def _fmt(fmt: str, value) -> str:
    if value is None:
        return "---"
    if fmt == "{:d}":
        return str(int(round(value)))
    if fmt == "{:.1f}":
        return f"{100 * value:.1f}"  # the paper prints F on a 0-100 scale
    return fmt.format(value)


def format_table(rows: dict[str, dict], *, reference_segments: int | None = None, extra_columns: Sequence[tuple[str, str, str]] = ()) -> str:
    """Render rows (name -> score_row dict) in the layout of the paper's Tables 5/6."""
    columns = list(TABLE_COLUMNS) + list(extra_columns)
    header = ["model"] + [c[0] for c in columns]
    body = []
    for name, row in rows.items():
        values = dict(row)
        if reference_segments is not None:
            values.setdefault("reference_segments", reference_segments)
        line = [printable(name)]
        for _, key, fmt in columns:
            v = values.get(key)
            if key == "f1" and values.get("hypothesis_segments") == 0:
                v = None
            line.append(_fmt(fmt, v))
        body.append(line)
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    out = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))]
    out.append("  ".join("-" * w for w in widths))
    for r in body:
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(out)


def render_table(payload: dict, rows: dict[str, dict]) -> str:
    """A score table (:func:`segviz.evaluation.table_payload`) under a one-line description of the corpus."""
    head = (
        f"{printable(payload['corpus'])}: {payload['sentences']} sentences, "
        f"{payload['reference_segments']} reference segments, 1/mu = {1 / payload['mu']:.1f} sentences, "
        f"k = {payload['k']} ({payload['evaluation']})"
    )
    notes = [f"{name}: skipped on {row['skipped']} unit(s): {'; '.join(row.get('errors', []))}"
             for name, row in rows.items() if row.get("skipped")]
    table = format_table(rows, reference_segments=payload["reference_segments"])
    return "\n".join([head, table, *notes])


def feature_lines(model, limit: int | None = 20) -> list[str]:
    """The paper's Figures 5/6 as text: a model of one segmenter's features in order of induction with e^lambda."""
    (features,) = model.features().values()
    out = []
    for i, (f, w) in enumerate(zip(features.specs, features.weights), start=1):
        if limit is not None and i > limit:
            break
        out.append(f"{i:3d}. {f.short:<28} e^lambda = {w:9.4g}   {f.description}")
    return out


def print_json(obj) -> None:
    json.dump(obj, sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def progress_bar(events: Iterable[T], *, stream=None, width: int = 30, min_interval: float = 0.1) -> Iterator[T]:
    """Pass events through, drawing a one-line progress bar on stderr for every :class:`Progress`.

    Other events are passed through untouched, so a caller can still react to them.  Silent when stderr is not
    a terminal except for one line per finished stage (so logs stay readable).
    """
    stream = stream or sys.stderr
    interactive = hasattr(stream, "isatty") and stream.isatty()
    last_draw = 0.0
    last_stage = None
    for event in events:
        interrupts.check()   # a signal a finaliser swallowed ends the command at its next step
        if isinstance(event, Progress):
            if last_stage is not None and event.stage != last_stage and interactive:
                stream.write("\n")
            last_stage = event.stage
            now = time.monotonic()
            finished = event.total > 0 and event.done >= event.total
            if interactive and (now - last_draw >= min_interval or finished):
                last_draw = now
                if event.total > 0:
                    filled = int(width * min(1.0, event.fraction))
                    bar = "#" * filled + "." * (width - filled)
                    stream.write(f"\r{event.stage:<28} [{bar}] {event.done}/{event.total}")
                else:
                    stream.write(f"\r{event.stage:<28} {event.done}")
                stream.flush()
            elif not interactive and finished:
                stream.write(f"{event.stage}: done ({event.total})\n")
        yield event
    if interactive and last_stage is not None:
        stream.write("\n")
        stream.flush()


#: every command refuses a corpus of fewer sentences: there is no position between two sentences to decide
MIN_SENTENCES = 2


def read_input(paths, **params):
    """:func:`segviz.corpus.read_corpus` plus the rule every command shares: at least :data:`MIN_SENTENCES`
    sentences, else one line of error; then what was read on stderr (:func:`.reading.report_reading`)."""
    from ..corpus import read_corpus
    from ..errors import SegvizError
    from .reading import report_reading

    corpus = read_corpus(paths, **params)
    if corpus.n_sentences < MIN_SENTENCES:
        raise SegvizError(f"{corpus.name}: only {corpus.n_sentences} sentence(s); nothing to segment "
                          f"(segviz needs at least {MIN_SENTENCES})")
    report_reading(corpus)  # what the readers decided, one line per file on stderr
    return corpus


def check_output(path, *, corpora=(), inputs=(), parents: bool = False):
    """:func:`segviz.persist.check_output_path` before any work, with what the command reads: the files of
    ``corpora`` (files, directories, globs, expanded as the readers will) and the ``inputs`` (models, language
    models).  An output that is one of them (also through a link) is refused: ``segviz train a.ref --out a.ref``
    would turn the corpus into a model."""
    from ..errors import SegvizError
    from ..persist import check_output_path
    from ..readers.source import expand_paths

    files = [p for p in inputs if p]
    for corpus in corpora or ():
        try:
            files.extend(expand_paths(corpus))
        except SegvizError:   # a missing corpus is reported when it is read, in the usual words
            continue
    return check_output_path(path, parents=parents, inputs=files)


def load_language_models(path):
    """:meth:`segviz.lm.LanguageModels.load`, imported on use so that ``segviz --help`` stays fast."""
    from ..lm.models import LanguageModels

    return LanguageModels.load(path)


def load_model(path):
    """:func:`segviz.models.load_model` (a segmenter or a router of several), imported on use so that
    ``segviz --help`` stays fast."""
    from pathlib import Path

    from ..errors import SegvizError
    from ..models import load_model as load

    if not Path(path).is_file():
        raise SegvizError(f"model file not found: {path}")
    return load(path)


def run_with_progress(generator, *, quiet: bool = False):
    """Drive an engine generator to completion (a progress bar on stderr unless ``quiet``); return its value.

    :func:`progress_bar` passes events through but cannot forward a generator's ``return`` value, hence the box.
    """
    box: list = []

    def keep():
        box.append((yield from generator))

    for _ in (keep() if quiet else progress_bar(keep())):
        interrupts.check()
    return box[0]
