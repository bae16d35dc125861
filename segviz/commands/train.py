"""``segviz train TRAIN... --heldout HELD... [--lm LM_DIR] --out MODEL.json [--features 100]``.

Induce a boundary model (Sections 4-5) and tune alpha/epsilon on held-out data (Section 7).  The training
options shared with ``segviz reproduce`` are declared once, in :func:`add_training_arguments`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..corpus import read_corpus
from ..errors import SegvizError
from ..lm.models import LanguageModels
from .common import feature_lines, load_language_models, run_with_progress


def _cmd_train(args: argparse.Namespace) -> int:
    from ..segmenter import Segmenter

    train = read_corpus(args.train)
    held = read_corpus(args.heldout) if args.heldout else None
    if len(train) < 2:
        raise SegvizError(f"{train.name}: training needs at least 2 documents (reference segments)")
    # Validate the cheap parameters before minutes of language-model training.
    if args.features < 1:
        raise SegvizError(f"--features must be >= 1, got {args.features}")
    if args.vocabulary < 1:
        raise SegvizError(f"--vocabulary must be >= 1, got {args.vocabulary}")
    lms = None
    if not args.no_relevance:
        if args.lm:
            lms = load_language_models(args.lm)
        else:
            print(f"segviz: no --lm given: training language models on {train.name} first", file=sys.stderr)
            lms = LanguageModels(vocab_size=args.lm_vocab)
            run_with_progress(lms.fit_iter(train.sentences()))
    seg = Segmenter(n_features=args.features, vocabulary=args.vocabulary, use_relevance=not args.no_relevance,
                    stopping=args.stopping, cohesion=args.cohesion, min_support=args.min_support,
                    peer_evidence=bool(args.peer_evidence), templates=args.templates)
    run_with_progress(seg.fit_iter(train, held, lms), quiet=args.quiet)
    if args.lm and lms is not None:
        seg.lm_dir_ = str(Path(args.lm).resolve())
    seg.save(args.out)
    info = seg.info_
    print(f"saved {args.out}: {len(seg.features_)} features from {info.get('candidates')} candidates, "
          f"alpha = {seg.alpha_:g}, epsilon = {seg.epsilon_}, 1/mu = {1 / seg.mu_:.1f} sentences, "
          f"{info.get('tuned_on')} P_mu = {info.get('tuned_p_mu', float('nan')):.4f}, "
          f"induction {info.get('induction_seconds')} s", file=sys.stderr)
    for line in feature_lines(seg, limit=args.show):
        print(line, file=sys.stderr)
    return 0


def add_training_arguments(p: argparse.ArgumentParser) -> None:
    """The Segmenter's options, shared by ``train`` and ``reproduce``."""
    p.add_argument("--features", type=int, default=100, help="features to induce (default 100, as in the paper)")
    p.add_argument("--vocabulary", type=int, default=30000,
                   help="candidate vocabulary: the N most frequent training words (default 30000)")
    p.add_argument("--no-relevance", action="store_true", help="vocabulary questions only (no language models)")
    p.add_argument("--stopping", choices=("last", "heldout"), default="last",
                   help="keep all induced features (last) or the round with the best held-out P_mu")
    p.add_argument("--lm-vocab", type=int, default=20000, help="trigram vocabulary when LMs are trained here")
    p.add_argument("--templates", choices=("paper", "extended"), default="extended",
                   help="vocabulary questions: the paper's 15 plus next/previous 10 sentences and 2/3 words "
                        "(extended, default) or the paper's 15 only")
    p.add_argument("--min-support", type=int, default=1,
                   help="drop candidate questions firing on fewer training events (default 1: keep all, as the paper)")
    p.add_argument("--no-cohesion", dest="cohesion", action="store_false",
                   help="the paper's candidates only: no lexical-cohesion interval questions (our addition)")
    p.add_argument("--peer-evidence", dest="peer_evidence", action="store_true", default=None,
                   help="add interval questions about C99/TextTiling evidence (rank-matrix contrast, C99 boundary "
                        "nearby, C99 split step, TextTiling depth), computed per source file (our addition; "
                        "default: on in `reproduce choi-disjoint`, off elsewhere)")
    p.add_argument("--no-peer-evidence", dest="peer_evidence", action="store_false",
                   help="no peer-evidence questions (the default everywhere except `reproduce choi-disjoint`)")


def register(subparsers) -> None:
    t = subparsers.add_parser(
        "train", help="induce a boundary model (Sections 4-5) and tune alpha/epsilon (Section 7)",
        description="Train a segmenter: candidate features on TRAIN, greedy feature induction, alpha/epsilon "
                    "tuned on --heldout to maximise P_mu.  Without --lm the language models are trained on TRAIN "
                    "first and saved beside the model as MODEL.lm/.")
    t.add_argument("train", nargs="+", metavar="TRAIN_CORPUS", help="training corpus files, directories or globs")
    t.add_argument("--heldout", nargs="+", metavar="CORPUS", help="held-out corpus for P_mu per round and tuning")
    t.add_argument("--lm", metavar="LM_DIR", help="language models from `segviz lm train`")
    t.add_argument("--out", required=True, metavar="MODEL.json", help="where to write the model")
    t.add_argument("--show", type=int, default=20, help="features to list at the end (default 20)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    add_training_arguments(t)
    t.set_defaults(func=_cmd_train)
