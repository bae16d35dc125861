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


# -------------------------------------------------------------------------------- the faces ask no class

#: the faces: they use a model through segviz.model_protocol.SegmentationModel and its accessors, and a rule through
#: its own declared settings (DecisionRule.controls), never by asking either's class
FACES = ("segviz/app", "segviz/service", "segviz/commands", "segviz/cli.py")


def model_and_rule_classes() -> set[str]:
    """The names of every model and decision-rule class, concrete or base (each subclass of SegmentationModel or
    DecisionRule the model layer defines, found by import, so a new one is covered without listing it)."""
    import importlib

    from segviz.model_protocol import SegmentationModel
    from segviz.rules import DecisionRule

    importlib.import_module("segviz.routing")   # defines the router, and imports the segmenter

    names: set[str] = set()
    todo = [SegmentationModel, DecisionRule]
    while todo:
        cls = todo.pop()
        if cls.__name__ not in names:
            names.add(cls.__name__)
            todo.extend(cls.__subclasses__())
    return names


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def class_tests(source: str, classes: set[str]) -> list[tuple[int, str]]:
    """``(line, what)`` for every place in ``source`` that tests a model's or rule's class: isinstance/issubclass
    against a model or rule class (a name of ``classes``, or an alias it was imported as), a comparison or a
    ``match`` case naming one, and any ``type(x)`` or ``x.__class__`` used otherwise than for its name in an
    f-string (a message).  Comparing classes -- ``type(a) is type(b)``, ``x.__class__ == C``, a dict keyed by
    ``type(x)`` -- is caught by the last."""
    tree = ast.parse(source)
    parents = _parents(tree)
    aliases = set(classes)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            aliases.update(a.asname for a in node.names if a.name in classes and a.asname)

    def names_a_class(node: ast.AST) -> bool:
        return any((isinstance(n, ast.Name) and n.id in aliases) or (isinstance(n, ast.Attribute) and n.attr in classes)
                   for n in ast.walk(node))

    def for_a_message(node: ast.AST) -> bool:
        parent = parents.get(node)
        if not (isinstance(parent, ast.Attribute) and parent.attr in ("__name__", "__qualname__")):
            return False
        while parent is not None and not isinstance(parent, (ast.JoinedStr, ast.stmt)):
            if isinstance(parent, (ast.Compare, ast.Subscript, ast.Call)) and parent is not parents.get(node):
                return False
            parent = parents.get(parent)
        return isinstance(parent, ast.JoinedStr)

    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("isinstance", "issubclass") and len(node.args) == 2 and names_a_class(node.args[1]):
                found.append((line, f"{node.func.id}() against a model or rule class"))
            elif node.func.id == "type" and len(node.args) == 1 and not for_a_message(node):
                found.append((line, "type() of an object"))
        elif isinstance(node, ast.Attribute) and node.attr == "__class__" and not for_a_message(node):
            found.append((line, "__class__ of an object"))
        elif isinstance(node, ast.Compare) and names_a_class(node):
            found.append((line, "a comparison naming a model or rule class"))
        elif isinstance(node, ast.MatchClass) and names_a_class(node.cls):
            found.append((line, "a match case on a model or rule class"))
    return sorted(found)


def _face_files() -> list[Path]:
    out = []
    for face in FACES:
        path = ROOT / face
        out.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return out


def test_no_face_tests_a_models_or_a_rules_class():
    classes = model_and_rule_classes()
    assert {"SegmentationModel", "Segmenter", "ExpertRouter", "DecisionRule", "ThresholdRule", "LengthPriorRule",
            "SegmentCountRule"} <= classes
    offenders = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in _face_files()
                 for line, what in class_tests(path.read_text(encoding="utf-8"), classes)]
    assert not offenders, "\n".join(offenders)


def test_the_class_test_detector_sees_each_way_of_asking():
    classes = model_and_rule_classes()
    asking = [
        "if isinstance(rule, ThresholdRule): pass",
        "ok = isinstance(model, (str, Segmenter))",
        "from segviz.rules import ThresholdRule as T\nok = isinstance(rule, T)",
        "import segviz.routing as r\nok = isinstance(model, r.ExpertRouter)",
        "ok = issubclass(cls, DecisionRule)",
        "same = type(new) is not type(own)",
        "same = new.__class__ == own.__class__",
        "ok = type(rule) in RULES.values()",
        "ok = rule.__class__ is LengthPriorRule",
        "handler = {'a': 1}[type(rule)]",
        "ok = type(rule).__name__ == 'ThresholdRule'",
        "match rule:\n    case SegmentCountRule():\n        pass",
        "ok = {SegmentCountRule: 1}.get(type(rule))",
    ]
    for source in asking:
        assert class_tests(source, classes), source
    fine = [
        "if isinstance(event, Progress): pass",
        "ok = isinstance(value, (int, float))",
        "message = f'cannot draw {type(item).__name__}'",
        "message = f'{exc.__class__.__name__}: {exc}'",
        "rule = ThresholdRule(alpha=0.5)",
        "ok = new.kind != own.kind",
        "ok = 'alpha' in {c['name'] for c in rule.controls()}",
    ]
    for source in fine:
        assert not class_tests(source, classes), source


def test_the_architecture_page_names_every_module():
    """Every module of segviz is named on docs/architecture.md (in backticks: its file, its path, or its stem in a
    list of its package's modules), so the page is a map of all of it."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = {part for ticked in re.findall(r"`([^`]+)`", doc) for part in re.split(r"[\s,/]+", ticked)}
    missing = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "segviz").rglob("*.py"))
               if path.stem not in ("__init__", "__main__") and not {path.stem, path.name} & named]
    assert not missing, f"modules docs/architecture.md does not name: {missing}"


def test_research_scripts_and_benchmarks_import_only_public_names_that_exist():
    """The scripts beside the product use its public API: a private name, or one that is gone, breaks a record's
    command without any test of the product noticing (the book-headings audit did)."""
    import importlib

    offenders = []
    for path in sorted([*(ROOT / "research").glob("*.py"), *(ROOT / "benchmarks").glob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                    and node.module.split(".")[0] == "segviz"):
                continue
            for alias in node.names:
                where = f"{path.relative_to(ROOT)}: from {node.module} import {alias.name}"
                if alias.name.startswith("_") or any(p.startswith("_") for p in node.module.split(".")[1:]):
                    offenders.append(f"{where} (private)")
                    continue
                module = importlib.import_module(node.module)
                if not hasattr(module, alias.name):
                    try:
                        importlib.import_module(f"{node.module}.{alias.name}")
                    except ImportError:
                        offenders.append(f"{where} (no such name)")
    assert not offenders, "\n".join(offenders)
