"""Variants of the default model's recipe (:mod:`segviz.default_model`) for experiments: Choi-style spliced
documents or Choi's own data in the mixed expert, the mixed expert alone, a router over an already-trained mixed
expert.  The shipped model is ``segviz reproduce default --out DIR`` (no option of this script).

    python research/default_model_variants.py --mixed-only --spliced 100,0 --excerpts starts --out /tmp/m.segviz
    python research/default_model_variants.py --mixed-only --choi-heldout-every 0 --choi-tuning 25 --out /tmp/c.segviz
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from segviz import Segmenter, load_model
from segviz.default_model import CHOI_HELDOUT_EVERY, CHOI_TUNING_DOCUMENTS, SPLICED_DOCUMENTS, build_iter
from segviz.errors import SegvizError
from segviz.events import run_to_end

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def _every_text(every: int | None) -> str:
    return "none" if every is None else str(every)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help=f"the shared corpora (default {DEFAULT_DATA})")
    ap.add_argument("--out", required=True, help="where to write the model")
    ap.add_argument("--spliced", default=",".join(map(str, SPLICED_DOCUMENTS)),
                    help="Choi-style documents spliced from the Brown texts: TRAIN,HELD")
    ap.add_argument("--excerpts", choices=("anywhere", "starts"), default="anywhere",
                    help="where the spliced excerpts start: anywhere in a text, or at its start (Choi's recipe)")
    ap.add_argument("--choi-heldout-every", default=_every_text(CHOI_HELDOUT_EVERY), metavar="K|none",
                    help="Choi's set 4 (source-disjoint segments): 'none' = left out, 0 = all trained on, K = the "
                         "segments of every K-th source text held out for the tuning")
    ap.add_argument("--choi-tuning", type=int, default=CHOI_TUNING_DOCUMENTS, metavar="N",
                    help="documents of Choi's tuning set 1/3-11 among the held-out ones")
    ap.add_argument("--mixed-only", action="store_true", help="save the mixed expert alone")
    ap.add_argument("--mixed-model", metavar="MODEL", default=None,
                    help="route to this already-trained mixed expert instead of training it")
    ap.add_argument("--reuse-from", metavar="MODEL", default=None,
                    help="a router built by this recipe before, whose experts --reuse names are taken as they are")
    ap.add_argument("--reuse", default="", metavar="NAMES",
                    help="comma-separated experts of --reuse-from to keep (e.g. mixed,sections,long-form); the "
                         "others are trained, the router tuned anew")
    args = ap.parse_args(argv)
    try:
        every = None if args.choi_heldout_every == "none" else int(args.choi_heldout_every)
        if every is not None and every < 0:
            raise ValueError
        spliced = tuple(int(x) for x in args.spliced.split(","))
        if len(spliced) != 2 or min(spliced) < 0:
            raise ValueError
    except ValueError:
        ap.error("--choi-heldout-every must be 'none' or a count >= 0; --spliced two counts TRAIN,HELD")
    try:
        mixed = None if args.mixed_model is None else Segmenter.load(args.mixed_model)
        names = [n for n in args.reuse.split(",") if n]
        reuse = {}
        if names:
            if args.reuse_from is None:
                ap.error("--reuse names experts of --reuse-from MODEL")
            old = load_model(args.reuse_from).segmenters()
            missing = [n for n in names if n not in old]
            if missing:
                ap.error(f"{args.reuse_from} has no expert {missing[0]!r} (it has {', '.join(old)})")
            reuse = {n: old[n] for n in names}
        model = run_to_end(build_iter(Path(args.data), spliced_documents=spliced, excerpts=args.excerpts,
                                      choi_heldout_every=every, choi_tuning_documents=args.choi_tuning,
                                      mixed_only=args.mixed_only, mixed_model=mixed, reuse=reuse))
        model.save(args.out)
    except SegvizError as exc:
        print(f"default_model_variants: error: {exc}", file=sys.stderr)
        return 2
    print(f"{model!r} saved to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
