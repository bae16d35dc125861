"""Open the segviz window for ``segviz gui`` (the CLI's :mod:`segviz.commands.gui` parses, this runs Qt)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import SegvizError


def run(args: argparse.Namespace) -> int:
    """Run the app; returns the process exit status."""
    try:
        from PySide6.QtCore import QSettings, QTimer
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:  # the engine works without Qt; only the app needs it
        raise SegvizError(f"the desktop app needs PySide6 ({exc})") from None
    from . import engine
    from .file_actions import SAMPLE_CORPUS, SAMPLE_MODEL
    from .main_window import MainWindow

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
    from .worker import GeneratorWorker

    for worker in list(GeneratorWorker.instances):
        try:
            if worker.isRunning():
                worker.abort()
                worker.resume()
                worker.wait(10000)   # the event loop is over: blocking here cannot freeze a window
        except RuntimeError:   # already deleted
            pass
