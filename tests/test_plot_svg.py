"""The SVG writer of the plot export (segviz.app.plot_svg) on small hand-made figures: well-formed XML, data
mapped to the right pixels, escaped text, thinning that keeps every column's extremes, and no Qt."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from segviz.app.plot_svg import (
    Axis,
    Band,
    Figure,
    Fill,
    HLine,
    LegendEntry,
    Markers,
    Panel,
    Polyline,
    Segments,
    Stroke,
    VLine,
    clip_to_x_range,
    merge_vertical_segments,
    svg_document,
    thin_to_columns,
)

SVG = "{http://www.w3.org/2000/svg}"
# a panel 200 x 100 px at (50, 10) showing x in [0, 10] and y in [0, 1]: x_px = 50 + 20 x, y_px = 110 - 100 y
LEFT, TOP, WIDTH, HEIGHT = 50.0, 10.0, 200.0, 100.0


def x_px(x):
    return LEFT + 20.0 * np.asarray(x, dtype=np.float64)


def y_px(y):
    return TOP + HEIGHT - 100.0 * np.asarray(y, dtype=np.float64)


def panel(*items, **options) -> Panel:
    return Panel(LEFT, TOP, WIDTH, HEIGHT, (0.0, 10.0), (0.0, 1.0), tuple(items), **options)


def parse(*panels: Panel, title: str = "") -> ET.Element:
    return ET.fromstring(svg_document(Figure(300.0, 160.0, panels, title=title)))


def points_of(element: ET.Element) -> np.ndarray:
    return np.array([[float(v) for v in pair.split(",")] for pair in element.get("points").split()])


def vertical_segments(path: ET.Element) -> np.ndarray:
    """(x, y_top, y_bottom) of each ``M x y V y`` command of a path."""
    found = re.findall(r"M(-?[\d.]+) (-?[\d.]+)V(-?[\d.]+)", path.get("d"))
    return np.array([[float(a), float(b), float(c)] for a, b, c in found])


def test_the_document_is_well_formed_svg_with_one_polyline_per_curve():
    x = np.arange(11, dtype=np.float64)
    first = Polyline(x, (x / 10.0) ** 2, Stroke("#1f4e99", 2.0))
    second = Polyline(x, 1.0 - x / 10.0, Stroke("#5e35b1", 1.0, dash=(4.0, 2.0)))
    root = parse(panel(first, second), title="a block")
    assert root.tag == f"{SVG}svg" and root.get("width") == "300" and root.get("height") == "160"
    assert root.find(f"{SVG}title").text == "a block"
    curves = root.findall(f".//{SVG}polyline")
    assert len(curves) == 2
    np.testing.assert_allclose(points_of(curves[0]), np.column_stack([x_px(x), y_px((x / 10.0) ** 2)]), atol=0.01)
    np.testing.assert_allclose(points_of(curves[1]), np.column_stack([x_px(x), y_px(1.0 - x / 10.0)]), atol=0.01)
    assert curves[0].get("stroke") == "#1f4e99" and curves[0].get("stroke-width") == "2"
    assert curves[1].get("stroke-dasharray") == "4,2"


def test_a_few_points_map_through_the_linear_transforms():
    curve = Polyline(np.array([2.5, 5.0, 7.5]), np.array([0.25, 0.8, 0.1]), Stroke())
    points = points_of(parse(panel(curve)).find(f".//{SVG}polyline"))
    assert points[0] == pytest.approx([100.0, 85.0])    # 50 + 20 * 2.5, 110 - 100 * 0.25
    assert points[1] == pytest.approx([150.0, 30.0])
    assert points[2] == pytest.approx([200.0, 100.0])
    p = panel()
    assert p.x_px(2.5) == pytest.approx(100.0) and p.y_px(0.25) == pytest.approx(85.0)


def test_boundaries_are_vertical_lines_at_their_positions():
    positions = np.array([2.0, 3.0, 7.0])
    ticks = Segments(np.repeat(positions, 2), np.tile([0.0, 0.28], 3), Stroke("#c62828", 2.0))
    threshold = HLine(0.5, Stroke("#e08a00", 2.0, dash=(8.0, 4.0)))
    root = parse(panel(ticks, threshold))
    path = root.find(f".//{SVG}path[@class='segments']")
    assert path.get("stroke") == "#c62828"
    drawn = vertical_segments(path)
    np.testing.assert_allclose(drawn[:, 0], x_px(positions), atol=0.01)
    np.testing.assert_allclose(np.sort(drawn[:, 1:], axis=1), np.tile([y_px(0.28), y_px(0.0)], (3, 1)), atol=0.01)
    line = root.find(f".//{SVG}line[@class='hline']")
    assert float(line.get("y1")) == pytest.approx(y_px(0.5)) == pytest.approx(float(line.get("y2")))
    assert float(line.get("x1")) == pytest.approx(LEFT) and float(line.get("x2")) == pytest.approx(LEFT + WIDTH)


def test_guide_lines_reaching_out_of_the_view_are_cut_at_its_edges():
    guides = Segments(np.repeat([4.0, 12.0], 2), np.tile([-1e3, 1e3], 2), Stroke())
    root = parse(panel(guides, VLine(11.0, Stroke())))
    drawn = vertical_segments(root.find(f".//{SVG}path[@class='segments']"))
    assert len(drawn) == 1   # the one at x = 12 is out of view
    assert drawn[0, 0] == pytest.approx(x_px(4.0))
    assert TOP - 2 <= drawn[0, 1:].min() and drawn[0, 1:].max() <= TOP + HEIGHT + 2
    assert root.find(f".//{SVG}line[@class='vline']") is None


def test_text_is_escaped():
    label = "<&> \"quoted\""
    labelled = panel(Polyline(np.arange(3.0), np.zeros(3), Stroke()), left_axis=Axis(((0.5, "a<b"),), label=label),
                     legend=(LegendEntry("x & y", stroke=Stroke()),), title="R < 0 & R > 1")
    root_bytes = svg_document(Figure(300.0, 160.0, (labelled,), title="<title>"))
    assert b"&lt;&amp;&gt;" in root_bytes and b"<title>&lt;title&gt;</title>" in root_bytes
    texts = {t.text for t in ET.fromstring(root_bytes).iter(f"{SVG}text")}
    assert {label, "a<b", "x & y", "R < 0 & R > 1"} <= texts


def test_axes_tick_at_their_values_and_skip_those_out_of_view():
    root = parse(panel(left_axis=Axis(((0.0, "0"), (0.5, "0.5"), (2.0, "2"), (0.25, "")), label="P"),
                       bottom_axis=Axis(((5.0, "5"), (-1.0, "-1")), label="sentence", grid=0.15)))
    texts = {t.text: t for t in root.iter(f"{SVG}text")}
    assert "2" not in texts and "-1" not in texts
    assert float(texts["0.5"].get("y")) == pytest.approx(y_px(0.5))
    assert float(texts["5"].get("x")) == pytest.approx(x_px(5.0))
    assert texts["P"].get("transform", "").startswith("rotate(-90")
    grid = root.findall(f".//{SVG}line[@class='grid']")
    assert len(grid) == 1 and float(grid[0].get("x1")) == pytest.approx(x_px(5.0))


def test_steps_with_a_fill_draw_the_outline_and_a_polygon_to_the_fill_level():
    edges = np.array([0.0, 1.0, 2.0, 3.0])
    values = np.array([0.5, 0.2, 0.9])
    curve = Polyline(edges, values, Stroke(), steps=True, fill=Fill("#5e35b1", 0.27), fill_level=0.0)
    root = parse(panel(curve))
    outline = points_of(root.find(f".//{SVG}polyline"))
    expected = np.column_stack([x_px([0, 1, 1, 2, 2, 3]), y_px([0.5, 0.5, 0.2, 0.2, 0.9, 0.9])])
    np.testing.assert_allclose(outline, expected, atol=0.01)
    polygon = root.find(f".//{SVG}polygon")
    assert polygon.get("fill") == "#5e35b1" and float(polygon.get("fill-opacity")) == pytest.approx(0.27)
    corners = points_of(polygon)
    assert corners[0] == pytest.approx([x_px(0.0), y_px(0.0)]) and corners[-1] == pytest.approx([x_px(3.0), y_px(0.0)])


def test_a_curve_is_cut_where_it_leaves_the_view():
    curve = Polyline(np.array([-5.0, 5.0, 15.0]), np.array([0.0, 1.0, 0.0]), Stroke())
    points = points_of(parse(panel(curve)).find(f".//{SVG}polyline"))
    np.testing.assert_allclose(points, [[x_px(0.0), y_px(0.5)], [x_px(5.0), y_px(1.0)], [x_px(10.0), y_px(0.5)]],
                               atol=0.01)
    x, y = clip_to_x_range(np.array([1.0, 2.0]), np.array([3.0, 4.0]), 5.0, 6.0)
    assert x.size == 0 and y.size == 0


def test_thinning_keeps_the_lowest_and_highest_point_of_each_pixel_column():
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(0.0, 10.0, 5000))
    y = rng.uniform(0.05, 0.95, x.size)
    y[1234], y[4321] = 1.0, 0.0   # one peak and one dip
    narrow = Panel(0.0, 0.0, 10.0, 100.0, (0.0, 10.0), (0.0, 1.0), (Polyline(x, y, Stroke()),))
    root = ET.fromstring(svg_document(Figure(10.0, 100.0, (narrow,))))
    points = points_of(root.find(f".//{SVG}polyline"))
    column = np.floor(points[:, 0]).astype(int)
    assert np.bincount(column).max() <= 2 and len(points) <= 2 * 10
    for c in range(10):
        inside = (x >= c) & (x < c + 1)
        drawn = points[column == c, 1]
        assert drawn.min() == pytest.approx(100.0 * (1 - y[inside].max()), abs=0.01)
        assert drawn.max() == pytest.approx(100.0 * (1 - y[inside].min()), abs=0.01)
    assert points[:, 1].min() == pytest.approx(0.0) and points[:, 1].max() == pytest.approx(100.0)


def test_thinning_leaves_sparse_lines_alone_and_keeps_the_order_along_the_line():
    px, py = np.array([0.2, 1.5, 2.5]), np.array([3.0, 1.0, 2.0])
    assert thin_to_columns(px, py)[1].tolist() == [3.0, 1.0, 2.0]
    px = np.array([0.1, 0.2, 0.3, 0.4, 1.1])
    py = np.array([5.0, 9.0, 1.0, 4.0, 7.0])
    kept_x, kept_y = thin_to_columns(px, py)
    assert kept_x.tolist() == [0.2, 0.3, 1.1] and kept_y.tolist() == [9.0, 1.0, 7.0]


def test_ticks_in_one_pixel_column_merge_into_one_line_spanning_them():
    x0, y0, x1, y1 = merge_vertical_segments([3.2, 3.7, 8.0], [10.0, 20.0, 5.0], [3.2, 3.7, 8.0], [30.0, 40.0, 9.0])
    assert x0.tolist() == [3.2, 8.0] and y0.tolist() == [10.0, 5.0] and y1.tolist() == [40.0, 9.0]
    assert np.array_equal(x0, x1)


def test_markers_bands_and_legend_are_drawn():
    marks = Markers(np.array([1.0, 1.0, 4.0, 20.0]), np.array([1.0, 1.0, 1.0, 1.0]), Fill("#2e7d32"), 9.0, "t")
    block = Band(2.0, 14.0, Fill("#ffc107", 0.35), Stroke("#e08a00", 2.0))
    legend = (LegendEntry("curve", stroke=Stroke("#1f4e99", 2.0)), LegendEntry("fires", marker=marks))
    root = parse(panel(marks, block, legend=legend, legend_box=(50.0, 0.0, 200.0, 10.0)))
    triangles = root.find(f".//{SVG}path[@class='markers']").get("d")
    assert triangles.count("Z") == 2   # the duplicate and the one out of view are left out
    band = root.find(f".//{SVG}rect[@class='band']")
    assert float(band.get("x")) == pytest.approx(x_px(2.0))
    assert float(band.get("x")) + float(band.get("width")) == pytest.approx(x_px(10.0))   # cut at the view's edge
    labels = [t.text for t in root.find(f".//{SVG}g[@class='legend']").iter(f"{SVG}text")]
    assert labels == ["curve", "fires"]


def test_the_writer_imports_no_qt():
    from tests.test_app_no_qt import import_without_qt

    proc = import_without_qt(["segviz.app.plot_svg"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
