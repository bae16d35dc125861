"""``segviz gui [CORPUS] [--model M] [--screenshot OUT.png]``: the desktop app (bare ``segviz`` runs this)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

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
    """Run the app; returns the process exit status."""
    try:
        from PySide6.QtCore import QSettings, QTimer
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:  # the engine works without Qt; only the app needs it
        raise SegvizError(f"the desktop app needs PySide6 ({exc})") from None
    from ..app import engine
    from ..app.main_window import SAMPLE_CORPUS, SAMPLE_MODEL, MainWindow

    corpus = getattr(args, "corpus", None)
    model = getattr(args, "model", None)
    screenshot = getattr(args, "screenshot", None)
    train = getattr(args, "train", None)
    for path, what in ((corpus, "corpus"), (model, "model")):
        if path is not None and not Path(path).exists():
            raise SegvizError(f"{path}: no such {what} file")
    if screenshot is not None:
        out_dir = Path(screenshot).resolve().parent
        if not out_dir.is_dir():
            raise SegvizError(f"{screenshot}: directory {out_dir} does not exist")

    _ensure_display(headless=screenshot is not None)
    _quiet_qt_messages()
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "segviz"])
    app.setOrganizationName("segviz")
    app.setApplicationName("segviz")
    settings = None
    tmp = None
    if screenshot is not None:
        # a screenshot must not depend on (or change) the user's saved layout
        import tempfile
        tmp = tempfile.TemporaryDirectory(prefix="segviz-shot-")
        settings = QSettings(os.path.join(tmp.name, "settings.ini"), QSettings.IniFormat)
    window = MainWindow(settings=settings)
    window.interactive = screenshot is None
    if screenshot is not None:
        w, _, h = str(getattr(args, "size", "1600x1000")).partition("x")
        window.resize(int(w), int(h))
    window.show()

    default_corpus = corpus is None
    path = corpus or str(SAMPLE_CORPUS)
    # headless, a bad file ends the run (the message is already on stderr); interactive, the dialog was shown
    # and the window stays open with whatever did load
    if not window.open_corpus(path) and screenshot is not None:
        window.close()
        return 2
    if model is not None and not window.open_model(model) and screenshot is not None:
        window.close()
        return 2
    elif train is not None:
        window.features.n_features.setValue(int(train))
        window.start_training(int(train))
    elif default_corpus and window.state.corpus is not None:
        # a newcomer sees a segmentation within seconds: the bundled model if there is one, else training live
        if SAMPLE_MODEL.is_file() and engine.has_segmenter():
            window.open_model(str(SAMPLE_MODEL))
        elif engine.has_segmenter():
            window.start_training(window.features.n_features.value())
    if getattr(args, "block", None):
        window.block_view.set_block(int(args.block) - 1)

    status = {"code": 0}
    if screenshot is not None:
        def shoot():
            if getattr(args, "block", None):
                window.block_view.set_block(int(args.block) - 1)
            window.context.show_position(_interesting_position(window))
            app.processEvents()
            if not window.grab().save(screenshot):
                print(f"segviz: error: cannot write {screenshot}", file=sys.stderr)
                status["code"] = 2
            window.close()
            QTimer.singleShot(0, app.quit)
        window.when_idle(shoot)
    code = app.exec()
    _stop_workers()
    if tmp is not None:
        tmp.cleanup()
    return status["code"] or int(code)


def _interesting_position(window) -> int:
    """A position worth showing in the context panel of a screenshot: the first hypothesised boundary."""
    state = window.state
    start, end = window.block_view.block_range()
    for b in list(state.hypothesis_boundaries) + list(state.reference_boundaries):
        if start < b < end:
            return int(b)
    return max(start, 1)


_NOISE = ("This plugin does not support propagateSizeHints()",)


def _quiet_qt_messages() -> None:
    """Drop the offscreen platform's harmless 'propagateSizeHints' warning; pass everything else on."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(mode, context, message):
        if not message.startswith(_NOISE):
            print(message, file=sys.stderr)

    qInstallMessageHandler(handler)


def _stop_workers() -> None:
    """Last resort at exit: no worker thread may outlive the event loop (Qt aborts on a running QThread)."""
    from ..app.worker import GeneratorWorker

    for worker in list(GeneratorWorker.instances):
        try:
            if worker.isRunning():
                worker.abort()
                worker.resume()
                worker.wait(10000)   # the event loop is over: blocking here cannot freeze a window
        except RuntimeError:   # already deleted
            pass
