"""The block view: the paper's Figures 7/8, live.

One block of the stream (250 sentences by default) shows the model's boundary probability as a curve, the
reference boundaries as ticks *below* the axis and the hypothesised boundaries *above* it, and the threshold alpha
as a draggable horizontal line.  Peer segmenters get one tick row each under the reference.  Above sits an
overview strip of the whole corpus with the current block as a draggable region; below, the per-sentence
relevance trace of Section 3.3.

The view scales with the stream: every plot item is created once and updated with ``setData``; what is drawn is
cut to the visible range (plus a screen of margin each side), so the work per block is proportional to the block,
not to the corpus.  Each tick row is one item.  When more boundaries are visible than the row has pixels for
(zoomed out), a row shows their *density* as a filled profile instead of ticks, the relevance trace becomes a
min-max envelope, and the curve is downsampled by pyqtgraph's peak method; the overview shows per-bin maxima and
the reference density.  The x axis is the position b in sentences (a boundary at b lies before sentence b).
"""
from __future__ import annotations

import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

from ..general_lm import MODEL_LM_LABEL
from . import plot_svg as svg
from .qt_session import QtSession

# Row layout of the block plot, as shares of the P(boundary) axis's top (1 when the axis shows 0-1; the rows keep
# their heights on screen when the axis fits a curve that stays low).
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

#: a row draws ticks while it has at least this many pixels per visible boundary, else their density
PIXELS_PER_TICK = 3.0
#: width of one density bin in pixels (one aliased 1 px line per pixel column: wider pens are the raster
#: engine's slow path, 20 ms for one row)
DENSITY_BIN_PX = 1.0
#: density bins averaged together (5 pixel columns)
SMOOTH_BINS = 5
#: a density bin is full height at one boundary every this many sentences
FULL_DENSITY_EVERY = 2.0
#: bins of the overview strip
OVERVIEW_BINS = 1500

#: the tops the P(boundary) axis takes when it fits the curve, each with the step of its labelled ticks
AXIS_TOPS = ((0.05, 0.025), (0.1, 0.05), (0.2, 0.1), (0.3, 0.1), (0.4, 0.1), (0.5, 0.1), (0.6, 0.2), (0.8, 0.2),
             (1.0, 0.5))
#: the share of positions a fitted axis may leave above its top (none in a text of fewer than 5,000 sentences, so
#: one book shows all its peaks): a few spikes (a model's answer at the first gaps of some documents can reach 1)
#: would otherwise pin the axis of a long corpus to 1 and flatten the rest
CLIPPED_SHARE = 1 / 5000

#: a reference segment's title beside its tick: font size, the most room it takes, the least worth drawing, and
#: the gap it keeps from the next tick (a label never covers a tick; where there is no room it shortens, then goes)
TITLE_FONT_PX = 10
TITLE_MAX_PX = 220
TITLE_MIN_PX = 12
TITLE_GAP_PX = 4
#: an elided title is shown only when it says this many characters more than its heading alone
TITLE_LEAST_MORE_CHARS = 8
#: where a title's heading ends: "Chapter 4: The Title", "IV. The Title", "BOOK ONE -- The Title"
_HEADING_END = re.compile(r"[:.]\s|\s[-–—]+\s|\s--\s")


#: empty data for a step-mode curve (pyqtgraph wants one more x than y)
NO_STEPS = (np.zeros(1), np.zeros(0))


def cache_axes(plot) -> None:
    """Keep each axis of ``plot`` as a pixmap, re-rendered only when it changes: the axes' text was three
    quarters of a repaint of the block view (38 ms of 39 on 70k sentences offscreen; 8 ms cached)."""
    for name in ("left", "bottom", "right", "top"):
        axis = plot.getAxis(name)
        if axis is not None:
            axis.setCacheMode(QGraphicsItem.DeviceCoordinateCache)


def peer_color(name: str, index: int = 0) -> str:
    return PEER_COLORS.get(name.lower(), EXTRA_PEER_COLORS[index % len(EXTRA_PEER_COLORS)])


def tick_segments(positions, y0: float, y1: float) -> tuple[np.ndarray, np.ndarray]:
    """x, y arrays drawing one vertical segment per position (for ``connect='pairs'``)."""
    positions = np.asarray(positions, dtype=np.float64)
    x = np.repeat(positions, 2)
    y = np.tile(np.array([y0, y1], dtype=np.float64), len(positions))
    return x, y


def density_profile(positions: np.ndarray, lo: float, hi: float, bins: int, *, smooth: int = 1
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Bin edges over [lo, hi) and the boundary density per bin (boundaries per sentence) of sorted ``positions``,
    averaged over ``smooth`` neighbouring bins (a pixel column holds too few boundaries to read on its own)."""
    bins = max(int(bins), 1)
    edges = np.linspace(lo, hi, bins + 1)
    i, j = np.searchsorted(positions, [lo, hi])
    counts = np.histogram(positions[i:j], bins=edges)[0].astype(np.float64) if j > i else np.zeros(bins)
    if smooth > 1 and bins > smooth:
        counts = np.convolve(counts, np.full(smooth, 1.0 / smooth), mode="same")
    return edges, counts / max((hi - lo) / bins, 1e-9)


def bin_spread(values: np.ndarray, lo: int, hi: int, bins: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bin centres and, per bin of ``values[lo:hi]``, the minimum, maximum, mean and standard deviation: what a
    zoomed-out trace draws per pixel column (the extremes of a noisy trace fill every column from bottom to top;
    its mean and spread do not).  O(hi - lo), a few passes of numpy's reductions."""
    part = np.asarray(values[lo:hi], dtype=np.float64)
    bins = max(1, min(int(bins), part.size))
    starts = np.unique(np.linspace(0, part.size, bins + 1).astype(np.int64)[:-1])
    ends = np.append(starts[1:], part.size)
    counts = ends - starts
    means = np.add.reduceat(part, starts) / counts
    spread = np.sqrt(np.maximum(np.add.reduceat(part * part, starts) / counts - means * means, 0.0))
    return (lo + 0.5 * (starts + ends), np.minimum.reduceat(part, starts), np.maximum.reduceat(part, starts),
            means, spread)


def bin_means(values: np.ndarray, lo: int, hi: int, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin centres (in index units) and the mean of ``values[lo:hi]`` per bin."""
    part = np.asarray(values[lo:hi], dtype=np.float64)
    bins = max(1, min(int(bins), part.size))
    starts = np.unique(np.linspace(0, part.size, bins + 1).astype(np.int64)[:-1])
    ends = np.append(starts[1:], part.size)
    means = np.add.reduceat(part, starts) / (ends - starts)
    return lo + 0.5 * (starts + ends) - 0.5, means


def curve_height(probabilities: np.ndarray) -> float:
    """How high the curve reaches for the fitted axis: its highest value but the top :data:`CLIPPED_SHARE` of
    positions (0 for no curve).  One O(n) partition per curve, not per view."""
    n = probabilities.size
    if n == 0:
        return 0.0
    spikes = min(int(n * CLIPPED_SHARE), n - 1)
    return float(np.partition(probabilities, n - 1 - spikes)[n - 1 - spikes])


def axis_top(height: float, alpha: float | None = None) -> tuple[float, float]:
    """The top of the P(boundary) axis and its tick step: the lowest of :data:`AXIS_TOPS` holding ``height`` and
    the threshold ``alpha`` (None: the rule has none), so that the α line is always on screen to be dragged."""
    need = max(height, alpha if alpha is not None else 0.0)
    for top, step in AXIS_TOPS:
        if need <= top + 1e-9:
            return top, step
    return AXIS_TOPS[-1]


def short_titles(title: str) -> tuple[str, ...]:
    """A title and its shorter forms for a label with less room, longest first: the heading alone ("Letter 4"
    of "Letter 4: To Mrs. Saville, ..."), then its number alone ("4", "XV"), which still tells the chapters
    apart where they crowd."""
    out = [title]
    end = _HEADING_END.search(title)
    heading = title[:end.start()].strip() if end else title
    if heading and heading != title:
        out.append(heading)
    words = heading.split()
    if len(words) > 1:
        out.append(words[-1])
    return tuple(out)


def title_label_text(title: str, room_px: float, metrics: QFontMetrics) -> str:
    """What of ``title`` a label shows in ``room_px`` pixels: the whole title, elided at its end if the elided
    text still says more than its heading, else the heading or its number; "" when none fits."""
    forms = short_titles(title)
    if metrics.horizontalAdvance(title) <= room_px:
        return title
    heading = len(forms[1]) if len(forms) > 1 else 0
    elided = metrics.elidedText(title, Qt.ElideRight, int(room_px))
    if len(elided) - 1 >= heading + TITLE_LEAST_MORE_CHARS:   # "Letter 3: To …" says no more than "Letter 3"
        return elided
    for form in forms[1:]:
        if metrics.horizontalAdvance(form) <= room_px:
            return form
    return ""


# -- what the plots draw, as plain data for the SVG writer -----------------------------------------------------------

#: approximate size of a tick label in pixels (pyqtgraph's axis font), to decide which tick levels get text
TICK_CHAR_WIDTH_PX = 6.6
TICK_TEXT_HEIGHT_PX = 11.0
DASH_PATTERNS = {Qt.DashLine: (4.0, 2.0), Qt.DotLine: (1.0, 2.0), Qt.DashDotLine: (4.0, 2.0, 1.0, 2.0),
                 Qt.DashDotDotLine: (4.0, 2.0, 1.0, 2.0, 1.0, 2.0)}


def stroke_of(pen) -> svg.Stroke | None:
    """The colour, width, opacity and dash of a pen (None for no pen)."""
    pen = pg.mkPen(pen)
    if pen.style() == Qt.NoPen:
        return None
    width = max(float(pen.widthF()), 1.0)   # a cosmetic pen of width 0 draws 1 px
    dash = tuple(d * width for d in DASH_PATTERNS.get(pen.style(), ()))
    color = pen.color()
    return svg.Stroke(color.name(), width, round(color.alphaF(), 3), dash)


def fill_of(brush) -> svg.Fill | None:
    """The colour and opacity of a brush (None for no brush)."""
    brush = pg.mkBrush(brush)
    if brush.style() == Qt.NoBrush:
        return None
    color = brush.color()
    return svg.Fill(color.name(), round(color.alphaF(), 3))


def shown_slice(x: np.ndarray, lo: float, hi: float) -> slice:
    """The part of ascending ``x`` inside [lo, hi] and one point more each side (a line reaches the edges)."""
    i, j = np.searchsorted(x, [lo, hi])
    return slice(max(int(i) - 1, 0), min(int(j) + 1, len(x)))


def curve_data(item, lo: float, hi: float) -> list:
    """A curve item's data in [lo, hi] (copies, x ascending as every curve of the view has it): a polyline, steps
    (``stepMode="center"``: one more x than y), or segments (``connect="pairs"``)."""
    if isinstance(item, pg.PlotDataItem):
        x, y = item.getOriginalDataset()
        brush = item.opts.get("fillBrush")
    else:
        x, y = item.getData()
        brush = item.opts.get("brush")
    stroke = stroke_of(item.opts["pen"])
    if x is None or y is None or len(x) == 0 or stroke is None:
        return []
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    connect = item.opts.get("connect")
    if isinstance(connect, str) and connect == "pairs":
        pairs = shown_slice(x[0::2], lo, hi)
        part = slice(2 * pairs.start, 2 * pairs.stop)
        return [svg.Segments(x[part].copy(), y[part].copy(), stroke)]
    part = shown_slice(x, lo, hi)
    steps = item.opts.get("stepMode") in ("center", True) and len(x) == len(y) + 1
    values = y[part.start:max(part.stop - 1, part.start)] if steps else y[part]
    fill_level = item.opts.get("fillLevel")
    fill = fill_of(brush) if fill_level is not None and brush is not None else None
    return [svg.Polyline(x[part].copy(), values.copy(), stroke, steps=steps, fill=fill,
                         fill_level=float(fill_level or 0.0))]


def markers_data(item, lo: float, hi: float) -> list:
    x, y = item.getData()
    fill = fill_of(item.opts["brush"])
    if x is None or len(x) == 0 or fill is None:
        return []
    part = shown_slice(np.asarray(x, dtype=np.float64), lo, hi)
    return [svg.Markers(np.array(x[part], dtype=np.float64), np.array(y[part], dtype=np.float64), fill,
                        float(item.opts["size"]), str(item.opts["symbol"]))]


def note_of(text_item, origin) -> svg.Note | None:
    """A text item, placed relative to ``origin`` (the scene position of its panel's top-left corner)."""
    text = text_item.toPlainText()
    if not text or not text_item.isVisible():
        return None
    where = text_item.scenePos()
    anchor = text_item.anchor
    fill = fill_of(text_item.fill)
    pixels = text_item.textItem.font().pixelSize()
    return svg.Note(text, where.x() - origin.x(), where.y() - origin.y(), text_item.color.name(),
                    (float(anchor.x()), float(anchor.y())), size=float(pixels) if pixels > 0 else svg.TICK_FONT_PX,
                    background=fill if fill and fill.opacity > 0 else None)


def plot_item_data(item, origin, lo: float, hi: float) -> list:
    """What a plot item draws, as :mod:`segviz.app.plot_svg` items (none for an item it does not know)."""
    if not item.isVisible():
        return []
    if isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)):
        return curve_data(item, lo, hi)
    if isinstance(item, pg.ScatterPlotItem):
        return markers_data(item, lo, hi)
    if isinstance(item, pg.InfiniteLine):
        stroke = stroke_of(item.pen)
        if stroke is None:
            return []
        value = float(item.value())
        line = svg.HLine(value, stroke) if item.angle % 180 == 0 else svg.VLine(value, stroke)
        label = note_of(item.label, origin) if getattr(item, "label", None) is not None else None
        return [line] + ([label] if label is not None else [])
    if isinstance(item, pg.LinearRegionItem):
        x0, x1 = item.getRegion()
        fill = fill_of(item.brush)
        return [svg.Band(float(x0), float(x1), fill, stroke_of(item.lines[0].pen))] if fill is not None else []
    if isinstance(item, pg.TextItem):
        note = note_of(item, origin)
        return [note] if note is not None else []
    return []


def axis_ticks(axis, lo: float, hi: float, length_px: float, explicit=None) -> tuple[tuple[float, str], ...]:
    """An axis's ticks in [lo, hi] as (value, label): the levels given with ``setTicks`` (``explicit``), or the
    axis's own levels with text on as many as pyqtgraph would write (an empty label: an unlabelled tick)."""
    if explicit is not None:
        return tuple((float(v), str(t)) for level in explicit for v, t in level if lo <= v <= hi)
    if hi <= lo or length_px <= 0:
        return ()
    show_values = axis.style.get("showValues", True)
    vertical = axis.orientation in ("left", "right")
    ticks: list[tuple[float, str]] = []
    written, text_px = 0, 0.0
    labelling = show_values
    for level, (spacing, values) in enumerate(axis.tickValues(lo, hi, length_px)):
        values = [float(v) for v in values if lo <= v <= hi]
        strings = axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing) if labelling else []
        size = text_px + sum(TICK_TEXT_HEIGHT_PX if vertical else TICK_CHAR_WIDTH_PX * len(s) for s in strings)
        if labelling and level > 0:   # pyqtgraph's rule: no more text once the axis is this full
            labelling = not any(written >= count and size / length_px >= limit
                                for count, limit in axis.style["textFillLimits"])
        if labelling:
            ticks += zip(values, strings)
            written, text_px = written + len(values), size
        else:
            ticks += ((v, "") for v in values)
    return tuple(ticks)


def axis_of(plot, name: str, lo: float, hi: float, length_px: float, explicit=None) -> svg.Axis | None:
    """The ticks, title and grid of one of ``plot``'s axes (None when it is hidden)."""
    axis = plot.getAxis(name)
    if axis is None or not axis.isVisible():
        return None
    label = axis.labelText if axis.label.isVisible() else ""
    if label and axis.labelUnits:
        label = f"{label} ({axis.labelUnits})"
    grid = 0.0 if axis.grid is False else float(axis.grid) / 255.0
    return svg.Axis(axis_ticks(axis, lo, hi, length_px, explicit), label, grid)


def legend_entries(legend) -> tuple[svg.LegendEntry, ...]:
    entries = []
    for sample, label in legend.items:
        item = sample.item
        if isinstance(item, pg.ScatterPlotItem):
            fill = fill_of(item.opts["brush"])
            marker = svg.Markers(np.zeros(0), np.zeros(0), fill, float(item.opts["size"]),
                                 str(item.opts["symbol"])) if fill is not None else None
            entries.append(svg.LegendEntry(label.text, marker=marker))
        else:
            entries.append(svg.LegendEntry(label.text, stroke=stroke_of(item.opts["pen"])))
    return tuple(entries)


class TickRow:
    """One row of boundaries (reference, hypothesis, a peer): ticks when zoomed in, density when zoomed out.

    Both are one item drawing vertical segments (``connect="pairs"``): a tick per boundary, or a bar per pixel
    bin whose height is the share of the bin's gaps that are boundaries (full at one boundary every
    :data:`FULL_DENSITY_EVERY` sentences)."""

    def __init__(self, plot, color: str, y0: float, y1: float, *, name: str | None = None, width: int = 2,
                 style=Qt.SolidLine, density: bool = True):
        self.plot = plot
        self.show_density = density   # False: too many to tell apart shows nothing (a guide line, not data)
        self.positions = np.zeros(0, dtype=np.float64)
        self.y0, self.y1 = y0, y1
        self.ticks = pg.PlotCurveItem(pen=pg.mkPen(color, width=width, style=style), connect="pairs", name=name)
        shade = pg.mkColor(color)
        shade.setAlpha(170)
        self.density = pg.PlotCurveItem(pen=pg.mkPen(shade, width=1), connect="pairs")
        plot.addItem(self.ticks, ignoreBounds=True)
        plot.addItem(self.density, ignoreBounds=True)
        self.density.setVisible(False)

    def set(self, positions, y0: float | None = None, y1: float | None = None) -> None:
        self.positions = np.asarray(positions, dtype=np.float64)
        if y0 is not None:
            self.y0, self.y1 = y0, y1

    def draw(self, lo: float, hi: float, width_px: float) -> None:
        """Draw the boundaries in [lo, hi) for a view ``width_px`` pixels wide."""
        p = self.positions
        i, j = np.searchsorted(p, [lo, hi])
        if (j - i) * PIXELS_PER_TICK <= max(width_px, 1.0):
            self.density.setVisible(False)
            self.density.setData([], [])
            self.ticks.setData(*tick_segments(p[i:j], self.y0, self.y1))
            return
        self.ticks.setData([], [])     # (kept visible: the legend greys out hidden items)
        if not self.show_density:
            self.density.setVisible(False)
            return
        edges, density = density_profile(p, lo, hi, width_px / DENSITY_BIN_PX, smooth=SMOOTH_BINS)
        shown = density > 0
        centres = 0.5 * (edges[:-1] + edges[1:])[shown]
        heights = self.y0 + (self.y1 - self.y0) * np.minimum(density[shown] * FULL_DENSITY_EVERY, 1.0)
        self.density.setVisible(True)
        self.density.setData(np.repeat(centres, 2), np.column_stack([np.full(centres.size, self.y0), heights]).ravel())

    def remove(self) -> None:
        for item in (self.ticks, self.density):
            self.plot.removeItem(item)


class TitleLabels:
    """The reference segments' titles (a book's chapter headings) beside their ticks, for the ticks on screen.

    Each label starts just right of its tick and ends before the next tick (of any segment, titled or not), so it
    never covers one; with less room it shows less (:func:`title_label_text`), and where not even a chapter's
    number fits it is left out -- zoomed out, the labels thin themselves.  The labels are a few reused text items,
    never more than the plot has room for; a corpus without titles has none and costs one empty check."""

    def __init__(self, plot, color: str):
        self.plot = plot
        self.color = color
        self.starts = np.zeros(0, dtype=np.int64)   # first sentences of the titled segments, ascending
        self.titles: tuple[str, ...] = ()
        self.ticks = np.zeros(0, dtype=np.int64)    # every reference segment's first sentence (the tick row)
        self.ends = np.zeros(1, dtype=np.int64)     # where each of those segments ends: the next tick, or the end
        self.font = QFont()
        self.font.setPixelSize(TITLE_FONT_PX)
        self.metrics = QFontMetrics(self.font)
        self.items: list[pg.TextItem] = []
        self.item_titles: list[str] = []   # the full title each item shows (its tool tip)
        self.shown = 0

    def set(self, starts: np.ndarray, titles: tuple[str, ...], ticks: np.ndarray, end: int) -> None:
        self.starts = np.asarray(starts, dtype=np.int64)
        self.titles = tuple(titles)
        self.ticks = np.asarray(ticks, dtype=np.int64)
        self.ends = np.append(self.ticks, int(end))   # once per corpus, not per view

    def _item(self, k: int) -> pg.TextItem:
        while len(self.items) <= k:
            item = pg.TextItem("", color=self.color, anchor=(0, 0.5))
            item.setFont(self.font)
            item.textItem.document().setDocumentMargin(0)   # the text starts where the label is placed
            item.setVisible(False)
            self.plot.addItem(item, ignoreBounds=True)
            self.items.append(item)
            self.item_titles.append("")
        return self.items[k]

    def draw(self, lo: float, hi: float, width_px: float, y: float) -> None:
        """Label the titled ticks in [lo, hi], a view ``width_px`` pixels wide, at height ``y`` (data units)."""
        labels: list[tuple[float, str, str]] = []
        if self.starts.size and hi > lo and width_px > 0:
            i, j = np.searchsorted(self.starts, [lo, hi])
            at = self.starts[i:j]
            px_per_sentence = width_px / (hi - lo)
            # each label's room: up to the next tick, or the view's right edge
            nxt = self.ends[np.searchsorted(self.ticks, at, side="right")]
            room = (np.minimum(nxt, hi) - at) * px_per_sentence - TITLE_GAP_PX
            for k in np.flatnonzero(room >= TITLE_MIN_PX).tolist():
                title = self.titles[i + k]
                text = title_label_text(title, min(room[k], TITLE_MAX_PX), self.metrics)
                if text:
                    labels.append((float(at[k]) + 1.5 / px_per_sentence, text, title))
        for k, (x, text, title) in enumerate(labels):
            item = self._item(k)
            if item.toPlainText() != text:   # a new text lays the item out again: only when it changes
                item.setText(text)
            if self.item_titles[k] != title:
                self.item_titles[k] = title
                item.setToolTip(title)
            item.setPos(x, y)
            item.setVisible(True)
        for item in self.items[len(labels):self.shown]:
            item.setVisible(False)
        self.shown = len(labels)

    def texts(self) -> list[str]:
        """The labels on screen now, left to right."""
        return [item.toPlainText() for item in self.items[:self.shown]]


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
        self.block_size = max(int(block_size), 20)
        self.block = 0
        self._updating_region = False
        self._highlight = np.zeros(0, dtype=np.float64)
        self._explicit_ticks: dict = {}   # axis -> the tick levels given to it with setTicks
        #: the P(boundary) axis fits the curve (a length-prior model's curve peaks at 0.1-0.3: on 0-1 it looked
        #: flat); False: always 0-1
        self.fit_curve = True
        self.axis_top, self.axis_step = 1.0, 0.5   # the axis's top (the rows scale with it) and its tick step
        self._curve_height = 0.0                   # curve_height of the shown curve
        self._clipped = np.zeros(0, dtype=np.float64)   # positions whose probability lies above the axis's top
        self._overview_maxima: tuple[np.ndarray, np.ndarray] | None = None

        # No antialiasing: antialiased wide paths are the slow path of Qt's raster engine (benchmarks/bench_app.py)
        pg.setConfigOptions(antialias=False, background="w", foreground="#333333")
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
        self._set_ticks(self.overview.getAxis("left"), [[(0.5, "corpus")]])
        self.overview.setYRange(-0.3, 1.05, padding=0)
        self.overview_curve = pg.PlotCurveItem(pen=pg.mkPen(CURVE_COLOR, width=1))
        self.overview.addItem(self.overview_curve)
        self.overview_ref = pg.PlotCurveItem(pen=pg.mkPen("#222222aa", width=1), connect="pairs")
        self.overview.addItem(self.overview_ref, ignoreBounds=True)
        self.region = pg.LinearRegionItem(values=(0, self.block_size), movable=True,
                                          brush=pg.mkBrush(255, 193, 7, 90), pen=pg.mkPen(ALPHA_COLOR, width=2))
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
        # a fitted axis ends at 0.05-1: its ticks are probabilities as written, never rescaled as "(x0.001)"
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.hideButtons()
        # The legend sits above the data, in the plot's (unused) title row: inside the view it covered the curve's
        # peaks.  Named items added to the plot enter it, as with addLegend.
        legend = pg.LegendItem(offset=None, labelTextSize="8pt", colCount=6)
        self.plot.layout.removeItem(self.plot.titleLabel)
        self.plot.titleLabel.setVisible(False)
        self.plot.layout.addItem(legend, 0, 1)
        self.plot.layout.setRowMinimumHeight(0, 0)
        self.plot.layout.setRowMaximumHeight(0, 10_000)
        self.plot.legend = legend
        self.axis_line = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888", width=1))
        self.plot.addItem(self.axis_line, ignoreBounds=True)
        # aliased 2 px line: antialiasing costs ~120 ms per repaint in the raster engine; zoomed out, the peak
        # method keeps each pixel column's minimum and maximum, so no peak is lost
        self.curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLOR, width=2), name="P(boundary)", antialias=False)
        # set on the plot: a PlotItem hands its own clip setting to every curve added to it
        self.plot.setClipToView(True)
        self.plot.addItem(self.curve)
        self._curve_binned = False   # zoomed out, the curve is the mean probability per pixel column
        self.zoom_note = pg.TextItem("zoomed out: the curve is the mean P(boundary) per pixel column, each row the "
                                     "density of its boundaries, the relevance its mean, spread and range",
                                     color="#757575", anchor=(0, 0))
        self.zoom_note.setParentItem(self.plot.vb)   # pinned to the view's corner, not to data
        self.zoom_note.setPos(8, 2)
        self.zoom_note.setVisible(False)
        self.ref_row = TickRow(self.plot, REF_COLOR, *REF_TICKS, name="reference")
        self.hyp_row = TickRow(self.plot, HYP_COLOR, *HYP_TICKS, name="hypothesis")
        self.ref_ticks, self.hyp_ticks = self.ref_row.ticks, self.hyp_row.ticks
        self.peer_rows: dict[str, TickRow] = {}
        self.highlight = pg.ScatterPlotItem(symbol="t", size=9, brush=pg.mkBrush(HIGHLIGHT_COLOR), pen=None,
                                            name="feature fires")
        self.plot.addItem(self.highlight, ignoreBounds=True)
        # where the curve goes above a fitted axis: a mark at the top edge, so a cut peak is not taken for a low one
        self.clipped_marks = pg.ScatterPlotItem(symbol="t1", size=7, brush=pg.mkBrush(CURVE_COLOR), pen=None)
        self.plot.addItem(self.clipped_marks, ignoreBounds=True)
        self.titles = TitleLabels(self.plot, REF_COLOR)
        # the label sits at the left end: the legend occupies the top right
        self.alpha_line = pg.InfiniteLine(pos=session.state.alpha, angle=0, movable=True, bounds=(0, 1),
                                          pen=pg.mkPen(ALPHA_COLOR, width=2, style=Qt.DashLine),
                                          hoverPen=pg.mkPen(ALPHA_COLOR, width=3),
                                          label="α = {value:.2f}",
                                          labelOpts={"position": 0.03, "color": ALPHA_COLOR,
                                                     "anchors": [(0, 1), (0, 1)], "fill": (255, 255, 255, 220)})
        self.alpha_line.setZValue(20)
        self.plot.addItem(self.alpha_line, ignoreBounds=True)
        self.alpha_line.sigPositionChanged.connect(lambda line: self.alphaDragged.emit(float(line.value())))
        self.alpha_line.sigPositionChangeFinished.connect(
            lambda line: self.alphaDragFinished.emit(float(line.value())))
        # the axis does not move under a dragged α line (the line would jump away from the mouse); it fits the
        # new α once the line is let go
        self.alpha_line.sigPositionChangeFinished.connect(lambda _line: self.fit_axis())
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
        # the x axis is the block plot's (linked): its numbers once are enough, and text is the costly part of a
        # repaint
        self.rel_plot.getAxis("bottom").setStyle(showValues=False)
        self.rel_zero = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888"))
        self.rel_plot.addItem(self.rel_zero, ignoreBounds=True)
        self.rel_curve = pg.PlotCurveItem(*NO_STEPS, stepMode="center", fillLevel=0,
                                          pen=pg.mkPen("#5e35b1", width=1), brush=pg.mkBrush(94, 53, 177, 70))
        self.rel_plot.addItem(self.rel_curve)
        # zoomed out, per pixel column: a faint bar from the minimum to the maximum, a stronger one over the mean
        # plus or minus one standard deviation, and the mean as a line (the extremes alone filled every column: a
        # solid block)
        self.rel_envelope = pg.PlotCurveItem(pen=pg.mkPen(94, 53, 177, 45, width=1), connect="pairs")
        self.rel_spread = pg.PlotCurveItem(pen=pg.mkPen(94, 53, 177, 120, width=1), connect="pairs")
        self.rel_mean = pg.PlotCurveItem(pen=pg.mkPen("#311b92", width=1))
        for item in (self.rel_envelope, self.rel_spread, self.rel_mean):
            self.rel_plot.addItem(item)
        # where R comes from, in the plot's title row above the trace: inside the view it was drawn over the bars
        self.rel_plot.setTitle(" ", size="8pt", color="#757575", justify="left")
        self.rel_ref = TickRow(self.rel_plot, REF_COLOR, -1e3, 1e3, width=1, style=Qt.DashLine, density=False)
        self.graphics.ci.layout.setRowStretchFactor(1, 4)
        for plot in (self.overview, self.plot, self.rel_plot):
            cache_axes(plot)

        # hover is rate-limited: a mouse move is cheap but the context panel re-renders HTML
        self._hover_proxy = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._mouse_clicked)
        self.plot.sigXRangeChanged.connect(self._xrange_changed)
        self.plot.vb.sigResized.connect(lambda _vb: self._draw_titles())   # the room between ticks changed

        session.corpusChanged.connect(self.refresh_corpus)
        session.probabilitiesChanged.connect(self.refresh_probabilities)
        session.relevanceChanged.connect(self.refresh_relevance)
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

    def zoom_all(self) -> None:
        """Show the whole stream (the rows become densities, the trace an envelope)."""
        self.plot.setXRange(0, max(self.session.state.n_sentences, 1), padding=0.01)

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
        # keep the overview region in step with pans and zooms of the block plot; on a long stream a block is a
        # sliver of the strip, so the box is drawn at least 0.6% of the strip wide around its centre
        lo, hi = xrange
        n = max(self.session.state.n_sentences, 1)
        least = 0.006 * n
        if hi - lo < least:
            mid = 0.5 * (lo + hi)
            lo, hi = mid - least / 2, mid + least / 2
        self._updating_region = True
        try:
            self.region.setRegion((lo, hi))
        finally:
            self._updating_region = False
        self._place_empty_label()
        self._redraw_visible()

    # -- what is drawn: the visible range plus a screen of margin each side ------------------------------------
    def _visible_span(self) -> tuple[float, float, float]:
        lo, hi = self.plot.vb.viewRange()[0]
        width = hi - lo
        pixels = max(float(self.plot.vb.width()), 100.0)
        return lo - width, hi + width, 3.0 * pixels

    def _rows(self) -> list[TickRow]:
        return [self.ref_row, self.hyp_row, *self.peer_rows.values()]

    def _redraw_visible(self) -> None:
        lo, hi, pixels = self._visible_span()
        self._draw_curve(lo, hi, pixels)
        for row in self._rows():
            row.draw(lo, hi, pixels)
        self._draw_relevance(lo, hi, pixels)
        self._draw_highlight(lo, hi)
        self._draw_clipped(lo, hi)
        self._draw_titles()

    def _draw_curve(self, lo: float, hi: float, pixels: float, *, new: bool = False) -> None:
        """The whole curve (clipped to the view by pyqtgraph) while a sentence has a pixel or more; zoomed out,
        the mean probability per pixel column (the model's expected boundary density: peaks would make a solid
        band)."""
        probs = self.session.state.probabilities
        binned = probs is not None and (hi - lo) > pixels
        self.zoom_note.setVisible(binned and self.session.state.n_sentences > 0)
        if probs is None:
            self._curve_binned = False
            return
        if binned != self._curve_binned:
            # a 1 px line through a point per pixel column is the raster engine's fast path; 2 px is not
            self.curve.setPen(pg.mkPen(CURVE_COLOR, width=1 if binned else 2))
        if binned:
            i = int(max(0, np.floor(lo)))
            j = int(min(len(probs), np.ceil(hi)))
            if j <= i:
                self.curve.setData([], [])
            else:
                x, mean = bin_means(probs, i, j, pixels / 2)
                self.curve.setData(x + 1, mean)
        elif new or self._curve_binned:
            self.curve.setData(np.arange(1, len(probs) + 1, dtype=np.float64), probs)
        self._curve_binned = binned

    def _draw_relevance(self, lo: float, hi: float, pixels: float) -> None:
        rel = self.session.state.relevance
        if rel is None:
            self.rel_curve.setData(*NO_STEPS)
            self._clear_relevance_aggregate()
            self.rel_ref.draw(lo, hi, pixels)
            return
        i = int(max(0, np.floor(lo)))
        j = int(min(len(rel), np.ceil(hi)))
        if j <= i:
            self.rel_curve.setData(*NO_STEPS)
            self._clear_relevance_aggregate()
        elif (j - i) * 2 <= pixels:
            self._clear_relevance_aggregate()
            self.rel_curve.setData(np.arange(i, j + 1, dtype=np.float64), rel[i:j])
        else:
            self.rel_curve.setData(*NO_STEPS)
            x, low, high, mean, spread = bin_spread(rel, i, j, pixels / DENSITY_BIN_PX)
            bars = np.repeat(x, 2)
            self.rel_envelope.setData(bars, np.column_stack([low, high]).ravel())
            self.rel_spread.setData(bars, np.column_stack([mean - spread, mean + spread]).ravel())
            self.rel_mean.setData(x, mean)
        self.rel_ref.draw(lo, hi, pixels)

    def _clear_relevance_aggregate(self) -> None:
        for item in (self.rel_envelope, self.rel_spread, self.rel_mean):
            item.setData([], [])

    def _draw_highlight(self, lo: float, hi: float) -> None:
        p = self._highlight
        i, j = np.searchsorted(p, [lo, hi])
        self.highlight.setData(p[i:j], np.full(j - i, self.axis_top))

    def _draw_clipped(self, lo: float, hi: float) -> None:
        p = self._clipped if self._clipped is not None else np.zeros(0)
        i, j = np.searchsorted(p, [lo, hi])
        self.clipped_marks.setData(p[i:j], np.full(j - i, 1.03 * self.axis_top))

    def _draw_titles(self) -> None:
        """The titles of the reference segments whose ticks are on screen (only those: not the drawn margin)."""
        if not self.titles.starts.size and not self.titles.shown:
            return
        lo, hi = self.plot.vb.viewRange()[0]
        self.titles.draw(lo, hi, float(self.plot.vb.width()), 0.5 * (REF_TICKS[0] + REF_TICKS[1]) * self.axis_top)

    # -- refresh from the session -----------------------------------------------------------------------------
    def refresh_corpus(self) -> None:
        state = self.session.state
        n = state.n_sentences
        # the marks of a position belong to the corpus they were made on
        self.selected.setVisible(False)
        self.cursor.setVisible(False)
        self.ref_row.set(state.reference_boundaries)
        self.rel_ref.set(state.reference_boundaries)
        if state.has_reference:
            self.titles.set(state.title_starts(), state.titles(), state.document_starts(), n)
        else:
            self.titles.set(np.zeros(0, dtype=np.int64), (), np.zeros(0, dtype=np.int64), n)
        # unlabelled text has no reference row: no legend entry either
        in_legend = any(sample.item is self.ref_row.ticks for sample, _ in self.plot.legend.items)
        if state.has_reference and not in_legend:
            self.plot.legend.addItem(self.ref_row.ticks, "reference")
        elif not state.has_reference and in_legend:
            self.plot.legend.removeItem(self.ref_row.ticks)
        edges, density = density_profile(state.reference_boundaries.astype(np.float64), 0, max(n, 1),
                                          min(OVERVIEW_BINS, max(n, 1)))
        shown = density > 0
        centres = 0.5 * (edges[:-1] + edges[1:])[shown]
        tops = -0.3 + 0.3 * np.minimum(density[shown] * FULL_DENSITY_EVERY, 1.0)
        self.overview_ref.setData(np.repeat(centres, 2), np.column_stack([np.full(centres.size, -0.3), tops]).ravel())
        self.overview_ref.setVisible(state.has_reference)
        self._highlight = np.zeros(0, dtype=np.float64)
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
            self._overview_maxima = None
            self._curve_height = 0.0
        else:
            lo, hi, pixels = self._visible_span()
            self._draw_curve(lo, hi, pixels, new=True)
            # the overview shows the per-bin maximum so isolated peaks survive
            bins = max(1, -(-len(probs) // OVERVIEW_BINS))
            m = -(-len(probs) // bins) * bins
            padded = np.zeros(m)
            padded[:len(probs)] = probs
            self._overview_maxima = (np.arange(0, m, bins, dtype=np.float64) + 1 + bins / 2,
                                     padded.reshape(-1, bins).max(axis=1))
            self._curve_height = curve_height(probs)
        self._clipped = None   # the curve changed: which positions lie above the axis is found again
        self.empty_label.setText("no model yet - reference and baselines only" if state.has_reference
                                 else "no model yet")
        self.empty_label.setVisible(probs is None and state.n_sentences > 0)
        self.refresh_relevance()
        self.refresh_hypothesis()

    def refresh_relevance(self) -> None:
        """The relevance trace and its y range (its own notification: it may follow the curve by a pass)."""
        state = self.session.state
        rel = state.relevance
        # the relevance plot stays in the layout (hiding it re-laid out and repainted every plot, axes and all);
        # without relevance it says what would fill it
        if rel is None:
            self._set_relevance_note("relevance R (Section 3.3) appears with a model's language models"
                                     if state.n_sentences > 0 else "")
            self.rel_plot.setYRange(-0.05, 0.05, padding=0)
        else:
            finite = rel[np.isfinite(rel)]
            flat = not finite.size or float(np.abs(finite).max()) < 1e-9
            # which language models the trace comes from (the model's, or the bundled general-English ones); a
            # trigger model with no weights (too little text to learn any) gives R = 0 everywhere: say so
            source = state.relevance_source or MODEL_LM_LABEL
            self._set_relevance_note(f"relevance is 0 everywhere ({source}): the trigger model learned no "
                                     "weights (too little training text)" if flat else f"R from {source}")
            if flat:
                self.rel_plot.setYRange(-0.05, 0.05, padding=0)
            else:
                lo, hi = np.percentile(finite[::max(1, finite.size // 20000)], [1, 99])   # a sample is enough
                pad = 0.1 * max(hi - lo, 1e-3)
                self.rel_plot.setYRange(min(lo, 0) - pad, max(hi, 0) + pad, padding=0)
        lo, hi, pixels = self._visible_span()
        self._draw_relevance(lo, hi, pixels)

    def _set_relevance_note(self, text: str) -> None:
        """What the relevance plot's title row says (never empty: the row keeps its height, so the plot below it
        does not move when the trace arrives)."""
        if text != self.relevance_note():
            self.rel_plot.setTitle(text or " ", size="8pt", color="#757575", justify="left")

    def relevance_note(self) -> str:
        """The text above the relevance trace ("R from the bundled general-English LMs", or why there is none)."""
        return self.rel_plot.titleLabel.text.strip()

    def refresh_hypothesis(self) -> None:
        state = self.session.state
        self.hyp_row.set(state.hypothesis_boundaries)
        lo, hi, pixels = self._visible_span()
        self.hyp_row.draw(lo, hi, pixels)
        # the threshold line belongs to the threshold rule: another rule has no α to drag
        self.alpha_line.setVisible(state.probabilities is not None and state.rule_setting("alpha") is not None)
        if abs(self.alpha_line.value() - state.alpha) > 1e-9:
            # pushing the model's value into the view must not echo back as a drag
            self.alpha_line.blockSignals(True)
            self.alpha_line.setValue(state.alpha)
            self.alpha_line.blockSignals(False)
        self.alpha_line.label.setText(f"α = {state.alpha:.2f}")
        self.fit_axis()

    def refresh_peers(self) -> None:
        state = self.session.state
        names = [p for p in state.peer_masses if p in state.shown_peers]
        for name in list(self.peer_rows):
            if name not in names:
                row = self.peer_rows.pop(name)
                self.plot.legend.removeItem(row.ticks)
                row.remove()
        for i, name in enumerate(names):
            row = self.peer_rows.get(name)
            if row is None:
                row = TickRow(self.plot, peer_color(name, i), 0.0, 0.0, name=name)
                self.peer_rows[name] = row
            row.set(np.cumsum(state.peer_masses[name])[:-1])
        self._lay_out_rows()

    # -- the P(boundary) axis ---------------------------------------------------------------------------------
    def set_fit_curve(self, fit: bool) -> None:
        """Fit the P(boundary) axis to the curve (True) or show 0-1 (False)."""
        self.fit_curve = bool(fit)
        self.fit_axis()

    def fit_axis(self) -> None:
        """The axis's top for the shown curve and rule (:func:`axis_top`); the rows follow when it changes.  Not
        while the α line is dragged: the axis would move under the mouse."""
        state = self.session.state
        top, step = 1.0, 0.5
        if self.alpha_line.moving:
            top, step = self.axis_top, self.axis_step
        elif self.fit_curve and state.probabilities is not None:
            alpha = state.alpha if state.rule_setting("alpha") is not None else None
            top, step = axis_top(self._curve_height, alpha)
        moved = (top, step) != (self.axis_top, self.axis_step)
        if not moved and self._clipped is not None:
            return
        self.axis_top, self.axis_step = top, step
        probs = state.probabilities
        self._clipped = (np.flatnonzero(probs > top).astype(np.float64) + 1 if probs is not None and top < 1.0
                         else np.zeros(0, dtype=np.float64))
        self._draw_overview_curve()
        if moved:
            self._lay_out_rows()
        else:   # a new curve under the same axis: only its marks move
            lo, hi, _ = self._visible_span()
            self._draw_clipped(lo, hi)

    def _draw_overview_curve(self) -> None:
        if self._overview_maxima is None:
            self.overview_curve.setData([], [])
            return
        # the overview strip has no numbers: its curve is scaled to the block plot's top, so it shows the same peaks
        x, maxima = self._overview_maxima
        self.overview_curve.setData(x, np.minimum(maxima / self.axis_top, 1.04))

    def _lay_out_rows(self) -> None:
        """Place every row, the y range, the left axis's ticks and what sits at a height, for the axis's top."""
        state = self.session.state
        top = self.axis_top
        self.ref_row.set(self.ref_row.positions, REF_TICKS[0] * top, REF_TICKS[1] * top)
        self.hyp_row.set(self.hyp_row.positions, HYP_TICKS[0] * top, HYP_TICKS[1] * top)
        steps = round(top / self.axis_step)
        ticks = [(k * self.axis_step, f"{k * self.axis_step:.3g}") for k in range(steps + 1)]
        minor = [(sum(REF_TICKS) / 2 * top, "ref")] if state.has_reference else []
        y0 = PEER_ROW_TOP if state.has_reference else REF_TICKS[0] + REF_TICKS[1]
        for name, row in self.peer_rows.items():
            row.set(row.positions, (y0 - PEER_ROW_HEIGHT) * top, y0 * top)
            minor.append(((y0 - PEER_ROW_HEIGHT / 2) * top, name))
            y0 -= PEER_ROW_HEIGHT + PEER_ROW_GAP
        bottom = REF_TICKS[0] if state.has_reference else 0.0
        ymin = min(y0 + PEER_ROW_GAP, bottom) - 0.04
        self.plot.setYRange(ymin * top, 1.06 * top, padding=0)
        self._set_ticks(self.plot.getAxis("left"), [ticks, minor])
        lo, hi, pixels = self._visible_span()
        for row in self._rows():
            row.draw(lo, hi, pixels)
        self._draw_highlight(lo, hi)
        self._draw_clipped(lo, hi)
        self._draw_titles()
        self._place_empty_label()

    def _place_empty_label(self) -> None:
        lo, hi = self.plot.vb.viewRange()[0]
        self.empty_label.setPos(0.5 * (lo + hi), 0.5 * self.axis_top)

    # -- feature highlighting ---------------------------------------------------------------------------------
    def highlight_positions(self, positions) -> None:
        self._highlight = np.sort(np.asarray(positions, dtype=np.float64))
        lo, hi, _ = self._visible_span()
        self._draw_highlight(lo, hi)

    def clear_highlight(self) -> None:
        self._highlight = np.zeros(0, dtype=np.float64)
        self.highlight.setData([], [])

    # -- export -----------------------------------------------------------------------------------------------
    def _set_ticks(self, axis, levels: list) -> None:
        """``axis.setTicks(levels)``, remembered for the SVG export (the axis keeps them privately)."""
        self._explicit_ticks[axis] = levels
        axis.setTicks(levels)

    def svg_snapshot(self) -> svg.Figure:
        """What the three plots draw now, as plain data for :func:`segviz.app.plot_svg.svg_document`.

        Taken on the GUI thread, so it copies only what is in view (each item's data inside its plot's visible x
        range, one point more each side), the pens and brushes, ticks, axis titles, legend and texts, and the
        plots' places in the widget: a few milliseconds however long the corpus, while building the SVG text
        from it runs in the background."""
        view = self.graphics.viewRect()
        panels = []
        for plot in (self.overview, self.plot, self.rel_plot):
            if not plot.isVisible():
                continue
            vb = plot.vb
            area = vb.sceneBoundingRect()
            (x_lo, x_hi), (y_lo, y_hi) = vb.viewRange()
            origin = area.topLeft()
            items: list = []
            for item in sorted(plot.items, key=lambda it: it.zValue()):
                items += plot_item_data(item, origin, x_lo, x_hi)
            for child in vb.childItems():   # texts pinned to the view's corner rather than to data
                if isinstance(child, pg.TextItem):
                    note = note_of(child, origin)
                    if note is not None:
                        items.append(note)
            legend = getattr(plot, "legend", None)
            legend_box = None
            if legend is not None and legend.items:
                box = legend.sceneBoundingRect()
                legend_box = (box.left() - view.left(), box.top() - view.top(), box.width(), box.height())
            title = plot.titleLabel.text if plot.titleLabel.isVisible() else ""
            left_ticks = self._explicit_ticks.get(plot.getAxis("left"))
            panels.append(svg.Panel(
                area.left() - view.left(), area.top() - view.top(), area.width(), area.height(),
                (float(x_lo), float(x_hi)), (float(y_lo), float(y_hi)), tuple(items),
                left_axis=axis_of(plot, "left", y_lo, y_hi, area.height(), left_ticks),
                bottom_axis=axis_of(plot, "bottom", x_lo, x_hi, area.width()),
                title=title, legend=legend_entries(legend) if legend is not None else (),
                legend_box=legend_box))
        lo, hi = self.plot.vb.viewRange()[0]
        return svg.Figure(view.width(), view.height(), tuple(panels),
                          title=f"segviz block view: sentences {max(lo, 0):,.0f} to {hi:,.0f}",
                          foreground=pg.mkColor(pg.getConfigOption("foreground")).name())

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
