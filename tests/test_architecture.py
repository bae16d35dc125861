"""The layering of docs/architecture.md holds: every module of segviz is in one layer, imports (at any depth of the
code, function-level ones included) only point to its own layer or earlier ones, there is no import cycle, and no
module imports another package's private names."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "segviz"

#: the layers in data-flow order, as docs/architecture.md lists them (a prefix covers a package's modules)
LAYERS = (
    ("foundations", ("segviz.errors", "segviz.events", "segviz.segmentation", "segviz.metrics", "segviz.persist",
                     "segviz.bundle", "segviz.paths", "segviz.params", "segviz.limits", "segviz.printable",
                     "segviz.forking", "segviz.numba_cache")),
    ("corpus", ("segviz.documents", "segviz.readers", "segviz.corpus", "segviz.inspection", "segviz.domain",
                "segviz.segmented", "segviz.writers")),
    ("language models", ("segviz.lm",)),
    ("relevance", ("segviz.relevance", "segviz.general_lm")),
    ("peers", ("segviz.peers",)),
    ("features", ("segviz.features", "segviz.tree_ensemble", "segviz.gap_scorer")),
    ("decision rules", ("segviz.decode", "segviz.length_prior", "segviz.tuning", "segviz.rules")),
    ("induction", ("segviz.induction_math", "segviz.induction")),
    ("baselines", ("segviz.baselines",)),
    ("the segmenter", ("segviz.model_protocol", "segviz.model_schema", "segviz.segmenter")),
    ("evaluation", ("segviz.evaluation",)),
    ("routing and models", ("segviz.routing", "segviz.models", "segviz.selection")),
    ("protocols", ("segviz.protocols", "segviz.results", "segviz.default_model", "segviz.general_lm_recipe")),
    ("distributed", ("segviz.distributed",)),
    ("faces", ("segviz.cli", "segviz.__main__", "segviz.commands", "segviz.service", "segviz.app")),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, name: str, known: set[str]) -> set[tuple[str, str]]:
    """(module, imported name) pairs of every import in the file, resolved to segviz modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        pairs = []
        if isinstance(node, ast.Import):
            pairs = [(a.name, "") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            pairs = [(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base, a.name) for a in node.names]
        for target, imported in pairs:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add((target, imported))
    return found


def _graph() -> dict[str, set[tuple[str, str]]]:
    files = _modules()
    known = set(files)
    return {m: _imports(p, m, known) for m, p in files.items()}


def layer_of(module: str) -> int | None:
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return None


def test_every_module_has_a_layer_and_imports_point_back():
    graph = _graph()
    unassigned = sorted(m for m in graph if m != "segviz" and layer_of(m) is None)
    assert not unassigned, f"modules in no layer of docs/architecture.md: {unassigned}"
    upward = []
    for module, targets in graph.items():
        if module == "segviz":   # the package's face imports lazily from every layer
            continue
        for target, _ in targets:
            if target != "segviz" and layer_of(target) > layer_of(module):
                upward.append(f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} "
                              f"({LAYERS[layer_of(target)][0]})")
    assert not upward, "\n".join(sorted(upward))


def test_no_import_cycle():
    graph = {m: {t for t, _ in ts if not t.startswith(m + ".")} for m, ts in _graph().items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, cycles


def test_no_module_imports_another_packages_private_names():
    offenders = []
    for module, targets in _graph().items():
        package = module.rpartition(".")[0] if not (PACKAGE / Path(*module.split(".")[1:]) / "__init__.py").exists() \
            else module
        for target, imported in targets:
            private = imported.startswith("_") or any(part.startswith("_") and part != "__init__"
                                                      for part in target.split(".")[1:])
            target_package = target.rpartition(".")[0] if imported else target
            if private and not imported.startswith("__") and not target.startswith(package) and \
                    not (target_package and module.startswith(target_package + ".")):
                offenders.append(f"{module} imports {imported or target} from {target}")
    assert not offenders, "\n".join(offenders)


def test_the_architecture_page_lists_every_layer_in_this_order():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    order = re.search(r"in data-flow order:\s*(.*?)\.\s", page, re.S).group(1)
    named = [part.strip() for part in re.split(r"→", order.replace("\n", " "))]
    assert named == [name for name, _ in LAYERS], named
    for _, prefixes in LAYERS:
        for prefix in prefixes:
            shown = prefix.replace("segviz.", "").replace(".", "/")
            assert f"`{shown}" in page or f"{shown}/" in page, f"{prefix} is not on docs/architecture.md"
