"""Scopes and bindings: which assignment a name refers to, following Python's own scoping rules.

Both questions the analysis asks need this: does ``module_names`` inside a function mean the global (or a
local that shadows it)? And what was ``module`` bound to where it is used as a key?
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: Pattern captures of ``match`` statements (Python 3.10+; absent on 3.9).
_MATCH_CAPTURES = tuple(getattr(ast, name) for name in ("MatchAs", "MatchStar") if hasattr(ast, name))
_MATCH_MAPPINGS = tuple(getattr(ast, name) for name in ("MatchMapping",) if hasattr(ast, name))


@dataclass(frozen=True)
class Binding:
    """One place that binds a name.

    ``how`` is ``value`` (``node`` is the assigned expression), ``element`` (``node`` is an iterable whose
    element is bound), ``annotated`` (``node`` is the annotation), ``parameter`` (``node`` is the
    ``ast.arg``), ``def`` (``node`` is a function) or ``opaque`` (anything the analysis cannot follow).
    ``path`` indexes into tuples unpacked by the assignment (``for name, module in ...`` binds ``module``
    at path ``(1,)``).
    """

    how: str
    node: ast.AST
    path: tuple[int, ...] = ()


@dataclass
class ScopeBindings:
    names: dict[str, list[Binding]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)

    def add(self, name: str, binding: Binding) -> None:
        self.names.setdefault(name, []).append(binding)

    def binds_locally(self, name: str) -> bool:
        return name in self.names and name not in self.declared_global


class Scopes:
    """Scope chains and per-scope bindings of one module, computed on demand and cached."""

    def __init__(self, module: ast.Module, parents: dict[ast.AST, ast.AST]) -> None:
        self.module = module
        self.parents = parents
        self._bindings: dict[ast.AST, ScopeBindings] = {}

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self.parents.get(node)

    def chain(self, node: ast.AST) -> Iterator[ast.AST]:
        """The scopes whose names ``node`` sees, innermost first and the module last.

        Defaults, decorators and annotations belong to the enclosing scope, so does the first iterable of
        a comprehension; class bodies are invisible from the functions nested in them.
        """
        below, child, current = None, node, self.parents.get(node)
        inside_function = False
        while current is not None:
            if isinstance(current, FUNCTIONS) and child in current.body:
                inside_function = True
                yield current
            elif isinstance(current, ast.Lambda) and child is current.body:
                inside_function = True
                yield current
            elif isinstance(current, COMPREHENSIONS):
                if not (child is current.generators[0] and below is current.generators[0].iter):
                    yield current
            elif isinstance(current, ast.ClassDef) and child in current.body and not inside_function:
                yield current
            elif isinstance(current, ast.Module):
                yield current
            below, child, current = child, current, self.parents.get(current)

    def innermost(self, node: ast.AST) -> ast.AST:
        return next(self.chain(node))

    def resolve(self, name: str, node: ast.AST) -> Optional[tuple[ast.AST, list[Binding]]]:
        """The scope whose binding of ``name`` is visible at ``node``, with its bindings."""
        for scope in self.chain(node):
            bindings = self.bindings(scope)
            if name in bindings.declared_global:
                module = self.bindings(self.module)
                return (self.module, module.names[name]) if name in module.names else None
            if name in bindings.names:
                return scope, bindings.names[name]
        return None

    def bindings(self, scope: ast.AST) -> ScopeBindings:
        if scope not in self._bindings:
            self._bindings[scope] = _collect_bindings(scope)
        return self._bindings[scope]


def function_parameters(function: FunctionNode | ast.Lambda) -> list[ast.arg]:
    """Positional parameters first, in call order, then keyword-only ones."""
    arguments = function.args
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def _collect_bindings(scope: ast.AST) -> ScopeBindings:
    found = ScopeBindings()
    if isinstance(scope, COMPREHENSIONS):
        for generator in scope.generators:
            _bind_target(found, generator.target, "element", generator.iter, ())
        return found
    if isinstance(scope, (*FUNCTIONS, ast.Lambda)):
        for parameter in function_parameters(scope):
            found.add(parameter.arg, Binding("parameter", parameter))
        for rest in (scope.args.vararg, scope.args.kwarg):
            if rest is not None:
                found.add(rest.arg, Binding("opaque", rest))
        if isinstance(scope, ast.Lambda):
            return found
    stack: list[ast.AST] = list(reversed(scope.body))  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            found.add(node.name, Binding("def" if isinstance(node, FUNCTIONS) else "opaque", node))
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, (ast.Lambda, *COMPREHENSIONS)):
            continue
        _bind_statement(found, node)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return found


def _bind_statement(found: ScopeBindings, node: ast.AST) -> None:
    if isinstance(node, ast.Assign):
        for target in node.targets:
            _bind_target(found, target, "value", node.value, ())
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        found.add(node.target.id, Binding("annotated", node.annotation))
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        _bind_target(found, node.target, "element", node.iter, ())
    elif isinstance(node, ast.NamedExpr):
        found.add(node.target.id, Binding("value", node.value))
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        found.add(node.target.id, Binding("opaque", node))
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        _bind_target(found, node.optional_vars, "opaque", node, ())
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            found.add(alias.asname or alias.name.partition(".")[0], Binding("opaque", node))
    elif isinstance(node, ast.ExceptHandler) and node.name:
        found.add(node.name, Binding("opaque", node))
    elif isinstance(node, ast.Global):
        found.declared_global.update(node.names)
    elif isinstance(node, ast.Nonlocal):
        for name in node.names:
            found.add(name, Binding("opaque", node))
    elif isinstance(node, _MATCH_CAPTURES) and node.name:
        found.add(node.name, Binding("opaque", node))
    elif isinstance(node, _MATCH_MAPPINGS) and node.rest:
        found.add(node.rest, Binding("opaque", node))


def _bind_target(found: ScopeBindings, target: ast.AST, how: str, source: ast.AST, path: tuple[int, ...]) -> None:
    if isinstance(target, ast.Name):
        found.add(target.id, Binding(how, source, path))
    elif isinstance(target, (ast.Tuple, ast.List)):
        starred = False
        for index, element in enumerate(target.elts):
            starred = starred or isinstance(element, ast.Starred)
            if starred:  # positions after a starred target are not known statically
                _bind_target(found, getattr(element, "value", element), "opaque", source, ())
            else:
                _bind_target(found, element, how, source, (*path, index))
    elif isinstance(target, ast.Starred):
        _bind_target(found, target.value, "opaque", source, ())
