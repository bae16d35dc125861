"""``segviz gui [CORPUS] [--model M] [--screenshot OUT.png]``: the desktop app (bare ``segviz`` runs this)."""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys

from ..errors import SegvizError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "gui",
        help="open the desktop app (default: the bundled sample corpus)",
        description=("Open the segviz window: block view of boundary probabilities with reference and hypothesis "
                     "ticks, live feature induction, alpha/epsilon controls and metrics beside the baselines and "
                     "peer segmenters.  With --screenshot, render headlessly (QT_QPA_PLATFORM=offscreen works), "
                     "save a grab of the window once loading/training is done, and exit."),
    )
    p.add_argument("corpus", nargs="?", help="corpus file or directory (Choi .ref, Reuters .sgm, plain text)")
    p.add_argument("--model", metavar="MODEL.json", help="trained segmenter to apply to the corpus")
    p.add_argument("--train", type=int, metavar="N", default=None,
                   help="train language models and induce N features on the corpus in the app")
    p.add_argument("--block", type=int, default=None, metavar="K", help="show block K (1-based) first")
    p.add_argument("--screenshot", metavar="OUT.png", help="save a grab of the window when ready, then exit")
    p.add_argument("--size", default="1600x1000", metavar="WxH", help="window size for --screenshot")
    p.set_defaults(func=run_gui)


def _ensure_display(*, headless: bool) -> None:
    """Fail with one clear line instead of Qt's abort when there is no screen to open a window on.

    A ``--screenshot`` run needs no screen, so it falls back to Qt's offscreen platform by itself.
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


def run_gui(args: argparse.Namespace) -> int:
    """Run the app; returns the process exit status.  Qt is imported only here, lazily, via :mod:`segviz.app`."""
    _ensure_display(headless=getattr(args, "screenshot", None) is not None)
    if importlib.util.find_spec("PySide6") is None:  # the engine works without Qt; only the app needs it
        raise SegvizError("the desktop app needs PySide6: pip install 'PySide6-Essentials>=6.10,<6.11'")
    from ..app.launch import run

    return run(args)
