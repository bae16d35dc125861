"""``segviz lm train|eval|export-arpa|triggers`` and ``segviz relevance``: the language models of Section 3."""
from __future__ import annotations

import argparse
import sys

from ..errors import SegvizError
from ..limits import MAX_LM_VOCABULARY, MAX_TRIGGER_WINDOW
from ..printable import printable
from .arguments import float_range, int_range, positive_float, positive_int
from .common import check_output, load_language_models, print_json, read_input, run_with_progress
from .reading import add_reader_arguments, reader_params
from .scheduler import add_scheduler_argument, train_on_cluster

#: the most words --vocab and --trigger-vocab may ask for (the three markers <unk> <s> </s> take ids too)
MAX_VOCAB_WORDS = MAX_LM_VOCABULARY - 3

#: the widest relevance profile (sentences each side of a boundary) the command draws
MAX_PROFILE_OFFSET = 10000


def _cmd_train(args: argparse.Namespace) -> int:
    from ..lm import LanguageModels

    check_output(args.out, corpora=args.corpus, parents=args.parents)  # before minutes of training, not after
    lms = LanguageModels(
        vocab_size=args.vocab, window=args.window, n_triggers=args.triggers,
        trigger_vocab=args.trigger_vocab, ranking=args.ranking, prior_variance=args.prior_variance,
        max_iter=args.max_iter, heldout_fraction=args.heldout,
    )
    if args.scheduler:   # the counting passes on a Dask cluster, reached before the corpus is read; the same models
        train_on_cluster(args, lms, lambda: read_input(args.corpus, **reader_params(args)).sentences())
    else:
        run_with_progress(lms.fit_iter(read_input(args.corpus, **reader_params(args)).sentences()))
    lms.save(args.out, parents=args.parents)
    info = lms.info_
    print(f"saved {args.out}: vocabulary {len(lms.vocab_) - 3} words + <unk> <s> </s>, "
          f"{lms.trigger_.sources_.size} trigger pairs; {info.get('train_tokens')} training tokens, "
          f"trigram {info.get('trigram_seconds')} s, triggers {info.get('trigger_seconds')} s", file=sys.stderr)
    for h in lms.trigger_.history_:
        held = "---" if h.heldout_perplexity is None else f"{h.heldout_perplexity:.2f}"
        print(f"  IIS iteration {h.iteration}: held-out perplexity {held}", file=sys.stderr)
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    lms = load_language_models(args.lm)
    corpus = read_input(args.corpus, **reader_params(args))
    result = lms.evaluate(corpus.sentences())
    if args.json:
        print_json(result)
    else:
        print(f"{printable(corpus.name)}: {result['tokens']} tokens, OOV rate {result['oov_rate']:.2%}")
        print(f"  trigram perplexity  {result['trigram_perplexity']:.2f}")
        print(f"  trigger perplexity  {result['trigger_perplexity']:.2f}  "
              f"({1 - result['trigger_perplexity'] / result['trigram_perplexity']:.1%} lower)")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    to_stdout = args.out == "-"
    if not to_stdout:
        check_output(args.out, inputs=[args.lm], parents=args.parents)
    lms = load_language_models(args.lm)
    if to_stdout:
        sys.stdout.write(lms.trigram_.to_arpa())
        return 0
    lms.trigram_.to_arpa(args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _cmd_triggers(args: argparse.Namespace) -> int:
    lms = load_language_models(args.lm)
    rows = lms.trigger_.pairs_table(args.top, sort=args.sort)
    if args.json:
        print_json(rows)
        return 0
    ws = max([len(r["s"]) for r in rows] + [1])
    wt = max([len(r["t"]) for r in rows] + [1])
    print(f"{'s'.ljust(ws)}  {'t'.ljust(wt)}  {'e^lambda':>9}  {'AMI score':>10}")
    for r in rows:
        print(f"{r['s'].ljust(ws)}  {r['t'].ljust(wt)}  {r['exp_lambda']:9.2f}  {r['score']:10.3g}")
    return 0


def _cmd_relevance(args: argparse.Namespace) -> int:
    from ..general_lm import GENERAL_LM_SUMMARY, general_language_models
    from ..relevance import relevance_profile

    lms = load_language_models(args.lm) if args.lm else None   # a bad --lm fails before the corpus is read
    corpus = read_input(args.corpus, **reader_params(args))
    if len(corpus) < 2:
        raise SegvizError(f"{corpus.name}: needs at least two documents (segments) for a relevance profile")
    if lms is not None:
        source = args.lm
    else:
        lms, source = general_language_models(), "bundled general-English"
        print(f"segviz: note: no --lm: relevance from {GENERAL_LM_SUMMARY}", file=sys.stderr)
    prof = relevance_profile(lms, corpus, before=args.before, after=args.after)
    if args.json:
        print_json({**prof, "language_models": source})
        return 0
    print(f"{printable(corpus.name)}: mean sentence relevance by position relative to the segment start "
          f"(language models: {source})")
    print(f"{'offset':>6}  {'mean R':>9}  {'count':>6}")
    for o, m, c in zip(prof["offsets"], prof["mean"], prof["count"]):
        print(f"{o:>6}  {'---' if m is None else f'{m:9.4f}':>9}  {c:>6}")
    return 0


def register(subparsers) -> None:
    lm = subparsers.add_parser("lm", help="train, evaluate and export the language models (Section 3)",
                               description="The Katz trigram and the trigger exponential model of Section 3.")
    sub = lm.add_subparsers(dest="lm_command", metavar="LM_COMMAND")
    lm.set_defaults(func=lambda args: (lm.print_help(), 0)[1])

    t = sub.add_parser("train", help="train both models on CORPUS and save them to a directory")
    t.add_argument("corpus", nargs="+", help="corpus files, directories or globs")
    add_reader_arguments(t)
    t.add_argument("--out", required=True, metavar="LM", help="output file (both models in one file)")
    t.add_argument("--parents", action="store_true", help="create missing directories of --out")
    t.add_argument("--vocab", type=int_range(1, MAX_VOCAB_WORDS), default=20000,
                   help="trigram vocabulary size (default 20000)")
    t.add_argument("--window", type=int_range(1, MAX_TRIGGER_WINDOW), default=500,
                   help=f"trigger history length N in words, 1..{MAX_TRIGGER_WINDOW:,} (default 500)")
    t.add_argument("--triggers", type=positive_int, default=20000, help="number of trigger pairs K (default 20000)")
    t.add_argument("--trigger-vocab", type=int_range(1, MAX_VOCAB_WORDS), default=10000,
                   help="trigger sources/targets among the top words (default 10000)")
    t.add_argument("--ranking", choices=("gain", "residual", "mi"), default="residual",
                   help="pair ranking: AMI of trigram-residual occurrences (default), likelihood gain over the trigram, or plain AMI")
    t.add_argument("--prior-variance", type=positive_float, default=1.0,
                   help="Gaussian prior variance, finite and > 0 (default 1)")
    t.add_argument("--max-iter", type=positive_int, default=200,
                   help="safety cap on IIS iterations; training stops earlier on held-out convergence (default 200)")
    t.add_argument("--heldout", type=float_range(0.0, 0.5, high_open=True), default=0.05,
                   help="held-out fraction for IIS stopping, from 0 up to (not including) 0.5 (default 0.05)")
    add_scheduler_argument(t)
    t.set_defaults(func=_cmd_train)

    e = sub.add_parser("eval", help="perplexities of both models on CORPUS")
    e.add_argument("lm", metavar="LM")
    e.add_argument("corpus", nargs="+")
    add_reader_arguments(e)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.set_defaults(func=_cmd_eval)

    x = sub.add_parser("export-arpa", help="write the trigram in ARPA format")
    x.add_argument("lm", metavar="LM")
    x.add_argument("out", metavar="OUT.arpa", help="output file, or - for standard output")
    x.add_argument("--parents", action="store_true", help="create missing directories of OUT")
    x.set_defaults(func=_cmd_export)

    g = sub.add_parser("triggers", help="list trigger pairs with e^lambda (the paper's Table 1)")
    g.add_argument("lm", metavar="LM")
    g.add_argument("--top", type=positive_int, default=20, help="number of pairs (default 20)")
    g.add_argument("--sort", choices=("weight", "score"), default="weight",
                   help="order by e^lambda (default) or by selection score")
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=_cmd_triggers)

    r = subparsers.add_parser("relevance", help="mean LM relevance against position relative to segment starts",
                              description="The paper's relevance figure (Section 3.3) over CORPUS's documents, "
                                          "with --lm's language models or the bundled general-English ones.")
    r.add_argument("corpus", nargs="+")
    add_reader_arguments(r)
    r.add_argument("--lm", help="language models (from `segviz lm train`; default: the bundled general-English "
                                "ones)")
    r.add_argument("--before", type=int_range(0, MAX_PROFILE_OFFSET), default=10,
                   help="sentences before the boundary (default 10)")
    r.add_argument("--after", type=int_range(1, MAX_PROFILE_OFFSET), default=30,
                   help="sentences after the boundary (default 30)")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_cmd_relevance)
