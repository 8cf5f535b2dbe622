"""The order a run checks its files in: each module before the modules it imports.

The project index answers a module's questions forward only, from the summaries of the modules it imports
(``project.py``). A module summarised before the run checks it keeps its tree for that check
(``source/parse_once.py``); one the run checked before another imports it has to be parsed again for its
summary. Over torch in path order, that was 115 of the 280 modules summarised, a tenth of the whole run.
Checking importers first leaves only the modules on import cycles to be parsed twice.

Who imports whom is read from each file's text, on the lines that start with ``import`` or ``from``: a scan
over bytes already in the page cache, not a parse. It only orders the work: a name it misreads (an import
inside a string, a continuation line it does not see) costs at most a parse, never a finding.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional, Sequence

from .project import context_for
from .summaries import absolute

_IMPORT_WORD = re.compile(r"import[ \t(\\]")  # a literal first, which ``re`` skips ahead to
_IMPORT_LINE = re.compile(r"[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t(\\]+([\w, \t]*)|import[ \t]+([\w., \t]+))")


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
    imported = [_imported(path, module, names) if module is not None else [] for path, module in zip(paths, modules)]
    return _importers_before_imported(imported)


def _imported(path: Path, module: tuple[str, bool], names: dict[str, int]) -> list[int]:
    """The positions of the run's modules that the file at ``path`` (module ``module``) imports."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return []  # the check reports it
    found: dict[int, None] = {}
    for match in _IMPORT_WORD.finditer(text):
        line = _IMPORT_LINE.match(text, text.rfind("\n", 0, match.start()) + 1)
        if line is None:
            continue
        source, members, plain = line.groups()
        if plain is not None:
            targets = [part.split()[0] for part in plain.split(",") if part.strip()]
        else:
            base = absolute(source, *module)
            targets = [base, *(f"{base}.{member.split()[0]}" for member in members.split(",") if member.strip())]
        for target in targets:
            while target and target not in names:  # ``import a.b.c`` imports ``a.b`` and ``a`` too
                target = target.rpartition(".")[0]
            if target and target != module[0]:
                found[names[target]] = None
    return list(found)


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
