"""Where the bundled files live: the source tree (editable installs, CI) or ``<prefix>/share/segviz`` (wheels).

``resources/`` (the small demo model) and ``sample_corpora/`` sit at the project's top level, beside the package;
a wheel installs them as data files under ``sys.prefix/share/segviz`` (see ``pyproject.toml``).
"""
from __future__ import annotations

import sys
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[1]
INSTALLED_ROOT = Path(sys.prefix) / "share" / "segviz"


def bundled(*parts: str) -> Path:
    """Path of a bundled file, preferring the source tree; the source-tree path if neither exists."""
    for root in (SOURCE_ROOT, INSTALLED_ROOT):
        candidate = root.joinpath(*parts)
        if candidate.exists():
            return candidate
    return SOURCE_ROOT.joinpath(*parts)
