"""The runtime's parts, as the codemod reads them to assemble the code a fix adds (a vendored copy, an inline block).

Each part is a module of ``flake8_weakglobals/runtime/`` that imports only the standard library, ``core`` and
the part it builds on (``tests/test_layers.py`` holds it to that), so a fix can add only the parts that define
the names it uses, with those they build on. What each part defines and builds on is read from its source: its
``__all__`` and its relative imports.
"""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import flake8_weakglobals.runtime

PARTS = flake8_weakglobals.runtime.PARTS


@functools.lru_cache(maxsize=None)
def _part_sources() -> dict[str, str]:
    package = Path(flake8_weakglobals.runtime.__file__).parent
    return {part: (package / f"{part}.py").read_text(encoding="utf-8") for part in PARTS}


@functools.lru_cache(maxsize=None)
def part_names() -> dict[str, tuple[str, ...]]:
    """Each part's public names (its ``__all__``), read from its source."""
    names = {}
    for part, source in _part_sources().items():
        assigned = [node.value for node in ast.parse(source).body if isinstance(node, ast.Assign) and _is_all(node)]
        names[part] = tuple(ast.literal_eval(assigned[0])) if assigned else ()
    return names


@functools.lru_cache(maxsize=None)
def part_requires() -> dict[str, tuple[str, ...]]:
    """The parts each part builds on: those it imports from (``from .core import ...``), read from its source."""
    requires = {}
    for part, source in _part_sources().items():
        imports = [node for node in ast.parse(source).body if isinstance(node, ast.ImportFrom) and node.level == 1]
        requires[part] = tuple(node.module for node in imports if node.module)
    return requires


def parts_for(names: Iterable[str]) -> tuple[str, ...]:
    """The parts that define ``names``, the parts they build on, and ``core`` (which every part uses), in
    assembly order."""
    wanted = set(names)
    unknown = wanted - {name for defined in part_names().values() for name in defined}
    if unknown:
        raise ValueError(f"not in the runtime: {', '.join(sorted(unknown))}")
    chosen = {"core"} | {part for part, defined in part_names().items() if wanted & set(defined)}
    pending = list(chosen)
    while pending:
        for required in part_requires()[pending.pop()]:
            if required not in chosen:
                chosen.add(required)
                pending.append(required)
    return tuple(part for part in PARTS if part in chosen)


def with_requirements(parts: Iterable[str]) -> tuple[str, ...]:
    """``parts`` and every part they build on, in assembly order."""
    return parts_for(name for part in parts for name in part_names()[part])


@dataclass(frozen=True)
class PartCode:
    """A part's code as a fix adds it: ``body`` is its source without its imports, ``__all__`` and
    docstring (whose first line becomes ``summary``); ``imports`` are the standard-library imports it made
    (``""`` -> the modules it imports whole)."""

    summary: str
    body: str
    imports: dict[str, frozenset[str]]


@functools.lru_cache(maxsize=None)
def part_code(part: str) -> PartCode:
    """Everything but the imports, ``__all__`` and docstring is kept as written, comments included. Its own
    relative imports name other parts, which the assembled code holds too."""
    source = _part_sources()[part]
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    imports: dict[str, set[str]] = {}
    dropped: set[int] = set()
    docstring = ast.get_docstring(tree, clean=False)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            if not node.level and node.module != "__future__":
                imports.setdefault(node.module or "", set()).update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            imports.setdefault("", set()).update(alias.name for alias in node.names)
        elif not (isinstance(node, ast.Assign) and _is_all(node)) and not (docstring is not None and node is tree.body[0]):
            continue
        dropped.update(range(node.lineno - 1, node.end_lineno or node.lineno))
    kept = "".join(line for number, line in enumerate(lines) if number not in dropped)
    body = re.sub(r"\n{3,}", "\n\n\n", kept).strip("\n") + "\n"
    summary = docstring.splitlines()[0] if docstring else part
    return PartCode(summary, body, {module: frozenset(names) for module, names in imports.items()})


def _is_all(node: ast.Assign) -> bool:
    return any(isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets)
