"""``segviz train TRAIN... --heldout HELD... [--lm LM] --out MODEL [--features 100]``.

Induce a boundary model (Sections 4-5) and tune alpha/epsilon on held-out data (Section 7).  The Segmenter
options shared with ``segviz reproduce`` are declared once, in :func:`add_training_arguments`, and turned into
Segmenter keyword arguments by :func:`segmenter_params`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import SegvizError
from ..persist import check_output_path
from .arguments import family_names, non_negative_float, non_negative_int, positive_int, segmenter_param
from .common import feature_lines, load_language_models, read_input, run_with_progress
from .reading import add_reader_arguments, reader_params

#: command-line option (dest) -> Segmenter parameter
_OPTION_PARAMS = {"features": "n_features", "vocabulary": "vocabulary", "use_relevance": "use_relevance",
                  "stopping": "stopping", "templates": "templates", "min_support": "min_support",
                  "cohesion": "cohesion", "peer_evidence": "peer_evidence", "families": "families", "l2": "l2"}


def segmenter_params(args: argparse.Namespace) -> dict:
    """The Segmenter keyword arguments the user set (options left unset keep the Segmenter's or the protocol's
    default); ``--param NAME=VALUE`` entries last."""
    params = {param: getattr(args, dest) for dest, param in _OPTION_PARAMS.items()
              if getattr(args, dest, None) is not None}
    for name, value in getattr(args, "param", None) or ():
        params[name] = value
    return params


def _cmd_train(args: argparse.Namespace) -> int:
    from ..lm.models import LanguageModels
    from ..segmenter import Segmenter

    check_output_path(args.out, parents=args.parents)  # before minutes of training, not after
    if args.lm and not Path(args.lm).exists():
        raise SegvizError(f"{args.lm}: no such language-model file (make one with `segviz lm train`)")
    seg = Segmenter(**segmenter_params(args))
    train = read_input(args.train, **reader_params(args))
    held = read_input(args.heldout, **reader_params(args)) if args.heldout else None
    if len(train) < 2:
        raise SegvizError(f"{train.name}: training needs at least 2 documents (reference segments)")
    lms = None
    if seg.use_relevance:
        if args.lm:
            lms = load_language_models(args.lm)
        else:
            print(f"segviz: no --lm given: training language models on {train.name} first", file=sys.stderr)
            lms = LanguageModels(vocab_size=args.lm_vocab)
            run_with_progress(lms.fit_iter(train.sentences()))
    run_with_progress(seg.fit_iter(train, held, lms), quiet=args.quiet)
    seg.save(args.out, parents=args.parents)
    info = seg.info_
    print(f"saved {args.out}: {len(seg.features_)} features from {info.get('candidates')} candidates, "
          f"alpha = {seg.alpha_:g}, epsilon = {seg.epsilon_}, 1/mu = {1 / seg.mu_:.1f} sentences, "
          f"{info.get('tuned_on')} P_mu = {info.get('tuned_p_mu', float('nan')):.4f}, "
          f"induction {info.get('induction_seconds')} s", file=sys.stderr)
    for line in feature_lines(seg, limit=args.show):
        print(line, file=sys.stderr)
    return 0


def add_training_arguments(p: argparse.ArgumentParser) -> None:
    """The Segmenter's options, shared by ``train`` and ``reproduce``.  Unset options are None, so the
    Segmenter's (or the protocol's) own default applies."""
    p.add_argument("--features", type=positive_int, default=None,
                   help="features to induce (default 100, as in the paper)")
    p.add_argument("--vocabulary", type=positive_int, default=None,
                   help="candidate vocabulary: the N most frequent training words (default 30000)")
    p.add_argument("--no-relevance", dest="use_relevance", action="store_const", const=False, default=None,
                   help="vocabulary questions only (no language models)")
    p.add_argument("--stopping", choices=("last", "heldout"), default=None,
                   help="keep all induced features (last, default) or the round with the best held-out P_mu")
    p.add_argument("--lm-vocab", type=positive_int, default=20000,
                   help="trigram vocabulary when LMs are trained here (default 20000)")
    p.add_argument("--templates", choices=("paper", "extended"), default=None,
                   help="vocabulary questions: the paper's 15 plus next/previous 10 sentences and 2/3 words "
                        "(extended, default) or the paper's 15 only")
    p.add_argument("--min-support", type=positive_int, default=None,
                   help="drop candidate questions firing on fewer training events (default 1: keep all, as the paper)")
    p.add_argument("--no-cohesion", dest="cohesion", action="store_const", const=False, default=None,
                   help="the paper's candidates only: no lexical-cohesion interval questions (our addition)")
    p.add_argument("--peer-evidence", dest="peer_evidence", action="store_true", default=None,
                   help="add interval questions about C99/TextTiling evidence (rank-matrix contrast, C99 boundary "
                        "nearby, C99 split step, TextTiling depth), computed per source file (our addition; "
                        "default: on in `reproduce choi-disjoint`, off elsewhere)")
    p.add_argument("--no-peer-evidence", dest="peer_evidence", action="store_false",
                   help="no peer-evidence questions (the default everywhere except `reproduce choi-disjoint`)")
    p.add_argument("--families", type=family_names, default=None, metavar="NAMES",
                   help="candidate families to ask about, comma-separated (e.g. vocabulary,relevance,cohesion,"
                        "tfidf,names; default: vocabulary, relevance and cohesion, as the switches above say)")
    p.add_argument("--l2", type=non_negative_float, default=None, metavar="PRECISION",
                   help="Gaussian prior on the weights (precision; 0 = none, the paper's default)")
    p.add_argument("--param", action="append", type=segmenter_param, metavar="NAME=VALUE", default=None,
                   help="any other Segmenter parameter, VALUE read as JSON when it is JSON "
                        "(e.g. --param lambda_max=5 --param 'epsilons=[1,2,4,8]'); repeatable")


def register(subparsers) -> None:
    t = subparsers.add_parser(
        "train", help="induce a boundary model (Sections 4-5) and tune alpha/epsilon (Section 7)",
        description="Train a segmenter: candidate features on TRAIN, greedy feature induction, alpha/epsilon "
                    "tuned on --heldout to maximise P_mu.  Without --lm the language models are trained on TRAIN "
                    "first.  The model and its language models are saved as one file.")
    t.add_argument("train", nargs="+", metavar="TRAIN_CORPUS", help="training corpus files, directories or globs")
    t.add_argument("--heldout", nargs="+", metavar="CORPUS", help="held-out corpus for P_mu per round and tuning")
    add_reader_arguments(t)
    t.add_argument("--lm", metavar="LM", help="language models from `segviz lm train`")
    t.add_argument("--out", required=True, metavar="MODEL", help="where to write the model")
    t.add_argument("--parents", action="store_true", help="create missing directories of --out")
    t.add_argument("--show", type=non_negative_int, default=20, help="features to list at the end (default 20)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    add_training_arguments(t)
    t.set_defaults(func=_cmd_train)
