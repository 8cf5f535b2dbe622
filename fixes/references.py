"""What another module of the project refers to, found in one walk of it per run.

Before a container is rewritten, ``outside.py`` asks every module that may import it where it uses it.
Every container of a run asks the same modules, so each module is parsed and walked once, and the absolute
name of every reference in it (each prefix of ``pkg.state.registry.clear``) is worked out then: a question
about one container is a dictionary lookup, and the run's cost grows with the project, not with
containers times modules.
"""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from flake8_weakglobals.index.project import ModuleContext, context_for
from flake8_weakglobals.syntax.qualified_names import Names
from flake8_weakglobals.syntax.scopes import every_statement


@dataclass
class References:
    """One module's references, each with its place in ``ast.walk``'s order (the first unsafe use found is
    the one a refusal names, as a walk would find it)."""

    tree: ast.Module
    names: Names
    parents: dict[ast.AST, ast.AST]
    #: absolute name -> the outermost part of each reference chain that names it (``state.registry`` of
    #: ``state.registry.clear()``), with its walk order
    by_name: dict[str, list[tuple[int, ast.expr]]] = field(default_factory=dict)
    #: the innermost name of each chain that no import binds (a star import may), with its walk order
    unbound: dict[str, list[tuple[int, ast.Name]]] = field(default_factory=dict)
    #: every attribute node by its attribute's name, with its walk order
    attributes: dict[str, list[tuple[int, ast.Attribute]]] = field(default_factory=dict)
    #: the absolute modules ``from M import *`` reads
    stars: list[str] = field(default_factory=list)
    #: how many places bind each name anywhere in the module, in any scope (imports, assignments, parameters,
    #: ``def``, ``except ... as``, ``global``): a name bound once, by its import, is what the import says
    #: everywhere. Counted over the whole module, not resolved by scope as ``syntax.scopes`` does: a
    #: function's ``global X; X = ...`` rebinds the module's ``X`` for every reader
    bindings: dict[str, int] = field(default_factory=dict)


def imported_names(tree: ast.Module) -> Names:
    """What the names a module imports stand for, wherever it imports them."""
    names = Names()
    for statement in every_statement(tree.body):
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.add_import(statement, module_level=True)
    return names


@functools.lru_cache(maxsize=256)
def references(path: Path, tree: ast.Module) -> Optional[References]:
    """The references of the module at ``path`` (parsed as ``tree``), or None outside any project."""
    context = context_for(path)
    if context is None:
        return None
    found = References(tree, imported_names(tree), {})
    for order, node in enumerate(ast.walk(tree)):
        for child in ast.iter_child_nodes(node):
            found.parents[child] = node
        if isinstance(node, ast.ImportFrom) and node.names[0].name == "*":
            found.stars.append(context.absolute("." * node.level + (node.module or "")))
        for bound in _bound_by(node):
            found.bindings[bound] = found.bindings.get(bound, 0) + 1
        if isinstance(node, ast.Attribute):
            found.attributes.setdefault(node.attr, []).append((order, node))
        if isinstance(node, (ast.Name, ast.Attribute)) and not isinstance(found.parents.get(node), ast.Attribute):
            _add_chain(found, context, order, node)  # only the outermost of ``a.b.c``: its parts are named below
        elif isinstance(node, (ast.Subscript, ast.Call)) and not isinstance(found.parents.get(node), ast.Attribute):
            module = module_by_constant(node, found.names)
            if module is not None:  # the module itself, used as a value
                found.by_name.setdefault(module, []).append((order, node))
    return found


def _bound_by(node: ast.AST) -> Iterator[str]:
    """The names ``node`` binds (or declares bound elsewhere: ``global``, ``nonlocal``)."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        yield node.id
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, ast.alias) and node.name != "*":
        yield node.asname or node.name.partition(".")[0]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest


def names_another_class(found: References, context: ModuleContext, node: ast.expr, owner: str) -> bool:
    """Whether ``node`` (``Plain.table``) reads the attribute of a project class that is not ``owner``
    (``pkg.tables.Rotary``, whose ``table`` is the container) and does not derive from it, so that it never
    reaches ``owner``'s attribute. Only for a class named by a name its import alone binds in the module (no
    star import beside it), whose whole tree the index reads (``ProjectIndex.derives_from``)."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)) or found.stars:
        return False
    qualified = found.names.qualify(node.value)
    if qualified is None or found.bindings.get(node.value.id) != 1:
        return False
    named = context.index.resolve(context.absolute(qualified))
    return context.index.is_class(named) and context.index.derives_from(named, owner) is False


def module_by_constant(node: ast.expr, names: Names) -> Optional[str]:
    """The module that ``sys.modules["pkg.state"]`` or ``importlib.import_module("pkg.state")`` gives, a
    route to it that names no import."""
    if isinstance(node, ast.Subscript) and names.qualify(node.value) == "sys.modules":
        key = node.slice
    elif isinstance(node, ast.Call) and names.qualify(node.func) == "importlib.import_module" and len(node.args) == 1 and not node.keywords:
        key = node.args[0]
    else:
        return None
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) and not key.value.startswith(".") else None


def _add_chain(found: References, context: ModuleContext, order: int, outermost: ast.expr) -> None:
    """Each prefix of the chain, outermost first, under its absolute name (the first prefix to name a
    target is the reference to it)."""
    named: set[str] = set()
    current: ast.expr = outermost
    while True:
        qualified = found.names.qualify(current)
        if qualified is not None:
            absolute = context.absolute(qualified)
            if absolute not in named:
                named.add(absolute)
                found.by_name.setdefault(absolute, []).append((order, current))
        if isinstance(current, ast.Name):
            if qualified is None:
                found.unbound.setdefault(current.id, []).append((order, current))
            return
        if not isinstance(current, ast.Attribute):
            return
        current = current.value
        module = module_by_constant(current, found.names)
        if module is not None:  # ``sys.modules["pkg.state"].registry``: the chain starts at that module
            _add_found_module(found, order, outermost, module, named)
            return


def _add_found_module(found: References, order: int, outermost: ast.expr, module: str, named: set[str]) -> None:
    """The prefixes of a chain whose base is a module found by a constant name, each under its absolute
    name, outermost first, as ``_add_chain`` keeps them."""
    prefixes: list[tuple[str, ast.expr]] = []
    current = outermost
    while isinstance(current, ast.Attribute):
        prefixes.append((current.attr, current))
        current = current.value
    qualified = [module]
    for attribute, _ in reversed(prefixes):
        qualified.append(f"{qualified[-1]}.{attribute}")
    nodes = [node for _, node in prefixes] + [current]
    for name, node in zip(reversed(qualified), nodes):
        if name not in named:
            named.add(name)
            found.by_name.setdefault(name, []).append((order, node))


def references_to(found: References, qualified: str) -> list[tuple[int, ast.expr]]:
    """The references to ``qualified`` (``pkg.state.registry``), in walk order, a star import of its module
    included (``from pkg.state import *`` binds ``registry`` unless an import binds it too, or it is private)."""
    module, _, name = qualified.rpartition(".")
    direct = found.by_name.get(qualified, [])
    if name.startswith("_") or module not in found.stars:
        return direct
    return sorted([*direct, *found.unbound.get(name, [])], key=lambda pair: pair[0])


def chain_top(found: References, node: ast.expr) -> ast.expr:
    """The outermost attribute of the chain ``node`` starts (``a.b.c`` for ``a`` of ``a.b.c``)."""
    while isinstance(found.parents.get(node), ast.Attribute) and found.parents[node].value is node:  # type: ignore[attr-defined]
        node = found.parents[node]  # type: ignore[assignment]
    return node
