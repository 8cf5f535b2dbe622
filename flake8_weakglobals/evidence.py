"""Is this expression a module, a parameter or a tensor? A small abstract interpreter over the ``ast``.

Values are ``Obj`` (a framework object, with the reason we know), ``Seq`` (an iterable of them), ``Tup``
(a tuple, as yielded by ``named_parameters()``) or None (unknown: never reported).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Optional, Union

from .names import Names
from .scopes import FUNCTIONS, Binding, FunctionNode, Scopes, function_parameters
from .survey import ClassInfo, Survey
from .vocabulary import ITERATION_METHODS, Vocabulary


@dataclass(frozen=True)
class Obj:
    kind: str
    why: str
    #: Built right here by a constructor or a tensor factory: the container that keeps it is its only owner,
    #: so nothing outlives its use because of the container (a workspace, a test's fixtures), and a weak
    #: container would drop it at once.
    owned: bool = False


@dataclass(frozen=True)
class Seq:
    element: Value


@dataclass(frozen=True)
class Tup:
    items: tuple[Value, ...]


Value = Union[Obj, Seq, Tup, None]


@dataclass(frozen=True)
class Hook:
    """A function registered as a hook: its parameter at ``position`` receives a framework object."""

    position: int
    kind: str
    line: int
    registrar: str


def element_of(value: Value) -> Value:
    if isinstance(value, Seq):
        return value.element
    if isinstance(value, Tup):
        return same(value.items)
    return None


def disowned(value: Value) -> Value:
    """An object built and bound to a variable is no temporary: the variable owns it while it is used."""
    if isinstance(value, Obj):
        return Obj(value.kind, value.why) if value.owned else value
    if isinstance(value, Seq):
        return Seq(disowned(value.element))
    if isinstance(value, Tup):
        return Tup(tuple(disowned(item) for item in value.items))
    return value


def project(value: Value, path: tuple[int, ...]) -> Value:
    for index in path:
        if not isinstance(value, Tup) or index >= len(value.items):
            return None
        value = value.items[index]
    return value


def same(values: Iterable[Value]) -> Value:
    """The value all of ``values`` agree on (objects agree on their kind), else None."""
    values = list(values)
    if not values or any(value is None for value in values):
        return None
    first = values[0]
    if all(value == first for value in values):
        return first
    if all(isinstance(value, Obj) and value.kind == first.kind for value in values):  # type: ignore[union-attr]
        return next((value for value in values if not value.owned), first)  # type: ignore[union-attr]
    return None


def text(node: ast.AST, limit: int = 60) -> str:
    """Source-like text for messages, shortened."""
    written = ast.unparse(node)
    return written if len(written) <= limit else written[: limit - 3] + "..."


_TYPING_SEQUENCES = {
    "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection", "Set", "FrozenSet",
    "AbstractSet", "MutableSet", "Deque", "Generator", "list", "set", "frozenset", "deque",
}
_TYPING_MODULES = ("typing.", "typing_extensions.", "collections.abc.", "collections.", "builtins.")
_PASS_THROUGH = {"list", "tuple", "sorted", "reversed", "iter", "set", "frozenset"}


def _typing_name(qualified: Optional[str]) -> Optional[str]:
    if qualified and qualified.startswith(_TYPING_MODULES):
        return qualified.rpartition(".")[2]
    return None


class Evidence:
    """Answers ``of(expr)`` for the expressions of one module; results depend on bindings, hooks and types."""

    def __init__(self, scopes: Scopes, survey: Survey, vocabulary: Vocabulary, hooks: dict[ast.AST, Hook]) -> None:
        self.scopes = scopes
        self.survey = survey
        self.names: Names = survey.names
        self.vocabulary = vocabulary
        self.hooks = hooks
        self._active: set[tuple[ast.AST, str]] = set()

    # --- expressions -------------------------------------------------------------------------------

    def of(self, expr: ast.AST) -> Value:
        if isinstance(expr, ast.Name):
            return self._of_name(expr)
        if isinstance(expr, ast.Call):
            return self._of_call(expr)
        if isinstance(expr, ast.Subscript):
            base = self.of(expr.value)
            index = expr.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, int):
                return project(base, (index.value,)) if isinstance(base, Tup) else element_of(base)
            return element_of(base) if isinstance(base, Seq) else None
        if isinstance(expr, ast.Tuple):
            if any(isinstance(element, ast.Starred) for element in expr.elts):
                return None
            return Tup(tuple(self.of(element) for element in expr.elts))
        if isinstance(expr, (ast.List, ast.Set)):
            return Seq(same(self.of(element) for element in expr.elts))
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return Seq(self.of(expr.elt))
        if isinstance(expr, ast.IfExp):
            return same((self.of(expr.body), self.of(expr.orelse)))
        if isinstance(expr, ast.NamedExpr):
            return self.of(expr.value)
        return None

    def _of_name(self, name: ast.Name) -> Value:
        resolved = self.scopes.resolve(name.id, name)
        if resolved is None:
            return None
        scope, bindings = resolved
        key = (scope, name.id)
        if key in self._active:  # ``x = x + 1`` and friends
            return None
        self._active.add(key)
        try:
            return same(self._of_binding(scope, binding) for binding in bindings)
        finally:
            self._active.discard(key)

    def _of_binding(self, scope: ast.AST, binding: Binding) -> Value:
        if binding.how == "value":
            return disowned(project(self.of(binding.node), binding.path))
        if binding.how == "element":
            return project(element_of(self.of(binding.node)), binding.path)  # the loop's iterator is no owner
        if binding.how == "annotated":
            return self.of_annotation(binding.node)
        if binding.how == "parameter" and isinstance(scope, (*FUNCTIONS, ast.Lambda)):
            return self._of_parameter(scope, binding.node)  # type: ignore[arg-type]
        return None

    def _of_call(self, call: ast.Call) -> Value:
        function = call.func
        if isinstance(function, ast.Attribute) and function.attr in ITERATION_METHODS:
            kind, named = ITERATION_METHODS[function.attr]
            receiver = self.of(function.value)  # ``nn.Linear(2, 2).parameters()``: owned with their model
            found = Obj(kind, f"from `{text(call)}`", owned=isinstance(receiver, Obj) and receiver.owned)
            return Seq(Tup((None, found)) if named else found)
        local = self._local_class(function)
        if local is not None:
            return Obj(local.kind, f"built by `{text(function)}(...)`", owned=True) if local.kind else None
        qualified = self.names.qualify(function)
        if qualified is None:
            return None
        arguments = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
        builtin = qualified[len("builtins.") :] if qualified.startswith("builtins.") else None
        if builtin == "enumerate" and arguments:
            return Seq(Tup((None, element_of(self.of(arguments[0])))))
        if builtin == "zip" and arguments:
            return Seq(Tup(tuple(element_of(self.of(argument)) for argument in arguments)))
        if builtin in _PASS_THROUGH and arguments:
            return Seq(element_of(self.of(arguments[0])))
        if builtin == "next" and arguments:
            return element_of(self.of(arguments[0]))
        kind = self.vocabulary.kind_of_call(qualified)
        return Obj(kind, f"built by `{text(function)}(...)`", owned=True) if kind else None

    # --- types -------------------------------------------------------------------------------------

    def of_annotation(self, annotation: Optional[ast.AST]) -> Value:
        """What an annotation says about a value: ``nn.Module``, ``Optional[Tensor]``, ``List[nn.Parameter]``."""
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                return self.of_annotation(ast.parse(annotation.value, mode="eval").body)
            except SyntaxError:
                return None
        if isinstance(annotation, (ast.Name, ast.Attribute)):
            kind = self.kind_of_type(annotation)
            return Obj(kind, f"annotated `{text(annotation)}`") if kind else None
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            return self._either(annotation.left, annotation.right)
        if not isinstance(annotation, ast.Subscript):
            return None
        generic = _typing_name(self.names.qualify(annotation.value))
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if generic in ("Optional", "ClassVar", "Final", "Annotated"):
            return self.of_annotation(parts[0])
        if generic == "Union":
            return self._either(*parts)
        if generic in _TYPING_SEQUENCES or (generic in ("Tuple", "tuple") and len(parts) == 2 and _is_ellipsis(parts[1])):
            return Seq(self.of_annotation(parts[0]))
        if generic in ("Tuple", "tuple"):
            return Tup(tuple(self.of_annotation(part) for part in parts))
        return None

    def _either(self, *alternatives: ast.AST) -> Value:
        """``X | None`` and ``Union[X, None]`` are X: ``None`` never pins anything."""
        real = [option for option in alternatives if not (isinstance(option, ast.Constant) and option.value is None)]
        return same(self.of_annotation(option) for option in real)

    def kind_of_type(self, expr: ast.AST) -> Optional[str]:
        """The framework kind of instances of the class ``expr`` names (local subclasses included)."""
        local = self._local_class(expr)
        if local is not None:
            return local.kind
        qualified = self.names.qualify(expr)  # type: ignore[arg-type]
        return self.vocabulary.kind_of_type(qualified) if qualified else None

    def _local_class(self, expr: ast.AST) -> Optional[ClassInfo]:
        if isinstance(expr, ast.Name) and expr.id in self.survey.classes:
            resolved = self.scopes.resolve(expr.id, expr)
            if resolved is None or resolved[0] is self.scopes.module:
                return self.survey.classes[expr.id]
        return None

    # --- parameters --------------------------------------------------------------------------------

    def _of_parameter(self, function: FunctionNode | ast.Lambda, parameter: ast.arg) -> Value:
        annotated = self.of_annotation(parameter.annotation)
        if annotated is not None:
            return Obj(annotated.kind, f"parameter `{parameter.arg}: {text(parameter.annotation)}`") if isinstance(
                annotated, Obj
            ) else annotated
        position = function_parameters(function).index(parameter)
        owner = self.survey.method_owner.get(function)
        if owner is not None and position == 0 and owner.kind and function not in self.survey.unbound_methods:
            return Obj(owner.kind, f"`{parameter.arg}` is a `{owner.name}`, a subclass of `{owner.framework_base}`")
        hook = self.hooks.get(function)
        if hook is not None and position == hook.position:
            return Obj(hook.kind, f"`{parameter.arg}` of a hook registered with `{hook.registrar}` at line {hook.line}")
        return None


def _is_ellipsis(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis
