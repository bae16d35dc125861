"""The cross-domain table: models trained on one domain, scored on every domain's test split (the paper's Table 6
comparison of a model trained on another source, over Reuters, Brown long-form, wiki300, Choi and their mix).

Every model given as ``NAME=MODEL`` is scored, with nothing retrained, on the test portion of each protocol
(docs/protocols.md) beside the peers (C99, TextTiling) and the baselines (none, even), exactly as the protocol
scores its own model (:func:`segviz.protocols.score_test_portions`):

* ``reuters``: ``reut2-018..021``.  The protocol scores it as one stream (15,062 sentences: C99's n x n matrices
  take a few GB); here it is also scored file by file (four files of ~3,800 sentences), as a user's files would be.
* ``longform``: the Brown long-form test streams (category ``all``, split seed 0), stream by stream.
* ``wiki``: wiki300 articles 251-300, titles dropped, article by article.
* ``choi``: Choi's set 2, 3-11 (and 3-5, 6-8, 9-11 with ``--choi-all``), file by file.
* ``chapters``: the Gutenberg test books (docs/protocols.md), book by book, chapters from their headings.
* ``mixed``: the mean of the Reuters, long-form and wiki300 cells (each domain weighs the same).

    nice python research/cross_domain.py reuters=OUT/reuters-model.segviz longform=OUT/longform-model.segviz \\
        wiki=OUT/wiki-model.segviz default=resources/default_model.segviz --json cross.json --markdown cross.md

``--result FILE`` writes the table as a result file (:mod:`segviz.results`, kind ``cross-domain``): the committed
``docs/results/cross-domain.json``, from which docs/reproduction.md's cross-domain table is rendered.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.events import run_to_end  # noqa: E402
from segviz.models import load_model  # noqa: E402
from segviz.protocols import PROTOCOLS, score_test_portions  # noqa: E402
from segviz.results import cross_domain_document, load_result, write_result  # noqa: E402

DOMAINS = ("reuters", "reuters-files", "longform", "wiki", "choi", "chapters")
MIXED_OF = ("reuters", "longform", "wiki")
ROW_ORDER_TAIL = ("c99", "texttiling", "none", "even", "even-words")
METRICS = ("p_k", "p_mu")


def domain_tables(domain: str, data: Path, models: dict, choi_all: bool, with_peers: bool = True) -> dict[str, dict]:
    """Score tables (test portion -> table payload) of one domain."""
    if domain in ("reuters", "reuters-files"):
        split = PROTOCOLS["reuters"](data)
        if domain == "reuters-files":
            split = replace(split, evaluation="per-document")
    elif domain == "choi":
        split = PROTOCOLS["choi-disjoint"](data)
        if not choi_all:
            split = replace(split, tests={"3-11": split.tests["3-11"]})
    else:
        split = PROTOCOLS[domain](data)
    # C99 runs on the 15,062-sentence Reuters stream too, where the memory is there (it refuses otherwise, and its
    # cell is marked skipped)
    peers = ("c99", "texttiling") if with_peers else ()
    return run_to_end(score_test_portions(split, models, peers=peers))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", metavar="NAME=MODEL")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "corpora"))
    ap.add_argument("--domains", default=",".join(DOMAINS), help="comma-separated, from " + ", ".join(DOMAINS))
    ap.add_argument("--choi-all", action="store_true", help="all four Choi test sets (default: 2/3-11)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--markdown", default=None)
    ap.add_argument("--result", default=None, metavar="FILE",
                    help="write the cells as a segviz result file (docs/results/cross-domain.json)")
    ap.add_argument("--no-peers", action="store_true", help="score no peer (their rows come from --merge)")
    ap.add_argument("--merge", default=None, metavar="FILE",
                    help="a cross-domain result file whose models and rows join these (a model added to a table "
                         "without scoring the others again; the baselines are the same either way)")
    args = ap.parse_args(argv)
    models = {}
    for item in args.models:
        name, _, path = item.partition("=")
        models[name] = load_model(path)
    cells: dict[str, dict] = {}
    for domain in [d for d in args.domains.split(",") if d]:
        t0 = time.perf_counter()
        for portion, table in domain_tables(domain, Path(args.data), models, args.choi_all,
                                            not args.no_peers).items():
            key = domain if portion == "test" else f"{domain} {portion}"
            cells[key] = table
            print(f"{key}: {time.perf_counter() - t0:.0f} s", flush=True)
    columns = list(cells)
    if all(d in cells for d in MIXED_OF):
        columns.append("mixed")
    names = list(models) + [r for r in ROW_ORDER_TAIL]
    lines = []
    for metric in METRICS:
        lines += [f"{metric.replace('_', ' ').upper()} (%)", "",
                  "| model | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
        for name in names:
            values = []
            for column in columns:
                if column == "mixed":
                    parts = [cells[d].get(name, {}).get(metric) for d in MIXED_OF]
                    value = None if any(p is None for p in parts) else sum(parts) / len(parts)
                else:
                    value = cells[column].get(name, {}).get(metric)
                values.append("–" if value is None else f"{100 * value:.1f}")
            lines.append(f"| {name} | " + " | ".join(values) + " |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    if args.result:
        given = dict(item.partition("=")[::2] for item in args.models)
        cells = json.loads(json.dumps(cells, default=str))
        if args.merge:
            earlier = load_result(args.merge)
            given = {**earlier["models"], **given}
            cells = {key: {**earlier["cells"].get(key, {}), **table} for key, table in cells.items()}
        write_result(args.result, cross_domain_document(given, cells))
    if args.json:
        Path(args.json).write_text(json.dumps({"models": dict(item.partition("=")[::2] for item in args.models),
                                               "cells": cells}, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
