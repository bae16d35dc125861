"""The segviz main window: block view in the centre, decision/metrics, context and induction panels in docks.

The window assembles the views, menus, toolbar and status bar, and composes its helpers: ``self.background``
(:class:`~segviz.app.background.BackgroundWork`: every long step as a named background task, the progress bar
and Cancel), ``self.files`` (:class:`~segviz.app.file_actions.FileActions`: open corpus/model, recent files, drag
and drop, save, export), ``self.model_control`` (applying a model, tuning its decision rule) and ``self.training``
(:class:`~segviz.app.training_control.TrainingControl`: Train/Step/Run/Pause/Stop).  All state lives in the
:class:`~segviz.app.state.SessionState` behind ``self.session``.  Bad input of any kind ends in
:meth:`MainWindow.show_error` (a QMessageBox, patched in tests) and never replaces what is loaded.
"""
from __future__ import annotations

import gc
import html
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QObject, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMessageBox, QSpinBox, QToolBar

from ..metrics import score_row
from ..service.engine_models import LanguageModelFiles
from ..service.engine_process import EngineProcess
from ..service.general_relevance import TASK as GENERAL_RELEVANCE
from ..service.general_relevance import GeneralRelevanceJob
from ..service.peers_job import PeersJob
from ..service.tasks import files_changed, peer_names
from ..service.temp_dirs import remove_abandoned
from .background import BackgroundWork
from .block_view import BlockView
from .feature_panel import FeaturePanel
from .file_actions import SAMPLE_MODEL, FileActions, as_list
from .first_paint import StagedFirstPaint
from .model_control import ModelControl
from .panels import ContextPanel, DecisionPanel, RelevanceProfileView, plural
from .qt_session import QtSession
from .state import SessionState
from .training_control import TrainingControl
from .worker import GeneratorWorker

ORGANIZATION = "segviz"
APPLICATION = "segviz"


def default_settings() -> QSettings:
    return QSettings(ORGANIZATION, APPLICATION)


def literal_text(message: str) -> str:
    """``message`` as a dialog shows it literally: a dialog reads text that looks like HTML (a file named
    ``<b>x</b>.txt``) as markup, so such a message is given as escaped rich text; any other stays plain."""
    if QtGui.Qt.mightBeRichText(message):
        return "<p>" + html.escape(message) + "</p>"
    return message


class MainWindow(QMainWindow):
    """The desktop app.  ``settings`` defaults to the user's QSettings; tests pass an ini file in a temp dir."""

    busyChanged = Signal(bool)
    corpusLoaded = Signal(str)
    corpusFailed = Signal(str)
    modelApplied = Signal()          # the model's curve and its relevance trace are on screen
    curveShown = Signal()            # the model's curve, ticks, metrics and feature table are on screen
    tuned = Signal()
    exported = Signal(str)
    saved = Signal(str)
    errorShown = Signal(str)
    closeRequested = Signal()        # the user (or a script) asked to close; the window may wait for workers
    closed = Signal()                # the window has closed for real (no worker left)
    trainingFinished = Signal(str)   # "done", "cancelled" or the error message
    peersComputed = Signal()
    roundShown = Signal(int)         # an induced feature is in the table and its curve is drawn

    def __init__(self, *, settings: QSettings | None = None, parent=None):
        super().__init__(parent)
        self.settings = settings if settings is not None else default_settings()
        self.setObjectName("segvizMainWindow")
        self.setWindowTitle("segviz")
        self.setAcceptDrops(True)
        self._errors: list[str] = []
        self.interactive = True   # False for --screenshot: errors go to stderr instead of a modal dialog
        self.heldout_start: int | None = None   # first sentence of the held-out documents of an in-app model
        #: applied to a text without reference when no model is open (None: leave it unsegmented)
        self.default_model: Path | None = SAMPLE_MODEL if SAMPLE_MODEL.is_file() else None

        self.session = QtSession(SessionState(alpha=_setting(self.settings, "decision/alpha", 0.5, float),
                                              epsilon=_setting(self.settings, "decision/epsilon", 2, int)), self)
        self.state = self.session.state
        self._engine: EngineProcess | None = None
        remove_abandoned()   # the working directories of windows that died without removing theirs
        # which file holds which language models, for the engine (a model trained here is applied there)
        self.lm_files = LanguageModelFiles()
        self.background = BackgroundWork(self)
        self.background.busyChanged.connect(self.busyChanged)
        self.background.allFinished.connect(self._background_done)
        self.files = FileActions(self)
        self.model_control = ModelControl(self)
        self.training = TrainingControl(self)
        saved_peers = self.settings.value("peers/shown", None)
        self._wanted_peers = set(peer_names()) if saved_peers is None else set(as_list(saved_peers))

        block_size = _setting(self.settings, "view/block_size", 250, int)
        self.block_view = BlockView(self.session, block_size=block_size)
        self.setCentralWidget(self.block_view)

        self.decision = DecisionPanel(self.session)
        self.context = ContextPanel(self.session)
        self.features = FeaturePanel(self.session)
        self.profile = RelevanceProfileView(self.session)
        self.decision_dock = self._dock("Decision and metrics", "decisionDock", self.decision, Qt.RightDockWidgetArea)
        self.context_dock = self._dock("Context", "contextDock", self.context, Qt.RightDockWidgetArea)
        self.features_dock = self._dock("Feature induction", "featuresDock", self.features, Qt.BottomDockWidgetArea)
        self.profile_dock = self._dock("Relevance profile", "profileDock", self.profile, Qt.BottomDockWidgetArea)
        self.splitDockWidget(self.features_dock, self.profile_dock, Qt.Horizontal)
        self.resizeDocks([self.features_dock, self.profile_dock], [700, 300], Qt.Horizontal)
        self.resizeDocks([self.decision_dock, self.context_dock], [300, 300], Qt.Vertical)
        self.resizeDocks([self.decision_dock], [430], Qt.Horizontal)
        self.resizeDocks([self.features_dock], [250], Qt.Vertical)
        self.decision.set_peer_names(peer_names(), self.toggle_peer)
        # a box is checked when its peer is wanted, computed yet or not: a checked box is a peer that runs, and
        # only a checked one runs (they were computed unchecked, minutes of C99 at 10^6 sentences)
        for name in sorted(self._wanted_peers):
            self.state.show_peer(name, True)

        self._build_actions()
        self._build_toolbar()
        self._build_statusbar()
        self._connect()
        self.resize(1500, 950)
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        layout = self.settings.value("window/state")
        if layout is not None:
            self.restoreState(layout)
        self.update_actions()
        self.first_paint = StagedFirstPaint(self)

    # -- the first paint, in passes (segviz.app.first_paint) ---------------------------------------------------
    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        """On the first show the plots are held back and then drawn one per event-loop pass."""
        super().showEvent(event)
        bv = self.block_view
        self.first_paint.start([bv.plot, bv.overview, bv.rel_plot, self.features.plots.ci,
                                self.profile.getPlotItem()])

    def reveal_plots(self) -> None:
        """Show every held plot now (an export or a screenshot must not wait for the passes)."""
        self.first_paint.finish()

    def after_first_paint(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the window and all its plots have been painted (at once if they have): work
        started earlier, e.g. reading a corpus in a thread, would compete with the first paint."""
        self.first_paint.after(callback)

    # -- construction -----------------------------------------------------------------------------------------
    def _dock(self, title, name, widget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable
                         | QDockWidget.DockWidgetClosable)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, text, slot, shortcut=None, tip=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        self.open_action = self._action("&Open corpus...", self.files.open_corpus_dialog, QKeySequence.Open,
                                        "Open one or more files, read together (prose, one sentence per line, "
                                        "Choi, Reuters SGML, Wiki-727K, JSONL; the format detected or chosen)")
        self.open_folder_action = self._action("Open &folder...", self.files.open_folder_dialog, "Ctrl+Shift+O",
                                               "Open every file of a folder as one corpus")
        self.open_model_action = self._action("Open &model...", self.files.open_model_dialog, "Ctrl+M",
                                              "Load a model (.segviz: one segmenter or a router of experts) and apply it to the corpus")
        self.save_model_action = self._action("&Save model...", self.files.save_model_dialog, QKeySequence.Save)
        self.export_plot_action = self._action("Export &plot...", self.files.export_plot_dialog, "Ctrl+E",
                                               "Save the block view as PNG or SVG")
        self.export_hyp_action = self._action("Export &hypothesis...", self.files.export_hypothesis_dialog,
                                              "Ctrl+Shift+E", "Save boundaries as Choi format or CSV")
        self.quit_action = self._action("&Quit", self.close, QKeySequence.Quit)
        self.prev_action = self._action("◀ Previous block", self.block_view.previous_block, "PgUp")
        self.next_action = self._action("Next block ▶", self.block_view.next_block, "PgDown")
        self.tune_action = self._action("&Tune the rule on held-out", self.model_control.tune, "Ctrl+T",
                                        "the decision rule's settings best on held-out data (Section 7)")
        self.tune_oracle_action = self._action("Tune the rule on the shown &reference (oracle)",
                                               self.model_control.tune_oracle, None,
                                               "An upper bound: tuned on the data being scored")

        menu = self.menuBar().addMenu("&File")
        menu.addAction(self.open_action)
        menu.addAction(self.open_folder_action)
        self.files.recent_menu = menu.addMenu("Open &recent")
        menu.addSeparator()
        menu.addAction(self.open_model_action)
        menu.addAction(self.save_model_action)
        menu.addSeparator()
        menu.addAction(self.export_plot_action)
        menu.addAction(self.export_hyp_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)
        nav = self.menuBar().addMenu("&Navigate")
        nav.addAction(self.prev_action)
        nav.addAction(self.next_action)
        model = self.menuBar().addMenu("&Model")
        model.addAction(self.tune_action)
        model.addAction(self.tune_oracle_action)
        view = self.menuBar().addMenu("&View")
        self.fit_curve_action = QAction("&Fit the P(boundary) axis to the curve", self, checkable=True)
        self.fit_curve_action.setToolTip("The curve's axis ends just above its highest values and the threshold "
                                         "α (peaks beyond it marked at the top edge); off: always 0 to 1")
        self.fit_curve_action.setChecked(_setting(self.settings, "view/fit_curve", True, _flag))
        self.block_view.set_fit_curve(self.fit_curve_action.isChecked())
        self.fit_curve_action.toggled.connect(self._fit_curve_toggled)
        view.addAction(self.fit_curve_action)
        view.addSeparator()
        for dock in (self.decision_dock, self.context_dock, self.features_dock, self.profile_dock):
            view.addAction(dock.toggleViewAction())
        help_menu = self.menuBar().addMenu("&Help")
        self.about_action = QAction("&About segviz and its data", self)
        self.about_action.triggered.connect(self.show_about)
        help_menu.addAction(self.about_action)
        self.files.rebuild_recent_menu()

    ABOUT_TEXT = (
        "<b>segviz</b>: text segmentation with exponential models, after Beeferman, Berger &amp; Lafferty, "
        "<i>Text Segmentation Using Exponential Models</i> (1997).<br><br>"
        "<b>Bundled data.</b> The sample corpus and the demo model come from <b>Reuters-21578, Distribution 1.0</b> "
        "(copyright Reuters Ltd.), which Reuters and Carnegie Group allow to be distributed <b>for research purposes "
        "only</b>; acknowledge it by that name if you publish results based on it. The Choi (2000) samples are "
        "excerpts of the Brown Corpus (non-commercial research use). See sample_corpora/README.md."
    )

    def show_about(self) -> None:
        QMessageBox.about(self, "About segviz", self.ABOUT_TEXT)

    def _build_toolbar(self) -> None:
        bar = QToolBar("Navigation")
        bar.setObjectName("navigationToolbar")
        self.addToolBar(bar)
        bar.addAction(self.open_action)
        bar.addSeparator()
        bar.addAction(self.prev_action)
        self.block_spin = QSpinBox()
        self.block_spin.setObjectName("blockSpin")
        self.block_spin.setPrefix("block ")
        self.block_spin.setMinimum(1)
        bar.addWidget(self.block_spin)
        self.block_count = QLabel(" / 1 ")
        bar.addWidget(self.block_count)
        bar.addAction(self.next_action)
        bar.addSeparator()
        bar.addWidget(QLabel(" block size "))
        self.block_size_spin = QSpinBox()
        self.block_size_spin.setObjectName("blockSizeSpin")
        self.block_size_spin.setRange(50, 2000)
        self.block_size_spin.setSingleStep(50)
        self.block_size_spin.setValue(self.block_view.block_size)
        bar.addWidget(self.block_size_spin)
        bar.addSeparator()
        # the reference's segments, numbered: a document is a source unit (a file, a JSONL object), as the status
        # bar and the rule panel count them; a Choi file is one document of many segments
        bar.addWidget(QLabel(" segment "))
        self.doc_spin = QSpinBox()
        self.doc_spin.setObjectName("docSpin")
        self.doc_spin.setToolTip("Go to the start of reference segment N (it follows navigation)")
        self.doc_spin.setMinimum(1)
        self.doc_spin.setKeyboardTracking(False)
        bar.addWidget(self.doc_spin)
        bar.addWidget(QLabel(" sentence "))
        self.sentence_spin = QSpinBox()
        self.sentence_spin.setObjectName("sentenceSpin")
        self.sentence_spin.setKeyboardTracking(False)
        bar.addWidget(self.sentence_spin)
        bar.addSeparator()
        bar.addAction(self.tune_action)

    def _build_statusbar(self) -> None:
        status = self.statusBar()
        self.cancel_button = self.background.cancel_button   # the progress widgets belong to BackgroundWork
        self.info_label = QLabel("")
        self.info_label.setTextFormat(Qt.PlainText)   # it shows file names: a name's "<b>" is no markup
        status.addWidget(self.info_label, 1)
        status.addPermanentWidget(self.background.stage_label)
        status.addPermanentWidget(self.background.progress)
        status.addPermanentWidget(self.cancel_button)
        # the bar keeps the height it has with the progress bar and Cancel shown: showing them must not shrink
        # the plots (a resize repaints them whole, axes and all)
        tallest = max(w.sizeHint().height() for w in (self.background.progress, self.cancel_button, self.info_label))
        status.setFixedHeight(max(status.sizeHint().height(), tallest + 6))

    def _connect(self) -> None:
        bv = self.block_view
        bv.blockChanged.connect(self._block_changed)
        bv.positionHovered.connect(self.context.show_position)
        bv.positionClicked.connect(self.context.show_position)
        # dragging α: the hypothesis ticks and metrics follow live, once per event-loop pass; the release applies
        bv.alphaDragged.connect(self.session.request_alpha)
        bv.alphaDragFinished.connect(self.state.set_alpha)
        self.block_spin.valueChanged.connect(lambda v: bv.set_block(v - 1))
        self.block_size_spin.valueChanged.connect(self._block_size_changed)
        self.doc_spin.valueChanged.connect(self.jump_to_document)
        self.sentence_spin.valueChanged.connect(self.jump_to_sentence)
        self.decision.tuneRequested.connect(self.model_control.tune)
        self.features.trainRequested.connect(self.training.start)
        self.features.stepRequested.connect(self.training.step)
        self.features.runRequested.connect(self.training.run)
        self.features.pauseRequested.connect(self.training.pause)
        self.features.stopRequested.connect(self.training.stop)
        self.features.featureSelected.connect(self.highlight_feature)
        self.session.corpusChanged.connect(self._corpus_changed)
        self.corpusFailed.connect(lambda _message: self.model_control.forget_early())
        # a corpus, a model, language models: long-lived and free of reference cycles (their memory goes back by
        # reference counting); kept out of the cyclic collector's full passes, which traversed them every time
        # (200-550 ms with a 70k-sentence corpus and its language models in memory, the window stalled)
        for changed in (self.session.corpusChanged, self.session.modelChanged, self.session.relevanceChanged,
                        self.session.probabilitiesChanged):
            changed.connect(gc.freeze)
        self.session.hypothesisChanged.connect(self.update_actions)
        self.context.explainer = self.model_control.active_features
        # PgUp/PgDn page through the widget that has the focus (α slider, ε and number boxes), not the blocks
        self._page_keys = PageKeysStayInWidget(self)
        self.decision.install_key_filter(self._page_keys)   # every rule's controls, those built later too
        for widget in (self.block_spin, self.block_size_spin, self.doc_spin, self.sentence_spin,
                       self.features.n_features):
            widget.installEventFilter(self._page_keys)

    # -- small helpers ----------------------------------------------------------------------------------------
    def show_error(self, title: str, message: str) -> None:
        """One place for user-facing errors (tests patch QMessageBox.critical)."""
        self._errors.append(message)
        self.info_label.setText(f"⚠ {message}")
        self.errorShown.emit(message)
        if self.interactive:
            QMessageBox.critical(self, title, literal_text(message))
        else:
            print(f"segviz: error: {message}", file=sys.stderr)

    @property
    def last_error(self) -> str | None:
        return self._errors[-1] if self._errors else None

    @property
    def busy(self) -> bool:
        return self.background.busy

    def update_actions(self) -> None:
        has_corpus = self.state.corpus is not None
        has_model = self.state.probabilities is not None
        self.save_model_action.setEnabled(self.state.segmenter is not None)
        self.export_hyp_action.setEnabled(has_corpus)
        self.export_plot_action.setEnabled(has_corpus)
        self.tune_action.setEnabled(has_model)
        self.tune_oracle_action.setEnabled(has_model and self.state.has_reference)
        self.prev_action.setEnabled(has_corpus)
        self.next_action.setEnabled(has_corpus)
        running = self.training.running
        self.features.set_running(running, paused=self.training.paused,
                                  can_train=has_corpus and self.state.has_reference,
                                  has_lms=self.state.shown_language_models() is not None)

    def _block_changed(self, block: int) -> None:
        self.block_spin.blockSignals(True)
        self.block_spin.setMaximum(self.block_view.n_blocks)
        self.block_spin.setValue(block + 1)
        self.block_spin.blockSignals(False)
        self.block_count.setText(f" / {self.block_view.n_blocks} ")
        if self.state.corpus is not None:
            # the document and sentence boxes follow navigation: the document the block starts in, and a sentence
            # of the block (kept if it is in it, else the block's first); never under the user's typing
            start, end = self.block_view.block_range()
            follow = [(self.doc_spin, lambda value: self.state.document_of(start) + 1),
                      (self.sentence_spin, lambda value: value if start <= value < end else start)]
            for spin, shown in follow:
                value = shown(spin.value())
                typing = spin.hasFocus() and spin.lineEdit().isModified()
                if spin.value() != value and not typing:
                    spin.blockSignals(True)
                    spin.setValue(value)
                    spin.blockSignals(False)

    def _block_size_changed(self, size: int) -> None:
        self.block_view.set_block_size(size)
        self.settings.setValue("view/block_size", int(size))

    def _fit_curve_toggled(self, fit: bool) -> None:
        self.block_view.set_fit_curve(fit)
        self.settings.setValue("view/fit_curve", bool(fit))

    def jump_to_document(self, number: int) -> None:
        """Show document ``number`` (1-based) and mark its first boundary."""
        if self.state.corpus is None:
            return
        starts = self.state.document_starts()
        index = int(min(max(number, 1), len(starts))) - 1
        self.block_view.show_sentence(int(starts[index]))
        self.context.show_position(max(int(starts[index]), 1))

    def jump_to_sentence(self, sentence: int) -> None:
        if self.state.corpus is None:
            return
        sentence = int(min(max(sentence, 0), self.state.n_sentences - 1))
        self.block_view.show_sentence(sentence)
        self.context.show_position(max(sentence, 1))

    def _corpus_changed(self) -> None:
        state = self.state
        self.doc_spin.blockSignals(True)
        self.doc_spin.setMaximum(max(len(state.corpus), 1))
        self.doc_spin.setValue(1)
        self.doc_spin.blockSignals(False)
        self.sentence_spin.blockSignals(True)
        self.sentence_spin.setMaximum(max(state.n_sentences - 1, 0))
        self.sentence_spin.blockSignals(False)
        name = self.corpus_label
        self.setWindowTitle(f"segviz — {name}")
        terms = ""
        if any("#NEWID=" in name for name in state.corpus.document_names[:1]):
            terms = "  ·  Reuters-21578: licensed for research purposes only"
        # what the readers decided (format, documents, sentences, reference boundaries), as `segviz inspect` says
        # (prepared where the corpus was read: the summary walks every document)
        summary = state.corpus.summary or (
            f"{name}: {plural(len(state.corpus), 'document')}, {plural(state.n_sentences, 'sentence')}")
        for path in state.corpus.reading_paths[:1]:   # the file's name is enough here; the tool tip has the paths
            summary = summary.replace(path, Path(path).name)
        self.corpus_summary = summary + terms
        self.info_label.setText(self.corpus_summary)
        self.info_label.setToolTip(state.corpus.readings_summary)
        self._block_changed(self.block_view.block)
        self.update_actions()

    corpus_label = ""
    #: what the status bar says of the corpus shown; what is said of the model follows it (show_model_status)
    corpus_summary = ""

    def say_left_out(self, left_out) -> None:
        """Add to the status bar what the opened folders held that was not read (``(name, why)`` pairs): a README
        or a subfolder was left out without a word."""
        if not left_out:
            return
        names = ", ".join(name for name, _ in left_out[:4]) + (", …" if len(left_out) > 4 else "")
        self.corpus_summary += f"  ·  not read: {names}"
        self.info_label.setText(self.corpus_summary)
        why = "\n".join(f"not read: {name} ({reason})" for name, reason in left_out[:50])
        self.info_label.setToolTip("\n".join(t for t in (self.info_label.toolTip(), why) if t))

    def show_model_status(self, note: str) -> None:
        """The status bar: the corpus summary, then ``note`` on the model (applying, applied, training)."""
        self.info_label.setText(f"{self.corpus_summary}  ·  {note}" if self.corpus_summary else note)

    # -- the corpus -------------------------------------------------------------------------------------------
    def install_corpus(self, corpus, paths, label: str, *, prepared=None) -> None:
        """Show ``corpus`` (read from ``paths``): what ran for the old one stops, the open model is applied and
        then the peers run (before: they would compete with the model for the CPU)."""
        self.training.stop()
        for task in ("apply", "columns", "tune", "decision", GENERAL_RELEVANCE, *map(peer_task, peer_names())):
            self.background.cancel(task)
        self.model_control.forget()
        self.state.reset_rounds()
        self.heldout_start = None
        self.corpus_label = Path(label).name if len(paths) == 1 else label
        self.opening = None
        self.state.set_corpus(corpus, label, paths=paths, prepared=prepared)
        self.corpusLoaded.emit(label)
        pending = self.model_control.take_pending()   # a model opened while this corpus was read
        if pending is not None:
            if not self.apply_model(*pending):
                self.compute_peers()
        elif (self.state.segmenter is None and self.default_model is not None
                and not self.background.is_running("load-model")):
            # no model open: segment with the bundled default model (trained on a mix of domains), so that any
            # corpus shows a segmentation beside its reference and the peers; Train replaces it
            self.show_model_status("no model open: applying the bundled model")
            self.open_model(str(self.default_model))
        elif self.state.segmenter is None or not self.apply_model(self.state.opened_model or self.state.segmenter,
                                                                  self.state.model_path):
            self.compute_peers()

    # -- delegated to the composed helpers (tests, launch.py and the benchmarks use these names) --------------
    def start_training(self, n_features: int = 30, *, step: bool = False) -> GeneratorWorker | None:
        """Train LMs + induce features on this corpus in the background (see :class:`TrainingControl`)."""
        return self.training.start(n_features, step=step)

    @property
    def training_worker(self) -> GeneratorWorker | None:
        return self.training.worker

    def when_idle(self, callback: Callable[[], None], *, timeout_s: float = 600.0) -> None:
        """Call ``callback`` once no worker is running (used by ``--screenshot``)."""
        self.background.when_idle(callback, timeout_s=timeout_s)

    def open_corpus(self, paths, **read_options) -> bool:
        """Read a corpus (one or more files or folders) in the background; errors keep the current one."""
        started = self.files.open_corpus(paths, **read_options)
        # what is being read: a model opened meanwhile is applied to the same files, the parses shared
        listed = [paths] if isinstance(paths, (str, os.PathLike)) else paths
        self.opening = ([str(p) for p in listed], dict(read_options)) if started else None
        return started

    #: the files and reader options of the corpus being read (None when none is, or it was not opened here)
    opening: tuple[list[str], dict] | None = None

    def recent_files(self) -> list[str]:
        return self.files.recent_files()

    def open_model(self, path: str | os.PathLike) -> bool:
        """Load a segmenter and apply it to the corpus; errors leave the current model in place."""
        return self.files.open_model(path)

    def apply_model(self, model, path: str | None = None) -> bool:
        """Compute probabilities, relevance and the relevance profile for the corpus in the background (a router
        first chooses its expert for the corpus, :mod:`segviz.routing`)."""
        return self.model_control.apply_model(model, path)

    def save_model(self, path: str | os.PathLike) -> bool:
        return self.files.save_model(path)

    def show_general_relevance(self, then: Callable[[], None]) -> None:
        """When the shown segmenter has no language models, the relevance trace and profile (Section 3.3) from the
        bundled general-English ones (:mod:`segviz.general_lm`), computed in the background; ``then()`` runs
        once they are shown (or could not be computed, or were superseded), right away when nothing is needed."""
        state = self.state
        corpus, segmenter = state.corpus, state.segmenter
        own = state.shown_language_models() is not None
        if corpus is None or own or (state.relevance is not None and state.relevance_source is not None):
            then()
            return
        pending = [then]

        def once():
            if pending:
                pending.pop()()

        def done(outcome):
            if outcome is None:   # cancelled
                once()
                return
            n, result = outcome
            if n != corpus.n_sentences:
                failed(files_changed(n, corpus.n_sentences))
                return
            if state.corpus is corpus and state.segmenter is segmenter:
                state.set_relevance(result.relevance, result.profile, source=result.source)
            once()

        def failed(message):
            self.info_label.setText(f"⚠ no relevance trace: {message}")
            once()

        if not state.corpus_paths:
            then()
            return
        # in the engine, which has read this corpus to apply the model: the scoring would hold the GIL here
        job = GeneralRelevanceJob(state.corpus_paths, read_options=self.files.read_options, engine=self.engine)
        self.background.start(GENERAL_RELEVANCE, job.events, on_result=done, on_error=failed, on_aborted=once,
                              on_abort=job.close)

    def export_plot(self, path: str | os.PathLike) -> bool:
        """The block view's plots as PNG (or SVG when the suffix says so)."""
        self.reveal_plots()
        return self.files.export_plot(path)

    def export_hypothesis(self, path: str | os.PathLike) -> bool:
        """Choi format (``==========`` between segments) or, for ``.csv``, one row per position."""
        return self.files.export_hypothesis(path)

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt API
        self.files.drag_enter(event)

    def dropEvent(self, event) -> None:  # noqa: N802
        self.files.drop(event)

    # -- peers ------------------------------------------------------------------------------------------------
    def toggle_peer(self, name: str, shown: bool) -> None:
        """Show or hide a peer's row and metrics; a peer being computed is cancelled when it is hidden."""
        if shown:
            self._wanted_peers.add(name)
        else:
            self._wanted_peers.discard(name)
        self.settings.setValue("peers/shown", sorted(self._wanted_peers))
        self.state.show_peer(name, shown)
        if shown and name not in self.state.peer_masses:
            self.compute_peers([name])
        elif not shown:
            self.background.cancel(peer_task(name))


    def compute_peers(self, names=None) -> None:
        """Run the wanted peer segmenters over the stream in the background (C99 is quadratic per piece), each in a
        job of its own: its row appears when it is done, and hiding it cancels only it."""
        if self.state.corpus is None or self.background.closing:
            return
        known = peer_names()
        names = [n for n in (names if names is not None else sorted(self._wanted_peers)) if n in known]
        names = [n for n in names if n not in self.state.peer_masses]
        if not names:
            return
        corpus = self.state.corpus
        if not self.state.corpus_paths:
            return

        def done(result):
            if result is None or self.state.corpus is not corpus:
                return  # cancelled, or a newer corpus was loaded meanwhile
            for name, (masses, row) in result.items():
                self.state.set_peer(name, masses, row)
                self.state.show_peer(name, name in self._wanted_peers)
            self.peersComputed.emit()

        reference = self.state.reference_masses if self.state.has_reference else None

        for name in names:
            if self.background.is_running(peer_task(name)):
                continue
            # in the engine, on the corpus it read: C99 on a long stream would hold the GIL against the window for
            # tens of seconds
            job = PeersJob([name], self.state.corpus_paths, read_options=self.files.read_options,
                           n=self.state.n_sentences, engine=self.engine)
            self.background.start(peer_task(name), partial(peers_scored, job, reference), on_result=done,
                                  on_abort=job.close,
                                  on_error=lambda msg: self.show_error("Peer segmenter failed", msg))

    # -- induced features -------------------------------------------------------------------------------------
    def highlight_feature(self, index: int) -> None:
        """Mark the positions where the model's feature ``index`` fires (-1: clear)."""
        if index < 0 or self.state.corpus is None or self.state.segmenter is None:
            self.block_view.clear_highlight()
            return
        positions = self.model_control.feature_positions(index, callback=lambda: self.highlight_feature(index))
        if positions is None:
            self.info_label.setText("evaluating the model's features on this corpus…")
            return
        self.block_view.highlight_positions(positions)
        feature = self.state.shown_features().specs[index]
        self.info_label.setText(f"{feature.description} fires at {plural(len(positions), 'position')}")

    # -- shutdown ---------------------------------------------------------------------------------------------
    def save_settings(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("decision/alpha", float(self.state.alpha))
        self.settings.setValue("decision/epsilon", int(self.state.epsilon))
        self.settings.setValue("view/block_size", int(self.block_view.block_size))
        self.settings.sync()

    @property
    def engine(self) -> EngineProcess:
        """The window's engine process, shared by every background job (:mod:`segviz.service.engine_process`); a new
        one when the last has ended (closed, or crashed: the next job starts afresh instead of failing)."""
        engine = self._engine
        if self.background.closing and engine is not None:
            return engine   # the one being closed: the process waits for its end (nothing starts on it)
        if engine is None or engine.closed or (engine.started and not engine.running):
            if engine is not None and not engine.closed:
                engine.close(wait=False)   # it died: what is left of it is ended off this thread
            self._engine = engine = EngineProcess()
        return engine

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Stop everything running: cancel, hide, and close for real once the last worker has ended."""
        if not self.background.closing:
            self.closeRequested.emit()
        self.save_settings()
        self.background.closing = True   # from now on no job starts, whatever ends during the close
        self.background.holds.clear()    # and nothing more is shown: a step showing a model waits for nothing
        if self.background.busy:
            self.background.cancel_all()
            self.hide()
            event.ignore()
            return
        event.accept()
        if self._engine is not None:
            # told to end now; its end (the kernel returning its memory) is awaited off this thread, which the
            # wait held for up to a second at 10^6 sentences (launch.py waits for it once the event loop is over)
            self._engine.close(wait=False)
        self.closed.emit()

    def _background_done(self) -> None:
        if self.background.closing:
            self.close()


def peers_scored(job: PeersJob, reference):
    """``job``'s masses of each peer with their metrics row against ``reference`` (None: no reference), scored on
    the worker thread; None when closed first."""
    result = yield from job.events()
    if result is None:
        return None
    return {name: (masses, None if reference is None else score_row(reference, masses))
            for name, masses in result.items()}


def peer_task(name: str) -> str:
    """The background task computing peer ``name``."""
    return f"peers:{name}"


class PageKeysStayInWidget(QObject):
    """The keys of a focused input widget (the α slider, a number box): PgUp/PgDn page that widget, not the blocks;
    and the window's own Ctrl shortcuts reach the window (a number box's line edit takes Ctrl+E as "end of line",
    so *Export plot* did nothing while one had the focus)."""

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        if event.type() != QEvent.ShortcutOverride:
            return False
        if event.key() in (Qt.Key_PageUp, Qt.Key_PageDown):
            event.accept()
            return False
        if event.modifiers() & Qt.ControlModifier and self._window_shortcut(QKeySequence(event.keyCombination())):
            event.ignore()   # not the widget's: the shortcut goes to the window's action
            return True
        return False

    def _window_shortcut(self, keys: QKeySequence) -> bool:
        window = self.parent()
        return window is not None and any(action.shortcut() == keys and action.isEnabled()
                                          for action in window.findChildren(QAction))


def _flag(value) -> bool:
    """A stored yes/no setting (an ini file keeps it as the text "true" or "false")."""
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "false"):
        return str(value).lower() == "true"
    raise ValueError(f"not a yes/no setting: {value!r}")


def _setting(settings: QSettings, key: str, default, kind):
    """A stored setting of type ``kind``, or ``default`` when it is missing or unreadable."""
    try:
        return kind(settings.value(key, default))
    except (TypeError, ValueError):
        return default
