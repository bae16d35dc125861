"""Qt stays inside the app: no module outside ``segviz.app`` imports PySide6 or pyqtgraph, found by walking the package.

Each module is imported in a fresh interpreter in which a meta-path finder refuses Qt, so an import of Qt at
module level -- or at function level during import -- fails loudly instead of silently loading it.  The app's own
Qt-free modules (its state and its own background steps) are held to the same rule; the engine process's
(``segviz.service``) are outside the app and walked with the rest.
"""
from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import segviz

ROOT = Path(__file__).resolve().parents[1]

#: the window's plain-Python parts (the engine process's modules, segviz.service, are outside the app and walked)
QT_FREE_APP_MODULES = ("segviz.app.state", "segviz.app.window_tasks")

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
                     "segviz.commands.gui", "segviz.lm.models", "segviz.peers.c99", "segviz.service.engine_child",
                     "segviz.service.training_job"):
        assert expected in modules
    assert len(modules) > 30


@pytest.mark.slow
def test_no_module_outside_the_app_imports_qt():
    proc = import_without_qt(modules_outside_the_app())
    assert proc.returncode == 0, proc.stdout + proc.stderr


def imported_modules(path) -> set[str]:
    """Every module a source file imports, at any level of the file (relative imports resolved)."""
    package = "segviz." + ".".join(path.relative_to(ROOT / "segviz").with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_the_engine_process_never_imports_the_window():
    """segviz.service runs in the engine process: nothing of the window (segviz.app) may reach it."""
    files = sorted((ROOT / "segviz" / "service").glob("*.py"))
    assert len(files) > 10
    offending = {f.name: sorted(n for n in imported_modules(f) if n == "segviz.app" or n.startswith("segviz.app."))
                 for f in files}
    assert not {k: v for k, v in offending.items() if v}
    # the check can fail: the window's own modules do import the service
    assert any(n.startswith("segviz.service") for n in imported_modules(ROOT / "segviz" / "app" / "state.py"))


@pytest.mark.slow
def test_the_apps_engine_side_imports_no_qt():
    proc = import_without_qt(QT_FREE_APP_MODULES)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_blocker_catches_qt():
    """The check can fail: a module that imports Qt is reported."""
    proc = import_without_qt(["segviz.app.block_view"])
    assert proc.returncode == 1 and "Qt imported" in proc.stdout
