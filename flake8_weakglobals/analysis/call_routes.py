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
    found: dict[str, int] = {}
    for node in string_constants(tree):
        named = named_by_string(node)
        if named is not None and (named[1] or not paths_only):
            found.setdefault(named[0], node.lineno)
    return found


def string_constants(tree: ast.Module) -> Iterator[ast.Constant]:
    """The string constants of ``tree`` that may name code: not docstrings, not the names a module
    exports (``__all__ = [...]``), not annotations (``-> "Expert"``)."""
    skipped = {id(node) for part in _exports_annotations_and_docstrings(tree) for node in ast.walk(part)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) is str and id(node) not in skipped:
            yield node


def _exports_annotations_and_docstrings(tree: ast.Module) -> Iterator[ast.AST]:
    yield from (statement for statement in tree.body if exports(statement))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            yield node.returns
        elif isinstance(node, (ast.arg, ast.AnnAssign)) and node.annotation is not None:
            yield node.annotation
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            yield node.value  # a docstring, or a string statement: read by no code


def exports(statement: ast.AST) -> bool:
    """``__all__ = [...]``, ``__all__ += [...]``: the names listed are exported, not called."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
    return any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)
