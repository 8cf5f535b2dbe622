"""The order a run checks its files in: each module before the modules it imports.

The project index answers a module's questions forward only, from the summaries of the modules it imports
(``project.py``). A module summarised before the run checks it keeps its tree for that check
(``source/parse_once.py``); one the run checked before another imports it has to be parsed again for its
summary. Over torch in path order, that was 115 of the 280 modules summarised, a tenth of the whole run.
Checking importers first leaves only the modules on import cycles to be parsed twice.

Who imports whom is read from each file's text (``import_lines``; the parenthesised names of ``from pkg
import (...)`` count: over torch, a submodule imported that way was the largest module parsed twice), not
parsed. It only orders the work: a name it misreads costs at most a parse, never a finding.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from .import_lines import import_statements
from .project import context_for


def importers_first(paths: Sequence[Path]) -> list[int]:
    """The positions of ``paths`` in the order to check them: every module before the modules of the
    same run it imports, except along import cycles."""
    names: dict[str, int] = {}
    modules: list[Optional[tuple[str, bool]]] = []
    for position, path in enumerate(paths):
        context = context_for(path)
        modules.append((context.name, context.is_package) if context is not None else None)
        if context is not None:
            names.setdefault(context.name, position)
    resolved: dict[str, Optional[int]] = {}
    imported = [_imported(path, module, names, resolved) if module is not None else [] for path, module in zip(paths, modules)]
    return _importers_before_imported(imported)


def _imported(path: Path, module: tuple[str, bool], names: dict[str, int], resolved: dict[str, Optional[int]]) -> list[int]:
    """The positions of the run's modules that the file at ``path`` (module ``module``) imports. A name is
    resolved to the run's module it imports once per run (``resolved``): most are imported all over."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return []  # the check reports it
    own = names.get(module[0])
    found: dict[int, None] = {}
    for base, members in import_statements(text, *module):
        within = _position(base, names, resolved)
        # ``from a import b`` imports ``a.b`` if that is a module of the run, else only ``a``
        targets = [within, *(names.get(f"{base}.{member}", within) for member in members or ())]
        for target in targets:
            if target is not None and target != own:
                found[target] = None
    return list(found)


def _position(name: str, names: dict[str, int], resolved: dict[str, Optional[int]]) -> Optional[int]:
    """The position of the run's module that ``import name`` imports: ``import a.b.c`` imports ``a.b`` and
    ``a`` too, so the longest prefix of ``name`` that is one; None if none is."""
    if name not in resolved:
        target = name
        while target and target not in names:
            target = target.rpartition(".")[0]
        resolved[name] = names[target] if target else None
    return resolved[name]


def _importers_before_imported(imported: list[list[int]]) -> list[int]:
    """Each module after every module that imports it, cycles aside, and otherwise in path order: a module
    comes as soon as its importers have (a depth-first post-order over who imports whom, without recursion,
    for import chains run deep). A module that nothing imports keeps its place, so results still come
    about as soon as in path order."""
    importers: list[list[int]] = [[] for _ in imported]
    for importer, targets in enumerate(imported):
        for target in targets:
            importers[target].append(importer)
    order: list[int] = []
    seen = [False] * len(imported)
    for start in range(len(imported)):
        if seen[start]:
            continue
        seen[start] = True
        stack = [(start, iter(importers[start]))]
        while stack:
            node, pending = stack[-1]
            for importer in pending:
                if not seen[importer]:
                    seen[importer] = True
                    stack.append((importer, iter(importers[importer])))
                    break
            else:
                stack.pop()
                order.append(node)
    return order
