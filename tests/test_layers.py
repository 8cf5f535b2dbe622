"""The package's layers, as ``docs/architecture.md`` draws them: imports run one way, down.

Each folder of ``flake8_weakglobals`` is a layer, and ``fixes`` (the codemod) sits beside the front ends. A
module may import its own layer and the layers below it, never one above; and no module reaches itself
through its imports. Every import counts: at module level, inside a function (the lazy ones) and under
``if TYPE_CHECKING:``, since a cycle of type-only imports is still a cycle a reader has to untangle.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Iterator

from conftest import REPO

#: Lowest first. The package itself (``flake8_weakglobals/__init__.py``: the version) is below everything.
LAYERS: list[tuple[str, ...]] = [
    ("flake8_weakglobals.runtime",),
    ("flake8_weakglobals.source",),
    ("flake8_weakglobals.syntax",),
    ("flake8_weakglobals.index",),
    ("flake8_weakglobals.analysis",),
    ("flake8_weakglobals.rules",),
    ("flake8_weakglobals.frontends", "fixes"),
    ("flake8_weakglobals.census",),
]
OURS = ("flake8_weakglobals", "fixes")


def module_names() -> dict[str, Path]:
    modules = {}
    for top in OURS:
        for path in sorted((REPO / top).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imports_of(name: str, path: Path) -> Iterator[tuple[int, str]]:
    """Every module of ours that ``name`` imports, with the line: ``from .x import y`` resolved, and
    ``from package import module`` read as importing that module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] in OURS:
                yield node.lineno, target


def layer_of(name: str) -> int:
    for index, prefixes in enumerate(LAYERS):
        if any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes):
            return index
    return -1  # the package itself


def dependencies() -> dict[str, dict[str, int]]:
    """Each module's imports of our modules (only names that are modules), with the first line of each."""
    modules = module_names()
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        graph[name] = {}
        for line, target in imports_of(name, path):
            if target in modules and target != name:
                graph[name].setdefault(target, line)
    return graph


def test_the_import_graph_has_every_kind_of_import() -> None:
    """The checks below pass on an empty graph: this one fails if imports stop being read. ``fixes.job``
    imports absolutely, relatively (``from .outside import``) and inside a function (``fixes.rewrite``);
    ``command`` imports the codemod lazily, across the two front ends."""
    graph = dependencies()
    assert {"flake8_weakglobals.frontends.config", "fixes.outside", "fixes.rewrite"} <= set(graph["fixes.job"])
    assert "fixes.job" in graph["flake8_weakglobals.frontends.command"]


def test_every_module_belongs_to_a_layer() -> None:
    unplaced = [name for name in module_names() if layer_of(name) < 0 and name != "flake8_weakglobals"]
    assert not unplaced, f"modules outside every layer (add their folder to LAYERS and docs/architecture.md): {unplaced}"


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{module_names()[name].relative_to(REPO)}:{line}: {name} (layer {layer_of(name)}) imports {target} (layer {layer_of(target)})"
        for name, targets in dependencies().items()
        for target, line in targets.items()
        if layer_of(target) > layer_of(name)
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycle() -> None:
    graph = dependencies()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in graph[name]:
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target] if target in path else [name, target])
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in graph:
        if name not in state:
            visit(name, [name])
    assert not cycles, "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_the_runtime_imports_only_the_standard_library() -> None:
    """It is vendored into users' projects: nothing installed, nothing of ours but its own parts, imported
    relatively (the vendored copy assembles them into one file)."""
    runtime = {name: path for name, path in module_names().items() if layer_of(name) == 0}
    assert {"flake8_weakglobals.runtime", "flake8_weakglobals.runtime.maps"} <= set(runtime)
    for name, path in runtime.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level:
                targets = [target for line, target in imports_of(name, path) if line == node.lineno]
                assert node.level == 1 and all(target in runtime or target.rpartition(".")[0] in runtime for target in targets), (path, node.lineno)
                continue
            elif isinstance(node, ast.ImportFrom):
                roots = [(node.module or "").split(".")[0]]
            else:
                continue
            assert all(root in sys.stdlib_module_names or root == "__future__" for root in roots), (path, node.lineno)
