"""The segviz main window: block view in the centre, decision/metrics, context and induction panels in docks.

The window assembles the views, menus, toolbar and status bar, and composes two helpers: ``self.files``
(:class:`~segviz.app.file_actions.FileActions`: open corpus/model, recent files, drag and drop, save, export) and
``self.training`` (:class:`~segviz.app.training_control.TrainingControl`: the workers, one
:class:`~segviz.app.worker.GeneratorWorker` per long task, the progress bar and Train/Step/Run/Pause/Stop).  All
state lives in the :class:`~segviz.app.state.SessionState` behind ``self.session``.  Bad input of any kind ends in
:meth:`MainWindow.show_error` (a QMessageBox, patched in tests) and never replaces what is loaded.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMessageBox, QSpinBox, QToolBar

from ..events import Progress
from . import engine
from .block_view import BlockView
from .feature_panel import FeaturePanel
from .file_actions import FileActions, as_list
from .model_control import ModelControl
from .panels import ContextPanel, DecisionPanel, RelevanceProfileView
from .qt_session import QtSession
from .state import SessionState
from .training_control import TrainingControl
from .worker import GeneratorWorker

ORGANIZATION = "segviz"
APPLICATION = "segviz"


def default_settings() -> QSettings:
    return QSettings(ORGANIZATION, APPLICATION)


class MainWindow(QMainWindow):
    """The desktop app.  ``settings`` defaults to the user's QSettings; tests pass an ini file in a temp dir."""

    busyChanged = Signal(bool)
    corpusLoaded = Signal(str)
    modelApplied = Signal()
    trainingFinished = Signal(str)   # "done", "cancelled" or the error message
    peersComputed = Signal()
    roundShown = Signal(int)         # an induced feature is in the table and its curve is drawn

    def __init__(self, *, settings: QSettings | None = None, parent=None):
        super().__init__(parent)
        self.settings = settings if settings is not None else default_settings()
        self.setObjectName("segvizMainWindow")
        self.setWindowTitle("segviz")
        self.setAcceptDrops(True)
        self.files = FileActions(self)
        self.training = TrainingControl(self)
        self.model_control = ModelControl(self)
        self._errors: list[str] = []
        self.interactive = True   # False for --screenshot: errors go to stderr instead of a modal dialog
        # training runs in a child process (a thread would share the GIL with the GUI, see engine.py);
        # training_params go to engine.training_session (e.g. lm_params=dict(vocab_size=...))
        self.train_in_process = True
        self.training_params: dict = {}
        self.heldout_start: int | None = None   # first sentence of the held-out documents of an in-app model

        alpha = float(self.settings.value("decision/alpha", 0.5))
        epsilon = int(self.settings.value("decision/epsilon", 2))
        self.session = QtSession(SessionState(alpha=alpha, epsilon=epsilon), self)
        self.state = self.session.state
        saved_peers = self.settings.value("peers/shown", None)
        self._wanted_peers = set(engine.peer_names()) if saved_peers is None else set(as_list(saved_peers))

        block_size = int(self.settings.value("view/block_size", 250))
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
        self.decision.set_peer_names(engine.peer_names(), self.toggle_peer)

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
                                        "Open a corpus (Choi .ref files, Reuters .sgm, plain text)")
        self.open_model_action = self._action("Open &model...", self.files.open_model_dialog, "Ctrl+M",
                                              "Load a trained segmenter (JSON) and apply it to the corpus")
        self.save_model_action = self._action("&Save model...", self.files.save_model_dialog, QKeySequence.Save)
        self.export_plot_action = self._action("Export &plot...", self.files.export_plot_dialog, "Ctrl+E",
                                               "Save the block view as PNG or SVG")
        self.export_hyp_action = self._action("Export &hypothesis...", self.files.export_hypothesis_dialog,
                                              "Ctrl+Shift+E", "Save boundaries as Choi format or CSV")
        self.quit_action = self._action("&Quit", self.close, QKeySequence.Quit)
        self.prev_action = self._action("◀ Previous block", self.block_view.previous_block, "PgUp")
        self.next_action = self._action("Next block ▶", self.block_view.next_block, "PgDown")
        self.tune_action = self._action("&Tune α, ε on held-out", self.model_control.tune, "Ctrl+T",
                                        "α, ε maximising P_mu on held-out data (Section 7)")
        self.tune_oracle_action = self._action("Tune α, ε on the shown &reference (oracle)",
                                               self.model_control.tune_oracle, None,
                                               "An upper bound: tuned on the data being scored")

        menu = self.menuBar().addMenu("&File")
        menu.addAction(self.open_action)
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
        bar.addWidget(QLabel(" document "))
        self.doc_spin = QSpinBox()
        self.doc_spin.setObjectName("docSpin")
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
        self.cancel_button = self.training.cancel_button   # the progress widgets belong to TrainingControl
        self.info_label = QLabel("")
        status.addWidget(self.info_label, 1)
        status.addPermanentWidget(self.training.stage_label)
        status.addPermanentWidget(self.training.progress)
        status.addPermanentWidget(self.cancel_button)

    def _connect(self) -> None:
        bv = self.block_view
        bv.blockChanged.connect(self._block_changed)
        bv.positionHovered.connect(self.context.show_position)
        bv.positionClicked.connect(self.context.show_position)
        # dragging α: the hypothesis ticks and metrics follow live, once per event-loop pass (decode + metrics
        # are O(n): 12 ms per frame on the sample, see benchmarks/bench_app.py); the release applies at once
        bv.alphaDragged.connect(self.session.request_alpha)
        bv.alphaDragFinished.connect(self.state.set_alpha)
        self.block_spin.valueChanged.connect(lambda v: bv.set_block(v - 1))
        self.block_size_spin.valueChanged.connect(self._block_size_changed)
        self.doc_spin.valueChanged.connect(self.jump_to_document)
        self.sentence_spin.valueChanged.connect(self.jump_to_sentence)
        self.decision.tuneRequested.connect(self.model_control.tune)
        self.features.trainRequested.connect(self.training.start_training)
        self.features.stepRequested.connect(self.training.step_training)
        self.features.runRequested.connect(self.training.run_training)
        self.features.pauseRequested.connect(self.training.pause_training)
        self.features.stopRequested.connect(self.training.stop_training)
        self.features.featureSelected.connect(self.highlight_feature)
        self.session.corpusChanged.connect(self._corpus_changed)
        self.session.hypothesisChanged.connect(self.update_actions)

    # -- small helpers ----------------------------------------------------------------------------------------
    def show_error(self, title: str, message: str) -> None:
        """One place for user-facing errors (tests patch QMessageBox.critical)."""
        self._errors.append(message)
        self.info_label.setText(f"⚠ {message}")
        if self.interactive:
            QMessageBox.critical(self, title, message)
        else:
            print(f"segviz: error: {message}", file=sys.stderr)

    @property
    def last_error(self) -> str | None:
        return self._errors[-1] if self._errors else None

    @property
    def busy(self) -> bool:
        return self.training.busy

    def update_actions(self) -> None:
        has_corpus = self.state.corpus is not None
        has_model = self.state.probabilities is not None
        self.save_model_action.setEnabled(self.state.segmenter is not None and hasattr(self.state.segmenter, "save"))
        self.export_hyp_action.setEnabled(has_corpus)
        self.export_plot_action.setEnabled(has_corpus)
        self.tune_action.setEnabled(has_model)
        self.tune_oracle_action.setEnabled(has_model)
        self.prev_action.setEnabled(has_corpus)
        self.next_action.setEnabled(has_corpus)
        worker = self.training.training_worker
        running = worker is not None
        self.features.set_running(running, paused=running and worker.is_paused,
                                  can_train=has_corpus and engine.has_segmenter())

    def _block_changed(self, block: int) -> None:
        self.block_spin.blockSignals(True)
        self.block_spin.setMaximum(self.block_view.n_blocks)
        self.block_spin.setValue(block + 1)
        self.block_spin.blockSignals(False)
        self.block_count.setText(f" / {self.block_view.n_blocks} ")

    def _block_size_changed(self, size: int) -> None:
        self.block_view.set_block_size(size)
        self.settings.setValue("view/block_size", int(size))

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
        self.doc_spin.blockSignals(False)
        self.sentence_spin.blockSignals(True)
        self.sentence_spin.setMaximum(max(state.n_sentences - 1, 0))
        self.sentence_spin.blockSignals(False)
        name = Path(state.corpus_path).name if state.corpus_path else state.corpus.name
        self.setWindowTitle(f"segviz — {name}")
        terms = ""
        if any("#NEWID=" in d.name for d in state.corpus.documents[:1]):
            terms = "  ·  Reuters-21578: licensed for research purposes only"
        self.info_label.setText(f"{name}: {len(state.corpus)} documents, {state.n_sentences} sentences{terms}")
        self._block_changed(self.block_view.block)
        self.update_actions()

    # -- delegated to the composed helpers (tests, launch.py and the benchmarks use these names) --------------
    def start_training(self, n_features: int = 30, *, step: bool = False) -> GeneratorWorker | None:
        """Train LMs + induce features on this corpus in a worker (see :class:`TrainingControl`)."""
        return self.training.start_training(n_features, step=step)

    @property
    def training_worker(self) -> GeneratorWorker | None:
        return self.training.training_worker

    def when_idle(self, callback: Callable[[], None], *, timeout_s: float = 600.0) -> None:
        """Call ``callback`` once no worker is running (used by ``--screenshot``)."""
        self.training.when_idle(callback, timeout_s=timeout_s)

    def open_corpus(self, path: str | os.PathLike) -> bool:
        """Load a corpus; on failure show a dialog and keep the current one."""
        return self.files.open_corpus(path)

    def recent_files(self) -> list[str]:
        return self.files.recent_files()

    def open_model(self, path: str | os.PathLike) -> bool:
        """Load a segmenter and apply it to the corpus; errors leave the current model in place."""
        return self.files.open_model(path)

    def apply_model(self, segmenter, path: str | None = None) -> None:
        """Compute probabilities, relevance and the relevance profile for the corpus in a worker."""
        self.model_control.apply_model(segmenter, path)

    def save_model(self, path: str | os.PathLike) -> bool:
        return self.files.save_model(path)

    def export_plot(self, path: str | os.PathLike) -> bool:
        """The block view's plots as PNG (or SVG when the suffix says so)."""
        return self.files.export_plot(path)

    def export_hypothesis(self, path: str | os.PathLike) -> bool:
        """Choi format (``==========`` between segments) or, for ``.csv``, one row per position."""
        return self.files.export_hypothesis(path)

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt API
        self.files.drag_enter(event)

    def dropEvent(self, event) -> None:  # noqa: N802
        self.files.drop(event)

    # -- peers (issue 6) --------------------------------------------------------------------------------------
    def toggle_peer(self, name: str, shown: bool) -> None:
        if shown:
            self._wanted_peers.add(name)
        else:
            self._wanted_peers.discard(name)
        self.settings.setValue("peers/shown", sorted(self._wanted_peers))
        if name in self.state.peer_masses:
            self.state.show_peer(name, shown)
        elif shown:
            self.compute_peers([name])

    def compute_peers(self, names=None) -> None:
        """Run the wanted peer segmenters over the stream in a worker (C99 is quadratic per chunk)."""
        if self.state.corpus is None:
            return
        names = [n for n in (names if names is not None else sorted(self._wanted_peers)) if n in engine.peer_names()]
        if not names:
            return
        corpus = self.state.corpus
        sentences = corpus.sentences()
        # one input per source file (each Choi file on its own, as the literature runs the peers)
        groups = [sub.n_sentences for sub in corpus.by_file()] if len(set(corpus.files)) > 1 else None

        def work():
            out = {}
            for i, name in enumerate(names):
                yield Progress(f"peer segmenter {name}", i, len(names))
                out[name] = engine.peer_masses(name, sentences, groups=groups)
            return out

        def done(result):
            if self.state.corpus is not corpus:
                return  # a newer corpus was loaded meanwhile
            for name, masses in result.items():
                self.state.set_peer(name, masses)
                self.state.show_peer(name, name in self._wanted_peers)
            self.decision.refresh()
            self.peersComputed.emit()

        self.training.start_worker(GeneratorWorker(work, name="peers"), on_result=done,
                                   on_error=lambda msg: self.show_error("Peer segmenter failed", msg))

    # -- induced features -------------------------------------------------------------------------------------
    def highlight_feature(self, feature) -> None:
        """Mark the positions where ``feature`` fires in the current corpus."""
        if feature is None or self.state.corpus is None:
            self.block_view.clear_highlight()
            return
        try:
            positions = engine.feature_positions(feature, self.state.corpus.sentences(), self.state.relevance,
                                                 groups=self.state.corpus.source_groups())
        except Exception as exc:
            self.info_label.setText(f"cannot evaluate feature: {exc}")
            return
        self.block_view.highlight_positions(positions)
        self.info_label.setText(f"{getattr(feature, 'description', feature)} fires at {len(positions)} positions")

    # -- shutdown ---------------------------------------------------------------------------------------------
    def save_settings(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("decision/alpha", float(self.state.alpha))
        self.settings.setValue("decision/epsilon", int(self.state.epsilon))
        self.settings.setValue("view/block_size", int(self.block_view.block_size))
        self.settings.sync()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Stop workers cleanly: abort, hide, and close for real once the last one has finished."""
        self.save_settings()
        if self.training.busy:
            self.training.closing = True
            self.training.cancel_all()
            self.hide()
            event.ignore()
            return
        event.accept()

