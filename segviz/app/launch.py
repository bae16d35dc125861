"""Open the segviz window for ``segviz gui`` (the CLI's :mod:`segviz.commands.gui` parses, this runs Qt).

Closing the window cancels every background step and the process exits once they have ended; a step stuck in a
long engine call (a thread cannot be interrupted inside numpy) gets :data:`EXIT_GRACE_S`, after which the process
exits anyway -- nothing it computes is worth keeping a windowless process alive, the files segviz writes are
replaced in one rename, and the training child ends with its parent.
"""
from __future__ import annotations

import argparse
import gc
import os
import signal
import socket
import sys
import time

from ..errors import SegvizError
from .platform_check import start_platform_check

#: how long a closed window waits for background steps before the process exits regardless
EXIT_GRACE_S = 1.5
#: how long the process waits, after its event loop, for the engine it told to end (it is killed after 1 s)
ENGINE_EXIT_S = 3.0
#: the interpreter's thread switch interval while the window runs (the default is 5 ms).  Every Qt call from
#: Python releases and re-takes the GIL; with a worker thread running Python, each re-take waited up to the whole
#: interval, so a repaint making dozens of such calls stretched by hundreds of milliseconds (the convoy effect)
SWITCH_INTERVAL_S = 0.0005


def startup_model(model: str | None, default_model) -> str | None:
    """The model a window opens together with its first corpus: the one given, else the bundled default model
    (None without one).  Opened with the corpus, as ``--model`` opens one, the engine reads and applies it while
    the window reads; opened once the corpus was shown, it waited for the window's whole reading first."""
    if model is not None or default_model is None:
        return model
    return str(default_model)


def startup_read_options(args: argparse.Namespace) -> dict:
    """The reader options of the corpus given on the command line: ``--format`` and ``--headings`` /
    ``--no-headings`` when given; without either the reader decides (a text that looks like a book is read as one,
    as the Open dialog's "Any corpus" reads it)."""
    options = {"format": args.format} if getattr(args, "format", None) else {}
    headings = getattr(args, "headings", None)
    if headings is not None:
        options["headings"] = headings
    return options


def _load_engine() -> None:
    """Import the engine, and numba's machinery behind its compiled kernels, before Qt.

    PySide6 wraps ``__import__`` and reads the source of every module imported after it; and the first call of a
    compiled kernel (the decision rule, the trigger scans) imports some 140 modules of numba.  Done later, in a
    worker thread, that held the GIL against the window for a quarter of a second at the worst moment (the
    corpus opening); done here it costs well under a second before the window appears."""
    import numpy as np

    from ..decode import greedy_order_keep
    from ..readers.sentences import split_sentences
    from ..service import peers_job, tasks, training_job  # noqa: F401 - Qt-free; they import the engine

    greedy_order_keep(np.array([0.9, 0.2, 0.7]), 2)
    split_sentences("One. Two.")   # the sentence splitter's imports (syntok, regex), used by most readers


def _qt_running() -> bool:
    """Whether this process runs Qt already (the app opened from Python, as the tests do)."""
    core = sys.modules.get("PySide6.QtCore")
    return core is not None and core.QCoreApplication.instance() is not None


def run(args: argparse.Namespace) -> int:
    """Run the app; returns the process exit status."""
    signals = _SignalsClose()   # first: a SIGTERM while the engine loads waits for the window, then closes it
    try:
        return _run(args, signals)
    finally:
        signals.restore()


def _run(args: argparse.Namespace, signals: _SignalsClose) -> int:
    headless = args.screenshot is not None or args.benchmark is not None or \
        getattr(args, "export_segments", None) is not None
    # whether Qt's platform can start is asked of a child while the engine loads: Qt aborts where it cannot
    check = None if _qt_running() else start_platform_check(headless=headless)
    try:
        _load_engine()
    except BaseException:
        if check is not None:
            check.cancel()
        raise
    if check is not None:
        check.finish()
    try:
        from PySide6.QtCore import QSettings, QTimer
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:  # the engine works without Qt; only the app needs it
        raise SegvizError(f"the desktop app needs PySide6 ({exc})") from None
    from ..service.temp_dirs import owned_temporary_directory
    from .file_actions import SAMPLE_CORPUS, save_image
    from .gui_gc import collect_on_gui_thread
    from .main_window import MainWindow

    corpus = list(args.corpus or [])
    model, screenshot, benchmark, train, block = args.model, args.screenshot, args.benchmark, args.train, args.block
    read_options = startup_read_options(args)
    export = getattr(args, "export_segments", None)

    _quiet_qt_messages()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "segviz"])
    collect_on_gui_thread()
    app.setOrganizationName("segviz")
    app.setApplicationName("segviz")
    settings = None
    tmp = None
    if headless:
        # a screenshot or a benchmark must not depend on (or change) the user's saved layout
        tmp = owned_temporary_directory("segviz-shot-")
        settings = QSettings(os.path.join(tmp.name, "settings.ini"), QSettings.IniFormat)
    window = MainWindow(settings=settings)
    # everything made so far (modules, the window and its plots) lives as long as the process: out of the cyclic
    # collector's passes, or its first pass on the GUI thread walks all of it (50-150 ms at the open)
    gc.freeze()
    window.interactive = not headless
    status = {"code": 0, "closed_at": None}
    if headless:
        width, height = args.size
        window.resize(width, height)
    window.show()

    def fail() -> None:
        # headless, a bad file ends the run (the message is already on stderr); interactive, the dialog was
        # shown and the window stays open with whatever did load
        if headless:
            status["code"] = 2
            window.close()

    def after_corpus(_label: str) -> None:
        window.corpusLoaded.disconnect(after_corpus)
        window.corpusFailed.disconnect(fail)
        if train is not None:
            window.features.n_features.setValue(int(train))
            window.start_training(int(train))
        elif default_corpus and model is None:
            # a newcomer without the bundled model (it is opened with the corpus when there is one) sees training
            window.start_training(window.features.n_features.value())
        if block:
            window.block_view.set_block(int(block) - 1)

    default_corpus = not corpus
    driver = None
    if benchmark is not None:
        from .benchmark import Benchmark

        # the script has its own training step: --train sets its features, and 0 leaves it out
        driver = Benchmark(window, benchmark, status=status, train=train,
                           close_at=getattr(args, "close_at", None))
        train = None
        window.corpusFailed.connect(lambda _m: driver.abandon())
        driver.start()
    model = startup_model(model, window.default_model)
    window.corpusLoaded.connect(after_corpus)
    window.corpusFailed.connect(fail)
    if headless:   # an error that would be a dialog ends a headless run with status 2
        window.errorShown.connect(lambda _m: fail())
    def begin() -> None:
        # after the window's first paint (plots included): the reading thread would compete with it
        if not window.open_corpus(corpus or [str(SAMPLE_CORPUS)], **read_options):
            fail()
        elif model is not None and not window.open_model(model):
            fail()

    window.after_first_paint(begin)

    def on_close_requested() -> None:
        status["closed_at"] = time.perf_counter()
        # background steps get a grace period; a step stuck inside one long engine call is not waited for
        QTimer.singleShot(int(EXIT_GRACE_S * 1000),
                          lambda: _exit_now(status, tmp) if window.busy else None)

    window.closeRequested.connect(on_close_requested)
    signals.connect(window, status)
    # the window may close while hidden (it waited for its workers), which Qt does not count as the last one
    window.closed.connect(lambda: QTimer.singleShot(0, app.quit))

    if export is not None:
        def export_segments():
            # the shown segmentation, in `segviz segment`'s format: the same documents, experts and rules
            from ..writers import output_format_for, write_segmentation

            if status["code"]:
                return
            try:
                write_segmentation(export, window.state.segmented_documents(), output_format_for(export, None))
            except (SegvizError, ValueError, OSError) as exc:
                print(f"segviz: error: {export}: {exc}", file=sys.stderr)
                status["code"] = 2
            if screenshot is None:
                window.close()
        window.after_first_paint(lambda: window.when_idle(export_segments))

    if screenshot is not None:
        def shoot():
            if status["code"]:
                return
            if block:
                window.block_view.set_block(int(block) - 1)
            window.context.show_position(_interesting_position(window), explain=False)
            app.processEvents()
            try:
                save_image(window.grab().toImage(), screenshot)
            except SegvizError as exc:
                print(f"segviz: error: {exc}", file=sys.stderr)
                status["code"] = 2
            window.close()
        # registered after ``begin``: idle means the corpus and model it starts are shown, not that nothing began
        window.after_first_paint(lambda: window.when_idle(shoot))
    app.exec()
    if driver is not None:
        driver.loop_ended()
    # the engine was told to end when the window closed: the process leaves after it (and its forked workers,
    # which end with it), never before, so that nothing of the session outlives it
    engine = getattr(window, "_engine", None)
    if engine is not None:
        engine.wait_closed(ENGINE_EXIT_S)
    if driver is not None:
        driver.engine_gone()
        driver.finish()
    _finish(tmp)
    return status["code"]


def _exit_now(status: dict, tmp) -> None:
    """The window is closed but a background step is still inside an engine call: leave without it."""
    from .benchmark import Benchmark

    Benchmark.flush_pending(forced=True)
    _finish(tmp)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status["code"])


def _finish(tmp) -> None:
    # the run's and the engine's working directories go with the session, however it ended (os._exit skips every
    # finaliser and every step's own clean-up)
    from ..service.temp_dirs import remove_owned

    if tmp is not None:
        tmp.cleanup()
    remove_owned()


class _SignalsClose:
    """SIGTERM and SIGINT close the window the way its close button does: running steps are cancelled, their
    children ended and every temporary directory removed, and the process exits with 128 + the signal's number.

    Python runs a signal handler only when the interpreter next gets control, which inside Qt's event loop may be
    never; so the signal's number is written to a socket (:func:`signal.set_wakeup_fd`) that the event loop
    watches.  A signal that arrives before the window exists waits in the socket until the loop starts."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self):
        self.reader, self.writer = socket.socketpair()
        self.reader.setblocking(False)
        self.writer.setblocking(False)
        self.notifier = None
        self.previous_fd, self.previous = None, {}
        try:
            self.previous_fd = signal.set_wakeup_fd(self.writer.fileno(), warn_on_full_buffer=False)
        except ValueError:   # not the main thread (an embedding caller): signals keep their own handling
            return
        self.previous = {number: signal.signal(number, self._noted) for number in self.SIGNALS}

    @staticmethod
    def _noted(_number, _frame) -> None:
        """Nothing to do here: the number is already in the socket (a handler must exist, or the default
        action -- exit at once, or KeyboardInterrupt -- would skip the close)."""

    def connect(self, window, status: dict) -> None:
        from PySide6.QtCore import QSocketNotifier

        def received() -> None:
            try:
                numbers = self.reader.recv(64)
            except OSError:
                return
            for number in numbers:
                if number in self.SIGNALS:
                    if not status["code"]:
                        status["code"] = 128 + number
                    window.close()

        self.notifier = QSocketNotifier(self.reader.fileno(), QSocketNotifier.Read)
        self.notifier.activated.connect(received)

    def restore(self) -> None:
        if self.notifier is not None:
            self.notifier.setEnabled(False)
        if self.previous_fd is not None:
            signal.set_wakeup_fd(self.previous_fd)
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        self.reader.close()
        self.writer.close()


def _interesting_position(window) -> int:
    """A position worth showing in the context panel of a screenshot: the first hypothesised boundary."""
    state = window.state
    start, end = window.block_view.block_range()
    for b in list(state.hypothesis_boundaries[:1000]) + list(state.reference_boundaries[:1000]):
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


__all__ = ["run", "EXIT_GRACE_S"]
