"""Every file the app writes goes through the CLI's one atomic, non-clobbering writer (`segviz.persist`).

`segviz gui --screenshot/--benchmark/--export-segments` refuses a symbolic link, a read-only file, a FIFO or a
directory at the output path before Qt starts (one line, exit status 2, the node and a link's target untouched);
the screenshot itself is written by `atomic_write_bytes`, so a link or a read-only file that appears while the
window loads is refused too; the window's exports and model saves refuse them with a dialog.  Every crafted file
is made here.
"""
from __future__ import annotations

import os
import stat

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from segviz.cli import main  # noqa: E402
from segviz.errors import SegvizError  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401
from tests.conftest import SAMPLE  # noqa: E402

CHOI = SAMPLE / "choi" / "3-11_0.ref"
PRECIOUS = b"the user's own file\n"


def occupied(tmp_path, kind: str, name: str):
    """``tmp_path/name`` occupied by ``kind``; returns (path, what must stay as it is)."""
    path = tmp_path / name
    if kind == "symlink":
        target = tmp_path / "target.bin"
        target.write_bytes(PRECIOUS)
        path.symlink_to(target)
        return path, target
    if kind == "read-only":
        path.write_bytes(PRECIOUS)
        path.chmod(0o444)
        return path, path
    if kind == "fifo":
        os.mkfifo(path)
        return path, None
    if kind == "directory":
        path.mkdir()
        return path, None
    raise AssertionError(kind)


def untouched(path, keep) -> bool:
    if keep is None:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    return keep.read_bytes() == PRECIOUS


@pytest.mark.parametrize("kind", ["symlink", "read-only", "fifo", "directory"])
@pytest.mark.parametrize("option,suffix", [("--screenshot", ".png"), ("--benchmark", ".json"),
                                           ("--export-segments", ".jsonl")])
def test_gui_refuses_an_output_it_must_not_write_before_qt_starts(tmp_path, capsys, kind, option, suffix):
    path, keep = occupied(tmp_path, kind, "out" + suffix)
    assert main(["gui", str(CHOI), option, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("segviz: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert untouched(path, keep)
    if kind == "symlink":
        assert path.is_symlink()


@pytest.mark.parametrize("how", ["same", "hard link", "in a folder read", "the model"])
def test_gui_refuses_an_output_that_is_one_of_its_inputs(tmp_path, capsys, how):
    corpus = tmp_path / "in.jsonl"
    corpus.write_bytes(CHOI.read_bytes())
    args = ["gui", str(corpus)]
    out = corpus
    if how == "hard link":
        out = tmp_path / "other.jsonl"
        os.link(corpus, out)
    elif how == "in a folder read":
        args = ["gui", str(tmp_path)]
    elif how == "the model":
        out = tmp_path / "model.segviz"
        out.write_bytes(PRECIOUS)
        args += ["--model", str(out)]
    before = out.read_bytes()
    assert main(args + ["--export-segments", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("segviz: error: ") and "is also an input" in err and err.count("\n") == 1
    assert out.read_bytes() == before


def test_a_missing_directory_is_named_without_offering_an_option_gui_lacks(tmp_path, capsys):
    assert main(["gui", "--screenshot", str(tmp_path / "no" / "shot.png")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "--parents" not in err
    assert not (tmp_path / "no").exists()


def test_the_screenshot_is_written_by_the_atomic_writer(qtbot, tmp_path):
    """A link or a read-only file that appears at the screenshot's path while the window loads (after the CLI's
    check) is refused at the write; a regular file is replaced whole and keeps its mode."""
    from PySide6.QtGui import QColor, QImage

    from segviz.app.file_actions import save_image

    image = QImage(40, 30, QImage.Format_RGB32)
    image.fill(QColor("steelblue"))
    for kind in ("symlink", "read-only", "fifo", "directory"):
        path, keep = occupied(tmp_path, kind, f"{kind}.png")
        with pytest.raises(SegvizError) as info:
            save_image(image, path)
        assert "\n" not in str(info.value)
        assert untouched(path, keep)
        if keep is not None and kind == "symlink":
            keep.unlink()
    out = tmp_path / "shot.png"
    out.write_bytes(PRECIOUS)
    out.chmod(0o640)
    save_image(image, out)
    assert out.read_bytes().startswith(b"\x89PNG") and stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []   # no temporary left


def load_with_probs(win, qtbot):
    win.default_model = None
    with qtbot.waitSignal(win.corpusLoaded, timeout=300000):
        assert win.open_corpus(str(CHOI))
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)
    win.state.set_probabilities(np.random.default_rng(0).random(win.state.n_sentences - 1) ** 3)
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


@pytest.mark.parametrize("kind", ["symlink", "read-only", "fifo"])
def test_the_window_refuses_to_export_through_a_link_or_over_a_read_only_file(window, qtbot, tmp_path, kind):
    load_with_probs(window, qtbot)
    for export, name in ((window.export_plot, "plot.png"), (window.export_plot, "plot.svg"),
                         (window.export_hypothesis, "hyp.ref"), (window.export_hypothesis, "hyp.csv")):
        path, keep = occupied(tmp_path, kind, name)
        before = len(window.dialogs)
        assert not export(str(path))
        assert len(window.dialogs) == before + 1
        assert untouched(path, keep)
    assert not window.busy   # refused before any work was started


def test_the_window_refuses_to_save_a_model_through_a_link(window, qtbot, tmp_path):
    from segviz import Segmenter

    load_with_probs(window, qtbot)
    model = Segmenter.load(SAMPLE.parent / "resources" / "sample_model.segviz")
    with qtbot.waitSignal(window.modelApplied, timeout=300000):
        window.apply_model(model, None)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    for kind in ("symlink", "read-only"):
        path, keep = occupied(tmp_path, kind, f"{kind}.segviz")
        before = len(window.dialogs)
        assert not window.save_model(str(path))
        assert len(window.dialogs) == before + 1 and untouched(path, keep)


def test_the_window_refuses_to_export_over_the_corpus_it_shows(window, qtbot, tmp_path):
    corpus = tmp_path / "shown.ref"
    corpus.write_bytes(CHOI.read_bytes())
    link = tmp_path / "hard.ref"
    os.link(corpus, link)
    window.default_model = None
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        assert window.open_corpus(str(corpus))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    before = corpus.read_bytes()
    for export, path in ((window.export_hypothesis, corpus), (window.export_hypothesis, link),
                         (window.export_plot, corpus)):
        dialogs = len(window.dialogs)
        assert not export(str(path))
        assert len(window.dialogs) == dialogs + 1 and "is also an input" in str(window.dialogs[-1])
    assert corpus.read_bytes() == before and not window.busy
