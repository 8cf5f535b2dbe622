"""The container passed to a call: whether the callee only reads it, or where it may escape.

Part of the use classification (``uses.py``): builtins and methods known to read a mapping or an iterable
are fine; type checks, serializers, deep copies and unbound ``dict`` methods need a real container; and a
function or method of this module is followed into, as the parameter that receives the container, up to
``_FOLLOW_DEPTH`` calls deep. Anything else is a blocker, with the reason in words.
"""
from __future__ import annotations

import ast
import weakref
from dataclasses import replace
from typing import Callable, Optional

from ..syntax.scopes import FUNCTIONS, FunctionNode, Scopes, function_parameters, walk
from .evidence import text
from .framework_types import TENSOR_SEQUENCE_CALLS
from .long_lived_places import SlotResolver
from ..syntax.container_expressions import ContainerType, Member, root_name
from .recorded_uses import Fill, SlotUses
from .survey import Survey

SERIALIZER_PREFIXES = (
    "pickle.", "json.", "marshal.", "yaml.", "cloudpickle.", "dill.", "msgpack.", "shelve.", "orjson.",
    "ujson.", "joblib.dump", "torch.save",
)
_TYPE_CHECKS = {"builtins.isinstance", "builtins.issubclass"}
#: Abstract types the runtime's containers are registered as: checking against them still passes.
_ABSTRACT_TYPES = frozenset(
    f"{module}.{name}"
    for module in ("collections.abc", "typing")
    for name in "Mapping MutableMapping Set AbstractSet MutableSet Iterable Collection Container Sized".split()
)
_GENERIC = {"Iterable", "Collection", "Container", "Sized"}
#: The abstract types (of ``_ABSTRACT_TYPES``) every instance of a builtin container is an instance of.
_COVERED_BY = {
    **dict.fromkeys(("builtins.dict", "collections.OrderedDict", "collections.defaultdict"), {"Mapping", "MutableMapping", *_GENERIC}),
    **dict.fromkeys(("builtins.set",), {"Set", "AbstractSet", "MutableSet", *_GENERIC}),
    **dict.fromkeys(("builtins.list", "collections.deque", "builtins.tuple"), _GENERIC),
}
_KEY_FREE_CALLS = {"builtins.len", "builtins.bool", "builtins.id", "builtins.print", "builtins.repr", "builtins.str", "builtins.format"}
#: Builtins that only iterate their argument or read it as a mapping: any iterable or mapping will do.
READING_CALLS = frozenset(
    f"builtins.{name}"
    for name in "list tuple set frozenset dict sorted reversed iter enumerate zip sum any all min max map filter".split()
) | {
    # a view over it or a copy of its items, through the mapping or iteration protocol alone
    "collections.ChainMap", "collections.Counter", "heapq.nlargest", "heapq.nsmallest",
    # iterate their arguments and nothing more
    *(f"itertools.{name}" for name in (
        "chain chain.from_iterable islice zip_longest product accumulate compress dropwhile takewhile "
        "filterfalse starmap groupby pairwise tee combinations permutations cycle batched").split()),
    # a binary search reads a sequence by ``len`` and index alone
    "bisect.bisect", "bisect.bisect_left", "bisect.bisect_right",
    # a new dict of its keys, by iteration alone
    "builtins.dict.fromkeys",
}  # not ``copy.copy``: it returns the runtime's container, whose uses ``uses.py`` follows
#: Binary-search inserts: they read the sequence as a search does and fill it with their second argument
#: through its ``insert`` method, which the runtime's list provides.
_INSERTING_CALLS = frozenset({"bisect.insort", "bisect.insort_left", "bisect.insort_right"})
#: Methods of another object that read their argument as an iterable or a mapping (``other.update(X)``).
_READING_METHODS = frozenset(
    "update extend union intersection difference symmetric_difference issubset issuperset isdisjoint "
    "difference_update intersection_update symmetric_difference_update join".split()
)
_LOGGING_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
#: Unbound methods of the builtin containers: ``dict.get(X, k)`` needs a real dict.
_UNBOUND_METHOD_PREFIXES = ("builtins.dict.", "builtins.set.", "collections.OrderedDict.", "collections.defaultdict.")
#: How deep the check follows a container passed from one function of the module to another.
_FOLLOW_DEPTH = 4


class Passing:
    """Judges each call that receives a container; ``classify`` is the classifier's own entry point, for the
    references to the parameter it follows the container into."""

    def __init__(
        self, scopes: Scopes, survey: Survey, slots: SlotResolver, classify: weakref.WeakMethod[Callable[[ast.expr, SlotUses], None]]
    ) -> None:
        self.scopes = scopes
        self.survey = survey
        self.slots = slots
        self.classify = classify
        self.following: list[tuple[ast.AST, str]] = []  # (function, parameter) being followed, outermost first

    def argument(self, call: ast.Call, node: ast.expr, uses: SlotUses, line: int) -> None:
        """The container passed to a call: fine where the callee only reads a mapping or an iterable."""
        callee = call.func
        qualified = self.survey.names.qualify(callee) or ""
        where = self.where()
        if qualified in _TYPE_CHECKS:
            checked = call.args[1] if len(call.args) > 1 and call.args[0] is node else None
            if checked is None or not self._abstract(checked):
                uses.blockers.append((line, f"{where}its type is checked with `{text(call)}`"))
        elif qualified == "builtins.type":
            uses.blockers.append((line, f"{where}its type is read with `{text(call)}`"))
        elif qualified.startswith(SERIALIZER_PREFIXES):
            uses.blockers.append((line, f"{where}it is serialized with `{text(callee)}()`"))
        elif qualified == "copy.deepcopy":
            uses.blockers.append((line, f"{where}it is deep-copied: the copy would hold new objects (its keys, or its values) that only the copy refers to"))
        elif qualified.startswith(_UNBOUND_METHOD_PREFIXES) and qualified not in READING_CALLS:
            uses.blockers.append((line, f"{where}`{text(callee)}()` is called on it, which needs a real {qualified.split('.')[-2]}"))
        elif qualified in _KEY_FREE_CALLS or (isinstance(callee, ast.Attribute) and (callee.attr in _LOGGING_METHODS or _string_format(callee))):
            if qualified not in ("builtins.len", "builtins.bool", "builtins.id"):
                uses.printed.append(line)
        elif qualified in _INSERTING_CALLS and call.args[:1] == [node] and len(call.args) >= 2 and not isinstance(call.args[1], ast.Starred):
            uses.fills.append(Fill(Member(call.args[1], "item"), line, f"`{text(callee)}(X, ...)`"))
        elif qualified in READING_CALLS or (isinstance(callee, ast.Attribute) and (callee.attr in _READING_METHODS or _format_map(callee))):
            uses.key_uses.append((line, f"`{text(callee)}()`"))
        else:
            if qualified in TENSOR_SEQUENCE_CALLS and call.args[:1] == [node]:
                uses.tensor_sequences.append((line, text(callee)))
            self._follow(call, node, uses, line)

    def deep_copied(self, group: ast.expr) -> bool:
        """``copy.deepcopy((model, X))``: the copy is keyed by copies of objects that the copied group holds."""
        call = self.scopes.parent(group)
        return (
            isinstance(call, ast.Call)
            and call.args[:1] == [group]
            and self.survey.names.qualify(call.func) == "copy.deepcopy"
        )

    def _abstract(self, checked: ast.expr) -> bool:
        """``Mapping``, ``collections.abc.MutableSet``, or a tuple of such and builtins each of them covers
        (``(dict, Mapping)``): the runtime's containers are the abstract types of what they replace, so the
        check answers as before. A builtin no abstract type in the tuple covers (``(dict, Set)``) decides."""
        parts = self._checked_types(checked)
        abstract = self._abstract_names(checked)
        return bool(abstract) and all(part in _ABSTRACT_TYPES or abstract & _COVERED_BY.get(part, set()) for part in parts)

    def _checked_types(self, checked: ast.expr) -> list[str]:
        """The qualified names a type check names, alone or in a tuple."""
        return [self.survey.names.qualify(part) or "" for part in (checked.elts if isinstance(checked, ast.Tuple) else [checked])]

    def _abstract_names(self, checked: ast.expr) -> set[str]:
        """The abstract types (``Mapping``, ``Iterable``...) a check names, alone or in a tuple."""
        return {part.rpartition(".")[2] for part in self._checked_types(checked) if part in _ABSTRACT_TYPES}

    # --- following the container into the module's own functions ------------------------------------

    def _follow(self, call: ast.Call, node: ast.expr, uses: SlotUses, line: int) -> None:
        """Check what a function of this module does with the parameter that receives the container."""
        callee = call.func
        target = self._local_function(callee)
        if target is None:
            self._filled_elsewhere(call, node, uses, line)
            uses.blockers.append((line, f"{self.where()}it is passed to `{text(callee)}()`, which may need a plain container"))
            return
        function, skipped = target
        dispatcher = next((name for decorator in function.decorator_list if (name := self.survey.names.qualify(decorator)) in _DISPATCHERS), None)
        if dispatcher is not None:
            uses.blockers.append((line, f"{self.where()}it is passed to `{text(callee)}()`, a `{dispatcher}` function, which picks "
                                        "what runs by its argument's type, and the replacement is not the built-in type"))
            return
        parameter = _receiving_parameter(call, node, function, skipped)
        if parameter is None:
            uses.blockers.append((line, f"{self.where()}it is passed to `{text(callee)}()` in a way the fix cannot follow"))
            return
        key = (function, parameter.arg)
        if key in self.following:
            return  # recursion: this parameter's uses are being checked already
        if len(self.following) >= _FOLLOW_DEPTH:
            uses.blockers.append((line, f"{self.where()}it is passed down more than {_FOLLOW_DEPTH} functions deep"))
            return
        self.following.append(key)
        made = len(uses.fills)
        try:
            unreached = self._ruled_out(function, parameter.arg, uses)
            for reference in self.references_in(function, parameter.arg):
                if not any(statement.lineno <= reference.lineno <= (statement.end_lineno or statement.lineno) for statement in unreached):
                    self.classify()(reference, uses)  # type: ignore[misc]
        finally:
            self.following.pop()
        # the fills made in there, with the call that binds the function's parameters (the innermost one)
        uses.fills[made:] = [fill if fill.handed_by else replace(fill, handed_by=(call, skipped, function)) for fill in uses.fills[made:]]

    def _filled_elsewhere(self, call: ast.Call, node: ast.expr, uses: SlotUses, line: int) -> None:
        """``get_w2_permute_indices_with_cache(_CACHE, w, 128)``, a function of another project module that
        stores what it builds into the container it is handed at that position: a fill, of what the project
        index says it stores."""
        if node not in call.args or any(isinstance(argument, ast.Starred) for argument in call.args):
            return
        qualified = self.survey.names.qualify(call.func) if self.survey.names.is_imported(root_name(call.func)) else None
        stored = self.survey.imported.filled_kind(qualified, call.args.index(node)) if qualified else None
        if stored is not None:
            uses.fills.append(Fill(Member(node, "item", node), line, f"`{text(call.func)}(X, ...)`", stored_elsewhere=stored))

    def _ruled_out(self, function: FunctionNode, name: str, uses: SlotUses) -> list[ast.stmt]:
        """The statements of ``function`` the container never reaches as ``name``: after a top-level ``if
        isinstance(name, (dict, Mapping)):`` whose body always leaves (``return``, ``raise``), and in its
        ``else``. The check is true of the container before the fix and after it (one of its abstract types
        is one the container's kind is), so what only the other values reach (``float(table)`` for a number
        given instead of a map) is no use of the container."""
        kinds = {definition.constructor.type for definition in uses.definitions if definition.constructor is not None}
        builtin = {ContainerType.MAP: "builtins.dict", ContainerType.DEFAULT_MAP: "builtins.dict", ContainerType.SET: "builtins.set",
                   ContainerType.SEQUENCE: "builtins.list"}.get(next(iter(kinds))) if len(kinds) == 1 else None
        if builtin is None:
            return []
        body = function.body
        for index, statement in enumerate(body):
            test = statement.test if isinstance(statement, ast.If) else None
            if (
                isinstance(test, ast.Call) and self.survey.names.qualify(test.func) == "builtins.isinstance"
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == name
                and self._abstract(test.args[1]) and isinstance(statement.body[-1], (ast.Return, ast.Raise))  # type: ignore[union-attr]
                and _COVERED_BY[builtin] & self._abstract_names(test.args[1])
            ):
                return [*statement.orelse, *body[index + 1 :]]  # type: ignore[union-attr]
        return []

    def _local_function(self, callee: ast.expr) -> Optional[tuple[FunctionNode, int]]:
        """The function of this module that ``callee`` calls, and how many parameters the call skips
        (``self`` for a method through ``self.f``, for a class's ``__init__``)."""
        if isinstance(callee, ast.Name):
            resolved = self.scopes.resolve(callee.id, callee)
            if resolved is None or len(resolved[1]) != 1:
                return None
            definition = resolved[1][0].node
            if resolved[1][0].how == "def" and isinstance(definition, FUNCTIONS):
                return definition, 0
            info = self.survey.class_of_node.get(definition) if isinstance(definition, ast.ClassDef) else None
            initializer = info.methods.get("__init__") if info is not None else None
            return (initializer, 1) if initializer is not None else None
        if isinstance(callee, ast.Attribute):
            owner = self.slots.instance_class(callee.value)
            for ancestor in self.survey.lineage(owner) if owner is not None else ():
                method = ancestor.methods.get(callee.attr)
                if method is not None:
                    return method, 0 if method in self.survey.unbound_methods else 1
        return None

    def references_in(self, function: FunctionNode, name: str) -> list[ast.Name]:
        """Every reference to ``function``'s own ``name`` (a parameter, a local) inside it, not shadowed in
        a nested scope."""
        found = []
        for node in walk(function):
            if isinstance(node, ast.Name) and node.id == name:
                resolved = self.scopes.resolve(node.id, node)
                if resolved is not None and resolved[0] is function:
                    found.append(node)
        return sorted(found, key=lambda node: (node.lineno, node.col_offset))

    def where(self) -> str:
        """``in `helper()`, `` while following the container into a function of the module."""
        if not self.following:
            return ""
        function, parameter = self.following[-1]
        return f"in `{function.name}()`, where it is `{parameter}`, "  # type: ignore[attr-defined]


#: Decorators that make a function choose its implementation by its first argument's type.
_DISPATCHERS = frozenset({"functools.singledispatch", "functools.singledispatchmethod"})


def _string_format(callee: ast.Attribute) -> bool:
    """``"names: {}".format(X)``: prints ``X`` as ``str()`` does."""
    return callee.attr == "format" and isinstance(callee.value, ast.Constant) and isinstance(callee.value.value, str)


def _format_map(callee: ast.Attribute) -> bool:
    """``"{n}".format_map(X)``: looks names up in ``X`` with ``[]``, which any mapping answers."""
    return callee.attr == "format_map" and isinstance(callee.value, ast.Constant) and isinstance(callee.value.value, str)


def _receiving_parameter(call: ast.Call, node: ast.expr, function: FunctionNode, skipped: int) -> Optional[ast.arg]:
    """The parameter of ``function`` that receives ``node`` in ``call``; None when it cannot be told."""
    parameters = function_parameters(function)
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return None
        if argument is node:
            index = position + skipped
            positional = len(function.args.posonlyargs) + len(function.args.args)
            return parameters[index] if index < positional else None
    for keyword in call.keywords:
        if keyword.value is node and keyword.arg is not None:
            return next((parameter for parameter in parameters if parameter.arg == keyword.arg), None)
    return None
