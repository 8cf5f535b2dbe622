"""Routes by which code reaches a function or a class other than a call that names it.

An owner proof that rests on callers ("every call of ``register`` passes an object kept elsewhere") holds
only if the calls found are every call. Code also reaches a function through what it was handed to: a
decorator that files it in a table (``@HANDLERS.register``), or a string that names it for ``getattr``,
``importlib`` or a config's ``_target_`` (``"pkg.hooks.remember"``). The callers on those routes are not
in the index, so the proof has to refuse there. The linter's owner proof (``owners.py``) asks this of the
container's own module; the codemod (``fixes/outside.py``) asks it of every other module it reads.
"""
from __future__ import annotations

import ast
import functools
import re
from typing import Iterator, Optional, Union

from ..syntax.qualified_names import Names
from ..syntax.scopes import FunctionNode

#: Decorators that return the function or class they are given, or a wrapper that only its own name
#: calls: no table, no caller of their own.
TRANSPARENT_DECORATORS = frozenset({
    "builtins.staticmethod", "builtins.classmethod", "builtins.property",
    "abc.abstractmethod", "typing.overload", "typing.override", "typing.final", "typing_extensions.override",
    "functools.wraps", "functools.total_ordering", "dataclasses.dataclass", "contextlib.contextmanager",
    "torch.no_grad", "torch.inference_mode", "torch.enable_grad",
    "torch.jit.unused", "torch.jit.ignore", "torch.jit.export", "torch.compiler.disable", "torch._dynamo.disable",
})
#: ``@size.setter``: a property's other accessors, called by attribute access on the instance.
_PROPERTY_ACCESSORS = frozenset({"setter", "getter", "deleter"})
#: A string that names a function: ``"remember"``, ``"pkg.hooks.remember"``, ``"pkg.hooks:remember"``.
_NAMING_STRING = re.compile(r"(?:[A-Za-z_][\w.]*[.:])?(?P<name>[A-Za-z_]\w*)")


def handing_decorator(definition: Union[FunctionNode, ast.ClassDef], names: Names) -> Optional[ast.expr]:
    """The first decorator of ``definition`` that is handed the function or class and may keep it, call
    it or build it by a route no call names (``@HANDLERS.register``, ``@register_model("gpt")``)."""
    for decorator in definition.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr in _PROPERTY_ACCESSORS:
            continue
        if (names.qualify(target) or "") not in TRANSPARENT_DECORATORS:
            return decorator
    return None


def named_by_string(node: ast.AST) -> Optional[tuple[str, bool]]:
    """The name a string constant spells whole, or at the end of a dotted path (an import path), with
    whether it is such a path. Docstrings and sentences spell no name whole."""
    if not (isinstance(node, ast.Constant) and type(node.value) is str and len(node.value) <= 200):
        return None
    match = _NAMING_STRING.fullmatch(node.value)
    return (match["name"], match["name"] != node.value) if match else None


def strings_naming(tree: ast.Module, paths_only: bool = False) -> dict[str, int]:
    """Each name that a string constant of ``tree`` spells whole (with ``paths_only``, at the end of an
    import path: ``"pkg.models.Expert"``, not the label ``"Expert"``), with the first line that does."""
    return _names_spelled(tree)[paths_only]


@functools.lru_cache(maxsize=64)
def _names_spelled(tree: ast.Module) -> tuple[dict[str, int], dict[str, int]]:
    """Both answers of ``strings_naming`` from one scan, kept per tree: the linter's owner proof and every
    container the codemod checks ask the same modules."""
    anywhere: dict[str, int] = {}
    in_paths: dict[str, int] = {}
    for node in string_constants(tree):
        named = named_by_string(node)
        if named is None:
            continue
        for found in (anywhere, in_paths) if named[1] else (anywhere,):
            if found.get(named[0], node.lineno + 1) > node.lineno:  # the first line, in any walk order
                found[named[0]] = node.lineno
    return anywhere, in_paths


def string_constants(tree: ast.Module) -> Iterator[ast.Constant]:
    """The string constants of ``tree`` that may name code: not docstrings, not the names a module
    exports (``__all__ = [...]``), not annotations (``-> "Expert"``), not text written for people
    (``print("audit", n)``, ``logger.info(...)``, ``warnings.warn(...)``, an exception's message, an
    f-string's pieces), which no code looks up. One walk that does not enter those."""
    pending: list[ast.AST] = [statement for statement in tree.body if not exports(statement)]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Constant):
            if type(node.value) is str:
                yield node
            continue
        if isinstance(node, ast.JoinedStr):
            continue
        if _shown_to_people(node):
            continue  # its callee too: ``print``, ``logger.info``, an exception class, none spelled in a string
        skipped = _unread_part(node)
        pending.extend(child for child in ast.iter_child_nodes(node) if child is not skipped)


def _unread_part(node: ast.AST) -> Optional[ast.AST]:
    """The part of ``node`` that no code reads as a value: an annotation, a return annotation, a docstring
    (or any string statement)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.returns
    if isinstance(node, (ast.arg, ast.AnnAssign)):
        return node.annotation
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return node.value
    return None


#: Calls whose arguments are text for people: ``print``, a logger's levels, ``warnings.warn``.
_TEXT_FOR_PEOPLE = frozenset({"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def _shown_to_people(node: ast.AST) -> bool:
    """``print(...)``, ``logger.info(...)``, ``warnings.warn(...)``, or the exception a ``raise`` builds:
    its arguments are read by people, never looked up by code."""
    if isinstance(node, ast.Raise):
        node = node.exc if isinstance(node.exc, ast.Call) else node
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    if isinstance(function, ast.Name):
        return function.id == "print" or (function.id[:1].isupper() and function.id.endswith(("Error", "Exception", "Warning")))
    return isinstance(function, ast.Attribute) and function.attr in _TEXT_FOR_PEOPLE


def exports(statement: ast.AST) -> bool:
    """``__all__ = [...]``, ``__all__ += [...]``: the names listed are exported, not called."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
    return any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)
