"""The main window's file actions: open corpora (dialog, recent files, drag and drop), open/save a model, export.

:class:`FileActions` is composed by :class:`~segviz.app.main_window.MainWindow` (``window.files``); the window's
public ``open_corpus``, ``open_model``, ``save_model``, ``export_plot``, ``export_hypothesis`` and
``recent_files`` delegate here.  Reading, loading, saving and writing exports run in the background (the
window's :class:`~segviz.app.background.BackgroundWork`); bad input of any kind ends in ``window.show_error`` and
never replaces what is loaded.  The hypothesis export writes the boundaries the decision rule (threshold α,
minimum separation ε) draws from the model's probabilities, in Choi's (2000) format or as CSV.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtWidgets import QFileDialog, QInputDialog

from ..corpus import write_choi
from ..errors import SegvizError
from ..events import Progress
from ..models import load_model
from ..paths import bundled
from ..persist import atomic_write_bytes, check_output_path
from ..readers import FORMATS
from ..readers.source import expand_paths, left_out_of_folders
from ..service.read_job import ReadJob
from .plot_svg import svg_document
from .state import prepare_corpus
from .window_tasks import hypothesis_csv, write_bytes_task, write_text_task

MAX_RECENT = 8
ROOT = Path(__file__).resolve().parents[2]
# the bundled sample and the default model (the small Reuters demo model when it is absent): source tree or
# share/segviz
SAMPLE_CORPUS = bundled("sample_corpora", "reuters_sample.sgm")
SAMPLE_MODEL = bundled("resources", "default_model.segviz")
#: a dropped file with this suffix opens as a model
MODEL_SUFFIX = ".segviz"
#: the Open dialog's filters: each names a reader format ("auto": detected from each file's content, a text that
#: looks like a book read as one), "text" (plain prose, a book's headings kept as text) or "book" (prose read with
#: its headings): :data:`READING_CHOICES`
FORMAT_CHOICES = (
    ("auto", "Any corpus, format detected from its content; a book read by its chapters (*)"),
    ("text", "Plain prose: paragraphs, hard-wrapped lines joined, a book's headings kept as text (*.txt *.md *)"),
    ("book", "A book: prose whose chapter headings are its reference, front matter left out (*.txt *.md *)"),
    ("lines", "One sentence per line, blank line between documents (*.txt *)"),
    ("choi", "Choi (2000): ========== between segments (*.ref *.txt *)"),
    ("reuters", "Reuters-21578 SGML (*.sgm)"),
    ("wiki", "Wiki-727K: ========,LEVEL,TITLE. opens a section (*)"),
    ("jsonl", "JSONL: one document per line (*.jsonl *)"),
)
#: the reader options of a choice that is more than a format: prose read with its headings or without them, whether
#: or not it looks like a book (any other choice leaves that to the reader: a book is read as one)
READING_CHOICES = {"text": {"format": "text", "headings": False}, "book": {"format": "text", "headings": True}}
#: export filters and the suffix each one writes when the name has none
PLOT_FILTERS = {"PNG image (*.png)": ".png", "SVG drawing (*.svg)": ".svg"}
HYPOTHESIS_FILTERS = {"Choi format (*.ref)": ".ref", "CSV, one row per position (*.csv)": ".csv"}


def reading_options(choice: str) -> dict:
    """The reader options of an Open dialog choice: a format, "auto" (none: detected) or one of
    :data:`READING_CHOICES`."""
    if choice in READING_CHOICES:
        return dict(READING_CHOICES[choice])
    return {} if choice == "auto" else {"format": choice}


def remembered_options(value) -> dict:
    """Reader options as stored beside a recent file, checked (settings are a file anyone can edit): only a known
    format and a yes/no for headings survive (none: the reader decides)."""
    if not isinstance(value, dict):
        return {}
    out = {}
    if value.get("format") in FORMATS:
        out["format"] = value["format"]
    if isinstance(value.get("headings"), bool):
        out["headings"] = value["headings"]
    return out


def open_corpus_task(job: ReadJob, *, seed: int = 0):
    """The corpus's outline from the engine (:class:`~segviz.service.read_job.ReadJob`), what the window derives
    from it (:func:`~segviz.app.state.prepare_corpus`: baselines and their metrics) and what the folders among its
    paths hold that was not read (:func:`segviz.readers.source.left_out_of_folders`: a listing, here rather than on
    the window's thread); None when closed first."""
    outline = yield from job.events()
    if outline is None:
        return None
    yield Progress("preparing the corpus", 0, 1)
    return outline, prepare_corpus(outline, seed=seed), left_out_of_folders(job.paths)


def as_list(value) -> list[str]:
    """A QSettings list value (None, one string, or a list) as a list of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value]


def with_suffix_of_filter(path: str, selected_filter: str, filters: dict[str, str]) -> str:
    """``path`` with the suffix of the chosen filter when it has none of the known ones."""
    known = set(filters.values())
    if Path(path).suffix.lower() in known:
        return path
    return path + filters.get(selected_filter, next(iter(filters.values())))


def check_output_directory(path: str, inputs: Sequence[str] = ()) -> None:
    """Refuse, before any work, what the writer would refuse at the end (:func:`segviz.persist.check_output_path`:
    a symbolic link, a read-only file, a directory or device at the path, or one of ``inputs``: the corpus files
    shown, also through a link or a folder); a missing directory is an error, never created silently."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if not os.path.lexists(parent):
        raise SegvizError(f"{path}: the directory {parent} does not exist")
    files: list[Path] = []
    for item in inputs:
        try:
            files.extend(expand_paths(item))
        except SegvizError:   # a corpus file gone since it was read cannot be written over
            continue
    check_output_path(target, inputs=files)


def png_bytes(image) -> bytes:
    """``image`` (a QImage) encoded as PNG, in memory: the file itself is written by the one atomic writer."""
    buffer = QBuffer()
    buffer.open(QIODevice.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise SegvizError("the image could not be encoded as PNG")
    return bytes(QByteArray(buffer.data()))


def save_image(image, path: str | os.PathLike) -> None:
    """Write ``image`` as a PNG file through :func:`segviz.persist.atomic_write_bytes`: never through a symbolic
    link, over a read-only file or into a device, and whole or not at all."""
    atomic_write_bytes(path, png_bytes(image))


class FileActions:
    """Corpus, model and export files for ``window`` (a :class:`~segviz.app.main_window.MainWindow`)."""

    def __init__(self, window):
        self.window = window
        self.recent_menu = None   # the File menu's "Open recent" submenu, set when the window builds its menus
        self.read_options: dict = {}   # the reader options of the shown corpus (the training child reuses them)

    # -- corpus -----------------------------------------------------------------------------------------------
    def open_corpus(self, paths: str | os.PathLike | Sequence[str | os.PathLike], **read_options) -> bool:
        """Read one or more files or folders in the background; on success they replace the shown corpus.

        Returns False (after a dialog) when a path does not exist; a file that cannot be read gives a dialog
        when the reading fails, and the shown corpus stays."""
        win = self.window
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        paths = [str(p) for p in paths]
        missing = [p for p in paths if not os.path.exists(p)]
        if not paths or missing:
            message = f"{missing[0]}: no such file or folder" if missing else "no corpus files given"
            if missing:
                self.forget_recent(missing)
            win.show_error("Cannot open corpus", message)
            win.corpusFailed.emit(message)
            return False
        label = paths[0] if len(paths) == 1 else f"{len(paths)} files"

        def done(result):
            if result is None:   # closed first
                return
            outline, prepared, left_out = result
            self.read_options = dict(read_options)
            win.install_corpus(outline, paths, label, prepared=prepared)
            win.say_left_out(left_out)
            for path in paths:
                self.add_recent(path, read_options)

        def failed(message):
            win.show_error("Cannot open corpus", message)
            win.corpusFailed.emit(message)

        # the engine reads (and keeps the corpus for every later job); the window receives what it draws
        job = ReadJob(paths, read_options=read_options, engine=win.engine)
        win.background.start("open", partial(open_corpus_task, job, seed=win.state.seed),
                             on_result=done, on_error=failed, on_abort=job.close)
        return True

    def format_choices(self) -> list[tuple[str, str]]:
        """(choice, label) for every reader format the engine has, "auto" first, and "a book" after prose."""
        known = dict(FORMAT_CHOICES)
        out = [("auto", known["auto"])]
        for f in FORMATS:
            out.append((f, known.get(f, f"{f} (*)")))
            out.extend((choice, known[choice]) for choice, options in READING_CHOICES.items()
                       if options["format"] == f and choice != f)
        return out

    def _options_for(self, choice: str) -> dict:
        self.window.settings.setValue("files/last_format", choice)
        return reading_options(choice)

    def open_corpus_dialog(self) -> None:
        """One or more files, read together, in the format chosen with the dialog's filter."""
        settings = self.window.settings
        start = settings.value("files/last_dir", str(ROOT / "sample_corpora"))
        choices = self.format_choices()
        last = settings.value("files/last_format", "auto")
        chosen = next((label for f, label in choices if f == last), choices[0][1])
        paths, label = QFileDialog.getOpenFileNames(self.window, "Open corpus (one or more files, read together)",
                                                    str(start), ";;".join(lab for _, lab in choices), chosen)
        if paths:
            settings.setValue("files/last_dir", str(Path(paths[0]).parent))
            format_name = next((f for f, lab in choices if lab == label), "auto")
            self.open_corpus(paths, **self._options_for(format_name))

    def open_folder_dialog(self) -> None:
        """Every file of a folder, in the format chosen (detected from each file's content by default)."""
        settings = self.window.settings
        start = settings.value("files/last_dir", str(ROOT / "sample_corpora"))
        folder = QFileDialog.getExistingDirectory(self.window, "Open a folder of corpus files", str(start))
        if not folder:
            return
        choices = self.format_choices()
        labels = [label for _, label in choices]
        last = settings.value("files/last_format", "auto")
        current = next((i for i, (f, _) in enumerate(choices) if f == last), 0)
        label, ok = QInputDialog.getItem(self.window, "Format", f"Read the files of {folder} as", labels, current,
                                         False)
        if ok:
            settings.setValue("files/last_dir", folder)
            format_name = choices[labels.index(label)][0]
            self.open_corpus([folder], **self._options_for(format_name))

    def add_recent(self, path: str, read_options: dict | None = None) -> None:
        """``path`` first in the Recent list, with the reader options it was opened with (a book reopens as a
        book)."""
        settings = self.window.settings
        recent = [p for p in as_list(settings.value("files/recent", [])) if p != path]
        recent.insert(0, path)
        recent = recent[:MAX_RECENT]
        settings.setValue("files/recent", recent)
        options = self.recent_options()
        options[path] = remembered_options(read_options or {})
        settings.setValue("files/recent_options", json.dumps({p: options.get(p, {}) for p in recent}))
        self.rebuild_recent_menu()

    def recent_options(self) -> dict[str, dict]:
        """The reader options each recent file was opened with (checked; a missing or damaged entry: none)."""
        try:
            stored = json.loads(self.window.settings.value("files/recent_options", "{}") or "{}")
        except (TypeError, ValueError):
            return {}
        if not isinstance(stored, dict):
            return {}
        return {str(p): remembered_options(o) for p, o in stored.items()}

    def forget_recent(self, paths) -> None:
        settings = self.window.settings
        gone = set(paths)
        settings.setValue("files/recent", [p for p in self.recent_files() if p not in gone])
        self.rebuild_recent_menu()

    def recent_files(self) -> list[str]:
        return as_list(self.window.settings.value("files/recent", []))

    def rebuild_recent_menu(self) -> None:
        """The Recent list, without entries that no longer exist."""
        if self.recent_menu is None:
            return
        existing = [p for p in self.recent_files() if os.path.exists(p)]
        if existing != self.recent_files():
            self.window.settings.setValue("files/recent", existing)
        self.recent_menu.clear()
        options = self.recent_options()
        for path in existing:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path, o=options.get(path, {}): self.open_corpus(p, **o))
        self.recent_menu.setEnabled(bool(existing))

    def drag_enter(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def drop(self, event) -> None:
        """Dropped ``.segviz`` files open as a model; every other dropped file or folder opens, together, as the
        corpus."""
        urls = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not urls:
            return
        event.acceptProposedAction()
        models = [u for u in urls if u.lower().endswith(MODEL_SUFFIX)]
        corpora = [u for u in urls if not u.lower().endswith(MODEL_SUFFIX)]
        if corpora:
            self.open_corpus(corpora)
        if models:
            self.open_model(models[-1])

    # -- model ------------------------------------------------------------------------------------------------
    def open_model(self, path: str | os.PathLike) -> bool:
        """Load a segmenter in the background and apply it; errors leave the current model in place."""
        win = self.window
        path = str(path)
        if not os.path.exists(path):
            win.show_error("Cannot open model", f"{path}: no such file")
            return False

        def load():
            yield Progress("loading the model", 0, 1)
            return load_model(path)

        def loaded(model):
            win.apply_model(model, path)

        win.background.start("load-model", load, on_result=loaded,
                             on_error=lambda msg: win.show_error("Cannot open model", msg))
        return True

    def open_model_dialog(self) -> None:
        settings = self.window.settings
        start = settings.value("files/last_model_dir", str(ROOT / "resources"))
        path, _ = QFileDialog.getOpenFileName(self.window, "Open model", str(start), "segviz models (*.segviz)")
        if path:
            settings.setValue("files/last_model_dir", str(Path(path).parent))
            self.open_model(path)

    def save_model(self, path: str | os.PathLike) -> bool:
        """Save what is open -- one segmenter, or a router with all its experts -- deciding with the rules shown
        now, as one file, in the background."""
        win = self.window
        seg = win.state.model_with_rules() if win.state.opened_model is not None else None
        if seg is None:
            win.show_error("Cannot save model", "there is no model to save; train or open one first")
            return False
        path = str(path)
        try:
            # the corpus shown is not to be replaced; the model's own file is (that is what saving it means)
            check_output_directory(path, win.state.corpus_paths)
        except SegvizError as exc:
            win.show_error("Cannot save model", str(exc))
            return False

        def save():
            yield Progress("saving the model", 0, 1)
            seg.save(path)
            return path

        def saved(_):
            win.state.model_path = path
            win.info_label.setText(f"model saved to {path}")
            win.saved.emit(path)

        win.background.start("save-model", save, on_result=saved,
                             on_error=lambda msg: win.show_error("Cannot save model", msg))
        return True

    def save_model_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Save model", "model.segviz", "segviz models (*.segviz)")
        if path:
            if not path.lower().endswith(".segviz"):
                path += ".segviz"
            self.save_model(path)

    # -- export -----------------------------------------------------------------------------------------------
    def _inputs(self) -> tuple[str, ...]:
        """What the window read: an export may replace none of it."""
        state = self.window.state
        return state.corpus_paths + ((state.model_path,) if state.model_path else ())

    def export_plot(self, path: str | os.PathLike) -> bool:
        """The block view's plots as PNG (or SVG when the suffix says so).

        The GUI thread takes only a picture of the view (PNG) or a snapshot of what it draws (SVG: the data in
        view, colours, ticks, legend); encoding the PNG or building the SVG document, and writing the file, happen
        in the background."""
        win = self.window
        path = str(path)
        try:
            check_output_directory(path, self._inputs())
            if path.lower().endswith(".svg"):
                encode = partial(svg_document, win.block_view.svg_snapshot())
            else:
                encode = partial(png_bytes, win.block_view.graphics.grab().toImage())
        except SegvizError as exc:
            win.show_error("Cannot export plot", str(exc))
            return False

        def work():
            yield Progress("exporting the plot", 0, 1)
            return (yield from write_bytes_task(path, encode(), what="exporting the plot"))

        self._export(work, path)
        return True

    def export_plot_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self.window, "Export plot", "segviz-block.png",
                                                   ";;".join(PLOT_FILTERS))
        if path:
            self.export_plot(with_suffix_of_filter(path, chosen, PLOT_FILTERS))

    def export_hypothesis(self, path: str | os.PathLike) -> bool:
        """Choi format (``==========`` between segments) or, for ``.csv``, one row per position."""
        win = self.window
        path = str(path)
        state = win.state
        if state.corpus is None:
            win.show_error("Cannot export", "no corpus loaded")
            return False
        try:
            check_output_directory(path, self._inputs())
        except SegvizError as exc:
            win.show_error("Cannot export", str(exc))
            return False
        n = state.n_sentences
        probabilities = state.probabilities
        hypothesis = state.hypothesis_boundaries if probabilities is not None else state.reference_boundaries
        reference = state.reference_boundaries if state.has_reference else None
        if path.lower().endswith(".csv"):
            def make():
                return hypothesis_csv(probabilities, hypothesis, reference, n)
        else:
            masses = state.hypothesis_masses or state.reference_masses
            texts = state.texts

            def make():
                return write_choi(masses, texts)
        self._export(lambda: write_text_task(path, make, what="exporting the hypothesis"), path)
        return True

    def export_hypothesis_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self.window, "Export hypothesis", "hypothesis.ref",
                                                   ";;".join(HYPOTHESIS_FILTERS))
        if path:
            self.export_hypothesis(with_suffix_of_filter(path, chosen, HYPOTHESIS_FILTERS))

    def _export(self, factory, path: str) -> None:
        win = self.window

        def written(_):
            win.info_label.setText(f"wrote {path}")
            win.exported.emit(path)

        def failed(message):
            win.show_error("Cannot export", message if path in message else f"{path}: {message}")

        win.background.start(f"export:{path}", factory, on_result=written, on_error=failed)
