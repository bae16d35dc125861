"""The block view: the paper's Figures 7/8, live.

One block of the stream (200-300 sentences, a setting) shows the model's boundary probability as a curve, the
reference boundaries as ticks *below* the axis and the hypothesised boundaries *above* it, and the threshold alpha
as a draggable horizontal line.  Peer segmenters get one tick row each under the reference (issue 6).  Above sits
an overview strip of the whole corpus with the current block as a draggable region; below, the per-sentence
relevance trace of Section 3.3.

Plot items are created once and updated in place with ``setData`` (pyqtgraph's cheap path); the x axis is the
position b in sentences (a boundary at b lies before sentence b, 0-based).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QVBoxLayout, QWidget

from .qt_session import QtSession
from .state import MODEL_ROW

# Row layout of the block plot, in data units (the probability lives in [0, 1]).
HYP_TICKS = (0.0, 0.28)
REF_TICKS = (-0.2, 0.0)
PEER_ROW_TOP = -0.26
PEER_ROW_HEIGHT = 0.15
PEER_ROW_GAP = 0.04

CURVE_COLOR = "#1f4e99"
REF_COLOR = "#222222"
HYP_COLOR = "#c62828"
ALPHA_COLOR = "#e08a00"
HIGHLIGHT_COLOR = "#2e7d32"
PEER_COLORS = {"texttiling": "#7b1fa2", "c99": "#00838f"}
EXTRA_PEER_COLORS = ["#6d4c41", "#ad1457", "#558b2f", "#3949ab"]


def peer_color(name: str, index: int = 0) -> str:
    return PEER_COLORS.get(name.lower(), EXTRA_PEER_COLORS[index % len(EXTRA_PEER_COLORS)])


def tick_segments(positions, y0: float, y1: float) -> tuple[np.ndarray, np.ndarray]:
    """x, y arrays drawing one vertical segment per position (for ``connect='pairs'``)."""
    positions = np.asarray(positions, dtype=np.float64)
    x = np.repeat(positions, 2)
    y = np.tile(np.array([y0, y1], dtype=np.float64), len(positions))
    return x, y


class BlockView(QWidget):
    """Overview strip + block plot + relevance trace over a :class:`QtSession`.

    Signals: ``positionHovered(int)`` while the mouse moves over a position, ``positionClicked(int)`` on click,
    ``blockChanged(int)`` when the visible block changes.
    """

    positionHovered = Signal(int)
    positionClicked = Signal(int)
    blockChanged = Signal(int)
    alphaDragged = Signal(float)        # live, while dragging (cheap preview)
    alphaDragFinished = Signal(float)   # released (full recompute)

    def __init__(self, session: QtSession, *, block_size: int = 250, parent=None):
        super().__init__(parent)
        self.session = session
        self.block_size = int(block_size)
        self.block = 0
        self._peer_items: dict[str, pg.PlotCurveItem] = {}
        self._updating_region = False

        # No antialiasing: antialiased wide paths are the slow path of Qt's raster engine (benchmarks/bench_app.py)
        pg.setConfigOptions(antialias=False, background="w", foreground="#333333")
        self._ticks: dict[object, tuple[np.ndarray, float, float]] = {}
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setObjectName("blockGraphics")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)

        # -- overview strip of the whole corpus -------------------------------------------------------------
        self.overview = self.graphics.addPlot(row=0, col=0)
        self.overview.setMaximumHeight(70)
        self.overview.setMouseEnabled(x=False, y=False)
        self.overview.hideButtons()
        self.overview.setMenuEnabled(False)
        self.overview.getAxis("left").setWidth(60)
        self.overview.getAxis("left").setTicks([[(0.5, "corpus")]])
        self.overview.setYRange(-0.3, 1.05, padding=0)
        self.overview_curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLOR, width=1))
        self.overview.addItem(self.overview_curve)
        self.overview_ref = pg.PlotCurveItem(pen=pg.mkPen(REF_COLOR, width=1), connect="pairs")
        self.overview.addItem(self.overview_ref, ignoreBounds=True)
        self.region = pg.LinearRegionItem(values=(0, self.block_size), movable=True,
                                          brush=pg.mkBrush(255, 193, 7, 60), pen=pg.mkPen(ALPHA_COLOR))
        self.region.setZValue(10)
        self.overview.addItem(self.region, ignoreBounds=True)
        self.region.sigRegionChangeFinished.connect(self._region_moved)

        # -- the block plot ----------------------------------------------------------------------------------
        self.plot = self.graphics.addPlot(row=1, col=0)
        self.plot.setObjectName("blockPlot")
        self.plot.showGrid(x=True, y=False, alpha=0.15)
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.setLabel("left", "P(boundary)")
        self.plot.setLabel("bottom", "sentence")
        self.plot.getAxis("left").setWidth(60)
        self.plot.hideButtons()
        self.plot.addLegend(offset=(-10, 5), labelTextSize="8pt", colCount=4,
                            brush=pg.mkBrush(255, 255, 255, 215), pen=pg.mkPen("#dddddd"))
        self.axis_line = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888", width=1))
        self.plot.addItem(self.axis_line, ignoreBounds=True)
        # antialiasing a 1.5 px curve costs ~120 ms per repaint in the raster engine; a 2 px aliased one ~5 ms
        self.curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLOR, width=2), name="P(boundary)", antialias=False,
                                     clipToView=True)
        self.plot.addItem(self.curve)
        self.ref_ticks = pg.PlotCurveItem(pen=pg.mkPen(REF_COLOR, width=2), connect="pairs", name="reference")
        self.plot.addItem(self.ref_ticks, ignoreBounds=True)
        self.hyp_ticks = pg.PlotCurveItem(pen=pg.mkPen(HYP_COLOR, width=2), connect="pairs", name="hypothesis")
        self.plot.addItem(self.hyp_ticks, ignoreBounds=True)
        self.highlight = pg.ScatterPlotItem(symbol="t", size=9, brush=pg.mkBrush(HIGHLIGHT_COLOR), pen=None,
                                            name="feature fires")
        self.plot.addItem(self.highlight, ignoreBounds=True)
        self.alpha_line = pg.InfiniteLine(pos=session.state.alpha, angle=0, movable=True, bounds=(0, 1),
                                          pen=pg.mkPen(ALPHA_COLOR, width=2, style=Qt.DashLine),
                                          hoverPen=pg.mkPen(ALPHA_COLOR, width=3),
                                          label="α = {value:.2f}",
                                          labelOpts={"position": 0.97, "color": ALPHA_COLOR, "anchors": [(1, 1), (1, 1)],
                                                     "fill": (255, 255, 255, 220)})
        self.alpha_line.setZValue(20)
        self.plot.addItem(self.alpha_line, ignoreBounds=True)
        self.alpha_line.sigPositionChanged.connect(lambda line: self.alphaDragged.emit(float(line.value())))
        self.alpha_line.sigPositionChangeFinished.connect(
            lambda line: self.alphaDragFinished.emit(float(line.value())))
        self.cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen("#9e9e9e", width=1, style=Qt.DotLine))
        self.cursor.setVisible(False)
        self.plot.addItem(self.cursor, ignoreBounds=True)
        self.selected = pg.InfiniteLine(angle=90, pen=pg.mkPen("#ff6f00", width=1.5))
        self.selected.setVisible(False)
        self.plot.addItem(self.selected, ignoreBounds=True)
        self.empty_label = pg.TextItem("no model yet - reference and baselines only", color="#9e9e9e",
                                       anchor=(0.5, 0.5))
        self.plot.addItem(self.empty_label, ignoreBounds=True)

        # -- relevance trace --------------------------------------------------------------------------------
        self.rel_plot = self.graphics.addPlot(row=2, col=0)
        self.rel_plot.setMaximumHeight(130)
        self.rel_plot.setXLink(self.plot)
        self.rel_plot.setMouseEnabled(x=True, y=False)
        self.rel_plot.hideButtons()
        self.rel_plot.setLabel("left", "relevance R")
        self.rel_plot.getAxis("left").enableAutoSIPrefix(False)
        self.rel_plot.getAxis("left").setWidth(60)
        self.rel_plot.showGrid(x=True, y=True, alpha=0.15)
        self.rel_zero = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888"))
        self.rel_plot.addItem(self.rel_zero, ignoreBounds=True)
        self.rel_curve = pg.PlotDataItem(stepMode="center", fillLevel=0, pen=pg.mkPen("#5e35b1", width=1),
                                         brush=pg.mkBrush(94, 53, 177, 70))
        self.rel_plot.addItem(self.rel_curve)
        self.rel_flat_label = pg.TextItem("relevance is 0 everywhere: the trigger model learned no weights "
                                          "(too little training text)", color="#9e9e9e", anchor=(0, 0))
        self.rel_flat_label.setParentItem(self.rel_plot.vb)   # pinned to the view's corner, not to data
        self.rel_flat_label.setPos(8, 4)
        self.rel_flat_label.setVisible(False)
        self.rel_ref = pg.PlotCurveItem(pen=pg.mkPen(REF_COLOR, width=1, style=Qt.DashLine), connect="pairs")
        self.rel_plot.addItem(self.rel_ref, ignoreBounds=True)
        self.graphics.ci.layout.setRowStretchFactor(1, 4)

        # hover is rate-limited: a mouse move is cheap but the context panel re-renders HTML
        self._hover_proxy = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._mouse_clicked)
        self.plot.sigXRangeChanged.connect(self._xrange_changed)

        session.corpusChanged.connect(self.refresh_corpus)
        session.probabilitiesChanged.connect(self.refresh_probabilities)
        session.hypothesisChanged.connect(self.refresh_hypothesis)
        session.peersChanged.connect(self.refresh_peers)
        self.refresh_corpus()

    # -- block navigation -------------------------------------------------------------------------------------
    @property
    def n_blocks(self) -> int:
        n = self.session.state.n_sentences
        return max(1, -(-n // self.block_size))

    def block_range(self, block: int | None = None) -> tuple[int, int]:
        block = self.block if block is None else block
        n = self.session.state.n_sentences
        start = block * self.block_size
        return start, min(start + self.block_size, max(n, 1))

    def set_block(self, block: int) -> None:
        block = int(min(max(block, 0), self.n_blocks - 1))
        self.block = block
        start, end = self.block_range()
        self.plot.setXRange(start, end, padding=0.01)
        self._place_empty_label()
        self.blockChanged.emit(block)

    def set_block_size(self, size: int) -> None:
        first = self.block * self.block_size
        self.block_size = max(int(size), 20)
        self.set_block(first // self.block_size)

    def next_block(self) -> None:
        self.set_block(self.block + 1)

    def previous_block(self) -> None:
        self.set_block(self.block - 1)

    def show_sentence(self, sentence: int) -> None:
        """Go to the block holding ``sentence`` and mark it."""
        self.set_block(int(sentence) // self.block_size)
        self.select_position(int(sentence))

    def select_position(self, position: int) -> None:
        self.selected.setPos(position)
        self.selected.setVisible(True)

    def _region_moved(self) -> None:
        if self._updating_region:
            return
        lo, hi = self.region.getRegion()
        center = 0.5 * (lo + hi)
        self.set_block(int(center) // self.block_size)

    def _xrange_changed(self, _plot, xrange) -> None:
        # keep the overview region in step with pans and zooms of the block plot
        self._updating_region = True
        try:
            self.region.setRegion(xrange)
        finally:
            self._updating_region = False
        self._place_empty_label()
        self._redraw_visible()

    # -- ticks and the relevance trace are drawn for the visible range only ------------------------------------
    def _set_ticks(self, item, positions, y0: float, y1: float) -> None:
        self._ticks[item] = (np.asarray(positions, dtype=np.float64), y0, y1)
        self._draw_ticks(item)

    def _visible_span(self) -> tuple[float, float]:
        lo, hi = self.plot.vb.viewRange()[0]
        width = hi - lo
        return lo - width, hi + width     # one screen of margin each side keeps panning smooth

    def _draw_ticks(self, item) -> None:
        positions, y0, y1 = self._ticks[item]
        lo, hi = self._visible_span()
        i, j = np.searchsorted(positions, [lo, hi])
        item.setData(*tick_segments(positions[i:j], y0, y1))

    def _draw_relevance(self) -> None:
        rel = self.session.state.relevance
        if rel is None:
            self.rel_curve.setData([], [])
            return
        lo, hi = self._visible_span()
        i = int(max(0, np.floor(lo)))
        j = int(min(len(rel), np.ceil(hi)))
        if j <= i:
            self.rel_curve.setData([], [])
            return
        self.rel_curve.setData(np.arange(i, j + 1, dtype=np.float64), rel[i:j])

    def _redraw_visible(self) -> None:
        for item in self._ticks:
            self._draw_ticks(item)
        self._draw_relevance()

    # -- refresh from the session -----------------------------------------------------------------------------
    def refresh_corpus(self) -> None:
        state = self.session.state
        n = state.n_sentences
        self._set_ticks(self.ref_ticks, state.reference_boundaries, *REF_TICKS)
        ox, oy = tick_segments(state.reference_boundaries, -0.3, 0.0)
        self.overview_ref.setData(ox, oy)
        self._set_ticks(self.rel_ref, state.reference_boundaries, -1e3, 1e3)
        # limits first: setting a range outside the old limits would be clamped to them
        self.overview.setLimits(xMin=0, xMax=max(n, 1))
        self.overview.setXRange(0, max(n, 1), padding=0)
        self.plot.setLimits(xMin=-5, xMax=max(n, 1) + 5, minXRange=10)
        self.refresh_probabilities()
        self.refresh_peers()
        self.set_block(0)

    def refresh_probabilities(self) -> None:
        state = self.session.state
        probs = state.probabilities
        if probs is None:
            self.curve.setData([], [])
            self.overview_curve.setData([], [])
        else:
            x = np.arange(1, len(probs) + 1, dtype=np.float64)
            self.curve.setData(x, probs)
            # the overview shows the per-bin maximum so isolated peaks survive downsampling
            bins = max(1, len(probs) // 1500)
            m = len(probs) // bins * bins
            if m:
                self.overview_curve.setData(x[:m:bins], probs[:m].reshape(-1, bins).max(axis=1))
        self.empty_label.setVisible(probs is None and state.n_sentences > 0)
        rel = state.relevance
        if rel is None:
            self.rel_curve.setData([], [])
            self.rel_plot.setVisible(False)
        else:
            self.rel_plot.setVisible(True)
            self._draw_relevance()
            finite = rel[np.isfinite(rel)]
            flat = not finite.size or float(np.abs(finite).max()) < 1e-9
            # a trigger model with no weights (too little text to learn any) gives R = 0 everywhere: say so
            self.rel_flat_label.setVisible(flat)
            if flat:
                self.rel_plot.setYRange(-0.05, 0.05, padding=0)
            else:
                lo, hi = np.percentile(finite, [1, 99])
                pad = 0.1 * max(hi - lo, 1e-3)
                self.rel_plot.setYRange(min(lo, 0) - pad, max(hi, 0) + pad, padding=0)
        self.refresh_hypothesis()

    def refresh_hypothesis(self) -> None:
        state = self.session.state
        self._set_ticks(self.hyp_ticks, state.hypothesis_boundaries, *HYP_TICKS)
        self.alpha_line.setVisible(state.probabilities is not None)
        if abs(self.alpha_line.value() - state.alpha) > 1e-9:
            # pushing the model's value into the view must not echo back as a drag
            self.alpha_line.blockSignals(True)
            self.alpha_line.setValue(state.alpha)
            self.alpha_line.blockSignals(False)
        self.alpha_line.label.setText(f"α = {state.alpha:.2f}")

    def refresh_peers(self) -> None:
        state = self.session.state
        names = [p for p in state.peer_masses if p in state.shown_peers]
        for name in list(self._peer_items):
            if name not in names:
                item = self._peer_items.pop(name)
                self._ticks.pop(item, None)
                self.plot.removeItem(item)
                self.plot.legend.removeItem(item)
        ticks = [(0.0, "0"), (0.5, "0.5"), (1.0, "1")]
        minor = [(sum(REF_TICKS) / 2, "ref")]
        y0 = PEER_ROW_TOP
        for i, name in enumerate(names):
            item = self._peer_items.get(name)
            if item is None:
                item = pg.PlotCurveItem(pen=pg.mkPen(peer_color(name, i), width=2), connect="pairs", name=name)
                self._peer_items[name] = item
                self.plot.addItem(item, ignoreBounds=True)
            boundaries = np.cumsum(state.peer_masses[name])[:-1]
            self._set_ticks(item, boundaries, y0 - PEER_ROW_HEIGHT, y0)
            minor.append((y0 - PEER_ROW_HEIGHT / 2, name))
            y0 -= PEER_ROW_HEIGHT + PEER_ROW_GAP
        ymin = min(y0 + PEER_ROW_GAP, REF_TICKS[0]) - 0.04
        self.plot.setYRange(ymin, 1.06, padding=0)
        self.plot.getAxis("left").setTicks([ticks, minor])
        self._place_empty_label()

    def _place_empty_label(self) -> None:
        start, end = self.block_range()
        self.empty_label.setPos(0.5 * (start + end), 0.5)

    # -- feature highlighting ---------------------------------------------------------------------------------
    def highlight_positions(self, positions) -> None:
        positions = np.asarray(positions, dtype=np.float64)
        self.highlight.setData(positions, np.full(len(positions), 1.0))

    def clear_highlight(self) -> None:
        self.highlight.setData([], [])

    # -- mouse ------------------------------------------------------------------------------------------------
    def position_at_scene(self, scene_pos) -> int | None:
        vb = self.plot.vb
        if not self.plot.sceneBoundingRect().contains(scene_pos):
            return None
        x = vb.mapSceneToView(scene_pos).x()
        n = self.session.state.n_sentences
        b = int(round(x))
        if n < 2 or not 1 <= b <= n - 1:
            return None
        return b

    def _mouse_moved(self, args) -> None:
        b = self.position_at_scene(args[0])
        if b is None:
            self.cursor.setVisible(False)
            return
        self.cursor.setPos(b)
        self.cursor.setVisible(True)
        self.positionHovered.emit(b)

    def _mouse_clicked(self, event) -> None:
        b = self.position_at_scene(event.scenePos())
        if b is not None and event.button() == Qt.LeftButton:
            self.select_position(b)
            self.positionClicked.emit(b)


__all__ = ["BlockView", "peer_color", "tick_segments", "MODEL_ROW", "QColor"]
