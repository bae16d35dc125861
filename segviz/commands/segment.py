"""``segviz segment CORPUS... [--model M] [--format F] [-o OUT] [--output-format F]``: find the segments.

* The model is ``--model M`` (a file from ``segviz train``), else the bundled default model (trained on a mix of
  newswire, long-form prose and Wikipedia sections; ``resources/README.md``).  A model with language models warns
  when the text is out of its domain.  The earlier form ``segviz segment MODEL
  CORPUS...`` still works: a first argument whose *content* is a segviz model is taken as the model.
* Each source unit (a file; an object of a JSONL file) is segmented on its own (:mod:`segviz.segmented`): the
  decision rule of Section 7 on the model's boundary probabilities; ``--alpha``/``--epsilon`` override the
  model's tuned values.
* Output (:mod:`segviz.writers`): Choi (``.ref``), JSON Lines (``.jsonl``: one object per segment), CSV
  (``.csv``: one row per sentence) or plain text (``.txt``), chosen by OUT's extension or ``--output-format``;
  ``-o -`` (the default) writes Choi to standard output.  Files are written atomically.
* On stderr: what was read (``read FILE as FORMAT: ...``), the model's vocabulary coverage of the text
  (:mod:`segviz.domain`), and what was written.
"""
from __future__ import annotations

import argparse
import sys

from ..domain import model_coverage
from ..errors import SegvizError
from ..paths import DEFAULT_MODEL_SUMMARY, default_model
from ..persist import check_output_path
from ..segmented import segment_documents_iter
from ..writers import OUTPUT_FORMATS, output_format_for, write_segmentation
from .arguments import positive_int, probability
from .common import load_model, read_input, run_with_progress
from .evaluate import looks_like_model
from .reading import add_reader_arguments, reader_params


def _model_and_corpus(args: argparse.Namespace) -> tuple[str, list[str], bool]:
    """(model path, corpus paths, whether the model is the bundled default)."""
    inputs = list(args.inputs)
    if looks_like_model(inputs[0]):
        if args.model:
            raise SegvizError(f"{inputs[0]} is a model file, and --model {args.model} names another; give one")
        if len(inputs) < 2:
            raise SegvizError(f"{inputs[0]} is a model; give the corpus to segment after it")
        print(f"segviz: taking {inputs[0]} as the model (the earlier form; `segviz segment --model MODEL CORPUS` "
              "says it explicitly)", file=sys.stderr)
        return inputs[0], inputs[1:], False
    if args.model:
        return args.model, inputs, False
    return str(default_model()), inputs, True


def _cmd_segment(args: argparse.Namespace) -> int:
    # everything that can be checked without reading is checked first
    if args.output not in (None, "-"):
        check_output_path(args.output, parents=args.parents)
    out_format = output_format_for(args.output, args.output_format)
    model_path, corpus_paths, default = _model_and_corpus(args)
    seg = load_model(model_path)
    corpus = read_input(corpus_paths, **reader_params(args))
    if default:
        print(f"segviz: no --model given: using {DEFAULT_MODEL_SUMMARY}, {model_path} (train your own with "
              "`segviz train`)", file=sys.stderr)
    coverage = model_coverage(seg, corpus)
    if coverage is not None:
        print(f"segviz: {coverage.message()}", file=sys.stderr)
    documents = run_with_progress(segment_documents_iter(seg, corpus, alpha=args.alpha, epsilon=args.epsilon),
                                  quiet=args.quiet)
    routed = [d.expert for d in documents if d.expert]
    if routed:
        taken = ", ".join(f"{name} {routed.count(name):,}" for name in seg.names_ if name in routed)
        print(f"segviz: the model chose an expert for each document (segviz.routing; the first whose gauge is at "
              f"most its threshold): {taken}", file=sys.stderr)
    write_segmentation(args.output, documents, out_format)
    n_segments = sum(len(d.masses) for d in documents)
    where = "standard output" if args.output in (None, "-") else args.output
    print(f"wrote {where} ({out_format}): {n_segments:,} segments in {len(documents):,} document(s), "
          f"{corpus.n_sentences:,} sentences", file=sys.stderr)
    return 0


def register(subparsers) -> None:
    s = subparsers.add_parser(
        "segment", help="segment text with a trained model (the bundled default model by default)",
        description="Segment CORPUS (raw prose, one sentence per line, Choi, Reuters SGML, Wiki-727K or JSONL; "
                    "detected from content) with a trained model: boundaries where q(yes) > alpha, at least "
                    "epsilon sentences apart (Section 7), each file on its own.  Writes Choi (.ref), JSONL "
                    "(.jsonl), CSV (.csv) or plain text (.txt) by OUT's extension or --output-format.  Example: "
                    "segviz segment mybook.txt -o segments.jsonl")
    s.add_argument("inputs", nargs="+", metavar="CORPUS", help="files, directories or globs (the earlier form "
                                                               "MODEL CORPUS... is still accepted)")
    s.add_argument("--model", metavar="MODEL", help="a model from `segviz train` (default: the bundled default model)")
    add_reader_arguments(s)
    s.add_argument("-o", "--output", metavar="OUT", default=None,
                   help="output file, or - for standard output (the default, in Choi format)")
    s.add_argument("--output-format", choices=OUTPUT_FORMATS, default=None,
                   help="choi, jsonl, csv or text (default: by OUT's extension)")
    s.add_argument("--parents", action="store_true", help="create OUT's missing parent directories")
    s.add_argument("--alpha", type=probability, default=None, help="override the model's threshold (0..1)")
    s.add_argument("--epsilon", type=positive_int, default=None,
                   help="override the model's minimum separation (sentences, >= 1)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_cmd_segment)
