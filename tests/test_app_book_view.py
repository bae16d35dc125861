"""pytest-qt tests of a book in the window: chapter titles beside the reference ticks and in the context panel, and
the P(boundary) axis fitted to the curve (a length-prior model's curve stays low) with α always on it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from PySide6.QtGui import QFont, QFontMetrics  # noqa: E402

from segviz.app.block_view import (  # noqa: E402
    AXIS_TOPS,
    TITLE_FONT_PX,
    TITLE_GAP_PX,
    TitleLabels,
    axis_top,
    curve_height,
    short_titles,
    title_label_text,
)
from segviz.app.plot_svg import Note  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "tests" / "data" / "small_book.txt"
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
TITLES = ["CHAPTER I. The Harbour Freezes", "CHAPTER II. The Railway Company", "CHAPTER III. The Thaw",
          "CHAPTER IV. Afterwards"]


def open_and_wait(win, qtbot, paths, **options):
    win.default_model = None   # the tests set curves of their own
    with qtbot.waitSignal(win.corpusLoaded, timeout=300000):
        assert win.open_corpus(paths, **options)
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


def visible_labels(view) -> list:
    return [item for item in view.titles.items if item.isVisible()]


def test_a_books_chapter_titles_are_beside_its_ticks_and_in_the_context_panel(window, qtbot):
    open_and_wait(window, qtbot, str(BOOK), format="text", headings=True)
    state, view = window.state, window.block_view
    assert list(state.titles()) == TITLES
    starts = state.document_starts()
    np.testing.assert_array_equal(state.title_starts(), starts)
    # the whole book is in the first block: each chapter's title stands right of its tick, whole or shortened
    # to its heading ("CHAPTER II") where the room to the next tick is short
    shown = view.titles.texts()
    assert len(shown) == len(TITLES)
    for text, title in zip(shown, TITLES):
        assert text in short_titles(title) or (text.endswith("…") and title.startswith(text[:-1])), text
    assert shown[-1] == TITLES[-1]
    for item, start in zip(visible_labels(view), starts):
        assert start <= item.pos().x() < start + 1
    # labels never cover a tick: each ends before the next reference tick
    lo, hi = view.plot.vb.viewRange()[0]
    per_px = view.plot.vb.width() / (hi - lo)
    metrics = QFontMetrics(view.titles.font)
    for item, nxt in zip(visible_labels(view), starts[1:]):
        assert item.pos().x() * per_px + metrics.horizontalAdvance(item.toPlainText()) < nxt * per_px
    # the context panel names the chapter by its heading, not as "small_book.txt#2"
    window.context.show_position(int(starts[1]) + 2)
    text = window.context.toPlainText()
    assert TITLES[1] in text and "small_book.txt#2" not in text and "(small_book.txt)" in text
    # zoomed to one chapter, only its title is on screen
    view.plot.setXRange(float(starts[2]) - 0.5, float(starts[3]) - 0.5, padding=0)
    assert view.titles.texts() == [TITLES[2]]


def test_a_corpus_without_titles_has_no_labels(window, qtbot):
    open_and_wait(window, qtbot, str(CHOI))
    state, view = window.state, window.block_view
    assert state.title_starts().size == 0 and state.titles() == () and state.document_title(0) == ""
    assert view.titles.texts() == [] and not visible_labels(view)
    window.context.show_position(int(state.document_starts()[1]))
    assert "3-11_0.ref#seg2" in window.context.toPlainText()   # its own name: it has no title
    # a book shown before leaves nothing behind
    open_and_wait(window, qtbot, str(BOOK), format="text", headings=True)
    assert len(view.titles.texts()) == len(TITLES)
    open_and_wait(window, qtbot, str(CHOI))
    assert not visible_labels(view) and view.titles.shown == 0


def test_labels_thin_out_and_stay_on_screen_at_a_million_sentences(qtbot):
    """Zoomed out over 10^6 sentences of titled segments, the labels are only those with room: a few dozen, none
    overlapping another or covering a tick, each showing as much of its title as fits."""
    import pyqtgraph as pg

    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    plot = widget.getPlotItem()
    n = 1_000_000
    rng = np.random.default_rng(0)
    starts = np.unique(np.concatenate([[0], rng.integers(1, n, 200_000)]))
    titles = tuple(f"Chapter {k + 1}: A Title of Some Length" for k in range(starts.size))
    labels = TitleLabels(plot, "#222222")
    labels.set(starts, titles, starts, n)
    width = 1000.0
    labels.draw(0, n, width, -0.1)
    assert labels.shown == 0   # 200,000 ticks in 1,000 pixels: no room for any label
    # a sparser stretch: 300 sentences on screen, some labels
    lo, hi = 500_000, 500_300
    labels.draw(lo, hi, width, -0.1)
    texts = labels.texts()
    assert 0 < len(texts) <= width / 12
    xs = [item.pos().x() for item in labels.items[:labels.shown]]
    assert xs == sorted(xs) and all(lo <= x <= hi for x in xs)
    metrics = QFontMetrics(labels.font)
    per_px = width / (hi - lo)
    for item, text in zip(labels.items[:labels.shown], texts):
        start = int(np.floor(item.pos().x()))
        following = starts[np.searchsorted(starts, start, side="right")]
        room = (min(following, hi) - start) * per_px - TITLE_GAP_PX
        assert metrics.horizontalAdvance(text) <= room + 1
    # back to the corpus-wide view: the labels go again
    labels.draw(0, n, width, -0.1)
    assert labels.shown == 0 and not any(item.isVisible() for item in labels.items)


def test_a_title_shortens_to_its_heading_then_its_number():
    font = QFont()
    font.setPixelSize(TITLE_FONT_PX)
    metrics = QFontMetrics(font)
    title = "Letter 4: To Mrs. Saville, England. August 5th, 17—."
    assert short_titles(title) == (title, "Letter 4", "4")
    assert short_titles("CHAPTER XV") == ("CHAPTER XV", "XV")
    assert short_titles("Afterwards") == ("Afterwards",)
    assert title_label_text(title, 1000, metrics) == title
    elided = title_label_text(title, metrics.horizontalAdvance(title) * 0.7, metrics)
    assert elided.endswith("…") and title.startswith(elided[:-1])
    assert title_label_text(title, metrics.horizontalAdvance("Letter 4: To") + 2, metrics) == "Letter 4"
    assert title_label_text(title, metrics.horizontalAdvance("4") + 1, metrics) == "4"
    assert title_label_text(title, 1, metrics) == ""


def test_the_axis_top_holds_the_curve_and_alpha():
    assert axis_top(0.13) == (0.2, 0.1) and axis_top(0.38) == (0.4, 0.1)
    assert axis_top(0.13, alpha=0.55) == (0.6, 0.2) and axis_top(0.0, alpha=0.0) == AXIS_TOPS[0]
    assert axis_top(0.999) == (1.0, 0.5) and axis_top(1.0, alpha=1.0) == (1.0, 0.5)
    short = np.linspace(0, 0.3, 3000)
    assert curve_height(short) == pytest.approx(0.3)   # one book: every peak counts
    long = np.full(1_000_000, 0.1)
    long[::10_000] = 1.0                                 # 100 spikes in 10^6: above the fitted axis
    assert curve_height(long) == pytest.approx(0.1)


def axis_range(view) -> tuple[float, float]:
    return tuple(view.plot.vb.viewRange()[1])


@pytest.mark.slow
def test_the_axis_fits_a_low_curve_with_alpha_on_it_and_marks_what_is_above(window, qtbot):
    from segviz import LengthPriorRule, Segmenter, ThresholdRule

    open_and_wait(window, qtbot, str(BOOK), format="text", headings=True)
    state, view = window.state, window.block_view
    n = state.n_sentences
    probs = np.full(n - 1, 0.01)
    starts = state.document_starts()[1:]
    probs[starts - 1] = [0.12, 0.18, 0.09]   # a length-prior model's curve: peaks at 0.1-0.2
    lengths = Segmenter.from_weights([], [], prior=0.05, mu=0.05, rule=LengthPriorRule(shape=2.0, bias=0.0))
    state.set_model(lengths)
    state.set_probabilities(probs)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    lo, hi = axis_range(view)
    assert not view.alpha_line.isVisible() and hi >= probs.max() and hi <= 0.25   # not 0-1: the peaks read
    assert lo < 0 < probs.max() < view.axis_top
    ticks = [value for value, _ in window.block_view._explicit_ticks[view.plot.getAxis("left")][0]]
    assert ticks == pytest.approx([0.0, 0.1, 0.2])
    # the rows keep their share of the height: the reference row lies under the axis, its titles inside it
    assert view.ref_row.y0 == pytest.approx(-0.2 * view.axis_top) and view.ref_row.y1 == 0
    assert all(view.ref_row.y0 < item.pos().y() < 0 for item in visible_labels(view))
    # a threshold rule: the axis holds α too, wherever it is moved
    threshold = Segmenter.from_weights([], [], prior=0.05, mu=0.05, rule=ThresholdRule(alpha=0.1, epsilon=2))
    state.set_model(threshold)
    state.set_probabilities(probs)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert view.alpha_line.isVisible() and axis_range(view)[1] >= max(probs.max(), 0.1)
    for alpha in (0.45, 0.9, 0.05):
        with qtbot.waitSignal(window.session.hypothesisChanged, timeout=300000):
            state.set_alpha(alpha)
        lo, hi = axis_range(view)
        assert lo < alpha < hi and probs.max() < hi, alpha
        assert view.alpha_line.value() == pytest.approx(alpha)
    assert axis_range(view)[1] <= 0.25
    # one book shows every peak: a spike takes the axis up to 1
    spiky = probs.copy()
    spiky[40] = 0.97
    state.set_probabilities(spiky)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert axis_range(view)[1] >= 0.97 and len(view.clipped_marks.getData()[0]) == 0
    state.set_probabilities(probs)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    # the fit can be switched off: 0 to 1
    window.fit_curve_action.setChecked(False)
    assert axis_range(view)[1] >= 1.0 and window.settings.value("view/fit_curve") in (False, "false")
    window.fit_curve_action.setChecked(True)
    assert axis_range(view)[1] <= 0.25


def test_a_few_spikes_in_a_long_curve_go_above_the_axis_marked_at_its_top(window, qtbot, tmp_path):
    """A long corpus whose curve stays low but for a few spikes (fewer than one position in 5,000): the axis fits
    the rest, and each spike on screen has a mark at the top edge."""
    from segviz import LengthPriorRule, Segmenter

    long = tmp_path / "long.ref"
    documents = [[f"Sentence {d} {k} of a long corpus about topic {d}." for k in range(50)] for d in range(240)]
    long.write_text("==========\n" + "".join("\n".join(doc) + "\n==========\n" for doc in documents))
    open_and_wait(window, qtbot, str(long))
    state, view = window.state, window.block_view
    n = state.n_sentences
    assert n == 12_000
    probs = np.full(n - 1, 0.01)
    probs[state.document_starts()[1:] - 1] = 0.15
    probs[[30, 7_000]] = [0.95, 0.9]                   # position 31 and 7,001
    state.set_model(Segmenter.from_weights([], [], prior=0.05, mu=0.05, rule=LengthPriorRule(shape=2.0, bias=0.0)))
    state.set_probabilities(probs)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert view.axis_top == 0.2
    x, y = view.clipped_marks.getData()
    assert list(x) == [31.0] and y[0] > view.axis_top and y[0] < axis_range(view)[1]   # the first block
    view.show_sentence(7_001)
    x, _ = view.clipped_marks.getData()
    assert 7_001.0 in list(x) and 31.0 not in list(x)
    # zoomed out, the marks stay (both spikes), and the axis does not move
    view.zoom_all()
    x, _ = view.clipped_marks.getData()
    assert list(x) == [31.0, 7_001.0] and view.axis_top == 0.2


def test_the_svg_export_shows_the_fitted_axis_and_the_titles(window, qtbot):
    from segviz import LengthPriorRule, Segmenter

    open_and_wait(window, qtbot, str(BOOK), format="text", headings=True)
    state, view = window.state, window.block_view
    probs = np.full(state.n_sentences - 1, 0.02)
    probs[10] = 0.15
    state.set_model(Segmenter.from_weights([], [], prior=0.05, mu=0.05, rule=LengthPriorRule(shape=2.0, bias=0.0)))
    state.set_probabilities(probs)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    figure = view.svg_snapshot()
    block = figure.panels[1]
    assert block.y_range == pytest.approx(axis_range(view))
    assert [label for _, label in block.left_axis.ticks][:3] == ["0", "0.1", "0.2"]
    notes = [item.text for item in block.items if isinstance(item, Note)]
    assert set(view.titles.texts()) <= set(notes)
    assert all(item.size == TITLE_FONT_PX for item in block.items if isinstance(item, Note)
               and item.text in view.titles.texts())
