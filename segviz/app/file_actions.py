"""The main window's file actions: open a corpus (dialog, recent files, drag and drop), open/save a model, export.

:class:`FileActions` is composed by :class:`~segviz.app.main_window.MainWindow` (``window.files``); the window's
public ``open_corpus``, ``open_model``, ``save_model``, ``export_plot``, ``export_hypothesis`` and
``recent_files`` delegate here.  As everywhere in the app, bad input ends in ``window.show_error`` and never
replaces what is loaded.  The hypothesis export writes the boundaries the decision rule (threshold α, minimum
separation ε) draws from the model's probabilities, in Choi's (2000) format or as CSV.
"""
from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
from PySide6.QtWidgets import QFileDialog

from ..errors import SegvizError
from ..paths import bundled
from . import engine

MAX_RECENT = 8
ROOT = Path(__file__).resolve().parents[2]
# the bundled sample and demo model: source tree or share/segviz
SAMPLE_CORPUS = bundled("sample_corpora", "reuters_sample.sgm")
SAMPLE_MODEL = bundled("resources", "sample_model.json")
CORPUS_FILTER = "Corpora (*.ref *.txt *.sgm *.ref.txt);;All files (*)"


def as_list(value) -> list[str]:
    """A QSettings list value (None, one string, or a list) as a list of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value]


class FileActions:
    """Corpus, model and export files for ``window`` (a :class:`~segviz.app.main_window.MainWindow`)."""

    def __init__(self, window):
        self.window = window
        self.recent_menu = None   # the File menu's "Open recent" submenu, set when the window builds its menus

    # -- corpus -----------------------------------------------------------------------------------------------
    def open_corpus(self, path: str | os.PathLike) -> bool:
        """Load a corpus; on failure show a dialog and keep the current one."""
        win = self.window
        path = str(path)
        try:
            corpus = engine.read_corpus(path)
        except SegvizError as exc:
            win.show_error("Cannot open corpus", str(exc))
            return False
        except Exception as exc:  # e.g. a decoder error deep inside a reader: still a bad file, not a crash
            win.show_error("Cannot open corpus", f"{path}: {exc.__class__.__name__}: {exc}")
            return False
        win.training.cancel_training()
        win.state.reset_rounds()
        win.heldout_start = None
        win.state.set_corpus(corpus, path)
        win.corpusLoaded.emit(path)
        self.add_recent(path)
        if win.state.segmenter is not None:
            win.apply_model(win.state.segmenter, win.state.model_path)
        win.compute_peers()
        return True

    def open_corpus_dialog(self) -> None:
        settings = self.window.settings
        start = settings.value("files/last_dir", str(ROOT / "sample_corpora"))
        path, _ = QFileDialog.getOpenFileName(self.window, "Open corpus", str(start), CORPUS_FILTER)
        if path:
            settings.setValue("files/last_dir", str(Path(path).parent))
            self.open_corpus(path)

    def add_recent(self, path: str) -> None:
        settings = self.window.settings
        recent = [p for p in as_list(settings.value("files/recent", [])) if p != path]
        recent.insert(0, path)
        settings.setValue("files/recent", recent[:MAX_RECENT])
        self.rebuild_recent_menu()

    def recent_files(self) -> list[str]:
        return as_list(self.window.settings.value("files/recent", []))

    def rebuild_recent_menu(self) -> None:
        if self.recent_menu is None:
            return
        self.recent_menu.clear()
        for path in self.recent_files():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_corpus(p))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def drag_enter(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def drop(self, event) -> None:
        """A dropped ``.json`` file is opened as a model, anything else as a corpus."""
        urls = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not urls:
            return
        event.acceptProposedAction()
        if urls[0].endswith(".json"):
            self.open_model(urls[0])
        else:
            self.open_corpus(urls[0])

    # -- model ------------------------------------------------------------------------------------------------
    def open_model(self, path: str | os.PathLike) -> bool:
        """Load a segmenter and apply it to the corpus; errors leave the current model in place."""
        win = self.window
        path = str(path)
        try:
            segmenter = engine.load_model(path)
        except SegvizError as exc:
            win.show_error("Cannot open model", str(exc))
            return False
        except Exception as exc:
            win.show_error("Cannot open model", f"{path}: {exc.__class__.__name__}: {exc}")
            return False
        win.apply_model(segmenter, path)
        return True

    def open_model_dialog(self) -> None:
        settings = self.window.settings
        start = settings.value("files/last_model_dir", str(ROOT / "resources"))
        path, _ = QFileDialog.getOpenFileName(self.window, "Open model", str(start), "segviz models (*.json)")
        if path:
            settings.setValue("files/last_model_dir", str(Path(path).parent))
            self.open_model(path)

    def save_model(self, path: str | os.PathLike) -> bool:
        win = self.window
        seg = win.state.segmenter
        if seg is None:
            win.show_error("Cannot save model", "there is no model to save; train or open one first")
            return False
        try:
            seg.save(path)
        except (SegvizError, OSError) as exc:
            win.show_error("Cannot save model", str(exc))
            return False
        win.state.model_path = str(path)
        return True

    def save_model_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Save model", "model.json", "segviz models (*.json)")
        if path:
            self.save_model(path)

    # -- export -----------------------------------------------------------------------------------------------
    def export_plot(self, path: str | os.PathLike) -> bool:
        """The block view's plots as PNG (or SVG when the suffix says so)."""
        path = str(path)
        try:
            graphics = self.window.block_view.graphics
            if path.lower().endswith(".svg"):
                from pyqtgraph.exporters import SVGExporter
                SVGExporter(graphics.scene()).export(path)
            else:
                pixmap = graphics.grab()
                if not pixmap.save(path):
                    raise OSError(f"cannot write {path}")
        except Exception as exc:
            self.window.show_error("Cannot export plot", f"{path}: {exc}")
            return False
        return True

    def export_plot_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Export plot", "segviz-block.png",
                                              "PNG (*.png);;SVG (*.svg)")
        if path:
            self.export_plot(path)

    def hypothesis_masses(self) -> tuple[int, ...]:
        """The model's hypothesis, or the reference when there is no model yet."""
        state = self.window.state
        return state.hypothesis_masses or state.reference_masses

    def export_hypothesis(self, path: str | os.PathLike) -> bool:
        """Choi format (``==========`` between segments) or, for ``.csv``, one row per position."""
        from ..corpus import write_choi
        from ..persist import atomic_write_text

        path = str(path)
        state = self.window.state
        if state.corpus is None:
            self.window.show_error("Cannot export", "no corpus loaded")
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
            self.window.show_error("Cannot export", f"{path}: {exc}")
            return False
        return True

    def export_hypothesis_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Export hypothesis", "hypothesis.ref",
                                              "Choi format (*.ref);;CSV (*.csv)")
        if path:
            self.export_hypothesis(path)
