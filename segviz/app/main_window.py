"""The segviz main window: block view in the centre, decision/metrics, context and induction panels in docks.

The window owns the workers (one :class:`~segviz.app.worker.GeneratorWorker` per long task) and the file
actions; all state lives in the :class:`~segviz.app.state.SessionState` behind ``self.session``.  Bad input of any
kind ends in :meth:`MainWindow.show_error` (a QMessageBox, patched in tests) and never replaces what is loaded.
"""
from __future__ import annotations

import csv
import io
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QDockWidget, QFileDialog, QLabel, QMainWindow, QMessageBox,
                               QProgressBar, QPushButton, QSpinBox, QToolBar)

from ..errors import SegvizError
from ..events import Progress
from . import engine
from .block_view import BlockView
from .feature_panel import FeaturePanel
from .panels import ContextPanel, DecisionPanel, RelevanceProfileView
from .qt_session import QtSession
from .state import SessionState
from .worker import GeneratorWorker

ORGANIZATION = "segviz"
APPLICATION = "segviz"
MAX_RECENT = 8
ROOT = Path(__file__).resolve().parents[2]
from ..paths import bundled  # noqa: E402  (the bundled sample and demo model: source tree or share/segviz)
SAMPLE_CORPUS = bundled("sample_corpora", "reuters_sample.sgm")
SAMPLE_MODEL = bundled("resources", "sample_model.json")
CORPUS_FILTER = "Corpora (*.ref *.txt *.sgm *.ref.txt);;All files (*)"


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
        self._workers: set[GeneratorWorker] = set()
        self.training_worker: GeneratorWorker | None = None
        self._closing = False
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
        self._wanted_peers = set(engine.peer_names()) if saved_peers is None else set(_as_list(saved_peers))

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
        self._update_actions()

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
        self.open_action = self._action("&Open corpus...", self._open_corpus_dialog, QKeySequence.Open,
                                        "Open a corpus (Choi .ref files, Reuters .sgm, plain text)")
        self.open_model_action = self._action("Open &model...", self._open_model_dialog, "Ctrl+M",
                                              "Load a trained segmenter (JSON) and apply it to the corpus")
        self.save_model_action = self._action("&Save model...", self._save_model_dialog, QKeySequence.Save)
        self.export_plot_action = self._action("Export &plot...", self._export_plot_dialog, "Ctrl+E",
                                               "Save the block view as PNG or SVG")
        self.export_hyp_action = self._action("Export &hypothesis...", self._export_hypothesis_dialog,
                                              "Ctrl+Shift+E", "Save boundaries as Choi format or CSV")
        self.quit_action = self._action("&Quit", self.close, QKeySequence.Quit)
        self.prev_action = self._action("◀ Previous block", self.block_view.previous_block, "PgUp")
        self.next_action = self._action("Next block ▶", self.block_view.next_block, "PgDown")
        self.tune_action = self._action("&Tune α, ε on held-out", self.tune, "Ctrl+T",
                                        "α, ε maximising P_mu on held-out data (Section 7)")
        self.tune_oracle_action = self._action("Tune α, ε on the shown &reference (oracle)", self.tune_oracle,
                                               None, "An upper bound: tuned on the data being scored")
        self.recent_menu = None

        menu = self.menuBar().addMenu("&File")
        menu.addAction(self.open_action)
        self.recent_menu = menu.addMenu("Open &recent")
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
        self._rebuild_recent_menu()

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
        self.stage_label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setObjectName("progressBar")
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelButton")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_all)
        self.info_label = QLabel("")
        status.addWidget(self.info_label, 1)
        status.addPermanentWidget(self.stage_label)
        status.addPermanentWidget(self.progress)
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
        self.decision.tuneRequested.connect(self.tune)
        self.features.trainRequested.connect(self.start_training)
        self.features.stepRequested.connect(self.step_training)
        self.features.runRequested.connect(self.run_training)
        self.features.pauseRequested.connect(self.pause_training)
        self.features.stopRequested.connect(self.stop_training)
        self.features.featureSelected.connect(self.highlight_feature)
        self.session.corpusChanged.connect(self._corpus_changed)
        self.session.hypothesisChanged.connect(self._update_actions)

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
        return bool(self._workers)

    def _update_actions(self) -> None:
        has_corpus = self.state.corpus is not None
        has_model = self.state.probabilities is not None
        self.save_model_action.setEnabled(self.state.segmenter is not None and hasattr(self.state.segmenter, "save"))
        self.export_hyp_action.setEnabled(has_corpus)
        self.export_plot_action.setEnabled(has_corpus)
        self.tune_action.setEnabled(has_model)
        self.tune_oracle_action.setEnabled(has_model)
        self.prev_action.setEnabled(has_corpus)
        self.next_action.setEnabled(has_corpus)
        running = self.training_worker is not None
        self.features.set_running(running, paused=running and self.training_worker.is_paused,
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
        self._update_actions()

    # -- workers ----------------------------------------------------------------------------------------------
    def start_worker(self, worker: GeneratorWorker, *, on_event: Callable | None = None,
                     on_result: Callable | None = None, on_error: Callable | None = None,
                     show_progress: bool = True) -> GeneratorWorker:
        """Start ``worker`` with its signals wired; the window tracks it until it finishes."""
        guard = self._alive_only
        if on_event is not None:
            worker.yielded.connect(guard(on_event))
        worker.yielded.connect(guard(self._progress_event))
        if on_result is not None:
            worker.returned.connect(guard(on_result))
        worker.errored.connect(guard(on_error or (lambda msg: self.show_error("segviz", msg))))
        worker.finished.connect(guard(lambda w=worker: self._worker_finished(w)))
        self._workers.add(worker)
        if show_progress:
            self.progress.setVisible(True)
            self.progress.setRange(0, 0)
            self.cancel_button.setVisible(True)
        self.busyChanged.emit(True)
        worker.start()
        return worker

    def _alive_only(self, fn: Callable) -> Callable:
        """Wrap a slot so a late queued signal after the window was destroyed is dropped, not an error."""
        def call(*args):
            if shiboken6.isValid(self):
                fn(*args)
        return call

    def _progress_event(self, event) -> None:
        if isinstance(event, Progress):
            self.stage_label.setText(event.stage)
            if event.total > 0:
                self.progress.setRange(0, event.total)
                self.progress.setValue(event.done)
            else:
                self.progress.setRange(0, 0)

    def _worker_finished(self, worker: GeneratorWorker) -> None:
        self._workers.discard(worker)
        worker.deleteLater()
        if worker is self.training_worker:
            self.training_worker = None
            self._update_actions()
        if not self._workers:
            self.progress.setVisible(False)
            self.cancel_button.setVisible(False)
            self.stage_label.setText("")
            self.busyChanged.emit(False)
            if self._closing:
                self.close()

    def cancel_all(self) -> None:
        for worker in list(self._workers):
            worker.abort()

    def when_idle(self, callback: Callable[[], None], *, timeout_s: float = 600.0) -> None:
        """Call ``callback`` once no worker is running (used by ``--screenshot``)."""
        deadline = [timeout_s * 1000.0]

        def check():
            if not self._workers or deadline[0] <= 0:
                QTimer.singleShot(150, callback)  # let the last updates paint
            else:
                deadline[0] -= 100
                QTimer.singleShot(100, check)
        QTimer.singleShot(0, check)

    # -- corpus -----------------------------------------------------------------------------------------------
    def open_corpus(self, path: str | os.PathLike) -> bool:
        """Load a corpus; on failure show a dialog and keep the current one."""
        path = str(path)
        try:
            corpus = engine.read_corpus(path)
        except SegvizError as exc:
            self.show_error("Cannot open corpus", str(exc))
            return False
        except Exception as exc:  # e.g. a decoder error deep inside a reader: still a bad file, not a crash
            self.show_error("Cannot open corpus", f"{path}: {exc.__class__.__name__}: {exc}")
            return False
        self.cancel_training()
        self.state.reset_rounds()
        self.heldout_start = None
        self.state.set_corpus(corpus, path)
        self.corpusLoaded.emit(path)
        self._add_recent(path)
        if self.state.segmenter is not None:
            self.apply_model(self.state.segmenter, self.state.model_path)
        self.compute_peers()
        return True

    def _open_corpus_dialog(self) -> None:
        start = self.settings.value("files/last_dir", str(ROOT / "sample_corpora"))
        path, _ = QFileDialog.getOpenFileName(self, "Open corpus", str(start), CORPUS_FILTER)
        if path:
            self.settings.setValue("files/last_dir", str(Path(path).parent))
            self.open_corpus(path)

    def _add_recent(self, path: str) -> None:
        recent = [p for p in _as_list(self.settings.value("files/recent", [])) if p != path]
        recent.insert(0, path)
        self.settings.setValue("files/recent", recent[:MAX_RECENT])
        self._rebuild_recent_menu()

    def recent_files(self) -> list[str]:
        return _as_list(self.settings.value("files/recent", []))

    def _rebuild_recent_menu(self) -> None:
        if self.recent_menu is None:
            return
        self.recent_menu.clear()
        for path in self.recent_files():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_corpus(p))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt API
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        urls = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not urls:
            return
        event.acceptProposedAction()
        if urls[0].endswith(".json"):
            self.open_model(urls[0])
        else:
            self.open_corpus(urls[0])

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

        self.start_worker(GeneratorWorker(work, name="peers"), on_result=done,
                          on_error=lambda msg: self.show_error("Peer segmenter failed", msg))

    # -- model ------------------------------------------------------------------------------------------------
    def open_model(self, path: str | os.PathLike) -> bool:
        """Load a segmenter and apply it to the corpus; errors leave the current model in place."""
        path = str(path)
        try:
            segmenter = engine.load_model(path)
        except SegvizError as exc:
            self.show_error("Cannot open model", str(exc))
            return False
        except Exception as exc:
            self.show_error("Cannot open model", f"{path}: {exc.__class__.__name__}: {exc}")
            return False
        self.apply_model(segmenter, path)
        return True

    def apply_model(self, segmenter, path: str | None = None) -> None:
        """Compute probabilities, relevance and the relevance profile for the corpus in a worker."""
        self.state.model_note = ""
        self.heldout_start = None
        if self.state.corpus is None:
            self.state.set_segmenter(segmenter, path)
            return
        corpus = self.state.corpus

        def work():
            lms = engine.segmenter_lms(segmenter)
            yield Progress("relevance", 0, 3)
            rel = engine.sentence_relevance(lms, corpus.sentences())
            yield Progress("applying model", 1, 3)
            # the same relevance feeds the model (and warms its feature cache for the context panel)
            kwargs = {"relevance": rel} if rel is not None else {}
            probs = np.asarray(segmenter.boundary_probabilities(corpus, **kwargs), dtype=np.float64)
            yield Progress("relevance profile", 2, 3)
            profile = engine.relevance_profile(lms, corpus)
            return probs, rel, profile

        def done(result):
            if self.state.corpus is not corpus:
                return
            probs, rel, profile = result
            self.state.set_segmenter(segmenter, path)
            if self.training_worker is None:
                self.state.load_history(segmenter)
            self.state.set_probabilities(probs, rel, profile)
            self.modelApplied.emit()
            self._update_actions()

        self.start_worker(GeneratorWorker(work, name="apply-model"), on_result=done,
                          on_error=lambda msg: self.show_error("Cannot apply model", msg))

    def _open_model_dialog(self) -> None:
        start = self.settings.value("files/last_model_dir", str(ROOT / "resources"))
        path, _ = QFileDialog.getOpenFileName(self, "Open model", str(start), "segviz models (*.json)")
        if path:
            self.settings.setValue("files/last_model_dir", str(Path(path).parent))
            self.open_model(path)

    def save_model(self, path: str | os.PathLike) -> bool:
        seg = self.state.segmenter
        if seg is None:
            self.show_error("Cannot save model", "there is no model to save; train or open one first")
            return False
        try:
            seg.save(path)
        except (SegvizError, OSError) as exc:
            self.show_error("Cannot save model", str(exc))
            return False
        self.state.model_path = str(path)
        return True

    def _save_model_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save model", "model.json", "segviz models (*.json)")
        if path:
            self.save_model(path)

    def tune(self) -> None:
        """Set α, ε to the values maximising P_mu on *held-out* data (Section 7), never on what is scored.

        A model trained in the app is tuned on the held-out documents of the shown corpus (the last 20%); a
        loaded model gets back the α, ε it was tuned to on its own held-out data.  Without either, the shown
        reference is used (an oracle; :meth:`tune_oracle`).
        """
        state = self.state
        if state.probabilities is None:
            return
        try:
            if self.heldout_start is not None:
                start = self.heldout_start
                masses = engine.boundaries_to_masses(
                    state.reference_boundaries[state.reference_boundaries > start] - start,
                    state.n_sentences - start)
                alpha, epsilon, pmu = engine.tune(state.probabilities[start:], masses)
                state.set_decision(alpha, epsilon)
                where = f"held-out documents (sentences {start}-{state.n_sentences - 1})"
            elif state.segmenter is not None and getattr(state.segmenter, "alpha_", None) is not None:
                state.set_decision(state.segmenter.alpha_, state.segmenter.epsilon_)
                pmu = getattr(state.segmenter, "info_", {}).get("tuned_p_mu")
                where = "the model's own held-out data"
            else:
                self.tune_oracle()
                return
        except (SegvizError, ValueError) as exc:
            self.show_error("Cannot tune", str(exc))
            return
        shown = "" if pmu is None else f", held-out P_mu = {pmu:.3f}"
        self.info_label.setText(f"tuned on {where}: α = {state.alpha:.2f}, ε = {state.epsilon}{shown}")

    def tune_oracle(self) -> None:
        """Best α, ε for P_mu on the shown reference itself (an upper bound, not a fair score)."""
        if self.state.probabilities is None:
            return
        try:
            pmu = self.state.tune()
        except (SegvizError, ValueError) as exc:
            self.show_error("Cannot tune", str(exc))
            return
        self.info_label.setText(f"oracle-tuned on the shown reference: α = {self.state.alpha:.2f}, "
                                f"ε = {self.state.epsilon}, P_mu = {pmu:.3f} (optimistic)")

    # -- training ---------------------------------------------------------------------------------------------
    def start_training(self, n_features: int = 30, *, step: bool = False) -> GeneratorWorker | None:
        """Train LMs + induce features on this corpus in a worker; the curve and table update every round."""
        if self.training_worker is not None:
            return None
        if self.state.corpus is None:
            self.show_error("Cannot train", "open a corpus first")
            return None
        try:
            make = engine.training_process if self.train_in_process else engine.training_session
            factory = make(self.state.corpus, n_features=int(n_features), **self.training_params)
        except SegvizError as exc:
            self.show_error("Cannot train", str(exc))
            return None
        corpus = self.state.corpus
        self.state.reset_rounds()
        train_part = engine.split_for_training(corpus)[0]
        n_train = len(train_part)
        self.heldout_start = int(train_part.n_sentences)
        self.state.model_note = (f"model trained on documents 1-{n_train} of this corpus (the rest held out): "
                                 "its scores here are partly in-sample")
        worker = GeneratorWorker(factory, is_step=engine.is_feature_event, name="training")
        if hasattr(factory, "should_stop"):
            factory.should_stop = lambda: worker.is_aborted   # lets a cancel interrupt the child mid-round
        if step:
            worker.step()
        self.training_worker = worker
        worker.paused.connect(self._alive_only(lambda _p: self._update_actions()))

        def on_event(event):
            if self.state.corpus is not corpus:
                return
            if isinstance(event, engine.RelevanceReady):
                self.state.relevance = event.relevance
                self.state.relevance_profile = event.profile
                if self.state.probabilities is not None:
                    self.state.set_probabilities(self.state.probabilities, event.relevance, event.profile)
                else:
                    self.block_view.refresh_probabilities()
                    self.profile.refresh()
            elif isinstance(event, engine.CurveUpdate):
                # the round's feature first (table), then its curve: one FeatureAdded -> one row + one redraw
                self.state.add_round(event.added)
                if event.alpha is not None:
                    self.state.alpha = float(event.alpha)
                    self.state.epsilon = int(event.epsilon)
                self.state.set_probabilities(event.probabilities)
                self.features.status.setText(f"round {event.added.round}: gain {event.added.gain:.3g}")
                self.roundShown.emit(int(event.added.round))

        def on_result(segmenter):
            if self.state.corpus is corpus and segmenter is not None:
                self.state.set_segmenter(segmenter, None)
                self._update_actions()
            self.trainingFinished.emit("done")

        def on_error(msg):
            self.show_error("Training failed", msg)
            self.trainingFinished.emit(msg)

        def on_aborted():
            # Stop keeps what was learned: the model of the last finished round, tuned on the held-out part
            partial = getattr(factory, "partial", None)
            session = getattr(factory, "session", None)
            if self.state.corpus is corpus and self.state.rounds:
                try:
                    if partial is None and session is not None:
                        partial = session.segmenter()
                except Exception as exc:  # e.g. stopped before the first round: nothing to keep
                    self.info_label.setText(f"stopped; no model kept ({exc})")
                if partial is not None:
                    self.state.set_segmenter(partial, None)
                self._update_actions()
            self.trainingFinished.emit("cancelled")

        worker.aborted.connect(self._alive_only(on_aborted))
        self.start_worker(worker, on_event=on_event, on_result=on_result, on_error=on_error)
        self._update_actions()
        return worker

    def step_training(self) -> None:
        if self.training_worker is None:
            self.start_training(self.features.n_features.value(), step=True)
        else:
            self.training_worker.step()
        self._update_actions()

    def run_training(self) -> None:
        if self.training_worker is not None:
            self.training_worker.resume()
        self._update_actions()

    def pause_training(self) -> None:
        if self.training_worker is not None:
            self.training_worker.pause()

    def stop_training(self) -> None:
        if self.training_worker is not None:
            self.training_worker.abort()

    def cancel_training(self) -> None:
        self.stop_training()

    def highlight_feature(self, feature) -> None:
        """Mark the positions where ``feature`` fires in the current corpus."""
        if feature is None or self.state.corpus is None:
            self.block_view.clear_highlight()
            return
        try:
            from ..segmenter import corpus_groups

            positions = engine.feature_positions(feature, self.state.corpus.sentences(), self.state.relevance,
                                                 groups=corpus_groups(self.state.corpus))
        except Exception as exc:
            self.info_label.setText(f"cannot evaluate feature: {exc}")
            return
        self.block_view.highlight_positions(positions)
        self.info_label.setText(f"{getattr(feature, 'description', feature)} fires at {len(positions)} positions")

    # -- export -----------------------------------------------------------------------------------------------
    def export_plot(self, path: str | os.PathLike) -> bool:
        """The block view's plots as PNG (or SVG when the suffix says so)."""
        path = str(path)
        try:
            if path.lower().endswith(".svg"):
                from pyqtgraph.exporters import SVGExporter
                SVGExporter(self.block_view.graphics.scene()).export(path)
            else:
                pixmap = self.block_view.graphics.grab()
                if not pixmap.save(path):
                    raise OSError(f"cannot write {path}")
        except Exception as exc:
            self.show_error("Cannot export plot", f"{path}: {exc}")
            return False
        return True

    def _export_plot_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", "segviz-block.png", "PNG (*.png);;SVG (*.svg)")
        if path:
            self.export_plot(path)

    def hypothesis_masses(self) -> tuple[int, ...]:
        """The model's hypothesis, or the reference when there is no model yet."""
        return self.state.hypothesis_masses or self.state.reference_masses

    def export_hypothesis(self, path: str | os.PathLike) -> bool:
        """Choi format (``==========`` between segments) or, for ``.csv``, one row per position."""
        from ..corpus import write_choi
        from ..persist import atomic_write_text

        path = str(path)
        state = self.state
        if state.corpus is None:
            self.show_error("Cannot export", "no corpus loaded")
            return False
        try:
            if path.lower().endswith(".csv"):
                out = io.StringIO()
                writer = csv.writer(out, lineterminator="\n")
                writer.writerow(["position", "probability", "hypothesis", "reference"])
                hyp = np.zeros(state.n_sentences, dtype=bool)
                hyp[state.hypothesis_boundaries] = True
                ref = np.zeros(state.n_sentences, dtype=bool)
                ref[state.reference_boundaries] = True
                probs = state.probabilities
                for b in range(1, state.n_sentences):
                    p = "" if probs is None else f"{probs[b - 1]:.6f}"
                    writer.writerow([b, p, int(hyp[b]), int(ref[b])])
                atomic_write_text(path, out.getvalue())
            else:
                atomic_write_text(path, write_choi(self.hypothesis_masses(), state.corpus.sentence_texts()))
        except (OSError, SegvizError) as exc:
            self.show_error("Cannot export", f"{path}: {exc}")
            return False
        return True

    def _export_hypothesis_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export hypothesis", "hypothesis.ref",
                                              "Choi format (*.ref);;CSV (*.csv)")
        if path:
            self.export_hypothesis(path)

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
        if self._workers:
            self._closing = True
            self.cancel_all()
            self.hide()
            event.ignore()
            return
        event.accept()


def _as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value]
