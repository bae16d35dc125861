"""pytest-qt tests of the main window: signals and state, no sleeps."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from segviz.app.panels import METRIC_COLUMNS, SLIDER_STEPS  # noqa: E402
from segviz.app.state import MODEL_ROW  # noqa: E402
from segviz.corpus import read_corpus  # noqa: E402
from segviz.decode import decode  # noqa: E402
from segviz.metrics import score_row  # noqa: E402
from segviz.segmentation import boundaries_to_masses  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
CHOI2 = ROOT / "sample_corpora" / "choi" / "3-11_1.ref"


def load_with_probs(win, qtbot, path=CHOI, seed=0):
    win.default_model = None   # these tests show probabilities of their own: no bundled model applied on open
    with qtbot.waitSignal(win.corpusLoaded, timeout=300000):
        assert win.open_corpus(str(path))
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)  # peers run in the background
    rng = np.random.default_rng(seed)
    probs = rng.random(win.state.n_sentences - 1) ** 3
    win.state.set_probabilities(probs)
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)   # the decision rule's passes are warmed in the background
    return probs


def hyp_tick_positions(win) -> np.ndarray:
    x, _ = win.block_view.hyp_ticks.getData()
    return np.asarray(x[::2] if x is not None else [], dtype=np.int64)


def test_slider_updates_ticks_and_metrics_to_engine_values(window, qtbot):
    probs = load_with_probs(window, qtbot)
    n = window.state.n_sentences
    for alpha in (0.05, 0.3, 0.62):
        with qtbot.waitSignal(window.session.hypothesisChanged, timeout=300000):
            window.decision.alpha_slider.setValue(round(alpha * SLIDER_STEPS))
        expected = decode(probs, alpha, window.state.epsilon)
        assert window.state.alpha == pytest.approx(alpha)
        np.testing.assert_array_equal(hyp_tick_positions(window), expected)
        row = score_row(read_corpus(CHOI).masses(), boundaries_to_masses(expected, n))
        for _, key, _ in METRIC_COLUMNS:
            shown = window.decision.metric_text(MODEL_ROW, key)
            want = f"{int(row[key]):,}" if key == "hypothesis_segments" else f"{row[key]:.3f}"
            assert shown == want, key
        # the view's alpha line and spin box follow the model without echoing
        assert window.block_view.alpha_line.value() == pytest.approx(alpha)
        assert window.decision.alpha_spin.value() == pytest.approx(alpha)


def test_epsilon_and_dragging_the_alpha_line(window, qtbot):
    probs = load_with_probs(window, qtbot)
    with qtbot.waitSignal(window.session.hypothesisChanged, timeout=300000):
        window.decision.epsilon_spin.setValue(4)
    with qtbot.waitSignal(window.session.hypothesisChanged, timeout=300000):
        window.block_view.alpha_line.setValue(0.2)   # what a drag does: sigPositionChanged
    assert window.state.alpha == pytest.approx(0.2)
    assert window.state.epsilon == 4
    np.testing.assert_array_equal(hyp_tick_positions(window), decode(probs, 0.2, 4))
    assert window.decision.alpha_slider.value() == round(0.2 * SLIDER_STEPS)


def test_tune_sets_the_engines_best_values(window, qtbot):
    from segviz import ThresholdRule

    probs = load_with_probs(window, qtbot)
    best, pmu = ThresholdRule().tune(probs, read_corpus(CHOI).masses())
    alpha, epsilon = best.alpha, best.epsilon
    with qtbot.waitSignal(window.tuned, timeout=300000):
        window.tune_action.trigger()
    assert (window.state.alpha, window.state.epsilon) == (pytest.approx(alpha), epsilon)
    assert window.state.metrics[MODEL_ROW]["p_mu"] == pytest.approx(pmu)


def test_block_navigation_and_jumps(window, qtbot):
    load_with_probs(window, qtbot)
    bv = window.block_view
    window.block_size_spin.setValue(50)
    assert bv.block_size == 50 and bv.n_blocks == -(-window.state.n_sentences // 50)
    with qtbot.waitSignal(bv.blockChanged, timeout=300000) as blocker:
        window.next_action.trigger()
    assert blocker.args == [1]
    lo, hi = bv.plot.vb.viewRange()[0]
    assert lo <= 50 and hi >= min(100, window.state.n_sentences)
    window.prev_action.trigger()
    assert bv.block == 0
    starts = window.state.document_starts()
    window.doc_spin.setValue(len(starts))
    assert bv.block == int(starts[-1]) // 50
    assert f"document {len(starts)}" in window.context.toPlainText()
    window.sentence_spin.setValue(window.state.n_sentences - 1)
    assert bv.block == bv.n_blocks - 1
    assert int(window.settings.value("view/block_size")) == 50


def test_hover_shows_sentences_around_the_position(window, qtbot):
    load_with_probs(window, qtbot)
    b = int(window.state.reference_boundaries[0])
    with qtbot.waitSignal(window.block_view.positionClicked, timeout=300000):
        scene_pos = window.block_view.plot.vb.mapViewToScene(
            __import__("PySide6.QtCore", fromlist=["QPointF"]).QPointF(b, 0.5))
        event = type("E", (), {"scenePos": lambda self: scene_pos, "button": lambda self: Qt.LeftButton})()
        window.block_view._mouse_clicked(event)
    text = window.context.toPlainText()
    texts = read_corpus(CHOI).sentence_texts()
    assert f"position {b}" in text
    assert texts[b][:40] in text and texts[b - 1][:40] in text
    assert "reference boundary" in text


@pytest.mark.parametrize("content,label", [
    (None, "missing"),
    (b"", "empty"),
    (b"\x00\x01\x02\xff\xfe" * 200, "binary"),
    (b"<html><body>not a corpus</body></html>\n", "wrong format"),
])
def test_bad_corpus_shows_dialog_and_keeps_the_loaded_one(window, qtbot, tmp_path, content, label):
    load_with_probs(window, qtbot)
    before = window.state.corpus
    bad = tmp_path / f"bad_{label.replace(' ', '_')}.ref"
    if content is not None:
        bad.write_bytes(content)
    if content is None:
        assert not window.open_corpus(str(bad))   # a missing file is refused at once
    else:
        assert window.open_corpus(str(bad))
        qtbot.waitUntil(lambda: not window.busy, timeout=300000)
        if window.state.corpus is not before:
            # a lenient reader may accept some text as one document; then it must be a real corpus
            pytest.skip(f"reader accepted the {label} file")
        qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert len(window.dialogs) == 1
    title, message = window.dialogs[0]
    assert title == "Cannot open corpus" and str(bad.name) in message
    assert window.state.corpus is before and window.state.probabilities is not None


def test_corrupt_and_foreign_models_show_dialog(window, qtbot, tmp_path):
    load_with_probs(window, qtbot)
    probs = window.state.probabilities
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{ this is not json")
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"format": "something-else", "version": 1}')
    binary = tmp_path / "binary.segviz"
    binary.write_bytes(bytes(range(256)) * 4)
    assert not window.open_model(str(tmp_path / "missing.json"))
    for path in (corrupt, foreign, binary):
        window.open_model(str(path))
        qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert len(window.dialogs) == 4
    assert all(title == "Cannot open model" for title, _ in window.dialogs)
    # a binary file named .segviz is not "corrupt JSON": the message says what a model file is
    assert "JSON" not in window.dialogs[-1][1] and "not a segviz model" in window.dialogs[-1][1]
    assert window.state.probabilities is probs


def test_export_hypothesis_choi_and_csv(window, qtbot, tmp_path):
    probs = load_with_probs(window, qtbot)
    window.state.set_decision(0.3, 2)
    choi = tmp_path / "hyp.ref"
    with qtbot.waitSignal(window.exported, timeout=300000):
        assert window.export_hypothesis(str(choi))
    assert read_corpus(choi).masses() == window.state.hypothesis_masses
    table = tmp_path / "hyp.csv"
    with qtbot.waitSignal(window.exported, timeout=300000):
        assert window.export_hypothesis(str(table))
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == window.state.n_sentences - 1
    assert [int(r["position"]) for r in rows if r["hypothesis"] == "1"] == list(decode(probs, 0.3, 2))
    assert [int(r["position"]) for r in rows if r["reference"] == "1"] == list(window.state.reference_boundaries)
    assert float(rows[4]["probability"]) == pytest.approx(probs[4], abs=1e-6)


def test_export_plot_png_and_svg(window, qtbot, tmp_path):
    load_with_probs(window, qtbot)
    png = tmp_path / "plot.png"
    with qtbot.waitSignal(window.exported, timeout=300000):
        assert window.export_plot(str(png))
    from PySide6.QtGui import QImage
    image = QImage(str(png))
    assert image.width() > 100 and image.height() > 100
    svg = tmp_path / "plot.svg"
    with qtbot.waitSignal(window.exported, timeout=300000):
        assert window.export_plot(str(svg)), window.dialogs
    assert "<svg" in svg.read_text()[:2000]


def test_svg_export_snapshots_on_the_gui_thread_and_builds_the_document_off_it(window, qtbot, tmp_path,
                                                                                monkeypatch):
    import threading
    import xml.etree.ElementTree as ET

    from segviz.app import file_actions

    probs = load_with_probs(window, qtbot)
    view = window.block_view
    threads, figures = {}, []
    take_snapshot, build_document = view.svg_snapshot, file_actions.svg_document

    def snapshot():
        threads["snapshot"] = threading.get_ident()
        figures.append(take_snapshot())
        return figures[-1]

    def document(figure):
        threads["document"] = threading.get_ident()
        return build_document(figure)

    monkeypatch.setattr(view, "svg_snapshot", snapshot)
    monkeypatch.setattr(file_actions, "svg_document", document)
    svg = tmp_path / "plot.svg"
    with qtbot.waitSignal(window.exported, timeout=300000):
        assert window.export_plot(str(svg))
    assert threads["snapshot"] == threading.get_ident() != threads["document"]
    assert not window.dialogs

    root = ET.parse(svg).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    texts = {t.text for t in root.iter(f"{ns}text")}
    assert {"P(boundary)", "sentence", "relevance R", "reference", "hypothesis", "corpus", "ref"} <= texts
    assert f"α = {window.state.alpha:.2f}" in texts
    # the block plot (the second panel): the curve is the probabilities in view, at the panel's pixels
    block = figures[0].panels[1]
    groups = root.findall(f"{ns}g[@class='panel']")
    assert len(groups) == len(figures[0].panels) == 3
    curve = groups[1].find(f".//{ns}polyline")
    points = np.array([[float(v) for v in p.split(",")] for p in curve.get("points").split()])
    positions = np.arange(1, len(probs) + 1)
    np.testing.assert_allclose(points[:, 0], block.x_px(positions), atol=0.01)
    np.testing.assert_allclose(points[:, 1], block.y_px(probs), atol=0.01)
    # one tick per hypothesised boundary, at its position, in the hypothesis colour
    from segviz.app.block_view import HYP_COLOR
    hyp = [p for p in groups[1].iter(f"{ns}path") if p.get("stroke") == HYP_COLOR]
    assert len(hyp) == 1
    xs = [float(x) for x in re.findall(r"M(-?[\d.]+) ", hyp[0].get("d"))]
    np.testing.assert_allclose(xs, block.x_px(hyp_tick_positions(window)), atol=0.01)


def test_a_failing_svg_build_ends_in_the_error_dialog(window, qtbot, tmp_path, monkeypatch):
    from segviz.app import file_actions
    from segviz.errors import SegvizError

    def failing(figure):
        raise SegvizError("the drawing could not be built")

    load_with_probs(window, qtbot)
    monkeypatch.setattr(file_actions, "svg_document", failing)
    svg = tmp_path / "plot.svg"
    assert window.export_plot(str(svg))
    qtbot.waitUntil(lambda: bool(window.dialogs) and not window.busy, timeout=300000)
    assert window.dialogs[-1][0] == "Cannot export" and "could not be built" in window.dialogs[-1][1]
    assert not svg.exists()


def test_recent_files_and_settings_persist(window, qtbot, app_settings):
    load_with_probs(window, qtbot, CHOI)
    load_with_probs(window, qtbot, CHOI2)
    assert window.recent_files()[:2] == [str(CHOI2), str(CHOI)]
    window.state.set_alpha(0.42)
    window.save_settings()
    from segviz.app.main_window import MainWindow
    other = MainWindow(settings=app_settings)
    qtbot.addWidget(other)
    assert other.state.alpha == pytest.approx(0.42)
    assert other.recent_files()[0] == str(CHOI2)


@pytest.mark.slow
def test_peers_as_tick_rows_and_metrics(window, qtbot):
    load_with_probs(window, qtbot)
    state = window.state
    with qtbot.waitSignal(window.peersComputed, timeout=300000):
        window.decision.peer_checks["c99"].setChecked(True)   # computed in a child process
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    from segviz.app.file_actions import as_list

    assert "c99" in state.peer_masses and as_list(window.settings.value("peers/shown")) == ["c99"]
    masses = state.peer_masses["c99"]
    assert state.metrics["c99"] == score_row(state.reference_masses, masses)
    item = window.block_view.peer_rows["c99"].ticks
    x, _ = item.getData()
    np.testing.assert_array_equal(x[::2], np.cumsum(masses)[:-1])
    rows = state.visible_rows()
    assert rows.index(MODEL_ROW) < rows.index("c99") < rows.index("none")
    window.decision.peer_checks["c99"].setChecked(False)
    assert "c99" not in window.block_view.peer_rows and "c99" not in state.visible_rows()
    window.decision.peer_checks["c99"].setChecked(True)
    assert "c99" in window.block_view.peer_rows


def test_tune_on_heldout_documents_of_an_in_app_model(window, qtbot):
    from segviz import ThresholdRule

    def tune(p, m):
        best, score = ThresholdRule().tune(p, m)
        return best.alpha, best.epsilon, score

    probs = load_with_probs(window, qtbot)
    masses = read_corpus(CHOI).masses()
    start = sum(masses[:7])               # as if documents 1-7 were trained on, 8-10 held out
    window.heldout_start = start
    alpha, epsilon, pmu = tune(probs[start:], masses[7:])
    with qtbot.waitSignal(window.tuned, timeout=300000):
        window.decision.tune_button.click()
    assert (window.state.alpha, window.state.epsilon) == (pytest.approx(alpha), epsilon)
    assert "held-out" in window.info_label.text() and f"{pmu:.3f}" in window.info_label.text()
    # the oracle action tunes on everything shown
    a2, e2, _ = tune(probs, masses)
    with qtbot.waitSignal(window.tuned, timeout=300000):
        window.tune_oracle_action.trigger()
    assert (window.state.alpha, window.state.epsilon) == (pytest.approx(a2), e2)


def test_a_drag_is_decoded_once_per_event_loop_pass(window, qtbot):
    probs = load_with_probs(window, qtbot)
    seen = []
    window.session.hypothesisChanged.connect(lambda: seen.append(window.state.alpha))
    with qtbot.waitSignal(window.session.hypothesisChanged, timeout=300000):
        for value in (0.11, 0.37, 0.58):   # three pixels of a drag before the loop runs again
            window.block_view.alpha_line.setValue(value)
    assert seen == [pytest.approx(0.58)]
    np.testing.assert_array_equal(hyp_tick_positions(window), decode(probs, 0.58, window.state.epsilon))


# -- several files, formats, unlabelled text ------------------------------------------------------------------

PROSE = """The harbour froze in the first week of December. Boats stayed in their sheds, and the
fishermen mended nets by the stove while the wind worked at the shutters.

Nobody in the village remembered a winter like it. The old men said so, and the young ones
believed them, because the ice reached the lighthouse by Christmas.

Far inland, the railway company counted its losses. Coal trains stood in the yards for days; the
engines could not be kept warm, and the drivers refused the night runs.
"""


def open_and_wait(win, qtbot, paths, **options):
    with qtbot.waitSignal(win.corpusLoaded, timeout=300000):
        assert win.open_corpus(paths, **options)
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


@pytest.mark.slow
def test_several_files_open_together_and_enter_the_recent_list(window, qtbot):
    files = [CHOI, CHOI2]
    open_and_wait(window, qtbot, [str(f) for f in files])
    assert window.state.n_sentences == sum(read_corpus(f).n_sentences for f in files)
    assert window.state.corpus_paths == tuple(str(f) for f in files)
    assert set(window.recent_files()[:2]) == {str(CHOI), str(CHOI2)}
    assert "2 files" in window.info_label.text() and "choi" in window.info_label.text()


@pytest.mark.slow
def test_a_format_choice_reaches_the_readers(window, qtbot, tmp_path):
    text = tmp_path / "story.txt"
    text.write_text(PROSE)
    open_and_wait(window, qtbot, str(text), format="lines")
    assert " as lines (as asked)" in window.state.corpus.readings_summary
    open_and_wait(window, qtbot, str(text), format="text")
    assert " as text (as asked)" in window.state.corpus.readings_summary and "as text" in window.info_label.toolTip()
    assert window.files.read_options == {"format": "text"}


@pytest.mark.slow
def test_a_book_opens_with_its_chapters_and_reopens_as_a_book(window, qtbot, tmp_path, app_settings):
    from segviz.app.file_actions import reading_options

    choices = [choice for choice, _ in window.files.format_choices()]
    assert choices.index("book") == choices.index("text") + 1   # offered right after plain prose
    assert choices.count("text") == 1
    book = tmp_path / "book.txt"
    chapters = [f"CHAPTER {n}\n\n" + PROSE for n in ("I", "II", "III")]
    book.write_text("A Book\n\nby Somebody\n\n\n" + "\n\n\n".join(chapters))
    # opened with nothing chosen (as the Open dialog's "Any corpus", a drop, `segviz gui book.txt`), a text that
    # looks like a book is read as one, and the status bar says it was detected
    open_and_wait(window, qtbot, str(book), **reading_options("auto"))
    state = window.state
    assert state.has_reference and len(state.reference_boundaries) == 2
    assert "book.txt as a book (detected)" in window.info_label.text()
    assert "3 heading(s) taken" in window.info_label.toolTip()
    assert window.files.read_options == {} and window.files.recent_options()[str(book)] == {}
    assert "looks like a book" not in window.decision.reference_label.text()
    open_and_wait(window, qtbot, str(book), **reading_options("book"))
    assert window.state.has_reference and len(window.state.reference_boundaries) == 2
    assert "book.txt as a book (as asked)" in window.info_label.text()
    assert window.files.read_options == {"format": "text", "headings": True}
    assert window.files.recent_options()[str(book)] == {"format": "text", "headings": True}
    # read as plain prose, as chosen, it has no reference, and the panel says how to have one; reopened from the
    # Recent list it is plain prose again, or a book again
    open_and_wait(window, qtbot, str(book), **reading_options("text"))
    assert not window.state.has_reference
    assert "book.txt as text (as asked)" in window.info_label.text()
    assert "looks like a book with 3 chapter headings" in window.decision.reference_label.text()
    assert window.files.recent_options()[str(book)] == {"format": "text", "headings": False}
    for options, labelled in ((reading_options("text"), False), (reading_options("book"), True)):
        window.files.add_recent(str(book), options)
        action = next(a for a in window.files.recent_menu.actions() if a.text() == str(book))
        with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
            action.trigger()
        qtbot.waitUntil(lambda: not window.busy, timeout=300000)
        assert window.state.has_reference is labelled and window.files.read_options == options
    assert len(window.state.reference_boundaries) == 2
    # a damaged setting reopens with no options, not with a crash or with anything it says
    app_settings.setValue("files/recent_options", "{not json")
    assert window.files.recent_options() == {}
    app_settings.setValue("files/recent_options", '{"x": {"format": "../../etc", "headings": "yes"}}')
    assert window.files.recent_options() == {"x": {}}


@pytest.mark.slow
def test_unlabelled_text_shows_the_curve_but_no_reference_or_metrics(window, qtbot, tmp_path):
    """Prose without a reference: the bundled model segments it; no reference row, no metric, and why."""
    text = tmp_path / "story.txt"
    text.write_text(PROSE)
    with qtbot.waitSignal(window.modelApplied, timeout=300000):
        open_and_wait(window, qtbot, str(text), format="text")
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    state = window.state
    assert not state.has_reference and len(state.reference_boundaries) == 0
    assert state.probabilities is not None and state.segmenter is not None   # the bundled model's curve
    assert "no reference segmentation" in window.decision.reference_label.text()
    # its vocabulary coverage, where the model has language models to measure it (the default model has none)
    assert ("model covers" in window.decision.reference_label.text()) == (state.segmenter.lms_ is not None)
    assert state.metrics == {} and window.decision.table.rowCount() == 0
    assert not window.features.train_button.isEnabled()                      # nothing to learn from
    assert not window.tune_oracle_action.isEnabled()
    legend = [label.text for _, label in window.block_view.plot.legend.items]
    assert "reference" not in legend
    probs = np.linspace(0.05, 0.95, state.n_sentences - 1)
    state.set_probabilities(probs)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    np.testing.assert_array_equal(hyp_tick_positions(window), decode(probs, state.alpha, state.epsilon))
    assert MODEL_ROW not in state.metrics and window.decision.table.rowCount() == 0
    x, _ = window.block_view.ref_ticks.getData()
    assert x is None or len(x) == 0


@pytest.mark.slow
def test_a_recent_file_that_is_gone_leaves_the_list(window, qtbot, tmp_path):
    gone = tmp_path / "gone.ref"
    gone.write_text(CHOI.read_text())
    open_and_wait(window, qtbot, str(gone))
    open_and_wait(window, qtbot, str(CHOI))
    assert str(gone) in window.recent_files()
    gone.unlink()
    window.files.rebuild_recent_menu()
    assert str(gone) not in window.recent_files()
    assert [a.text() for a in window.files.recent_menu.actions()] == [str(CHOI)]


# -- the smaller things ---------------------------------------------------------------------------------------

def test_page_keys_stay_in_the_focused_slider(window, qtbot):
    from PySide6.QtGui import QKeySequence

    load_with_probs(window, qtbot)
    window.block_size_spin.setValue(50)
    slider = window.decision.alpha_slider
    slider.setFocus()
    window.state.set_alpha(0.5)
    block = window.block_view.block
    qtbot.keyClick(slider, Qt.Key_PageUp)
    qtbot.keyClick(slider, Qt.Key_Right)
    qtbot.waitUntil(lambda: window.state.alpha == pytest.approx(0.61), timeout=300000)
    assert window.block_view.block == block          # PgUp paged α (by 0.1), not the blocks; the arrow 0.01
    window.block_view.setFocus()
    window.next_action.trigger()
    assert window.block_view.block == block + 1
    assert window.next_action.shortcut() == QKeySequence("PgDown")


def test_the_document_box_follows_navigation(window, qtbot):
    load_with_probs(window, qtbot)
    window.block_size_spin.setValue(50)   # the smallest step of the box; 60 sentences: two blocks
    window.doc_spin.setFocus()            # focused but not being typed in: it follows
    window.next_action.trigger()
    start = window.block_view.block_range()[0]
    assert start == 50 and window.doc_spin.value() == window.state.document_of(start) + 1
    assert window.sentence_spin.value() == 50          # the sentence box follows too: the block's first
    window.prev_action.trigger()
    assert window.doc_spin.value() == 1 and window.sentence_spin.value() == 0
    window.sentence_spin.setValue(57)                   # a sentence typed in: its block is shown, the box keeps it
    assert window.block_view.block == 1 and window.sentence_spin.value() == 57
    window.next_action.trigger()                        # (the last block: nothing moves)
    assert window.sentence_spin.value() == 57


def test_counts_speak_english():
    from segviz.app.feature_panel import round_tick_step
    from segviz.app.panels import plural

    assert plural(1, "sentence") == "1 sentence" and plural(2, "sentence") == "2 sentences"
    assert plural(70539, "sentence") == "70,539 sentences"
    assert [round_tick_step(n) for n in (1, 3, 6, 7, 12, 40, 100)] == [1, 1, 1, 2, 2, 10, 20]


def test_the_alpha_label_is_not_under_the_legend(window, qtbot):
    load_with_probs(window, qtbot)
    for alpha in (0.65, 0.8, 0.95):
        window.state.set_alpha(alpha)
        QApplication.processEvents()   # whatever the move posted is handled: no waiting for a clock
        label = window.block_view.alpha_line.label.sceneBoundingRect()
        legend = window.block_view.plot.legend.sceneBoundingRect()
        assert not label.intersects(legend), alpha


def test_the_legend_is_outside_the_data(window, qtbot):
    """The legend sits above the plot's view: it never covers the curve's peaks (at 1, top right)."""
    load_with_probs(window, qtbot)
    view = window.block_view.plot.vb.sceneBoundingRect()
    legend = window.block_view.plot.legend.sceneBoundingRect()
    assert legend.height() > 0 and not legend.intersects(view)
    names = [label.text for _, label in window.block_view.plot.legend.items]
    assert {"P(boundary)", "reference", "hypothesis"} <= set(names)


def test_separation_counts_in_english(window, qtbot):
    spin = window.decision.epsilon_spin
    spin.setValue(1)
    assert spin.text() == "1 sentence"
    spin.setValue(2)
    assert spin.text() == "2 sentences"


def test_step_says_what_it_does_or_why_it_cannot(window, qtbot, tmp_path):
    """Step starts a paused training on a labelled corpus; on unlabelled text it is off, and says why."""
    load_with_probs(window, qtbot)
    step = window.features.step_button
    assert step.isEnabled() and "Start training" in step.toolTip()
    text = tmp_path / "story.txt"
    text.write_text(PROSE)
    open_and_wait(window, qtbot, str(text), format="text")
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert not step.isEnabled() and "reference boundaries" in step.toolTip()
    assert "reference boundaries" in window.features.train_button.toolTip()


def test_feature_table_columns_hold_their_widest_numbers(window):
    """Each fixed column is as wide as the widest text it can show (a 3-digit round, e^λ at its cap, a small
    gain), measured in the table's font: nothing is cut to "105…"."""
    from types import SimpleNamespace

    from segviz.app.feature_panel import COLUMNS, FeatureTableModel

    panel = window.features
    texts = {0: [], 3: [], 4: []}
    for number, factor, capped, gain in ((105, 1.2345e4, True, -1.234567e-5), (500, 9.87e-88, True, 123456.7),
                                         (99, 0.0123, False, 1052.349)):
        # the table's own formatting of one round, on a stand-in for the session
        rows = SimpleNamespace(session=SimpleNamespace(state=SimpleNamespace(
                                   rounds=[SimpleNamespace(round=number, gain=gain, feature=None)])),
                               current_factor=lambda row, f=factor: f, is_capped=lambda row, c=capped: c)
        for column in texts:
            texts[column].append(FeatureTableModel._display(rows, 0, column))
    metrics = panel.table.fontMetrics()
    header = panel.table.horizontalHeader()
    for column, shown in texts.items():
        widest = max(metrics.horizontalAdvance(t) for t in shown + [COLUMNS[column]])
        assert header.sectionSize(column) >= widest + 8, (column, shown)


def test_export_names_take_the_chosen_filters_suffix():
    from segviz.app.file_actions import HYPOTHESIS_FILTERS, PLOT_FILTERS, with_suffix_of_filter

    csv_filter = next(f for f, s in HYPOTHESIS_FILTERS.items() if s == ".csv")
    svg_filter = next(f for f, s in PLOT_FILTERS.items() if s == ".svg")
    assert with_suffix_of_filter("/tmp/hyp", csv_filter, HYPOTHESIS_FILTERS) == "/tmp/hyp.csv"
    assert with_suffix_of_filter("/tmp/plot", svg_filter, PLOT_FILTERS) == "/tmp/plot.svg"
    assert with_suffix_of_filter("/tmp/plot.png", svg_filter, PLOT_FILTERS) == "/tmp/plot.png"


def test_exports_into_a_missing_directory_are_refused(window, qtbot, tmp_path):
    load_with_probs(window, qtbot)
    missing = tmp_path / "no" / "such" / "dir"
    assert not window.export_hypothesis(str(missing / "hyp.csv"))
    assert not window.export_plot(str(missing / "plot.png"))
    assert len(window.dialogs) == 2 and all("does not exist" in m for _, m in window.dialogs)
    assert not (tmp_path / "no").exists()


def test_extensionless_svg_from_the_dialog_is_written(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from segviz.app.file_actions import PLOT_FILTERS

    load_with_probs(window, qtbot)
    svg_filter = next(f for f, s in PLOT_FILTERS.items() if s == ".svg")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "plot"),
                                                                                       svg_filter)))
    with qtbot.waitSignal(window.exported, timeout=300000):
        window.files.export_plot_dialog()
    assert (tmp_path / "plot.svg").read_text().lstrip().startswith("<?xml") and not window.dialogs


@pytest.mark.slow
def test_a_labelled_corpus_without_a_model_is_segmented_by_the_bundled_model(window, qtbot):
    """No model open: the bundled default model segments the corpus, scored beside its reference and the
    baselines; the probabilities are the engine's own for that model."""
    from segviz.models import load_model
    from segviz.paths import default_model

    with qtbot.waitSignal(window.modelApplied, timeout=300000):
        with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
            assert window.open_corpus(str(CHOI))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    state = window.state
    assert state.has_reference and state.model_path == str(default_model())
    expected = load_model(default_model()).boundary_probabilities(read_corpus(CHOI))
    np.testing.assert_allclose(state.probabilities, expected, rtol=0, atol=1e-12)
    # spliced Brown excerpts: the router's short-excerpt expert segments them, and the window says so
    assert state.route.expert == "excerpts" and state.segmenter is state.opened_model.experts_["excerpts"]
    assert MODEL_ROW in state.metrics and 0.0 <= state.metrics[MODEL_ROW]["p_k"] <= 1.0
    # the status bar says what segments the corpus now, not what was about to
    status = window.info_label.text()
    assert "applying" not in status and "segmented by the bundled default model" in status
    assert "'excerpts' expert" in status and status.startswith("read 3-11_0.ref")


def test_the_decision_panel_shows_and_moves_the_rule_in_use(window, qtbot):
    """A router whose experts decide by different rules: the panel shows the shown expert's rule (α, ε for the
    threshold rule; the length prior's settings for that one), each change decides again, and the metrics follow."""
    from segviz import LengthPriorRule, Segmenter, ThresholdRule
    from segviz.routing import ExpertRouter
    from segviz.service.plan import PlanUnit

    probs = load_with_probs(window, qtbot)
    state = window.state
    short = Segmenter.from_weights([], [], prior=0.3, mu=0.2, rule=ThresholdRule(alpha=0.3, epsilon=2))
    long = Segmenter.from_weights([], [], prior=0.05, mu=0.05, rule=LengthPriorRule(shape=2.0, bias=0.0))
    router = ExpertRouter(experts=[("short", short), ("long", long)], gauges=["short"])
    router.thresholds_, router.tuning_, router.info_ = [5.0], {}, {}
    n = state.n_sentences
    half = n // 2
    state.set_model(router, shown="long")
    state.set_probabilities(probs, units=(PlanUnit(0, half, "short"), PlanUnit(half, n, "long")))
    panel = window.decision
    assert panel.alpha_spin is None and set(panel.setting_spins) == {"mean_length", "shape", "bias"}
    assert panel.controls.isVisibleTo(window)
    assert "length-prior rule" in panel.rule_label.text() and not window.block_view.alpha_line.isVisible()

    def expected():
        out = [half]
        out += (state.rules["short"].decide(probs[:half - 1])).tolist()
        out += (state.rules["long"].decide(probs[half:n - 1]) + half).tolist()
        return sorted(out)

    with qtbot.waitSignal(window.session.hypothesisChanged, timeout=300000):
        panel.setting_spins["bias"].setValue(3.0)
    assert state.rules["long"].bias == 3.0 and state.hypothesis_boundaries.tolist() == expected()
    assert state.metrics[MODEL_ROW] == score_row(state.reference_masses, state.hypothesis_masses)
    # the other expert's rule: the threshold controls, which move only its own document
    before_long = state.hypothesis_boundaries[state.hypothesis_boundaries > half].tolist()
    panel.expert_combo.setCurrentIndex(0)
    panel.expert_combo.activated.emit(0)
    assert state.shown_expert == "short" and set(panel.setting_spins) == {"alpha", "epsilon"}
    assert panel.controls.isVisibleTo(window) and panel.alpha_slider.isVisibleTo(window)
    panel.alpha_spin.setValue(0.05)   # applied on the next event-loop pass (a drag coalesces)
    qtbot.waitUntil(lambda: state.rules["short"].alpha == pytest.approx(0.05), timeout=300000)
    assert state.hypothesis_boundaries.tolist() == expected()
    assert state.hypothesis_boundaries[state.hypothesis_boundaries > half].tolist() == before_long
