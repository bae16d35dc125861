"""``segviz segment CORPUS... [--model M] [--format F] [-o OUT] [--output-format F]``: find the segments.

* The model is ``--model M`` (a file from ``segviz train``), else the bundled default model
  (``resources/README.md``).  A model with language models warns when the text is out of its domain.
* Each source unit (a file; an object of a JSONL file) is segmented on its own (:mod:`segviz.segmented`): the
  model's boundary probabilities and its own decision rule (a router's chosen expert's); ``--alpha``/``--epsilon``,
  ``--segments`` or ``--mean-length`` replace it (:mod:`segviz.commands.rule_options`).
* Output (:mod:`segviz.writers`): Choi (``.ref``), JSON Lines (``.jsonl``: one object per segment), CSV
  (``.csv``: one row per sentence) or plain text (``.txt``), chosen by OUT's extension or ``--output-format``;
  ``-o -`` (the default) writes Choi to standard output.  Files are written atomically.
* On stderr: what was read (``read FILE as FORMAT: ...``), the model's vocabulary coverage of the text
  (:mod:`segviz.domain`), and what was written.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter

from ..domain import model_coverage
from ..paths import DEFAULT_MODEL_SUMMARY, default_model
from ..segmented import segment_documents_iter
from ..writers import OUTPUT_FORMATS, output_format_for, write_segmentation
from .common import (
    MIN_SENTENCES,
    check_output,
    load_model,
    read_input,
    run_with_progress,
)
from .reading import add_reader_arguments, reader_params
from .rule_options import add_rule_arguments, apply_rule_arguments
from .scheduler import add_scheduler_argument, segment_on_cluster


def describe_routes(model, experts) -> str | None:
    """``the model chose an expert for each document ...: excerpts 3, long-form 1`` (``experts``: the expert of
    each document) for a model of several segmenters; None for one."""
    names = list(model.segmenters())
    if len(names) < 2:
        return None
    taken = Counter(experts)
    said = ", ".join(f"{name} {taken[name]:,}" for name in names if taken[name])
    return f"the model chose an expert for each document (the first whose gauge is at most its threshold): {said}"


def _cmd_segment(args: argparse.Namespace) -> int:
    # everything that can be checked without reading is checked first
    default = not args.model
    model_path = str(default_model()) if default else args.model
    if args.output not in (None, "-"):
        check_output(args.output, corpora=args.inputs, inputs=[model_path], parents=args.parents)
    out_format = output_format_for(args.output, args.output_format)
    seg = apply_rule_arguments(load_model(model_path), args)
    if args.scheduler:
        return _segment_on_cluster(args, seg, model_path, out_format, default)
    corpus = read_input(list(args.inputs), **reader_params(args))
    if default:
        print(f"segviz: no --model given: using {DEFAULT_MODEL_SUMMARY}, {model_path} (train your own with "
              "`segviz train`)", file=sys.stderr)
    coverage = model_coverage(seg, corpus)
    if coverage is not None:
        print(f"segviz: {coverage.message()}", file=sys.stderr)
    documents = run_with_progress(segment_documents_iter(seg, corpus), quiet=args.quiet)
    routes = describe_routes(seg, [d.expert for d in documents])
    if routes:
        print(f"segviz: {routes}", file=sys.stderr)
    write_segmentation(args.output, documents, out_format)
    n_segments = sum(len(d.masses) for d in documents)
    where = "standard output" if args.output in (None, "-") else args.output
    print(f"wrote {where} ({out_format}): {n_segments:,} segments in {len(documents):,} document(s), "
          f"{corpus.n_sentences:,} sentences", file=sys.stderr)
    return 0


def _segment_on_cluster(args, seg, model_path: str, out_format: str, default: bool) -> int:
    """The same command on a Dask cluster (:mod:`.scheduler`): the same output, the same lines on stderr."""
    done = segment_on_cluster(args, seg, model_path, out_format, min_sentences=MIN_SENTENCES)
    if default:
        print(f"segviz: no --model given: using {DEFAULT_MODEL_SUMMARY}, {model_path} (train your own with "
              "`segviz train`)", file=sys.stderr)
    if done.coverage is not None:
        print(f"segviz: {done.coverage.message()}", file=sys.stderr)
    routes = describe_routes(seg, done.experts)
    if routes:
        print(f"segviz: {routes}", file=sys.stderr)
    where = "standard output" if args.output in (None, "-") else args.output
    print(f"wrote {where} ({out_format}): {done.segments:,} segments in {done.units:,} document(s), "
          f"{done.sentences:,} sentences ({done.partitions:,} partitions on {args.scheduler}, {done.seconds:.1f} s)",
          file=sys.stderr)
    return 0


def register(subparsers) -> None:
    s = subparsers.add_parser(
        "segment", help="segment text with a trained model (the bundled default model by default)",
        description="Segment CORPUS (raw prose, one sentence per line, Choi, Reuters SGML, Wiki-727K or JSONL; "
                    "detected from content) with a trained model, each file on its own, by the model's own "
                    "decision rule (or --alpha/--epsilon, --segments, --mean-length).  Writes Choi (.ref), JSONL "
                    "(.jsonl), CSV (.csv) or plain text (.txt) by OUT's extension or --output-format.  Example: "
                    "segviz segment mybook.txt -o segments.jsonl")
    s.add_argument("inputs", nargs="+", metavar="CORPUS", help="files, directories or globs")
    s.add_argument("--model", metavar="MODEL", help="a model from `segviz train` (default: the bundled default model)")
    add_reader_arguments(s)
    s.add_argument("-o", "--output", metavar="OUT", default=None,
                   help="output file, or - for standard output (the default, in Choi format)")
    s.add_argument("--output-format", choices=OUTPUT_FORMATS, default=None,
                   help="choi, jsonl, csv or text (default: by OUT's extension)")
    s.add_argument("--parents", action="store_true", help="create OUT's missing parent directories")
    add_rule_arguments(s)
    add_scheduler_argument(s, partitions=True)
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_cmd_segment)
