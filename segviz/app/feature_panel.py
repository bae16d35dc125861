"""The feature-induction panel: induced features as they arrive, with the paper's window glyphs (Figure 5).

Each row shows the question in words, its window drawn relative to the candidate boundary (sentence ranges as
thick bars, word ranges as thin ticked bars, past to the left, future to the right, the negated part of a
compound question hatched), the current e^λ factor and the gain of the round it was added in.  Two small plots
follow the training log-likelihood and the held-out P_mu per round.
"""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QStyledItemDelegate,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from .block_view import cache_axes
from .qt_session import QtSession

COLUMNS = ("#", "question", "window", "e^λ", "gain")
WINDOW_COLUMN = 2
SENTENCE_COLOR = QColor("#1f4e99")
WORD_COLOR = QColor("#2e7d32")
NOT_COLOR = QColor("#c62828")
RELEVANCE_COLOR = QColor("#5e35b1")
DEFAULT_LAMBDA_CAP = 10.0   # Segmenter's default lambda_max
SPAN = 5.5   # least half-width of the glyph in window units (the paper's windows reach 5 sentences/words)
COHESION_COLOR = QColor("#ef6c00")


#: per fixed column, the widest text it shows: 500 rounds at most, e^λ to 3 digits (or at its cap), gain to 4
WIDEST_TEXT = {0: "0000", 3: "8.88e+88 (cap)", 4: "-8.888e-88"}
#: the window column is a drawn glyph, not text
GLYPH_WIDTH = 140
#: the cell's margins and the header's sort indicator
CELL_PADDING = 18

#: what Train does, in its tool tip
TRAIN_TIP = "Train language models and induce features on this corpus (first 80% of documents; the rest is held out)"
#: why Train and Step are off
NEEDS_REFERENCE_TIP = "Training needs a corpus with reference boundaries (open one to train on)"

class FeatureTableModel(QAbstractTableModel):
    """Rows = ``session.state.rounds``; appended rows are announced with beginInsertRows (no full reset)."""

    def __init__(self, session: QtSession, parent=None):
        super().__init__(parent)
        self.session = session
        self._count = 0
        self._rounds_id = id(session.state.rounds)
        self._texts: dict[tuple[int, int], str | None] = {}   # rendered cells (descriptions are not free)
        session.featuresChanged.connect(self.sync)

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return COLUMNS[section]
        return None

    def sync(self) -> None:
        rounds = self.session.state.rounds
        if len(rounds) < self._count or id(rounds) != self._rounds_id:
            # a new list (reset, or a loaded model's history): rebuild
            self.beginResetModel()
            self._count = len(rounds)
            self._rounds_id = id(rounds)
            self._texts = {}
            self.endResetModel()
            return
        if len(rounds) > self._count:
            self.beginInsertRows(QModelIndex(), self._count, len(rounds) - 1)
            self._count = len(rounds)
            self.endInsertRows()
        if self._count:
            # every round re-fits all weights, so earlier e^λ change too
            self._texts = {key: text for key, text in self._texts.items() if key[1] != 3}
            self.dataChanged.emit(self.index(0, 3), self.index(self._count - 1, 3))

    def current_factor(self, row: int) -> float:
        weights = self.session.state.current_weights()
        if row < len(weights):
            return float(weights[row])  # already e^lambda
        return self.session.state.rounds[row].weight

    def lambda_cap(self) -> float:
        """The model's cap on |λ| (a feature that separates the training events is held there)."""
        induced = self.session.state.shown_features()
        cap = induced.lambda_max if induced is not None else None
        return float(cap) if isinstance(cap, (int, float)) and cap > 0 else DEFAULT_LAMBDA_CAP

    def is_capped(self, row: int) -> bool:
        factor = self.current_factor(row)
        return factor > 0 and abs(math.log(factor)) >= self.lambda_cap() * (1 - 1e-9)

    #: the roles answered; the view asks for a dozen per cell, and the rest must cost nothing
    ROLES = frozenset({Qt.DisplayRole, Qt.UserRole, Qt.ForegroundRole, Qt.TextAlignmentRole, Qt.ToolTipRole})
    RIGHT = int(Qt.AlignRight | Qt.AlignVCenter)
    GREEN, RED = QBrush(QColor("#2e7d32")), QBrush(QColor("#c62828"))

    def data(self, index, role=Qt.DisplayRole):
        if role not in self.ROLES or not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == Qt.DisplayRole:
            key = (row, col)
            text = self._texts.get(key)
            if text is None:
                text = self._texts[key] = self._display(row, col)
            return text
        if role == Qt.UserRole:
            return self.session.state.rounds[row].feature
        if role == Qt.ForegroundRole:
            return (self.GREEN if self.current_factor(row) > 1 else self.RED) if col == 3 else None
        if role == Qt.TextAlignmentRole:
            return self.RIGHT if col in (0, 3, 4) else None
        if col == 3 and self.is_capped(row):   # tool tip
            return (f"|λ| reached the cap of {self.lambda_cap():g} (e^λ = {self.current_factor(row):.3g}):"
                    " on the training events this feature alone decides the answer")
        return self.session.state.rounds[row].feature.description

    def _display(self, row: int, col: int) -> str | None:
        r = self.session.state.rounds[row]
        if col == 0:
            return str(r.round)
        if col == 1:
            return r.feature.description
        if col == 3:
            text = f"{self.current_factor(row):.3g}"
            return f"{text} (cap)" if self.is_capped(row) else text
        if col == 4:
            return "" if r.gain != r.gain else f"{r.gain:.4g}"
        return ""


class WindowGlyphDelegate(QStyledItemDelegate):
    """Paints a feature's window relative to the boundary, after the bars of the paper's Figure 5.

    All rows share one scale (the widest window in the table, at least 5 units each side), so bar lengths
    compare across rows.
    """

    _span_key: tuple = ()
    _span = SPAN

    def span(self, model) -> float:
        rounds = model.session.state.rounds
        key = (id(rounds), len(rounds))
        if key == self._span_key:   # painting asks once per row; the table changes once per round
            return self._span
        extent = SPAN
        for r in rounds:
            for w in (r.feature.window, r.feature.not_window):
                if w is not None:
                    extent = max(extent, abs(w.start) + 0.5, abs(w.end) + 0.5)
        self._span_key, self._span = key, extent
        return extent

    def paint(self, painter: QPainter, option, index) -> None:
        super().paint(painter, option, index)
        feature = index.data(Qt.UserRole)
        if feature is None:
            return
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing, True)
        rect = option.rect.adjusted(4, 3, -4, -3)
        cx = rect.center().x()
        unit = rect.width() / (2 * self.span(index.model()))
        mid = rect.center().y()

        def x_of(v):
            return cx + v * unit

        # the axis and the boundary mark
        painter.setPen(QPen(QColor("#bdbdbd"), 1))
        painter.drawLine(int(rect.left()), int(mid), int(rect.right()), int(mid))
        painter.setPen(QPen(QColor("#424242"), 1.5))
        painter.drawLine(int(cx), int(rect.top()), int(cx), int(rect.bottom()))

        def bar(window, color, hatched=False):
            if window is None:
                return
            start, end = float(window.start), float(window.end)
            if window.unit == "sentence":
                h = rect.height() * 0.55
            else:
                h = rect.height() * 0.25
            if end == start:
                # a point window: "begins the preceding sentence" -- a dot at the sentence start
                painter.setBrush(QBrush(color))
                painter.setPen(Qt.NoPen)
                painter.drawEllipse(QRectF(x_of(start) - 3, mid - 3, 6, 6))
                return
            box = QRectF(x_of(start) + 1, mid - h / 2, (end - start) * unit - 2, h)
            if hatched:
                painter.setBrush(QBrush(color, Qt.BDiagPattern))
                painter.setPen(QPen(color, 1))
            else:
                painter.setBrush(QBrush(color))
                painter.setPen(Qt.NoPen)
            painter.drawRect(box)
            if window.unit == "word":
                # word ranges: one tick per word, as the paper's word figures
                painter.setPen(QPen(QColor("white"), 1))
                for k in range(int(start) + 1, int(end)):
                    painter.drawLine(int(x_of(k)), int(box.top()), int(x_of(k)), int(box.bottom()))

        kind = feature.kind
        window = feature.window
        if kind == "relevance":
            bar(window, RELEVANCE_COLOR)
        elif kind == "cohesion":
            bar(window, COHESION_COLOR)
        elif window is not None and window.unit == "word":
            bar(window, WORD_COLOR)
        else:
            bar(window, SENTENCE_COLOR)
        bar(feature.not_window, NOT_COLOR, hatched=True)
        painter.restore()


class FeaturePanel(QWidget):
    """Table + per-round plots + Train / Step / Run / Pause / Stop controls.

    The panel only emits requests; the main window owns the worker that serves them.
    """

    trainRequested = Signal(int)      # n_features
    stepRequested = Signal()
    runRequested = Signal()
    pauseRequested = Signal()
    stopRequested = Signal()
    featureSelected = Signal(int)     # the row (= the model's feature index), -1 when the selection is cleared

    def __init__(self, session: QtSession, parent=None):
        super().__init__(parent)
        self.session = session
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)

        left = QVBoxLayout()
        controls = QHBoxLayout()
        self.n_features = QSpinBox()
        self.n_features.setRange(1, 500)
        self.n_features.setValue(30)
        self.n_features.setPrefix("features: ")
        self.n_features.setObjectName("nFeatures")
        self.train_button = QPushButton("Train")
        self.train_button.setToolTip(TRAIN_TIP)
        self.step_button = QPushButton("Step")
        self.run_button = QPushButton("Run")
        self.pause_button = QPushButton("Pause")
        self.stop_button = QPushButton("Stop")
        for name, button in (("trainButton", self.train_button), ("stepButton", self.step_button),
                             ("runButton", self.run_button), ("pauseButton", self.pause_button),
                             ("stopButton", self.stop_button)):
            button.setObjectName(name)
        controls.addWidget(self.n_features)
        for button in (self.train_button, self.step_button, self.run_button, self.pause_button, self.stop_button):
            controls.addWidget(button)
        self.reuse_lms = QCheckBox("keep the model's LMs")
        self.reuse_lms.setObjectName("reuseLanguageModels")
        self.reuse_lms.setToolTip("Train only the features, on the relevance of the shown model's language models, "
                                  "instead of training new language models on this corpus first (seconds instead "
                                  "of minutes; the relevance then comes from the text those models were trained on)")
        controls.addWidget(self.reuse_lms)
        controls.addStretch(1)
        self.status = QLabel("")
        self.status.setStyleSheet("color: #616161")
        controls.addWidget(self.status)
        left.addLayout(controls)

        self.model = FeatureTableModel(session, self)
        self.table = QTableView()
        self.table.setObjectName("featureTable")
        self.table.setModel(self.model)
        self.table.setItemDelegateForColumn(WINDOW_COLUMN, WindowGlyphDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        # fixed widths: ResizeToContents asks every row for its size on each change (1,400 data() calls per
        # induced feature at 40 rows, a third of the frame).  Each is the widest text the column can show, in
        # the table's own font, so that no number is cut to "105…"
        metrics = self.table.fontMetrics()
        for column, widest in WIDEST_TEXT.items():
            header.setSectionResizeMode(column, QHeaderView.Fixed)
            header.resizeSection(column, max(metrics.horizontalAdvance(widest), metrics.horizontalAdvance(
                COLUMNS[column])) + CELL_PADDING)
        header.setSectionResizeMode(WINDOW_COLUMN, QHeaderView.Fixed)
        header.resizeSection(WINDOW_COLUMN, GLYPH_WIDTH)
        header.setSectionResizeMode(1, QHeaderView.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        left.addWidget(self.table, 1)
        layout.addLayout(left, 3)

        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setMinimumWidth(220)
        self.loglik_plot = self.plots.addPlot(row=0, col=0, title="train log-likelihood / event")
        self.loglik_plot.setToolTip("mean log-likelihood of a training event (nats) after each round's refit")
        self.pmu_plot = self.plots.addPlot(row=1, col=0, title="held-out P_mu")
        for plot in (self.loglik_plot, self.pmu_plot):
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.hideButtons()
            plot.setMouseEnabled(x=False, y=False)
            plot.getAxis("left").setWidth(45)
            plot.titleLabel.setText(plot.titleLabel.text, size="8pt")
            cache_axes(plot)
        self.loglik_curve = self.loglik_plot.plot(pen=pg.mkPen("#1f4e99", width=2), symbol="o", symbolSize=4,
                                                  symbolBrush="#1f4e99")
        self.pmu_curve = self.pmu_plot.plot(pen=pg.mkPen("#c62828", width=2), symbol="o", symbolSize=4,
                                            symbolBrush="#c62828")
        layout.addWidget(self.plots, 1)

        self.train_button.clicked.connect(lambda: self.trainRequested.emit(self.n_features.value()))
        self.step_button.clicked.connect(self.stepRequested)
        self.run_button.clicked.connect(self.runRequested)
        self.pause_button.clicked.connect(self.pauseRequested)
        self.stop_button.clicked.connect(self.stopRequested)
        self.follow = False
        session.featuresChanged.connect(self.refresh_plots)
        self.set_running(False)

    def set_running(self, running: bool, paused: bool = False, can_train: bool = True,
                    has_lms: bool = False) -> None:
        """Enable the buttons that make sense for the worker's state."""
        self.train_button.setEnabled(not running and can_train)
        self.reuse_lms.setEnabled(not running and has_lms)
        # Step also starts a training (paused after its first feature); each state says what the button does, or
        # why it cannot
        self.step_button.setEnabled((running and paused) or (not running and can_train))
        if running:
            step_tip = ("Induce exactly one more feature, then pause" if paused else
                        "Training is running: Pause it first, then step one feature at a time")
        elif can_train:
            step_tip = "Start training and pause after its first feature; each press then adds one"
        else:
            step_tip = NEEDS_REFERENCE_TIP
        self.step_button.setToolTip(step_tip)
        self.train_button.setToolTip(TRAIN_TIP if can_train or running else NEEDS_REFERENCE_TIP)
        self.run_button.setEnabled(running and paused)
        self.pause_button.setEnabled(running and not paused)
        self.stop_button.setEnabled(running)
        self.n_features.setEnabled(not running)
        self.follow = running

    def refresh_plots(self) -> None:
        state = self.session.state
        rounds = state.rounds
        x = [r.round for r in rounds]
        # the engine reports the total log-likelihood; divided by the number of training events it compares
        # across corpora (and is what the title says)
        events = training_events(state.shown_provenance())
        if events:
            self.loglik_plot.setTitle("train log-likelihood / event", size="8pt")
            self.loglik_curve.setData(x, [r.train_loglik / events for r in rounds])
        else:
            self.loglik_plot.setTitle("train log-likelihood (total)", size="8pt")
            self.loglik_curve.setData(x, [r.train_loglik for r in rounds])
        pmu = [(r.round, r.heldout_p_mu) for r in rounds if r.heldout_p_mu is not None]
        self.pmu_curve.setData([p[0] for p in pmu], [p[1] for p in pmu])
        step = round_tick_step(len(rounds))
        for plot in (self.loglik_plot, self.pmu_plot):
            # whole rounds only, spaced so the labels never run together
            plot.getAxis("bottom").setTickSpacing(step, step)
            plot.setXRange(0.5, max(len(rounds), 1) + 0.5, padding=0)
        if rounds and self.follow:
            self.table.scrollToBottom()   # live training: keep the newest feature in view
        elif rounds:
            self.table.scrollToTop()      # a loaded model: the first (strongest) features first

    def _selection_changed(self, *_):
        rows = self.table.selectionModel().selectedRows()
        self.featureSelected.emit(rows[0].row() if rows else -1)


def training_events(provenance: dict) -> int | None:
    """The number of training events (gaps) a segmenter was induced on, when its ``provenance`` (what its training
    recorded) says so."""
    events = provenance.get("train_events") if isinstance(provenance, dict) else None
    return int(events) if isinstance(events, (int, float)) and events > 0 else None


def round_tick_step(rounds: int) -> int:
    """A whole-number tick spacing giving at most about six labels for ``rounds`` rounds."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500):
        if rounds / step <= 6:
            return step
    return 1000
