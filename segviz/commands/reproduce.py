"""``segviz reproduce [reuters|choi|choi-disjoint|wiki|longform|paper|all] [--json] [--out DIR] [--data DIR]``,
``segviz reproduce NAME --check RESULT.json`` and ``segviz reproduce --tables``.

A thin command over :mod:`segviz.protocols`: runs the protocols of docs/protocols.md end to end and prints the
paper's Tables 5/6 layout (the model, its held-out stop, the peers and the baselines) plus the first induced
features (its Figures 5/6 as text).  With ``--out DIR`` each protocol's full result is also written as
``DIR/NAME.json`` (:mod:`segviz.results`; the committed copies are ``docs/results/NAME.json``); ``--check FILE``
re-runs one protocol and compares every printed cell with FILE; ``--tables`` re-renders the tables of
docs/reproduction.md from docs/results.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from .. import results as result_files
from ..errors import SegvizError
from ..evaluation import table_rows
from ..paths import SOURCE_ROOT
from ..persist import atomic_write_json, atomic_write_text, check_output_path
from ..printable import printable
from .arguments import names_list, seed
from .common import feature_lines, print_json, render_table, run_with_progress
from .train import add_training_arguments, segmenter_params

DEFAULT_DATA = SOURCE_ROOT.parent / "shared" / "corpora"
#: where the committed results live and the document whose tables are rendered from them
RESULTS_DIR = SOURCE_ROOT / "docs" / "results"
TABLES_DOC = SOURCE_ROOT / "docs" / "reproduction.md"
#: the protocols ``--check`` can re-run, one at a time
CHECKABLE = ("reuters", "choi", "choi-disjoint", "wiki", "longform", "chapters")

#: what each choice on the command line runs, in order
SELECTIONS = {
    "reuters": ("reuters",), "choi": ("choi", "choi-disjoint"), "choi-disjoint": ("choi-disjoint",),
    "wiki": ("wiki",), "longform": ("longform",), "chapters": ("chapters",),
    "paper": ("reuters", "choi", "choi-disjoint"),
    "all": ("reuters", "choi", "choi-disjoint", "wiki", "longform", "chapters"),
}

TITLES = {
    "reuters": "Reuters (the paper's Table 5 layout), the test stream as one text",
    "choi": "Choi, literature protocol; per-file means, P_k as in the literature",
    "choi-disjoint": "Choi, source-disjoint training; per-file means, P_k as in the literature",
    "wiki": "wiki300 sections, article by article (means over articles)",
    "longform": "Brown long-form streams, stream by stream (means over streams)",
    "chapters": "chapters of raw Gutenberg books, book by book (means over books)",
}


def render_result(result) -> str:
    """A protocol's result as text: its tables, the decision rule and the first features."""
    seg = result.segmenter
    lines = [f"== {TITLES.get(result.protocol, result.protocol)}: train {result.train}, tune {result.heldout}"]
    for payload in result.tables.values():
        lines.append(render_table(payload, table_rows(payload)))
    stop = "" if result.heldout_stop is None else \
        f", held-out stop at {len(*result.heldout_stop.features().values())}"
    (rule,), (info,), (features,) = (seg.rules().values(), seg.provenance().values(), seg.features().values())
    lines.append(f"{rule.describe()}; "
                 f"{info.get('candidates')} candidates, {len(features)} features{stop}, "
                 f"induction {info.get('induction_seconds')} s, total {result.seconds['total']} s")
    lines.append("first features induced (the paper's Figures 5/6 as text):")
    lines.extend(feature_lines(seg, limit=20))
    return "\n".join(lines)


def _output_directory(out: str | None, parents: bool) -> Path | None:
    """--out DIR: an existing directory, or a new one whose parent exists (every parent with --parents)."""
    if out is None:
        return None
    path = Path(out)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise SegvizError(f"{path}: exists and is not a directory (--out names a directory)")
        if not os.access(path, os.W_OK | os.X_OK):
            raise SegvizError(f"{path}: directory is not writable")
        return path
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists() and not parents:
        raise SegvizError(f"{parent}: no such directory (create it first, or pass --parents)")
    ancestor = parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise SegvizError(f"{ancestor}: is not a directory, cannot create {path} inside it")
    try:
        path.mkdir(parents=parents)
    except OSError as exc:
        raise SegvizError(f"{path}: cannot create directory ({exc.strerror or exc})") from None
    return path


def _score_only(args, which, data: Path, out: Path | None, options: dict, protocols) -> int:
    """``--score NAME=MODEL ...``: no training; the given models on each selected protocol's test portions."""
    from .common import load_model

    models = {name: load_model(path) for name, path in args.score}
    payload, texts = {}, []
    for name in which:
        if name == "choi-disjoint" and "choi" in which:
            continue  # the same test sets as `choi`: scored once
        work = protocols.score_models(name, data, models, protocol_options=options.get(name), peers=args.peers,
                                      seed=args.seed)
        tables = run_with_progress(work, quiet=args.json and not sys.stderr.isatty())
        payload[name] = {"protocol": name, "models": {n: str(p) for n, p in args.score}, "tables": tables}
        text = "\n".join([f"== {TITLES.get(name, name)}: test portions only, models trained elsewhere"]
                         + [render_table(t, table_rows(t)) for t in tables.values()])
        texts.append(text)
        if not args.json:
            print(text)
            print()
    if out is not None:
        atomic_write_json(out / "scores.json", payload)
        atomic_write_text(out / "scores.txt", "\n\n".join(texts) + "\n")
    if args.json:
        print_json(payload)
    return 0


def _model_argument(text: str) -> tuple[str, str]:
    name, sep, path = str(text).partition("=")
    if not sep or not name.strip() or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=MODEL, got {text!r}")
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"{path}: no such model file")
    return name.strip(), path


def _reused_expert(name: str, path: str):
    """``--reuse NAME=MODEL``: a segmenter for the default model's expert NAME (one segmenter, not a router)."""
    from ..default_model import EXPERTS
    from ..models import load_model

    if name not in EXPERTS:
        raise SegvizError(f"--reuse {name}: the default model has no such expert (choose from {', '.join(EXPERTS)})")
    segmenters = list(load_model(path).segmenters().values())
    if len(segmenters) != 1:
        raise SegvizError(f"--reuse {name}: {path} holds {len(segmenters)} segmenters; give a model of one")
    return segmenters[0]


def _reproduce_default(args: argparse.Namespace) -> int:
    """``reproduce default``: rebuild the bundled default model from the shared corpora (its recipe is
    :mod:`segviz.default_model`), save it as OUT/default_model.segviz and print its held-out routing table."""
    from .. import default_model

    # experts built by this recipe before (the chapters protocol's model is the chapters expert) are taken as they
    # are; the router is tuned anew either way.  Checked before anything is read or made.
    reuse = {name: _reused_expert(name, path) for name, path in (args.reuse or ())}
    data, target = _data_and_target(args, "default", "default_model.segviz", "a model")
    result = check_output_path(target.parent / "default.json")   # the held-out table as a result file
    model = run_with_progress(default_model.build_iter(data, reuse=reuse),
                              quiet=args.json and not sys.stderr.isatty())
    model.save(target)
    rows = model.tuning_["domains"]
    thresholds = [threshold for _, _, threshold in model.decision_list()]
    result_files.write_result(result, result_files.default_document(target.name, thresholds, rows))
    if args.json:
        print_json({"model": str(target), "thresholds": thresholds, "heldout": rows})
    else:
        print(f"saved {printable(target)}: {model!r}")
        for name, row in rows.items():
            taken = ", ".join(f"{k} {v}" for k, v in row["taken"].items() if v)
            alone = ", ".join(f"{k} {v:.3f}" for k, v in row["alone"].items())
            print(f"  held out: {name}: {taken} of {row['documents']}; P_k routed {row['routed']:.3f} "
                  f"(each expert alone: {alone})")
    return 0


def _data_and_target(args: argparse.Namespace, command: str, name: str, what: str) -> tuple[Path, Path]:
    """The shared-data directory and OUT/``name``, both checked before the long build of ``reproduce COMMAND``."""
    if args.out is None:
        raise SegvizError(f"reproduce {command} writes {what}: give --out DIR")
    data = Path(args.data) if args.data else DEFAULT_DATA
    if not data.is_dir():
        raise SegvizError(f"{data}: data directory not found (pass --data DIR)")
    return data, check_output_path(_output_directory(args.out, args.parents) / name)


def _reproduce_general_lm(args: argparse.Namespace) -> int:
    """``reproduce general-lm``: rebuild the bundled general-English language models (the recipe is
    :mod:`segviz.general_lm_recipe`), save them as OUT/general_english.segviz-lm and print their held-out
    perplexities per domain."""
    from .. import general_lm_recipe

    data, target = _data_and_target(args, "general-lm", "general_english.segviz-lm", "language models")
    lms, report = run_with_progress(general_lm_recipe.build_iter(data), quiet=args.json and not sys.stderr.isatty())
    lms.save(target)
    if args.json:
        print_json({"language_models": str(target), **report})
    else:
        print(f"saved {printable(target)}: {report['train_tokens']:,} training tokens; {lms.trigger_.sources_.size} trigger pairs")
        for name, row in report["perplexity"].items():
            print(f"  held out: {name}: {row['tokens']:,} tokens, OOV {row['oov_rate']:.2%}; trigram "
                  f"{row['trigram_perplexity']:.2f}, trigger model {row['trigger_perplexity']:.2f}")
    return 0


def _run_options(args: argparse.Namespace, name: str, params: dict) -> dict:
    """How protocol ``name`` was run, as its result file records it (a check compares them too)."""
    options = {"segmenter_params": {k: list(v) if isinstance(v, tuple) else
                                    v if isinstance(v, (str, int, float, bool, list)) else repr(v)
                                    for k, v in params.items()},
               "peers": None if args.peers is None else list(args.peers), "seed": args.seed,
               "lm_vocab": args.lm_vocab}
    if name == "wiki":
        options["keep_titles"] = args.keep_titles
    if name == "longform":
        options.update(category=args.category, split_seed=args.split_seed)
    return options


def _tables(args: argparse.Namespace) -> int:
    """``reproduce --tables``: re-render the generated regions of the docs from the result files."""
    docs = Path(args.docs) if args.docs else TABLES_DOC
    results = Path(args.results) if args.results else RESULTS_DIR
    if not results.is_dir():
        raise SegvizError(f"{results}: no such results directory")
    changed, missing = result_files.update_docs(docs, results)
    print(f"{printable(docs)}: {'tables re-rendered' if changed else 'tables already match'} {printable(results)}")
    for region in missing:
        stems = re.split(r"[+,]", region.partition("/")[0])
        print(f"  results:{region}: no {' or '.join(f'{stem}.json' for stem in stems)} yet, the region's text is "
              f"left as it is")
    return 0


def _check(args: argparse.Namespace, name: str, document: dict, expected: dict) -> int:
    """``--check FILE``: every cell the docs print from FILE against the re-run; 0 when all match, else 1."""
    differences = result_files.differing_cells(expected, document)
    if expected.get("options") != document.get("options"):
        differences.append(f"options: {expected.get('options')} committed, {document.get('options')} re-run")
    if differences:
        print(f"{printable(args.check)}: {len(differences)} cells differ from the re-run of `reproduce {name}`:")
        for line in differences:
            print(f"  {line}")
        return 1
    print(f"{printable(args.check)}: every printed cell matches the re-run of `reproduce {name}`")
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from .. import protocols

    if args.tables:
        if args.check:
            raise SegvizError("--tables re-renders the docs from the result files; --check re-runs one protocol")
        return _tables(args)
    expected = None
    if args.check:
        if args.which not in CHECKABLE:
            raise SegvizError(f"--check re-runs one protocol: one of {', '.join(CHECKABLE)}, not {args.which!r}")
        if args.score:
            raise SegvizError("--check re-runs a protocol's training; --score trains nothing")
        expected = result_files.load_result(args.check)   # a bad file fails now, not after the run
        if expected["kind"] != "protocol" or expected["name"] != args.which:
            raise SegvizError(f"{args.check}: holds the result of {expected['name']!r}, not of `reproduce "
                              f"{args.which}`")
    if args.which == "default":
        return _reproduce_default(args)
    if args.which == "general-lm":
        return _reproduce_general_lm(args)
    which = (args.which,) if expected is not None else SELECTIONS[args.which]
    if args.lm and len({protocols.LM_NAMES.get(p, p) for p in which}) > 1:
        raise SegvizError(f"--lm names one set of language models; `reproduce {args.which}` needs "
                          f"{len(which)} (run one protocol at a time, or let --out DIR cache them)")
    params = segmenter_params(args)
    protocols.new_segmenter(params)  # a misspelt --param fails here, before any reading
    if "longform" in which:
        protocols.check_category(args.category)
    data = Path(args.data) if args.data else DEFAULT_DATA
    if not data.is_dir():
        raise SegvizError(f"{data}: data directory not found (pass --data DIR)")
    if args.lm and not Path(args.lm).exists():
        raise SegvizError(f"{args.lm}: no such language-model file (make one with `segviz lm train`)")
    out = _output_directory(args.out, args.parents)
    options = {"wiki": {"keep_titles": args.keep_titles},
               "longform": {"category": args.category, "split_seed": args.split_seed}}
    if out is not None:  # every file the run will write, checked before hours of work rather than after
        names = (("scores.json", "scores.txt") if args.score else
                 ("reproduce.json", "reproduce.txt", *(f"{p}.json" for p in which)))
        reads = [p for p in (args.lm, *(path for _, path in args.score or ())) if p]   # never written over
        for name in names:
            check_output_path(out / name, inputs=reads)
        for name in () if args.score else which:   # the models and the language-model cache
            protocols.check_outputs(name, out, options.get(name), lm_path=args.lm, inputs=reads)
    if args.score:
        return _score_only(args, which, data, out, options, protocols)
    results = {}
    for name in which:
        work = protocols.reproduce(name, data, protocol_options=options.get(name), segmenter_params=params,
                                   out=out, lm_path=args.lm, lm_params={"vocab_size": args.lm_vocab},
                                   peers=args.peers, seed=args.seed)
        result = run_with_progress(work, quiet=args.json and not sys.stderr.isatty())
        results[name] = result
        if not args.json:
            print(render_result(result))
            print()
    payload = {name: result.to_json() for name, result in results.items()}
    documents = {name: result_files.protocol_document(payload[name], options=_run_options(args, name, params))
                 for name in results}
    if out is not None:
        atomic_write_json(out / "reproduce.json", payload)
        atomic_write_text(out / "reproduce.txt", "\n\n".join(render_result(r) for r in results.values()) + "\n")
        for name, document in documents.items():   # each protocol's result file, as docs/results keeps it
            result_files.write_result(out / f"{name}.json", document)
    if args.json:
        print_json(payload)
    if expected is not None:
        return _check(args, args.which, json.loads(json.dumps(documents[args.which])), expected)
    return 0


def register(subparsers) -> None:
    from ..peers import PEERS

    r = subparsers.add_parser(
        "reproduce", help="run the documented evaluation protocols end to end (docs/protocols.md)",
        description="Train LMs and a segmenter on the documented splits and print the paper's Tables 5/6 layout "
                    "(the model, the peers C99 and TextTiling, the baselines) plus the first induced features "
                    "(Figures 5/6 as text).")
    r.add_argument("which", nargs="?", choices=(*SELECTIONS, "default", "general-lm"), default="paper",
                   help="choi runs both Choi variants; paper (default) = reuters + choi + choi-disjoint; "
                        "all adds wiki and longform; default rebuilds the bundled default model (--out DIR); "
                        "general-lm the bundled general-English language models (--out DIR)")
    r.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    r.add_argument("--check", metavar="RESULT.json",
                   help="re-run the one protocol named and compare every number the docs print (rates to 0.1 "
                        "point) with this result file (e.g. docs/results/wiki.json): exit 0 when all match, else "
                        "print the differing cells and exit 1")
    r.add_argument("--tables", action="store_true",
                   help="run nothing: re-render the tables of docs/reproduction.md from docs/results/*.json")
    r.add_argument("--results", metavar="DIR", help=f"--tables: the result files (default {RESULTS_DIR})")
    r.add_argument("--docs", metavar="FILE", help=f"--tables: the document to re-render (default {TABLES_DOC})")
    r.add_argument("--out", metavar="DIR", help="write models, cached LMs, reproduce.json and reproduce.txt here")
    r.add_argument("--parents", action="store_true", help="create missing parent directories of --out")
    r.add_argument("--data", metavar="DIR", help=f"corpora directory (default {DEFAULT_DATA})")
    r.add_argument("--lm", metavar="LM", help="use these language models instead of training them")
    r.add_argument("--score", type=_model_argument, action="append", metavar="NAME=MODEL", default=None,
                   help="train nothing: score these trained models (row NAME) on the selected protocols' test "
                        "portions, beside the peers and baselines (e.g. a model trained on Reuters tested on "
                        "wiki300: the cross-domain table); repeatable")
    r.add_argument("--reuse", type=_model_argument, action="append", metavar="NAME=MODEL", default=None,
                   help="default: take the expert NAME from MODEL instead of training it again (a model this recipe "
                        "built, e.g. chapters=OUT/chapters-model.segviz from reproduce chapters); repeatable")
    r.add_argument("--peers", type=names_list(tuple(PEERS), "peer"), default=None, metavar="NAMES",
                   help=f"comma-separated peers scored beside the model (default: {','.join(PEERS)}; '' for none)")
    r.add_argument("--seed", type=seed, default=0, help="seed of the random baseline (default 0)")
    r.add_argument("--keep-titles", action="store_true",
                   help="wiki: keep each article's title line (default: dropped, for every segmenter)")
    r.add_argument("--category", default="all", metavar="NAME",
                   help="longform: Brown texts of this category only (e.g. fiction, news, learned), all-fiction "
                        "(the five fiction categories) or all (default)")
    r.add_argument("--split-seed", type=seed, default=0,
                   help="longform: seed of the assignment of texts to train/held-out/test and to streams")
    add_training_arguments(r)
    r.set_defaults(func=_cmd_reproduce)
