"""Code that ``torch.compile``, ``torch.jit`` or ``torch.export`` may trace, and the uses of a container
that the runtime lets them trace.

Dynamo traces a ``dict`` and a ``functools.lru_cache`` natively. It traces the runtime's classes through
their Python code instead: ``X[k]``, ``X[k] = v``, ``X.get(k)``, ``k in X`` and ``len(X)`` trace (the
``t6_`` differential programs, ``fullgraph=True``), but walking one (``X.values()``, ``for k in X``)
raises under ``fullgraph=True``, and a weak cache called in a compiled function never stores a result, so
the cached work runs on every call. Where such a use sits in code a compiler traces, the fix is refused.

What a compiler traces, found in one module: a function decorated with one (``@torch.compile``,
``@torch.compile(fullgraph=True)``), a function handed to one (``torch.compile(step)``), the ``forward`` of
a class (what ``torch.compile(model)`` traces, wherever the model is compiled), and the module's
functions these call by name, transitively.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..syntax.qualified_names import Names
from ..syntax.scopes import FUNCTIONS, FunctionNode, walk

COMPILERS = frozenset({
    "torch.compile", "torch.jit.script", "torch.jit.trace", "torch.jit.trace_module",
    "torch.export.export", "torch._dynamo.optimize",
})
_COMPILER_WORDS = ("compile", "jit", "export", "dynamo")
#: What the runtime lets a compiler trace: ``X.get(k)``, and (below) ``X[k]``, ``k in X``, ``len(X)``.
_TRACEABLE_METHODS = frozenset({"get", "__getitem__", "__setitem__", "__contains__", "__len__"})


def spells_a_compiler(source: str) -> bool:
    """Whether a module's text may name a compiler at all: only then is it walked for compiled functions."""
    return any(word in source for word in _COMPILER_WORDS)


def compiled_functions(tree: ast.Module, names: Names, spelled: bool) -> dict[FunctionNode, str]:
    """The functions of ``tree`` a compiler may trace, each with how (``decorated with `@torch.compile` at
    line 12``): its classes' ``forward``s, and, where its text ``spelled`` a compiler, what it compiles."""
    functions = {node.name: node for node in tree.body if isinstance(node, FUNCTIONS)}
    found: dict[FunctionNode, str] = {
        method: "a `forward`, which `torch.compile(model)` traces wherever the model is compiled"
        for cls in tree.body if isinstance(cls, ast.ClassDef)
        for method in cls.body if isinstance(method, FUNCTIONS) and method.name == "forward"
    }
    for node in walk(tree) if spelled else ():
        if isinstance(node, FUNCTIONS):
            compiler = next((d for d in node.decorator_list if _compiles(d, names)), None)
            if compiler is not None:
                found[node] = f"decorated with `@{ast.unparse(compiler)[:40]}` at line {compiler.lineno}"
        elif isinstance(node, ast.Call) and _compiles(node.func, names) and node.args and isinstance(node.args[0], ast.Name):
            handed = functions.get(node.args[0].id)
            if handed is not None:
                found[handed] = f"handed to `{ast.unparse(node)[:40]}` at line {node.lineno}"
    pending = list(found)
    while pending:  # what a traced function calls by name is traced with it
        function = pending.pop()
        for node in walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
                called = functions[node.func.id]
                if called not in found:
                    found[called] = f"called at line {node.lineno} from `{function.name}`, which a compiler traces"
                    pending.append(called)
    return found


def untraceable(reference: ast.expr, parent_of: Callable[[ast.AST], Optional[ast.AST]], names: Names) -> bool:
    """Whether a use of a container, ``reference``, is one the runtime does not let a compiler trace."""
    parent = parent_of(reference)
    if isinstance(parent, ast.Subscript) and parent.value is reference:
        return False
    if isinstance(parent, ast.Attribute) and parent.value is reference:
        return parent.attr not in _TRACEABLE_METHODS
    if isinstance(parent, ast.Compare) and reference in parent.comparators:
        return not all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
    if isinstance(parent, ast.Call) and reference in parent.args:
        return names.qualify(parent.func) != "builtins.len"
    return True


def enclosing_function(node: ast.AST, parent_of: Callable[[ast.AST], Optional[ast.AST]]) -> Optional[FunctionNode]:
    current = parent_of(node)
    while current is not None and not isinstance(current, FUNCTIONS):
        current = parent_of(current)
    return current


def _compiles(expr: ast.expr, names: Names) -> bool:
    target = expr.func if isinstance(expr, ast.Call) else expr
    return (names.qualify(target) or "") in COMPILERS
