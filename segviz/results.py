"""Committed results: each protocol's result as a JSON file, its tables rendered from it, a re-run checked against it.

A *result file* (format ``segviz-result``, version 1) is what ``segviz reproduce NAME --out DIR`` writes as
``DIR/NAME.json``; the copies in ``docs/results/`` are the numbers the documentation prints.  Three kinds:

``protocol``
    One protocol's run (:meth:`segviz.protocols.ProtocolResult.to_json` plus how it was run): its score tables
    per test portion, the rule, the features, the held-out stop.
``cross-domain``
    Models trained on one protocol's data scored on every protocol's test portions (``research/cross_domain.py``):
    ``cells`` maps a test column to its table payload, ``models`` a row name to the model file.
``default``
    The default model's held-out routing table (``segviz reproduce default``).

The tables of docs/reproduction.md are rendered from these files (:func:`render_region`) into regions delimited by
``<!-- results:NAME -->`` and ``<!-- /results:NAME -->`` (``NAME`` a result file's stem, or ``STEM/PART`` for one
of several tables of a file), so the prose around them stays hand-written and the numbers cannot drift from the
files (:func:`render_document`; a test re-renders every region).  A re-run is compared with a committed file cell by
cell *as printed* (:func:`differing_cells`): rates to a tenth of a percent, segment counts exactly.

Result files are input files: a malformed one is refused with a one-line :class:`SegvizError`.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .errors import SegvizError
from .persist import atomic_write_json, atomic_write_text

RESULT_FORMAT = ("segviz-result", 1)
KINDS = ("protocol", "cross-domain", "default")
#: the rates a table prints, as percentages
PERCENT_KEYS = ("p_mu", "p_k", "window_diff", "precision", "recall")
ROW_KEYS = ("hypothesis_segments", *PERCENT_KEYS, "f1")
#: the baseline and peer rows, in the order the tables print them after the models
TAIL_ROWS = ("c99", "texttiling", "none", "even", "even-words", "random", "all")
ROW_LABELS = {"c99": "C99", "texttiling": "TextTiling", "none": "none", "all": "all", "random": "random",
              "even": "even (told the test's mean segment length, in sentences)",
              "even-words": "even-words (the training mean segment length, in words)"}
#: the cross-domain table's columns: (result cell, heading, P_mu printed too)
CROSS_COLUMNS = (("reuters", "Reuters 018–021", True), ("reuters-files", "Reuters, per file", True),
                 ("longform", "Brown long-form", True), ("wiki", "wiki300 251–300", True),
                 ("choi 3-11", "Choi 2/3-11", True), ("choi 3-5", "2/3-5", False), ("choi 6-8", "2/6-8", False),
                 ("choi 9-11", "2/9-11", False), ("chapters", "Gutenberg test books", True))
CROSS_TAIL = ("c99", "texttiling", "none", "even", "even-words")
#: the cross-domain table's row headings for the models research/cross_domain.py is given by these names
CROSS_LABELS = {"reuters": "Reuters 014–016", "longform": "Brown long-form training texts",
                "wiki": "wiki300 1–200", "choi-disjoint": "Choi set 4, source-disjoint",
                "chapters": "Gutenberg training books", "mixed": "**mixed** (the mixed expert alone)",
                "default": "**default** (the bundled model: experts routed per document)"}
#: the model trained on each test column's own domain (the cross-domain file's row names)
IN_DOMAIN = {"reuters": "reuters", "reuters-files": "reuters", "longform": "longform", "wiki": "wiki",
             "choi 3-11": "choi-disjoint", "choi 3-5": "choi-disjoint", "choi 6-8": "choi-disjoint",
             "choi 9-11": "choi-disjoint", "chapters": "chapters"}

_REGION = re.compile(r"(<!-- results:([\w./+,-]+) -->\n)(.*?)(<!-- /results:\2 -->)", re.S)


# ------------------------------------------------------------------------------------------ files

def protocol_document(payload: Mapping[str, Any], *, options: Mapping[str, Any] | None = None) -> dict:
    """A protocol run's result file: :meth:`~segviz.protocols.ProtocolResult.to_json` with the format header and
    the options it was run with (``options``: the command's protocol options, Segmenter overrides, peers, seed)."""
    return {"format": RESULT_FORMAT[0], "version": RESULT_FORMAT[1], "kind": "protocol",
            "name": payload["protocol"], "options": dict(options or {}), **payload}


def cross_domain_document(models: Mapping[str, str], cells: Mapping[str, Mapping]) -> dict:
    """The cross-domain table's result file: ``models`` (row name -> model file), ``cells`` (column -> table)."""
    return {"format": RESULT_FORMAT[0], "version": RESULT_FORMAT[1], "kind": "cross-domain", "name": "cross-domain",
            "models": dict(models), "cells": dict(cells)}


def default_document(model: str, thresholds, heldout: Mapping[str, Mapping]) -> dict:
    """``reproduce default``'s result file: the model written, its thresholds, its held-out routing table."""
    return {"format": RESULT_FORMAT[0], "version": RESULT_FORMAT[1], "kind": "default", "name": "default",
            "model": str(model), "thresholds": thresholds, "heldout": dict(heldout)}


def write_result(path: str | Path, document: Mapping[str, Any]) -> Path:
    """Write a result file atomically (a run that fails half way leaves the previous file whole)."""
    validate(document, str(path))
    return atomic_write_json(path, document)


def load_result(path: str | Path) -> dict:
    """Read and validate a result file; a missing, unreadable or malformed one is a one-line SegvizError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SegvizError(f"{path}: no such result file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SegvizError(f"{path}: cannot read the result file ({exc})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SegvizError(f"{path}: not a JSON result file (line {exc.lineno}: {exc.msg})") from None
    validate(document, str(path))
    return document


def validate(document: Any, where: str) -> None:
    """Check a result file's structure (what rendering and checking read), naming the first thing wrong."""
    if not isinstance(document, dict):
        raise SegvizError(f"{where}: a result file holds one JSON object")
    if (document.get("format"), document.get("version")) != RESULT_FORMAT:
        raise SegvizError(f"{where}: not a segviz result file (format {document.get('format')!r}, version "
                          f"{document.get('version')!r}; expected {RESULT_FORMAT[0]!r}, {RESULT_FORMAT[1]})")
    kind = document.get("kind")
    if kind not in KINDS:
        raise SegvizError(f"{where}: unknown result kind {kind!r}; expected one of {', '.join(KINDS)}")
    if not isinstance(document.get("name"), str) or not document["name"]:
        raise SegvizError(f"{where}: the result has no name")
    if kind == "protocol":
        tables = document.get("tables")
        if not isinstance(tables, dict) or not tables:
            raise SegvizError(f"{where}: a protocol result needs a non-empty 'tables' object")
        for name, table in tables.items():
            _validate_table(table, f"{where}: table {name!r}")
        rules = document.get("row_rules", {})
        if not isinstance(rules, dict) or not all(isinstance(v, str) for v in rules.values()):
            raise SegvizError(f"{where}: 'row_rules' must map row names to rule descriptions")
        if not isinstance(document.get("features", []), list):
            raise SegvizError(f"{where}: 'features' must be a list")
        if not isinstance(document.get("options", {}), dict):
            raise SegvizError(f"{where}: 'options' must be an object")
        stop = document.get("heldout_stop_features")
        if stop is not None and (isinstance(stop, bool) or not isinstance(stop, int)):
            raise SegvizError(f"{where}: 'heldout_stop_features' must be a whole number or null")
    elif kind == "cross-domain":
        if not isinstance(document.get("models"), dict):
            raise SegvizError(f"{where}: a cross-domain result needs a 'models' object")
        cells = document.get("cells")
        if not isinstance(cells, dict) or not cells:
            raise SegvizError(f"{where}: a cross-domain result needs a non-empty 'cells' object")
        for name, table in cells.items():
            _validate_table(table, f"{where}: cell {name!r}")
    else:
        heldout = document.get("heldout")
        if not isinstance(heldout, dict) or not heldout:
            raise SegvizError(f"{where}: a default-model result needs a non-empty 'heldout' object")
        for name, row in heldout.items():
            if not isinstance(row, dict) or not all(isinstance(row.get(k), dict) for k in ("taken", "alone")) \
                    or not _number(row.get("routed")) or not all(_number(v) for v in row["alone"].values()) \
                    or not all(isinstance(v, int) for v in row["taken"].values()):
                raise SegvizError(f"{where}: held-out row {name!r} needs 'taken' (counts), 'alone' and 'routed' "
                                  "(rates)")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _validate_table(table: Any, where: str) -> None:
    if not isinstance(table, dict):
        raise SegvizError(f"{where} is not an object")
    rows = {k: v for k, v in table.items() if isinstance(v, dict)}
    if not rows:
        raise SegvizError(f"{where} has no rows")
    for name, row in rows.items():
        for key in ROW_KEYS:
            value = row.get(key)
            if value is not None and not _number(value):
                raise SegvizError(f"{where}, row {name!r}: {key} must be a number or null, got {value!r}")
        if row.get("p_k") is None and not row.get("skipped"):
            raise SegvizError(f"{where}, row {name!r}: no P_k and not marked skipped")


# ------------------------------------------------------------------------------------------ cells

def percent(value) -> str:
    """A rate as the tables print it: a percentage to a tenth (what a re-run must reproduce)."""
    return "—" if value is None else f"{100 * value:.1f}%"


def _f1(value) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def _count(value) -> str:
    return "—" if value is None else f"{int(value):,}"


def _rows(table: Mapping[str, Any]) -> dict[str, dict]:
    return {k: v for k, v in table.items() if isinstance(v, dict)}


def _ordered(names: Iterable[str]) -> list[str]:
    """Models first (in the table's order), then the peers and baselines in :data:`TAIL_ROWS` order."""
    names = list(names)
    return [n for n in names if n not in TAIL_ROWS] + [n for n in TAIL_ROWS if n in names]


def _row_label(name: str, document: Mapping[str, Any]) -> str:
    """A protocol table's row heading: which model (all features or the held-out stop) and its decision rule as
    tuned, e.g. ``same, held-out stop (73 features), threshold rule (α = 0.005, ε = 96)``."""
    if name in ROW_LABELS:
        return ROW_LABELS[name]
    stop = re.match(r"model@(\d+) \(held-out stop\)(.*)", name)
    if stop:
        label, suffix = f"same, held-out stop ({stop.group(1)} features)", stop.group(2)
    elif name == "model" or name.startswith("model, "):
        features = len(document.get("features") or ())
        label = f"**model, {features} features**" if name == "model" else "same"
        suffix = name[len("model"):]
    else:
        return name
    rule = document.get("row_rules", {}).get(name)
    if rule:
        kind, _, params = rule.partition(": ")
        return f"{label}, {kind} ({params})" if params else f"{label}, {kind}"
    return label + suffix


Grid = list[tuple[str, str, list[str]]]   # (row key, row heading, cells)


def table_grid(table: Mapping[str, Any], document: Mapping[str, Any]) -> tuple[list[str], Grid]:
    """One score table as the docs print it: the column headings and, per row, its key, heading and cells."""
    header = ["segmenter", "hyp. segments", "P_mu", "P_k", "WindowDiff", "precision", "recall", "F"]
    grid = []
    rows = _rows(table)
    for name in _ordered(rows):
        row = rows[name]
        if row.get("skipped") and row.get("p_k") is None:
            cells = ["skipped"] * 7
        else:
            cells = [_count(row.get("hypothesis_segments")), *(percent(row.get(k)) for k in PERCENT_KEYS),
                     _f1(row.get("f1"))]
        grid.append((name, _row_label(name, document), cells))
    return header, grid


def portions_grid(document: Mapping[str, Any]) -> tuple[list[str], Grid]:
    """Several test portions side by side (Choi's four test sets): P_k % (P_mu %) per portion."""
    tables = document["tables"]
    header = ["segmenter", *(tables[p].get("corpus", p) for p in tables)]
    names = _ordered(dict.fromkeys(n for t in tables.values() for n in _rows(t)))
    grid = []
    for name in names:
        cells = []
        for table in tables.values():
            row = _rows(table).get(name)
            cells.append("—" if row is None or row.get("p_k") is None
                         else f"{percent(row['p_k'])[:-1]} ({percent(row.get('p_mu'))[:-1]})")
        grid.append((name, _row_label(name, document), cells))
    return header, grid


def cross_grid(document: Mapping[str, Any]) -> tuple[list[str], Grid]:
    """The cross-domain table: a row per model (and peer, baseline), a column per test split, P_k % (P_mu %)."""
    cells = document["cells"]
    columns = [c for c in CROSS_COLUMNS if c[0] in cells]
    header = ["trained on \\ tested on", *(heading for _, heading, _ in columns)]
    grid = []
    models = sorted(document["models"], key=lambda m: list(CROSS_LABELS).index(m) if m in CROSS_LABELS else 99)
    for name in [*models, *CROSS_TAIL]:
        out = []
        for key, _, with_mu in columns:
            row = _rows(cells[key]).get(name)
            if row is None or row.get("p_k") is None:
                out.append("—")
            else:
                out.append(percent(row["p_k"])[:-1] + (f" ({percent(row.get('p_mu'))[:-1]})" if with_mu else ""))
        grid.append((name, CROSS_LABELS.get(name, ROW_LABELS.get(name, name)), out))
    return header, grid


def _pk_mu(row: Mapping[str, Any] | None) -> str:
    if row is None or row.get("p_k") is None:
        return "—"
    return f"{percent(row['p_k'])[:-1]} ({percent(row.get('p_mu'))[:-1]})"


def routed_grid(document: Mapping[str, Any], model: str = "default") -> tuple[list[str], Grid]:
    """The cross-domain table turned for one model (the default model, or the mixed expert alone): a row per test
    split, the model (beside the mixed expert alone), the in-domain model, the peers and the baselines; P_k %
    (P_mu %)."""
    cells = document["cells"]
    others = [n for n in ("mixed",) if n in document["models"] and n != model]
    header = ["test split", f"{model}", *(f"{n} expert alone" for n in others), "in-domain model",
              *(ROW_LABELS[n].split(" (")[0] for n in CROSS_TAIL)]
    grid = []
    for key, heading, _ in CROSS_COLUMNS:
        if key not in cells:
            continue
        rows = _rows(cells[key])
        own = IN_DOMAIN.get(key)
        grid.append((key, heading, [_pk_mu(rows.get(model)), *(_pk_mu(rows.get(n)) for n in others),
                                    _pk_mu(rows.get(own)) if own in document["models"] else "—",
                                    *(_pk_mu(rows.get(n)) for n in CROSS_TAIL)]))
    return header, grid


def default_grid(document: Mapping[str, Any]) -> tuple[list[str], Grid]:
    """The default model's held-out routing table: documents per expert, P_k routed and each expert alone."""
    heldout = document["heldout"]
    experts = list(next(iter(heldout.values()))["alone"])
    header = ["held out", "documents to " + " / ".join(experts), "routed",
              *(f"{e} alone" for e in experts)]
    grid = []
    for name, row in heldout.items():
        taken = " / ".join(str(row["taken"].get(e, 0)) for e in experts)
        cells = [taken, percent(row["routed"])[:-1], *(percent(row["alone"].get(e))[:-1] for e in experts)]
        grid.append((name, name, cells))
    return header, grid


def grids(document: Mapping[str, Any], stem: str | None = None) -> dict[str, tuple[list[str], Grid]]:
    """Every table a result file renders, by region name (the file's stem, by default the result's name, or
    ``STEM/PART``)."""
    name, kind = stem or document["name"], document["kind"]
    if kind == "cross-domain":
        out = {name: cross_grid(document)}
        for model in ("default", "mixed"):
            if model in document["models"]:
                out[f"{name}/{model}"] = routed_grid(document, model)
        return out
    if kind == "default":
        return {f"{name}/heldout": default_grid(document)}
    tables = document["tables"]
    if len(tables) > 1:
        out = {name: portions_grid(document)}
        out.update({f"{name}/{part}": table_grid(table, document) for part, table in tables.items()})
        return out
    return {name: table_grid(next(iter(tables.values())), document)}


def markdown(header: list[str], grid: Grid) -> str:
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join([label, *cells]) + " |" for _, label, cells in grid]
    return "\n".join(lines) + "\n"


def _caption(document: Mapping[str, Any], region: str) -> str:
    """The line above a generated table: where its numbers come from."""
    stem = region.partition("/")[0]
    if document["kind"] == "protocol":
        tables = document["tables"]
        part = region.partition("/")[2]
        table = tables[part] if part else next(iter(tables.values()))
        stop = document.get("heldout_stop_features")
        test = (f"test {table.get('corpus')}: {_count(table.get('sentences'))} sentences, "
                f"{_count(table.get('reference_segments'))} reference segments, {table.get('evaluation')}"
                if part or len(tables) == 1 else
                "P_k % (P_mu %) per test set, " + _over(tables))
        flags = run_flags(document.get("options", {}))
        params = document.get("segmenter_params")
        if stop is not None:
            stopping = f"held-out stop at {stop}"
        elif isinstance(params, Mapping) and params.get("stopping") == "heldout":
            # the model stopped itself where the held-out books were best: no second, held-out-stop model
            stopping = "the model's features kept up to its best held-out round"
        else:
            stopping = "held-out stop at the last round"
        return (f"*Generated from `docs/results/{stem}.json` (`segviz reproduce {document['name']}{flags}`): "
                f"train {document.get('train')}, tune {document.get('heldout')}; {test}; {stopping}.*\n\n")
    if document["kind"] == "default":
        return (f"*Generated from `docs/results/default.json`: the held-out routing table stored in "
                f"`{document.get('model')}` (`segviz reproduce default --out DIR` writes DIR/default.json); mean "
                f"per-document P_k %.*\n\n")
    # the model files' paths (recorded in the file) are the run's own; the rows are named after what they are
    return (f"*Generated from `docs/results/{document['name']}.json` (`python research/cross_domain.py NAME=MODEL "
            f"... --result FILE`): P_k % (P_mu %), each column scored as its protocol scores it.*\n\n")


#: the ``reproduce`` options a result records under ``segmenter_params``, by the flag that sets them
SEGMENTER_FLAGS = {"n_features": "--features", "vocabulary": "--vocabulary", "stopping": "--stopping",
                   "templates": "--templates", "min_support": "--min-support", "families": "--families",
                   "l2": "--l2"}


def run_flags(options: Mapping[str, Any]) -> str:
    """The ``segviz reproduce`` flags that re-run a result with these recorded ``options`` (those that differ from
    the protocol's defaults), so a variant's caption names the command that made it."""
    flags = [f"--{k.replace('_', '-')} {v}" for k, v in options.items()
             if k in ("category", "split_seed") and v not in ("all", 0)]
    for name, value in (options.get("segmenter_params") or {}).items():
        shown = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else value
        flags.append(f"{SEGMENTER_FLAGS[name]} {shown}" if name in SEGMENTER_FLAGS else f"--param {name}={shown}")
    peers = options.get("peers")
    if peers is not None:
        flags.append("--peers " + (",".join(peers) or "''"))
    return "".join(" " + flag for flag in flags)


def _over(tables: Mapping[str, Any]) -> str:
    """How the rates of several test portions are averaged, in words ("means over its 50 files")."""
    said = {str(t.get("evaluation", "")) for t in tables.values()}
    counts = {re.sub(r"\D", "", e) for e in said}
    if len(counts) == 1 and counts != {""}:
        return f"means over its {counts.pop()} files"
    return "means over each set's files"


def comparison_grid(stems: list[str], results: Mapping[str, Mapping[str, Any]]) -> tuple[list[str], Grid]:
    """Runs of one protocol with other options side by side: the model rows of each run (headed by the flags that
    made it), then the peer and baseline rows of the first (they do not depend on the model's options)."""
    header, grid = None, []
    for stem in stems:
        document = results[stem]
        if document["kind"] != "protocol" or len(document["tables"]) != 1:
            raise SegvizError(f"docs region results:{'+'.join(stems)}: {stem}.json is not a one-table protocol "
                              f"result")
        header, rows = table_grid(next(iter(document["tables"].values())), document)
        flags = run_flags(document.get("options", {})).strip()
        grid += [(f"{stem}: {key}", f"{f'`{flags}`' if flags else 'defaults'}: {label}", cells)
                 for key, label, cells in rows if key not in TAIL_ROWS]
    first = results[stems[0]]
    grid += [row for row in table_grid(next(iter(first["tables"].values())), first)[1] if row[0] in TAIL_ROWS]
    return header, grid


def side_by_side_grid(stems: list[str], results: Mapping[str, Mapping[str, Any]]) -> tuple[list[str], Grid]:
    """Several protocols' test portions side by side, P_k % (P_mu %): each protocol's own model (its reported
    row), then the peers and baselines every table scores on the same documents."""
    columns = [(stem, part, table) for stem in stems for part, table in results[stem]["tables"].items()]
    header = ["segmenter", *(str(table.get("corpus", part)) for _, part, table in columns)]
    names = ["model", *(n for n in TAIL_ROWS if any(n in _rows(t) for _, _, t in columns))]
    grid = []
    for name in names:
        cells = []
        for _, _, table in columns:
            row = _rows(table).get(name)
            cells.append("—" if row is None or row.get("p_k") is None
                         else f"{percent(row['p_k'])[:-1]} ({percent(row.get('p_mu'))[:-1]})")
        label = "the protocol's own model, 100 features" if name == "model" else ROW_LABELS.get(name, name)
        grid.append((name, label, cells))
    return header, grid


#: how many induced features a ``NAME/features`` region lists (the paper's Figures 5/6 as text)
FIRST_FEATURES = 15


def features_block(document: Mapping[str, Any], count: int = FIRST_FEATURES) -> str:
    """The first induced features of a protocol result as a fenced text block: rank, short name, e^λ, question."""
    features = list(document.get("features") or ())[:count]
    width = max((len(str(f.get("short", ""))) for f in features), default=0)
    lines = [f"{i:3d}. {str(f.get('short', '')):<{width}}  e^lambda = {float(f.get('weight', math.nan)):<10.4g}  "
             f"{f.get('feature', '')}".rstrip() for i, f in enumerate(features, 1)]
    return "```\n" + "\n".join(lines) + "\n```\n"


def render_region(region: str, results: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The generated text of ``region`` from the result files by name, or None when a file it needs is absent (the
    region keeps its hand-written text until the file exists).  ``region`` is ``NAME`` or ``NAME/PART`` (a table
    of one file; ``NAME/features`` its first induced features), ``NAME+VARIANT+...`` (runs of one protocol compared: :func:`comparison_grid`) or
    ``NAME,NAME,...`` (protocols side by side: :func:`side_by_side_grid`)."""
    if "," in region:
        stems = region.split(",")
        if any(stem not in results for stem in stems):
            return None
        files = ", ".join(f"`docs/results/{stem}.json`" for stem in stems)
        return (f"*Generated from {files}: P_k % (P_mu %) on each protocol's test documents, scored as that "
                f"protocol scores them.*\n\n" + markdown(*side_by_side_grid(stems, results)))
    if "+" in region:
        stems = region.split("+")
        if any(stem not in results for stem in stems):
            return None
        files = ", ".join(f"`docs/results/{stem}.json`" for stem in stems)
        first = results[stems[0]]
        return (f"*Generated from {files}: each run's model rows, headed by the `segviz reproduce "
                f"{first['name']}` flags that made it; the peers and baselines of the first.*\n\n"
                + markdown(*comparison_grid(stems, results)))
    stem, _, part = region.partition("/")
    document = results.get(stem)
    if document is None:
        return None
    if part == "features" and document["kind"] == "protocol":
        return (f"*Generated from `docs/results/{stem}.json`: the first {FIRST_FEATURES} features induced, in order, "
                f"with e^λ as refitted in the final model.*\n\n" + features_block(document))
    tables = grids(document, stem)
    if region not in tables:
        raise SegvizError(f"docs region results:{region}: {document['name']}.json renders only "
                          f"{', '.join(tables)}")
    return _caption(document, region) + markdown(*tables[region])


def load_results(directory: str | Path) -> dict[str, dict]:
    """Every ``*.json`` result file of ``directory`` by its stem: ``NAME.json``, or ``NAME-VARIANT.json`` for a run
    of protocol NAME with other options (``longform-fiction.json``: ``--category all-fiction``)."""
    out = {}
    for path in sorted(Path(directory).glob("*.json")):
        document = load_result(path)
        if path.stem != document["name"] and not path.stem.startswith(document["name"] + "-"):
            raise SegvizError(f"{path}: holds the result {document['name']!r}, not {path.stem!r}")
        out[path.stem] = document
    return out


def render_document(text: str, results: Mapping[str, Mapping[str, Any]]) -> tuple[str, list[str]]:
    """``text`` with every results region re-rendered; also the regions left as they were (no file yet)."""
    missing: list[str] = []

    def replace(match: re.Match) -> str:
        rendered = render_region(match.group(2), results)
        if rendered is None:
            missing.append(match.group(2))
            return match.group(0)
        return match.group(1) + rendered + match.group(4)

    return _REGION.sub(replace, text), missing


def regions(text: str) -> list[str]:
    return [m.group(2) for m in _REGION.finditer(text)]


def outside_regions(text: str) -> str:
    """``text`` without its generated regions: the hand-written prose (where no table belongs)."""
    return _REGION.sub("", text)


def update_docs(docs: str | Path, results_dir: str | Path) -> tuple[bool, list[str]]:
    """Re-render the regions of ``docs`` from ``results_dir``; write it (atomically) if anything changed.
    Returns whether it changed and the regions left as they were."""
    docs = Path(docs)
    try:
        text = docs.read_text(encoding="utf-8")
    except OSError as exc:
        raise SegvizError(f"{docs}: cannot read ({exc.strerror or exc})") from None
    new, missing = render_document(text, load_results(results_dir))
    if new != text:
        atomic_write_text(docs, new)
    return new != text, missing


# ------------------------------------------------------------------------------------------ checking

def differing_cells(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    """Every cell the docs would print differently from ``actual`` than from ``expected`` (a committed file), one
    line each: table, row, column, the committed value and the re-run's.  Rows are matched by their key, so a
    held-out stop at another round shows as a row missing and a row added."""
    differences = []
    want, got = grids(expected), grids(actual)
    for region in sorted(set(want) | set(got)):
        if region not in got or region not in want:
            differences.append(f"{region}: table only in the {'committed file' if region in want else 're-run'}")
            continue
        header, rows_want = want[region]
        rows_got = {key: cells for key, _, cells in got[region][1]}
        seen = set()
        for key, _, cells in rows_want:
            seen.add(key)
            if key not in rows_got:
                differences.append(f"{region} / {key}: row missing from the re-run")
                continue
            for column, a, b in zip(header[1:], cells, rows_got[key]):
                if a != b:
                    differences.append(f"{region} / {key} / {column}: {a} committed, {b} re-run")
        differences += [f"{region} / {key}: row only in the re-run" for key in rows_got if key not in seen]
    for key in ("heldout_stop_features",):
        if expected.get(key) != actual.get(key):
            differences.append(f"{key}: {expected.get(key)} committed, {actual.get(key)} re-run")
    want_rules, got_rules = expected.get("row_rules", {}), actual.get("row_rules", {})
    for row in sorted(set(want_rules) & set(got_rules)):
        if want_rules[row] != got_rules[row]:
            differences.append(f"decision rule of {row}: {want_rules[row]} committed, {got_rules[row]} re-run")
    return differences
