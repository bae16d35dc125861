"""pytest-qt fixtures for the app tests (usable as a plugin: ``pytest_plugins = ["tests.app_fixtures"]``).

* ``no_leaked_workers`` fails any test that leaves a :class:`GeneratorWorker` thread running with work not done
  (after stopping it, so one leak does not cascade into the next tests); a thread that only has to exit after its
  last signal is waited for.
* ``app_settings`` is a QSettings ini file in the test's temp dir, so tests never read or write the user's (the
  peer segmenters start switched off).
* ``window`` is a shown MainWindow with ``QMessageBox.critical`` patched; ``window.dialogs`` lists the
  (title, message) pairs that would have been shown.
"""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _running_workers():
    from segviz.app.worker import GeneratorWorker

    running = []
    for worker in list(GeneratorWorker.instances):
        try:
            if worker.isRunning():
                running.append(worker)
        except RuntimeError:  # the C++ object is already deleted: it finished
            pass
    return running


@pytest.fixture
def no_leaked_workers(qtbot):
    yield
    # a worker that delivered its last signal only has its thread left to exit (the test may have acted on that
    # signal first): let it, and count only the ones with work still going as leaked
    qtbot.waitUntil(lambda: not [w for w in _running_workers() if w.ended], timeout=30000)
    leaked = [w for w in _running_workers() if not w.ended]
    names = [worker.objectName() for worker in leaked]
    for worker in leaked:
        worker.abort()
        worker.resume()
    if leaked:
        # never thread.wait() on the GUI thread: let the event loop run until they are done
        qtbot.waitUntil(lambda: not _running_workers(), timeout=30000)
        pytest.fail(f"test left {len(leaked)} worker thread(s) running: " + ", ".join(names))


@pytest.fixture
def app_settings(tmp_path):
    """A fresh settings file; the peer segmenters start switched off (each run starts a child process), tests of
    the peers switch them on."""
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "segviz-test.ini"), QSettings.IniFormat)
    settings.setValue("peers/shown", "")
    return settings


@pytest.fixture
def window(qtbot, app_settings, monkeypatch, no_leaked_workers):
    from PySide6.QtWidgets import QMessageBox

    from segviz.app.gui_gc import collect_on_gui_thread
    from segviz.app.main_window import MainWindow

    dialogs: list[tuple[str, str]] = []

    def fake_critical(parent, title, message, *args, **kwargs):
        dialogs.append((title, message))
        return QMessageBox.Ok

    monkeypatch.setattr(QMessageBox, "critical", staticmethod(fake_critical))
    collect_on_gui_thread()   # as the app does: no collection inside a Qt call (it can deadlock in PySide6)
    win = MainWindow(settings=app_settings)
    win.dialogs = dialogs
    qtbot.addWidget(win)
    win.show()
    yield win
    # no cleanup of workers here on purpose: a test that leaves one running must fail (no_leaked_workers)


def shown_corpus(window):
    """The corpus the window shows, parsed here as its engine parsed it (the window holds only its outline): what
    tests compare the engine's numbers with."""
    from segviz.events import run_to_end
    from segviz.service.tasks import read_corpus_task

    return run_to_end(read_corpus_task(list(window.state.corpus_paths), **window.files.read_options))
