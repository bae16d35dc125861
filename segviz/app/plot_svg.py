"""Plots as an SVG document, from plain data: the block view's *Export plot* to SVG, built off the GUI thread.

The block view takes a :class:`Figure` of what it draws (plain dataclasses and copied numpy slices, cheap to take
on the GUI thread) and :func:`svg_document` turns it into the file's bytes in the background; building the drawing
from the plot items themselves (pyqtgraph's SVG exporter) froze the window for 0.1-0.2 s on a 70,000-sentence
corpus.  No Qt here: the writer can run on any thread and in tests on its own.

Each :class:`Panel` is one plot: its data area in output pixels, the data ranges that area shows, and what is
drawn in it -- curves (:class:`Polyline`), vertical boundary ticks and density bars (:class:`Segments`),
horizontal and vertical guide lines, shaded x ranges (:class:`Band`), markers and text -- with its axes, legend
and title.  A data point (x, y) lands at ``panel.x_px(x), panel.y_px(y)``: linear in both, y growing upwards.
Long polylines are thinned to at most two points per output pixel column, the column's lowest and highest, so
no peak is lost; segments in one pixel column merge into one.
"""
from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

import numpy as np

FONT_FAMILY = "DejaVu Sans, Arial, Helvetica, sans-serif"
TICK_FONT_PX = 11.0
LABEL_FONT_PX = 12.0
TITLE_FONT_PX = 13.0
LEGEND_FONT_PX = 11.0
TICK_LENGTH_PX = 5.0
#: legend entries per row (the block view's legend has six columns)
LEGEND_COLUMNS = 6
LEGEND_ROW_PX = 18.0
LEGEND_SAMPLE_PX = 22.0


@dataclass(frozen=True)
class Stroke:
    """How a line is drawn: colour (``#rrggbb``), width in pixels, opacity, dash pattern in pixels (on, off, ...;
    empty for a solid line)."""

    color: str = "#000000"
    width: float = 1.0
    opacity: float = 1.0
    dash: tuple[float, ...] = ()


@dataclass(frozen=True)
class Fill:
    """A solid fill: colour and opacity."""

    color: str = "#000000"
    opacity: float = 1.0


@dataclass(frozen=True)
class Polyline:
    """A curve through (x, y), in data units, x ascending.

    ``steps``: x holds the len(y) + 1 edges of steps, y[i] held from x[i] to x[i+1].  ``fill``: the area between
    the curve and ``fill_level`` is filled."""

    x: np.ndarray
    y: np.ndarray
    stroke: Stroke
    steps: bool = False
    fill: Fill | None = None
    fill_level: float = 0.0


@dataclass(frozen=True)
class Segments:
    """Line segments from (x[2k], y[2k]) to (x[2k+1], y[2k+1]): one tick per boundary, or one density bar per pixel
    bin; vertical ones reaching out of the panel are cut at its edges."""

    x: np.ndarray
    y: np.ndarray
    stroke: Stroke


@dataclass(frozen=True)
class HLine:
    """A horizontal line across the panel at ``y`` (a threshold, a zero line)."""

    y: float
    stroke: Stroke


@dataclass(frozen=True)
class VLine:
    """A vertical line over the panel's height at ``x`` (a selected position)."""

    x: float
    stroke: Stroke


@dataclass(frozen=True)
class Band:
    """The x range [x0, x1] shaded over the panel's height, with edge lines (the overview's current block)."""

    x0: float
    x1: float
    fill: Fill
    edge: Stroke | None = None


@dataclass(frozen=True)
class Markers:
    """A symbol at each (x, y): ``"t"`` a triangle pointing down, ``"t1"`` up, ``"s"`` a square, else a disc."""

    x: np.ndarray
    y: np.ndarray
    fill: Fill
    size: float = 9.0
    symbol: str = "o"


@dataclass(frozen=True)
class Note:
    """Text at (dx, dy) pixels from the panel's top-left corner; ``anchor`` is the point of the text put there, as
    fractions of its width and height ((0, 0): top-left); ``background`` fills a box behind it."""

    text: str
    dx: float
    dy: float
    color: str = "#333333"
    anchor: tuple[float, float] = (0.0, 0.0)
    size: float = TICK_FONT_PX
    background: Fill | None = None


@dataclass(frozen=True)
class Axis:
    """An axis: ticks as (value, label) pairs (an empty label: a short unlabelled tick), the axis title, and the
    opacity of grid lines across the panel at the ticks (0: none)."""

    ticks: tuple[tuple[float, str], ...] = ()
    label: str = ""
    grid: float = 0.0


@dataclass(frozen=True)
class LegendEntry:
    """One legend line: a sample of the item (a stroke, or a marker) and its label."""

    label: str
    stroke: Stroke | None = None
    marker: Markers | None = None


@dataclass(frozen=True)
class Panel:
    """One plot: its data area (output pixels), the data ranges it shows, what is drawn, axes, legend, title."""

    left: float
    top: float
    width: float
    height: float
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    items: tuple = ()
    left_axis: Axis | None = None
    bottom_axis: Axis | None = None
    title: str = ""
    legend: tuple[LegendEntry, ...] = ()
    #: where the legend is drawn (left, top, width, height in output pixels); None: a row above the data area
    legend_box: tuple[float, float, float, float] | None = None

    def x_px(self, x):
        """Output x of data x (a number or an array)."""
        lo, hi = self.x_range
        return self.left + (np.asarray(x, dtype=np.float64) - lo) * (self.width / _span(lo, hi))

    def y_px(self, y):
        """Output y of data y (a number or an array): data y grows upwards, output y downwards."""
        lo, hi = self.y_range
        return self.top + (hi - np.asarray(y, dtype=np.float64)) * (self.height / _span(lo, hi))


@dataclass(frozen=True)
class Figure:
    """The whole drawing: its size in pixels and its panels, on a background colour; ``title`` is the document's
    title (metadata, not drawn)."""

    width: float
    height: float
    panels: tuple[Panel, ...] = ()
    title: str = ""
    background: str = "#ffffff"
    foreground: str = "#333333"


def _span(lo: float, hi: float) -> float:
    span = float(hi) - float(lo)
    return span if abs(span) > 1e-12 else 1e-12


# -- thinning ---------------------------------------------------------------------------------------------------

def thin_to_columns(px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points of a polyline (output pixels) with at most two per pixel column: where consecutive points share a
    column, only the lowest and the highest of them stay, in their order along the line, so peaks survive."""
    px = np.asarray(px, dtype=np.float64)
    py = np.asarray(py, dtype=np.float64)
    if px.size <= 2:
        return px, py
    column = np.floor(px).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    lengths = np.diff(np.r_[starts, px.size])
    if lengths.max() <= 2:
        return px, py
    run = np.repeat(np.arange(starts.size), lengths)
    lowest = np.lexsort((py, run))[starts]       # the first point of each run in (run, y) order: its lowest y
    highest = np.lexsort((-py, run))[starts]
    keep = np.unique(np.concatenate([lowest, highest]))
    return px[keep], py[keep]


def merge_vertical_segments(px0, py0, px1, py1) -> tuple[np.ndarray, ...]:
    """Segments in output pixels with the vertical ones that share a pixel column merged into one spanning them
    all (more boundaries than the column can show apart draw as one line); the others stay as they are."""
    px0, py0, px1, py1 = (np.asarray(a, dtype=np.float64) for a in (px0, py0, px1, py1))
    vertical = np.abs(px0 - px1) < 1e-9
    if not vertical.any():
        return px0, py0, px1, py1
    column = np.floor(px0[vertical]).astype(np.int64)
    top = np.minimum(py0[vertical], py1[vertical])
    bottom = np.maximum(py0[vertical], py1[vertical])
    order = np.argsort(column, kind="stable")
    column, top, bottom, x = column[order], top[order], bottom[order], px0[vertical][order]
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    x, top, bottom = x[starts], np.minimum.reduceat(top, starts), np.maximum.reduceat(bottom, starts)
    slanted = ~vertical
    return (np.concatenate([x, px0[slanted]]), np.concatenate([top, py0[slanted]]),
            np.concatenate([x, px1[slanted]]), np.concatenate([bottom, py1[slanted]]))


def clip_to_x_range(x: np.ndarray, y: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """The part of a polyline (x ascending) inside lo <= x <= hi, ending exactly at the range's edges where the
    line crosses them: drawn right even by renderers that ignore ``clip-path``."""
    i = int(np.searchsorted(x, lo, side="left"))
    j = int(np.searchsorted(x, hi, side="right"))
    xs, ys = [x[i:j]], [y[i:j]]
    if 0 < i < x.size:
        xs.insert(0, [lo])
        ys.insert(0, [np.interp(lo, x[i - 1:i + 1], y[i - 1:i + 1])])
    if 0 < j < x.size:
        xs.append([hi])
        ys.append([np.interp(hi, x[j - 1:j + 1], y[j - 1:j + 1])])
    return np.concatenate(xs).astype(np.float64), np.concatenate(ys).astype(np.float64)


def _clamp_y(panel: Panel, y: np.ndarray) -> np.ndarray:
    """``y`` held within the panel's y range (and a hair beyond, so the stroke meets the edge)."""
    lo, hi = sorted(panel.y_range)
    margin = 0.01 * (hi - lo)
    return np.clip(y, lo - margin, hi + margin)


# -- SVG text ---------------------------------------------------------------------------------------------------

def _num(value: float) -> str:
    text = f"{float(value):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _points(px: np.ndarray, py: np.ndarray) -> str:
    return " ".join(f"{_num(a)},{_num(b)}" for a, b in zip(px.tolist(), py.tolist()))


def _attr(value) -> str:
    """An attribute value, quoted and escaped."""
    return quoteattr(str(value))


def _stroke_attrs(stroke: Stroke) -> str:
    attrs = f'stroke={_attr(stroke.color)} stroke-width="{_num(stroke.width)}"'
    if stroke.opacity < 1.0:
        attrs += f' stroke-opacity="{_num(stroke.opacity)}"'
    if stroke.dash:
        attrs += f' stroke-dasharray="{",".join(_num(d) for d in stroke.dash)}"'
    return attrs


def _fill_attrs(fill: Fill) -> str:
    attrs = f'fill={_attr(fill.color)}'
    if fill.opacity < 1.0:
        attrs += f' fill-opacity="{_num(fill.opacity)}"'
    return attrs


def _text(x: float, y: float, text: str, *, size: float, color: str, anchor: str = "start",
          baseline: str = "middle", rotate: bool = False, css_class: str = "") -> str:
    transform = f' transform="rotate(-90 {_num(x)} {_num(y)})"' if rotate else ""
    klass = f' class="{css_class}"' if css_class else ""
    return (f'<text{klass} x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}" fill={_attr(color)} '
            f'text-anchor="{anchor}" dominant-baseline="{baseline}"{transform}>{escape(text)}</text>')


def _finite(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = min(x.size, y.size)
    x, y = x[:n], y[:n]
    ok = np.isfinite(x) & np.isfinite(y)
    return (x, y) if ok.all() else (x[ok], y[ok])


def _polyline(panel: Panel, item: Polyline) -> list[str]:
    x, y = np.asarray(item.x, dtype=np.float64), np.asarray(item.y, dtype=np.float64)
    if item.steps:
        if x.size != y.size + 1 or y.size == 0:
            return []
        x, y = np.repeat(x, 2)[1:-1], np.repeat(y, 2)
    x, y = _finite(x, y)
    x, y = clip_to_x_range(x, y, *sorted(panel.x_range))
    if x.size == 0:
        return []
    px, py = thin_to_columns(panel.x_px(x), panel.y_px(_clamp_y(panel, y)))
    out = []
    if item.fill is not None:
        base = _num(panel.y_px(item.fill_level))
        outline = f"{_num(px[0])},{base} {_points(px, py)} {_num(px[-1])},{base}"
        out.append(f'<polygon class="fill" points="{outline}" {_fill_attrs(item.fill)} stroke="none"/>')
    out.append(f'<polyline class="curve" points="{_points(px, py)}" fill="none" {_stroke_attrs(item.stroke)} '
               'stroke-linejoin="round"/>')
    return out


def _segments(panel: Panel, item: Segments) -> list[str]:
    x, y = np.asarray(item.x, dtype=np.float64), np.asarray(item.y, dtype=np.float64)
    pairs = min(x.size, y.size) // 2
    if pairs == 0:
        return []
    x, y = x[:2 * pairs].reshape(-1, 2), y[:2 * pairs].reshape(-1, 2)
    ok = np.isfinite(x).all(axis=1) & np.isfinite(y).all(axis=1)
    x_lo, x_hi = sorted(panel.x_range)
    ok &= (x.max(axis=1) >= x_lo) & (x.min(axis=1) <= x_hi)
    # cut at the panel's edges: a guide line over the whole height reaches far out of the view
    x, y = np.clip(x[ok], x_lo, x_hi), _clamp_y(panel, y[ok])
    x0, y0, x1, y1 = merge_vertical_segments(panel.x_px(x[:, 0]), panel.y_px(y[:, 0]), panel.x_px(x[:, 1]),
                                             panel.y_px(y[:, 1]))
    if x0.size == 0:
        return []
    parts = []
    for a, b, c, d in zip(x0.tolist(), y0.tolist(), x1.tolist(), y1.tolist()):
        parts.append(f"M{_num(a)} {_num(b)}V{_num(d)}" if a == c else f"M{_num(a)} {_num(b)}L{_num(c)} {_num(d)}")
    return [f'<path class="segments" d="{"".join(parts)}" fill="none" {_stroke_attrs(item.stroke)}/>']


def _symbol_path(symbol: str, x: float, y: float, size: float) -> str:
    h = size / 2.0
    if symbol == "t":
        return f"M{_num(x - h)} {_num(y - h)}L{_num(x + h)} {_num(y - h)}L{_num(x)} {_num(y + h)}Z"
    if symbol == "t1":
        return f"M{_num(x - h)} {_num(y + h)}L{_num(x + h)} {_num(y + h)}L{_num(x)} {_num(y - h)}Z"
    if symbol == "s":
        return f"M{_num(x - h)} {_num(y - h)}h{_num(size)}v{_num(size)}h{_num(-size)}Z"
    arc = f"a{_num(h)} {_num(h)} 0 1 0"
    return f"M{_num(x - h)} {_num(y)}{arc} {_num(size)} 0{arc} {_num(-size)} 0Z"


def _markers(panel: Panel, item: Markers) -> list[str]:
    x, y = _finite(item.x, item.y)
    x_lo, x_hi = sorted(panel.x_range)
    shown = (x >= x_lo) & (x <= x_hi)
    x, y = x[shown], y[shown]
    if x.size == 0:
        return []
    px, py = np.round(panel.x_px(x), 1), np.round(panel.y_px(y), 1)
    unique = np.unique(np.column_stack([np.floor(px), np.floor(py)]), axis=0, return_index=True)[1]
    path = "".join(_symbol_path(item.symbol, px[i], py[i], item.size) for i in np.sort(unique).tolist())
    return [f'<path class="markers" d="{path}" {_fill_attrs(item.fill)} stroke="none"/>']


def _note(panel: Panel, note: Note) -> list[str]:
    width = 0.6 * note.size * len(note.text)
    height = 1.3 * note.size
    left = panel.left + note.dx - note.anchor[0] * width
    top = panel.top + note.dy - note.anchor[1] * height
    out = []
    if note.background is not None:
        out.append(f'<rect x="{_num(left - 2)}" y="{_num(top)}" width="{_num(width + 4)}" '
                   f'height="{_num(height)}" {_fill_attrs(note.background)}/>')
    out.append(_text(left, top + height / 2, note.text, size=note.size, color=note.color, css_class="note"))
    return out


def _item(panel: Panel, item) -> list[str]:
    if isinstance(item, Polyline):
        return _polyline(panel, item)
    if isinstance(item, Segments):
        return _segments(panel, item)
    if isinstance(item, Markers):
        return _markers(panel, item)
    if isinstance(item, HLine):
        if not _in_range(item.y, panel.y_range):
            return []
        y = _num(panel.y_px(item.y))
        return [f'<line class="hline" x1="{_num(panel.left)}" y1="{y}" x2="{_num(panel.left + panel.width)}" '
                f'y2="{y}" {_stroke_attrs(item.stroke)}/>']
    if isinstance(item, VLine):
        if not _in_range(item.x, panel.x_range):
            return []
        x = _num(panel.x_px(item.x))
        return [f'<line class="vline" x1="{x}" y1="{_num(panel.top)}" x2="{x}" y2="{_num(panel.top + panel.height)}" '
                f'{_stroke_attrs(item.stroke)}/>']
    if isinstance(item, Band):
        lo, hi = sorted(panel.x_range)
        start, end = sorted((item.x0, item.x1))
        if end < lo or start > hi:
            return []
        x0, x1 = float(panel.x_px(max(start, lo))), float(panel.x_px(min(end, hi)))
        out = [f'<rect class="band" x="{_num(x0)}" y="{_num(panel.top)}" width="{_num(x1 - x0)}" '
               f'height="{_num(panel.height)}" {_fill_attrs(item.fill)}/>']
        if item.edge is not None:
            for x in (float(panel.x_px(v)) for v in (start, end) if lo <= v <= hi):
                out.append(f'<line x1="{_num(x)}" y1="{_num(panel.top)}" x2="{_num(x)}" '
                           f'y2="{_num(panel.top + panel.height)}" {_stroke_attrs(item.edge)}/>')
        return out
    if isinstance(item, Note):
        return _note(panel, item)
    raise TypeError(f"cannot draw {type(item).__name__} in an SVG plot")


def _in_range(value: float, bounds: tuple[float, float]) -> bool:
    lo, hi = sorted(bounds)
    slack = 1e-9 * max(abs(hi - lo), 1.0)
    return lo - slack <= value <= hi + slack


def _left_axis(panel: Panel, axis: Axis, foreground: str) -> list[str]:
    left, right, bottom = panel.left, panel.left + panel.width, panel.top + panel.height
    out = [f'<line x1="{_num(left)}" y1="{_num(panel.top)}" x2="{_num(left)}" y2="{_num(bottom)}" '
           f'stroke={_attr(foreground)} stroke-width="1"/>']
    for value, label in axis.ticks:
        if not _in_range(value, panel.y_range):
            continue
        y = _num(panel.y_px(value))
        length = TICK_LENGTH_PX if label else TICK_LENGTH_PX / 2
        if axis.grid > 0:
            out.append(f'<line class="grid" x1="{_num(left)}" y1="{y}" x2="{_num(right)}" y2="{y}" '
                       f'stroke={_attr(foreground)} stroke-opacity="{_num(axis.grid if label else axis.grid / 2)}"/>')
        out.append(f'<line x1="{_num(left - length)}" y1="{y}" x2="{_num(left)}" y2="{y}" stroke={_attr(foreground)}/>')
        if label:
            out.append(_text(left - length - 3, float(y), label, size=TICK_FONT_PX, color=foreground, anchor="end",
                             css_class="tick"))
    if axis.label:
        out.append(_text(left - 48, panel.top + panel.height / 2, axis.label, size=LABEL_FONT_PX, color=foreground,
                         anchor="middle", rotate=True, css_class="axis-label"))
    return out


def _bottom_axis(panel: Panel, axis: Axis, foreground: str) -> list[str]:
    left, right, bottom = panel.left, panel.left + panel.width, panel.top + panel.height
    out = [f'<line x1="{_num(left)}" y1="{_num(bottom)}" x2="{_num(right)}" y2="{_num(bottom)}" '
           f'stroke={_attr(foreground)} stroke-width="1"/>']
    for value, label in axis.ticks:
        if not _in_range(value, panel.x_range):
            continue
        x = _num(panel.x_px(value))
        length = TICK_LENGTH_PX if label else TICK_LENGTH_PX / 2
        if axis.grid > 0:
            out.append(f'<line class="grid" x1="{x}" y1="{_num(panel.top)}" x2="{x}" y2="{_num(bottom)}" '
                       f'stroke={_attr(foreground)} stroke-opacity="{_num(axis.grid if label else axis.grid / 2)}"/>')
        out.append(f'<line x1="{x}" y1="{_num(bottom)}" x2="{x}" y2="{_num(bottom + length)}" '
                   f'stroke={_attr(foreground)}/>')
        half_width = 0.3 * TICK_FONT_PX * len(label)
        if label and left + half_width <= float(x) <= right - half_width:   # as pyqtgraph: none beyond the axis
            out.append(_text(float(x), bottom + length + 3, label, size=TICK_FONT_PX, color=foreground,
                             anchor="middle", baseline="hanging", css_class="tick"))
    if axis.label:
        out.append(_text(left + panel.width / 2, bottom + 30, axis.label, size=LABEL_FONT_PX, color=foreground,
                         anchor="middle", baseline="hanging", css_class="axis-label"))
    return out


def _legend(panel: Panel, foreground: str) -> list[str]:
    if not panel.legend:
        return []
    columns = min(LEGEND_COLUMNS, len(panel.legend))
    rows = -(-len(panel.legend) // columns)
    if panel.legend_box is not None:
        left, top, width, _ = panel.legend_box
    else:
        left, top, width = panel.left, panel.top - rows * LEGEND_ROW_PX - 4, panel.width
    column_width = width / columns
    out = ['<g class="legend">']
    for k, entry in enumerate(panel.legend):
        x = left + (k % columns) * column_width + 8
        y = top + (k // columns + 0.5) * LEGEND_ROW_PX
        if entry.marker is not None:
            mid = x + LEGEND_SAMPLE_PX / 2
            out.append(f'<path d="{_symbol_path(entry.marker.symbol, mid, y, entry.marker.size)}" '
                       f'{_fill_attrs(entry.marker.fill)} stroke="none"/>')
        elif entry.stroke is not None:
            out.append(f'<line x1="{_num(x)}" y1="{_num(y)}" x2="{_num(x + LEGEND_SAMPLE_PX)}" y2="{_num(y)}" '
                       f'{_stroke_attrs(entry.stroke)}/>')
        out.append(_text(x + LEGEND_SAMPLE_PX + 6, y, entry.label, size=LEGEND_FONT_PX, color=foreground,
                         css_class="legend-label"))
    out.append("</g>")
    return out


def _panel(panel: Panel, index: int, foreground: str) -> list[str]:
    clip = f"panel-{index}"
    out = [f'<g class="panel" id="panel-{index}-group">',
           f'<defs><clipPath id="{clip}"><rect x="{_num(panel.left)}" y="{_num(panel.top)}" '
           f'width="{_num(panel.width)}" height="{_num(panel.height)}"/></clipPath></defs>']
    if panel.title:
        out.append(_text(panel.left + panel.width / 2, panel.top - 8, panel.title, size=TITLE_FONT_PX,
                         color=foreground, anchor="middle", baseline="auto", css_class="title"))
    grid_and_axes = []
    if panel.left_axis is not None:
        grid_and_axes += _left_axis(panel, panel.left_axis, foreground)
    if panel.bottom_axis is not None:
        grid_and_axes += _bottom_axis(panel, panel.bottom_axis, foreground)
    out += grid_and_axes
    out.append(f'<g class="data" clip-path="url(#{clip})">')
    for item in panel.items:
        out += _item(panel, item)
    out.append("</g>")
    out += _legend(panel, foreground)
    out.append("</g>")
    return out


def svg_document(figure: Figure) -> bytes:
    """``figure`` as a standalone SVG 1.1 document (UTF-8): the panels with their axes, data, legends and titles."""
    width, height = max(float(figure.width), 1.0), max(float(figure.height), 1.0)
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{_num(width)}" height="{_num(height)}" '
           f'viewBox="0 0 {_num(width)} {_num(height)}" font-family={quoteattr(FONT_FAMILY)}>']
    if figure.title:
        out.append(f"<title>{escape(figure.title)}</title>")
    out.append(f'<rect width="100%" height="100%" fill={_attr(figure.background)}/>')
    for index, panel in enumerate(figure.panels):
        out += _panel(panel, index, figure.foreground)
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode("utf-8")


__all__ = ["Axis", "Band", "Figure", "Fill", "HLine", "LegendEntry", "Markers", "Note", "Panel", "Polyline",
           "Segments", "Stroke", "VLine", "merge_vertical_segments", "svg_document", "thin_to_columns"]
