"""``segviz gui [CORPUS...] [--model M] [--screenshot OUT.png | --benchmark OUT.json]``: the desktop app.

Bare ``segviz`` runs this with the bundled sample.  Every argument is checked here, before Qt starts or any data
is read; the Qt side lives in :mod:`segviz.app.launch`.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
from pathlib import Path

from ..errors import SegvizError

_SIZE = re.compile(r"^\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*$")
MIN_SIDE, MAX_SIDE = 200, 8192


def window_size(text: str) -> tuple[int, int]:
    """``WxH`` in pixels, each side from 200 to 8192."""
    match = _SIZE.match(str(text))
    if not match:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels (e.g. 1600x1000), got {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise argparse.ArgumentTypeError(f"each side must be from {MIN_SIDE} to {MAX_SIDE} pixels, "
                                         f"got {width}x{height}")
    return width, height


def _int_from(text: str, lowest: int) -> int:
    try:
        value = int(str(text).strip(), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not lowest <= value <= 10 ** 6:
        raise argparse.ArgumentTypeError(f"must be an integer from {lowest} to 1000000, got {value}")
    return value


def positive_int(text: str) -> int:
    return _int_from(text, 1)


def count_int(text: str) -> int:
    return _int_from(text, 0)


#: the states ``--close-at`` closes the window in (segviz.app.benchmark)
CLOSE_STATES = ("reading", "applying", "relevance", "peers", "training")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "gui",
        help="open the desktop app (default: the bundled sample corpus)",
        description=("Open the segviz window: block view of boundary probabilities with reference and hypothesis "
                     "ticks, live feature induction, alpha/epsilon controls and metrics beside the baselines and "
                     "peer segmenters.  With --screenshot, render headlessly (QT_QPA_PLATFORM=offscreen works), "
                     "save a grab of the window once loading/training is done, and exit.  With --benchmark, run "
                     "a scripted session headlessly and write its latencies as JSON."),
    )
    p.add_argument("corpus", nargs="*", metavar="CORPUS",
                   help="corpus files or folders, opened together (Choi .ref, Reuters .sgm, text, ...)")
    p.add_argument("--format", metavar="FORMAT", default=None,
                   help="how to read the corpus files (default: detected from their content)")
    headings = p.add_mutually_exclusive_group()
    headings.add_argument("--headings", action="store_true", default=None,
                          help="prose: chapter headings start reference segments (front matter and contents left "
                               "out; default: when the text looks like a book)")
    headings.add_argument("--no-headings", dest="headings", action="store_false", default=None,
                          help="prose: read a book as plain prose (its headings and front matter stay text)")
    p.add_argument("--model", metavar="MODEL", help="a model file (.segviz) to apply to the corpus (default: the "
                                                  "bundled default model)")
    p.add_argument("--train", type=count_int, metavar="N", default=None,
                   help="train language models and induce N features on the corpus in the app; with --benchmark, "
                        "the features of its training step, and 0 leaves that step out (for very large corpora)")
    p.add_argument("--block", type=positive_int, default=None, metavar="K", help="show block K (1-based) first")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--screenshot", metavar="OUT.png", help="save a grab of the window when ready, then exit")
    out.add_argument("--benchmark", metavar="OUT.json",
                     help="open the corpus offscreen, script a session (alpha, epsilon, blocks, documents, zoom, "
                          "export, training, closing) and write its timings as JSON")
    p.add_argument("--close-at", choices=CLOSE_STATES, default=None, metavar="STATE",
                   help="with --benchmark: close the window as soon as it is in STATE (one of "
                        f"{', '.join(CLOSE_STATES)}) and time the close, instead of the scripted session")
    p.add_argument("--export-segments", metavar="OUT.jsonl",
                   help="headless: write the segmentation the window shows, in `segviz segment`'s format (by OUT's "
                        "extension: .jsonl, .csv, .txt or .ref), once the model is applied, then exit")
    p.add_argument("--size", type=window_size, default=(1600, 1000), metavar="WxH",
                   help="window size for --screenshot and --benchmark (default 1600x1000)")
    p.set_defaults(func=run_gui)


def _ensure_display(*, headless: bool) -> None:
    """Fail with one clear line instead of Qt's abort when there is no screen to open a window on.

    A headless run needs no screen, so it falls back to Qt's offscreen platform by itself.
    """
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    if headless:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return
    raise SegvizError(
        "no display to open the window on (DISPLAY is not set). Run it on a desktop or under Xvfb, render it "
        "headless with `segviz gui --screenshot out.png`, or use the CLI (e.g. `segviz baselines CORPUS`)"
    )


def _check_output(path: str, args: argparse.Namespace, suffix: str | None = None, what: str = "output") -> None:
    """The CLI's own check of an output path (:func:`segviz.persist.check_output_path`): a symbolic link, a
    read-only file, a directory, a device, or one of the files the window reads (the corpus, the model) there is
    refused now, before Qt starts, and the app writes through the same atomic writer when it is done."""
    from .common import check_output

    target = Path(path)
    if suffix is not None and target.suffix.lower() != suffix:
        raise SegvizError(f"{path}: the {what} file must end in {suffix}")
    parent = target.parent if str(target.parent) else Path(".")
    if not os.path.lexists(parent):   # said here: the persist message offers --parents, which gui has not
        raise SegvizError(f"{path}: directory {parent} does not exist")
    check_output(target, corpora=args.corpus, inputs=[args.model] if args.model else ())


def run_gui(args: argparse.Namespace) -> int:
    """Run the app; returns the process exit status.  Qt is imported only here, lazily, via :mod:`segviz.app`."""
    for path in args.corpus:
        if not Path(path).exists():
            raise SegvizError(f"{path}: no such corpus file or folder")
    if args.model is not None and not Path(args.model).is_file():
        raise SegvizError(f"{args.model}: no such model file")
    if args.screenshot is not None:
        _check_output(args.screenshot, args, ".png", "screenshot")
    if args.benchmark is not None:
        _check_output(args.benchmark, args, ".json", "benchmark")
    elif args.train == 0:
        raise SegvizError("--train 0 only means something with --benchmark (leave out its training step); "
                          "to train, give a number of features")
    if getattr(args, "close_at", None) is not None and args.benchmark is None:
        raise SegvizError("--close-at times a close in a benchmark run: give --benchmark OUT.json too")
    if args.export_segments is not None:
        if args.benchmark is not None:
            raise SegvizError("--export-segments and --benchmark are two different runs; give one")
        from ..writers import output_format_for

        _check_output(args.export_segments, args)
        output_format_for(args.export_segments, None)
    headless = args.screenshot is not None or args.benchmark is not None or args.export_segments is not None
    _ensure_display(headless=headless)
    if importlib.util.find_spec("PySide6") is None:  # the engine works without Qt; only the app needs it
        raise SegvizError("the desktop app needs PySide6: pip install 'PySide6-Essentials>=6.10,<6.11'")
    from ..app.launch import run

    return run(args)
