"""Qt stays inside the app: no module outside ``segviz.app`` imports PySide6 or pyqtgraph, found by walking the package.

Each module is imported in a fresh interpreter in which a meta-path finder refuses Qt, so an import of Qt at
module level -- or at function level during import -- fails loudly instead of silently loading it.  The app's own
Qt-free modules (its state, its background steps, the training job and its child) are held to the same rule: the
engine child must start without Qt.
"""
from __future__ import annotations

import pkgutil
import subprocess
import sys

import segviz

QT_FREE_APP_MODULES = ("segviz.app.state", "segviz.app.tasks", "segviz.app.training_job", "segviz.app.engine_child",
                       "segviz.app.child_process", "segviz.app.peers_job", "segviz.app.apply_job")

BLOCKER = """
import importlib, importlib.abc, sys
class NoQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6", "PyQt5", "PyQt6", "PySide2", "superqt"):
            raise ImportError(f"Qt imported: {name}")
        return None
sys.meta_path.insert(0, NoQt())
failed = []
for name in MODULES:
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{name}: {exc.__class__.__name__}: {exc}")
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


def modules_outside_the_app() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(segviz.__path__, prefix="segviz."):
        if info.name == "segviz.app" or info.name.startswith("segviz.app.") or info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return sorted(names)


def import_without_qt(modules) -> subprocess.CompletedProcess:
    code = f"MODULES = {list(modules)!r}\n" + BLOCKER
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_the_walk_finds_every_layer():
    modules = modules_outside_the_app()
    for expected in ("segviz.segmenter", "segviz.corpus", "segviz.decode", "segviz.metrics", "segviz.cli",
                     "segviz.commands.gui", "segviz.lm.models", "segviz.peers.c99"):
        assert expected in modules
    assert len(modules) > 30


def test_no_module_outside_the_app_imports_qt():
    proc = import_without_qt(modules_outside_the_app())
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_apps_engine_side_imports_no_qt():
    proc = import_without_qt(QT_FREE_APP_MODULES)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_blocker_catches_qt():
    """The check can fail: a module that imports Qt is reported."""
    proc = import_without_qt(["segviz.app.block_view"])
    assert proc.returncode == 1 and "Qt imported" in proc.stdout
