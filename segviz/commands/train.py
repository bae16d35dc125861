"""``segviz train TRAIN... --heldout HELD... [--lm LM] --out MODEL [--features 100] [--preset NAME]``.

Induce a boundary model (Sections 4-5) and tune its decision rule on held-out data (Section 7).  Raw prose is read
with its headings (``--headings`` is implied, book or not: a book's chapters are its reference; ``--no-headings``
leaves prose without one).  By default
(``--preset auto``) the configuration is chosen on the held-out data: the paper's and the natural-boundary
configurations are each trained and scored on the held-out documents, and the best is kept
(:mod:`segviz.selection`; the choice and every candidate's score are printed and stored in the model).  Options
that set the configuration themselves (``--families``, ``--rule``, ``--l2``, ``--param`` of those) or
``--preset NAME`` train that one configuration.  The Segmenter options shared with ``segviz reproduce`` are
declared once, in :func:`add_training_arguments`, and turned into Segmenter keyword arguments by
:func:`segmenter_params`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import SegvizError
from ..limits import MAX_FEATURES, MAX_L2, MAX_LM_VOCABULARY
from .arguments import family_names, float_range, int_range, non_negative_int, positive_int, segmenter_param
from .common import check_output, feature_lines, load_language_models, read_input, run_with_progress
from .reading import add_reader_arguments, reader_params

#: command-line option (dest) -> Segmenter parameter
_OPTION_PARAMS = {"features": "n_features", "vocabulary": "vocabulary", "stopping": "stopping",
                  "templates": "templates", "min_support": "min_support", "families": "families", "l2": "l2"}
#: ``--preset NAME``: segviz.selection.PRESETS (named here so that ``segviz --help`` imports no numpy; a test keeps
#: the two the same)
PRESET_NAMES = ("paper", "natural", "natural-pmu", "natural-threshold", "natural-strong-prior", "natural-words",
                "natural-words-pmu")
#: ``--rule NAME``: the decision rule tuned on the held-out data
RULE_CHOICES = ("threshold", "length_prior", "segment_count")


def segmenter_params(args: argparse.Namespace) -> dict:
    """The Segmenter keyword arguments the user set (options left unset keep the Segmenter's or the protocol's
    default); ``--param NAME=VALUE`` entries last."""
    from ..rules import RULES

    params = {param: getattr(args, dest) for dest, param in _OPTION_PARAMS.items()
              if getattr(args, dest, None) is not None}
    rule, unit = getattr(args, "rule", None), getattr(args, "length_unit", None)
    # only the length prior measures a segment; a unit given with another rule would be silently ignored
    if unit is not None and rule != "length_prior":
        raise SegvizError("--length-unit: only the length_prior rule measures segments; give --rule length_prior")
    if rule is not None:
        params["rule"] = RULES[rule](**({"unit": unit} if unit is not None else {}))
    # each --param value was read from its JSON form and checked by its argument type (a rule is an object)
    for name, value in getattr(args, "param", None) or ():
        params[name] = value
    return params


#: Segmenter parameters that make a configuration (the search leaves them alone when the user sets one)
CONFIGURATION_PARAMS = ("families", "rule", "l2", "tuning_metric", "tuning_units")


def _cmd_train(args: argparse.Namespace) -> int:
    from ..lm.models import LanguageModels
    from ..segmenter import Segmenter
    from ..selection import AUTO_PRESETS, PRESETS, Selection, select_iter

    # before minutes of training, not after; never over what training reads
    check_output(args.out, corpora=[*args.train, *(args.heldout or ())], inputs=[args.lm], parents=args.parents)
    if args.lm and not Path(args.lm).is_file():
        raise SegvizError(f"{args.lm}: no such language-model file (make one with `segviz lm train`)")
    params = segmenter_params(args)
    Segmenter(**params).check_params()   # a value beyond the limits is the one line, before any note
    preset = args.preset
    own = sorted(set(params) & set(CONFIGURATION_PARAMS))
    if preset == "auto" and own:
        print(f"segviz: note: --{own[0].replace('_', '-')} sets the configuration: no search (the options given, "
              "over the Segmenter's defaults)", file=sys.stderr)
        preset = None
    if preset == "auto" and not args.heldout:
        print("segviz: note: no --heldout: the paper's configuration (give --heldout to let train choose one)",
              file=sys.stderr)
        preset = "paper"
    base = {} if preset in (None, "auto") else PRESETS[preset]
    seg = Segmenter(**{**base, **params}).check_params()
    # training needs a reference: in raw prose (a book) the chapter headings are it, so they are read unless refused,
    # also in prose too short of numbered chapters to look like a book (sections under Markdown headings)
    reading = {**reader_params(args), "headings": args.headings is not False}
    train = read_input(args.train, **reading)
    held = read_input(args.heldout, **reading) if args.heldout else None
    if len(train) < 2:
        raise SegvizError(f"{train.name}: training needs at least 2 documents (reference segments)")
    lms = None
    if args.lm:
        lms = load_language_models(args.lm)
    elif preset == "auto" or "relevance" in seg.candidate_families():
        # the relevance questions need language models: the training text's own when it is large enough to learn
        # triggers from, else the bundled general-English ones (segviz.general_lm).  The search (auto) takes the
        # bundled ones whatever the size: training language models cost a third of a 25-book search, for the one
        # configuration (paper) that loses on books by 7 points P_k; --preset paper or --lm trains them
        from ..general_lm import GENERAL_LM_SUMMARY, MIN_OWN_LM_TOKENS, general_language_models

        tokens = sum(len(s) for s in train.sentences())
        if tokens >= MIN_OWN_LM_TOKENS and preset != "auto":
            print(f"segviz: no --lm given: training language models on {train.name} first ({tokens:,} tokens)",
                  file=sys.stderr)
            lms = LanguageModels(vocab_size=args.lm_vocab)
            run_with_progress(lms.fit_iter(train.sentences()))
        else:
            try:
                lms = general_language_models()
                why = ("the search uses them (--preset paper or --lm gives the paper's configuration language "
                       "models of the training text's own)" if tokens >= MIN_OWN_LM_TOKENS else
                       f"{tokens:,} training tokens, fewer than the {MIN_OWN_LM_TOKENS:,} language models of its own "
                       "need")
                print(f"segviz: note: no --lm and {why}: relevance from {GENERAL_LM_SUMMARY} (saved with the "
                      "model)", file=sys.stderr)
            except SegvizError as exc:   # an installation without them: no relevance questions, as before
                print(f"segviz: note: no --lm and no relevance questions ({exc})", file=sys.stderr)
    if preset == "auto":
        references = _bundled_reference(held)
        selection = run_with_progress(select_iter(train, held, lms, presets=AUTO_PRESETS, params=params,
                                                  references=references), quiet=args.quiet)
        seg = selection.model
        _report(selection, f"configurations tried on {held.name} ({_scoring_words(selection)}; the highest "
                           "P_mu - P_k wins)")
    else:
        run_with_progress(seg.fit_iter(train, held, lms), quiet=args.quiet)
        seg.info_["selection"] = {"chosen": preset or "given", "how": "named, not searched"}
        if held is not None:
            # the one configuration scored as the search scores its candidates, beside the trivial baselines
            named = Selection.of(seg, preset or "given", held)
            seg.info_["selection"].update(heldout=named.scores, baselines=named.baselines)
            _report(named, f"on {held.name} ({_scoring_words(named)})")
    seg.save(args.out, parents=args.parents)
    (info,), (rule,), (features,), (lengths,) = (seg.provenance().values(), seg.rules().values(),
                                                 seg.features().values(), seg.training_lengths().values())
    print(f"saved {args.out}: {len(features)} features from {info.get('candidates')} candidates, "
          f"{rule.describe()}, 1/mu = {lengths.mean_length:.1f} sentences, tuned on {info.get('tuned_on')} "
          f"({info.get('tuning')}: {info.get('tuned_score', float('nan')):.4f}), "
          f"induction {info.get('induction_seconds')} s", file=sys.stderr)
    for line in feature_lines(seg, limit=args.show):
        print(line, file=sys.stderr)
    return 0


def _bundled_reference(held) -> dict:
    """The bundled default model's expert for text like the held-out documents (the one its router chooses for
    most of them), as a candidate of the search: ``{"bundled-NAME": segmenter}``, or nothing when no default model
    is installed."""
    from collections import Counter

    from ..models import load_model

    try:
        default = load_model()
    except SegvizError as exc:
        print(f"segviz: note: the bundled default model is not compared ({exc})", file=sys.stderr)
        return {}
    experts = default.segmenters()
    if len(experts) == 1:
        return {f"bundled-{name}": seg for name, seg in experts.items()}
    routed = Counter(default.route(unit).expert for unit in held.by_file() if unit.n_sentences >= 3)
    if not routed:
        return {}
    name = routed.most_common(1)[0][0]
    return {f"bundled-{name}": experts[name]}


def _report(selection, heading: str) -> None:
    """The held-out table under ``heading``, then, plainly, where the model kept loses to a trivial baseline."""
    print(f"segviz: {heading}:", file=sys.stderr)
    for line in selection.table():
        print(f"segviz:   {line}", file=sys.stderr)
    for shortfall in selection.shortfalls():
        print(f"segviz: warning: {selection.chosen}: {shortfall}", file=sys.stderr)


def _scoring_words(selection) -> str:
    """How the held-out scores of a selection table were taken, in words."""
    if all(row.get("cross_fitted") for row in selection.scores.values()):
        return "each document on its own, decided by the rule as tuned on the other documents"
    return "one document: the rule tuned and scored on it"


def add_training_arguments(p: argparse.ArgumentParser) -> None:
    """The Segmenter's options, shared by ``train`` and ``reproduce``.  Unset options are None, so the
    Segmenter's (or the protocol's) own default applies."""
    p.add_argument("--features", type=int_range(1, MAX_FEATURES), default=None,
                   help="features to induce (default 100, as in the paper)")
    p.add_argument("--vocabulary", type=positive_int, default=None,
                   help="candidate vocabulary: the N most frequent training words (default 30000)")
    p.add_argument("--stopping", choices=("last", "heldout"), default=None,
                   help="keep all induced features (last, default) or the round with the best held-out P_mu")
    p.add_argument("--lm-vocab", type=int_range(1, MAX_LM_VOCABULARY - 3), default=20000,
                   help="trigram vocabulary when LMs are trained here (default 20000)")
    p.add_argument("--templates", choices=("paper", "extended"), default=None,
                   help="vocabulary questions: the paper's 15 plus next/previous 10 sentences and 2/3 words "
                        "(extended, default) or the paper's 15 only")
    p.add_argument("--min-support", type=positive_int, default=None,
                   help="drop candidate questions firing on fewer training events (default 1: keep all, as the paper)")
    p.add_argument("--families", type=family_names, default=None, metavar="NAMES",
                   help="candidate families to ask about, comma-separated (e.g. vocabulary,relevance,cohesion,"
                        "tfidf,names,peer; default: vocabulary, relevance and cohesion; relevance needs language "
                        "models, which are trained on TRAIN unless --lm is given)")
    p.add_argument("--rule", choices=RULE_CHOICES, default=None,
                   help="the decision rule tuned on the held-out data: threshold (the paper's alpha/epsilon, "
                        "default), length_prior (for long segments) or segment_count")
    p.add_argument("--length-unit", choices=("sentences", "words"), default=None,
                   help="with --rule length_prior: measure a segment's length in sentences (default) or in words "
                        "(for books: an author of long sentences writes fewer of them to a chapter)")
    p.add_argument("--l2", type=float_range(0.0, MAX_L2), default=None, metavar="PRECISION",
                   help="Gaussian prior on the weights (precision; 0 = none, the paper's default)")
    p.add_argument("--param", action="append", type=segmenter_param, metavar="NAME=VALUE", default=None,
                   help="any other Segmenter parameter, VALUE read as JSON when it is JSON "
                        "(e.g. --param lambda_max=5 --param iis_tol=1e-5); repeatable")


def register(subparsers) -> None:
    t = subparsers.add_parser(
        "train", help="induce a boundary model (Sections 4-5) and tune its decision rule (Section 7)",
        description="Train a segmenter: candidate features on TRAIN, greedy feature induction, the decision rule "
                    "tuned on --heldout.  Without --lm the search (the default) asks relevance of the bundled "
                    "general-English language models; a named configuration (--preset paper, --families ...) trains "
                    "language models on TRAIN first when it has 500,000+ tokens.  "
                    "The model and its language models are saved as one file.")
    t.add_argument("train", nargs="+", metavar="TRAIN_CORPUS", help="training corpus files, directories or globs")
    t.add_argument("--heldout", nargs="+", metavar="CORPUS", help="held-out corpus for P_mu per round and tuning")
    add_reader_arguments(t)
    t.add_argument("--lm", metavar="LM", help="language models from `segviz lm train`")
    t.add_argument("--out", required=True, metavar="MODEL", help="where to write the model")
    t.add_argument("--parents", action="store_true", help="create missing directories of --out")
    t.add_argument("--show", type=non_negative_int, default=20, help="features to list at the end (default 20)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    add_training_arguments(t)
    t.add_argument("--preset", choices=("auto", *PRESET_NAMES), default="auto",
                   help="the configuration: auto (default: the paper's and the natural-boundary configurations "
                        "each trained and scored on --heldout, the best kept), paper (the paper's setup: "
                        "vocabulary and relevance questions, the alpha/epsilon rule for P_mu), natural (cohesion, "
                        "tf-idf, shape, position and paragraph questions, a Gaussian prior, the length-prior rule "
                        "for the mean P_k per document), natural-pmu (the same tuned for P_mu), natural-threshold, "
                        "natural-strong-prior, natural-words and natural-words-pmu (segment lengths measured in "
                        "words)")
    t.set_defaults(func=_cmd_train)
