"""Every use of a candidate container: where it is bound, filled, emptied, read by key, or handed away.

The second pass. One walk over the top-level statements whose text mentions a candidate indexes parents
and keeps the names and attributes the survey marked, plus hook registrations. Each reference is resolved
through Python's scoping rules to a ``Slot`` (``debug.module_names``, ``Registry.cache``, ``self.cache`` of a module-level instance)
and its use is sorted into what the rules and the fix need. Nothing here decides what is a framework
object: that is ``evidence``'s job, done afterwards on the recorded keys.
"""
from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass, field
from typing import Optional

from .containers import Constructor, ContainerType, Member, classify, initial_members
from .evidence import text
from .names import Names
from .scopes import FUNCTIONS, Scopes, first_line, function_parameters
from .survey import ClassInfo, Survey
from .vocabulary import MODULE_HOOK_REGISTRARS, TENSOR_HOOK_REGISTRARS


@dataclass(frozen=True)
class Slot:
    """A long-lived place that holds a container: a module global, a class attribute, an instance attribute."""

    where: str  # "module", "class" or "instance"
    owner: str  # the class that defines it; "" for module globals
    name: str

    @property
    def display(self) -> str:
        return f"{self.owner}.{self.name}" if self.owner else self.name


@dataclass(frozen=True)
class Definition:
    target: ast.expr
    value: Optional[ast.expr]  # None when the binding is not an assignment the analysis can read
    annotation: Optional[ast.expr]
    constructor: Optional[Constructor]
    top_level: bool  # in the module or class body itself, not rebound from inside a function


@dataclass(frozen=True)
class Fill:
    member: Member  # shape "update" means: pairs for maps, elements for sets and lists
    line: int
    how: str
    id_key: bool = False  # the member is the ``x`` of an ``id(x)`` key


@dataclass
class SlotUses:
    slot: Slot
    definitions: list[Definition] = field(default_factory=list)
    fills: list[Fill] = field(default_factory=list)
    subscript_reads: list[Fill] = field(default_factory=list)  # fills too, for a defaultdict
    removals: list[int] = field(default_factory=list)
    methods: list[tuple[int, str]] = field(default_factory=list)  # every ``X.method`` used, for the runtime check
    operators: list[int] = field(default_factory=list)  # ``X | Y`` and friends
    blockers: list[tuple[int, str]] = field(default_factory=list)  # uses the runtime cannot honour
    id_calls: list[ast.Call] = field(default_factory=list)  # ``id(x)`` keys, unwrapped by the id-keyed fix
    key_uses: list[tuple[int, str]] = field(default_factory=list)  # uses without ``id()`` that see keys


_SERIALIZER_PREFIXES = (
    "pickle.", "json.", "marshal.", "yaml.", "cloudpickle.", "dill.", "msgpack.", "shelve.", "orjson.",
    "ujson.", "joblib.dump", "torch.save",
)
_TYPE_CHECKS = {"builtins.isinstance", "builtins.issubclass", "builtins.type"}
_KEY_FREE_CALLS = {"builtins.len", "builtins.bool", "builtins.id", "builtins.print", "builtins.repr", "builtins.str", "builtins.format"}
_LOGGING_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
_KEY_FREE_METHODS = {"values", "clear", "__len__", "get", "__contains__", "__getitem__", "setdefault", "pop", "remove", "discard"}


@dataclass
class Collected:
    references: list[ast.expr]
    hook_calls: list[ast.Call]


_NEWLINES = re.compile(r"\r\n?|\n")  # the tokenizer's line ends (``str.splitlines`` also splits on form feeds)


def _line_starts(source: str) -> list[int]:
    """Offset of the start of each line (line 1 first), counting lines as the tokenizer does."""
    if source.count("\r") != source.count("\r\n"):  # lone carriage returns: rare, and slower to count
        return [0, *(match.end() for match in _NEWLINES.finditer(source))]
    return [0, *itertools.accumulate(len(line) + 1 for line in source.split("\n"))]


def collect(module: ast.Module, source: str, survey: Survey, scopes: Scopes) -> Collected:
    """The one full walk, of the top-level statements whose text mentions a candidate name or a hook
    registration (a reference is always spelled out in the source): candidate references, hook
    registrations, walrus targets, and imports inside functions."""
    names = survey.module_candidates.union(*survey.class_candidates.values())
    attributes = set().union(*survey.class_candidates.values(), *survey.instance_candidates.values())
    words = "|".join(re.escape(word) for word in sorted(names | attributes))
    mentions = re.compile(rf"\b(?:{words})\b|register_\w*hook" if words else r"register_\w*hook")
    starts = _line_starts(source)
    registrars = MODULE_HOOK_REGISTRARS | TENSOR_HOOK_REGISTRARS
    references: list[ast.expr] = []
    hook_calls: list[ast.Call] = []
    walruses: list[ast.NamedExpr] = []
    for statement in module.body:
        end = starts[statement.end_lineno] if statement.end_lineno < len(starts) else len(source)  # type: ignore[operator]
        if mentions.search(source, starts[first_line(statement) - 1], end) is None:
            continue
        for node in scopes.index(statement):
            kind = type(node)
            if kind is ast.Name:
                if node.id in names:  # type: ignore[attr-defined]
                    references.append(node)  # type: ignore[arg-type]
            elif kind is ast.Attribute:
                if node.attr in attributes:  # type: ignore[attr-defined]
                    references.append(node)  # type: ignore[arg-type]
            elif kind is ast.Call:
                function = node.func  # type: ignore[attr-defined]
                called = function.attr if type(function) is ast.Attribute else getattr(function, "id", None)
                if called in registrars:
                    hook_calls.append(node)  # type: ignore[arg-type]
            elif kind is ast.NamedExpr:
                walruses.append(node)  # type: ignore[arg-type]
            elif kind is ast.Import or kind is ast.ImportFrom:
                survey.names.add_import(node, module_level=False)  # type: ignore[arg-type]
    scopes.add_walruses(walruses)
    references.sort(key=lambda node: (node.lineno, node.col_offset))
    return Collected(references, hook_calls)


class UseClassifier:
    """Resolves references to slots and sorts their uses into ``SlotUses``."""

    def __init__(self, scopes: Scopes, survey: Survey) -> None:
        self.scopes = scopes
        self.survey = survey
        self.uses: dict[Slot, SlotUses] = {}

    def add(self, reference: ast.expr) -> None:
        slot = self.resolve(reference)
        if slot is not None:
            self._classify(reference, self.uses.setdefault(slot, SlotUses(slot)))

    # --- resolution --------------------------------------------------------------------------------

    def resolve(self, reference: ast.expr) -> Optional[Slot]:
        if isinstance(reference, ast.Name):
            return self._resolve_name(reference)
        assert isinstance(reference, ast.Attribute)
        instance_of = self._instance_class(reference.value)
        if instance_of is not None:
            lineage = list(self.survey.lineage(instance_of))
            for ancestor in lineage:
                if reference.attr in self.survey.instance_candidates.get(ancestor.name, ()):
                    return Slot("instance", ancestor.name, reference.attr)
            if any(reference.attr in ancestor.self_attributes for ancestor in lineage):
                return None  # an instance attribute shadows the class attribute
            return self._class_slot(instance_of, reference.attr)
        named_class = self._named_class(reference.value)
        return self._class_slot(named_class, reference.attr) if named_class is not None else None

    def _resolve_name(self, name: ast.Name) -> Optional[Slot]:
        for scope in self.scopes.chain(name):
            bindings = self.scopes.bindings(scope)
            if isinstance(scope, ast.ClassDef):
                if name.id not in bindings.names:
                    continue
                candidates = self.survey.class_candidates.get(scope.name, ())
                info = self.survey.classes.get(scope.name)
                if info is None or info.node is not scope or name.id not in candidates:
                    return None
                statement = self.scopes.parent(name)
                declares = isinstance(statement, ast.AnnAssign) and statement.value is None
                if declares and name.id in self.survey.instance_candidates.get(scope.name, ()):
                    return Slot("instance", scope.name, name.id)  # ``x: WeakSet[T]`` declares ``self.x``
                return Slot("class", scope.name, name.id)
            if isinstance(scope, ast.Module) or name.id in bindings.declared_global:
                return Slot("module", "", name.id) if name.id in self.survey.module_candidates else None
            if name.id in bindings.names:
                return None  # a local, a parameter or a comprehension variable shadows the global
        return None

    def _class_slot(self, info: ClassInfo, attribute: str) -> Optional[Slot]:
        for ancestor in self.survey.lineage(info):
            if attribute in self.survey.class_candidates.get(ancestor.name, ()):
                return Slot("class", ancestor.name, attribute)
        return None

    def _first_parameter_of(self, name: ast.Name, methods: set[ast.AST] | None) -> Optional[ClassInfo]:
        """The class whose method binds ``name`` as its first parameter (``self``, or ``cls`` if ``methods``)."""
        resolved = self.scopes.resolve(name.id, name)
        if resolved is None:
            return None
        scope, bindings = resolved
        owner = self.survey.method_owner.get(scope)
        if owner is None or not isinstance(scope, FUNCTIONS) or len(bindings) != 1:
            return None
        unbound = scope in self.survey.unbound_methods
        if (methods is None and unbound) or (methods is not None and scope not in methods):
            return None
        parameters = function_parameters(scope)
        return owner if parameters and bindings[0].node is parameters[0] else None

    def _instance_class(self, expr: ast.expr) -> Optional[ClassInfo]:
        """The class of ``expr`` when it is ``self`` in a method, or a module-level instance of a local class."""
        if not isinstance(expr, ast.Name):
            return None
        owner = self._first_parameter_of(expr, None)
        if owner is not None:
            return owner
        if expr.id in self.survey.singletons:
            resolved = self.scopes.resolve(expr.id, expr)
            if resolved is not None and resolved[0] is self.scopes.module:
                return self.survey.classes[self.survey.singletons[expr.id]]
        return None

    def _named_class(self, expr: ast.expr) -> Optional[ClassInfo]:
        """The class ``expr`` names: ``cls`` in a classmethod, ``ClassName``, ``type(self)``, ``self.__class__``."""
        if isinstance(expr, ast.Name):
            owner = self._first_parameter_of(expr, self.survey.class_methods)
            if owner is not None:
                return owner
            resolved = self.scopes.resolve(expr.id, expr)
            if resolved is not None and resolved[0] is self.scopes.module and expr.id in self.survey.classes:
                if any(isinstance(binding.node, ast.ClassDef) for binding in resolved[1]):
                    return self.survey.classes[expr.id]
            return None
        if isinstance(expr, ast.Call) and self.survey.names.qualify(expr.func) == "builtins.type" and len(expr.args) == 1:
            return self._instance_class(expr.args[0])
        if isinstance(expr, ast.Attribute) and expr.attr == "__class__":
            return self._instance_class(expr.value)
        return None

    # --- classification ----------------------------------------------------------------------------

    def _classify(self, reference: ast.expr, uses: SlotUses) -> None:
        parent = self.scopes.parent(reference)
        line = reference.lineno
        if isinstance(reference.ctx, ast.Store):  # type: ignore[attr-defined]
            self._binding(reference, parent, uses)
        elif isinstance(reference.ctx, ast.Del):  # type: ignore[attr-defined]
            uses.removals.append(line)
        elif isinstance(parent, ast.Subscript) and parent.value is reference:
            self._subscript(parent, uses)
        elif isinstance(parent, ast.Attribute) and parent.value is reference:
            self._method(parent, uses)
        elif isinstance(parent, ast.Compare) and parent.left is not reference:
            index = next(position for position, node in enumerate(parent.comparators) if node is reference)
            if isinstance(parent.ops[index], (ast.In, ast.NotIn)):
                self._key(parent.left if index == 0 else parent.comparators[index - 1], uses)
        elif isinstance(parent, ast.Call) and parent.func is not reference:
            self._argument(parent, uses, line)
        elif isinstance(parent, ast.keyword):
            self._argument(self.scopes.parent(parent), uses, line)  # type: ignore[arg-type]
        elif isinstance(parent, ast.BinOp):
            uses.operators.append(line)
            uses.key_uses.append((line, "an operator"))
        elif not isinstance(parent, (ast.Compare, ast.If, ast.While, ast.BoolOp, ast.UnaryOp, ast.Expr, ast.FormattedValue)):
            uses.key_uses.append((line, "a use that sees its keys"))  # iteration, aliasing, returning...

    def _binding(self, target: ast.expr, parent: ast.AST, uses: SlotUses) -> None:
        top_level = isinstance(next(self.scopes.chain(target)), (ast.Module, ast.ClassDef))
        if isinstance(parent, ast.AugAssign):
            how = f"`{text(parent)}`"
            uses.fills.extend(Fill(member, target.lineno, how) for member in _update_members(parent.value, self.survey.names))
            return
        value: Optional[ast.expr] = None
        annotation = parent.annotation if isinstance(parent, ast.AnnAssign) else None
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            value = parent.value
        elif isinstance(parent, (ast.Tuple, ast.List)):  # ``a, b = {}, {}``
            statement = self.scopes.parent(parent)
            source = getattr(statement, "value", None)
            if isinstance(source, (ast.Tuple, ast.List)) and len(source.elts) == len(parent.elts):
                value = source.elts[next(i for i, node in enumerate(parent.elts) if node is target)]
        constructor = classify(value, self.survey.names)
        if isinstance(parent, ast.AnnAssign) and value is None:
            constructor = classify(ast.Constant(None), self.survey.names)
        uses.definitions.append(Definition(target, value, annotation, constructor, top_level))

    def _subscript(self, subscript: ast.Subscript, uses: SlotUses) -> None:
        key, line = subscript.slice, subscript.lineno
        statement = self.scopes.parent(subscript)
        if isinstance(subscript.ctx, ast.Del):
            uses.removals.append(line)
        value = getattr(statement, "value", None) if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        fill = self._keyed_fill(key, value, line, "`X[key] = value`")
        if isinstance(subscript.ctx, ast.Store):
            uses.fills.append(fill)
        elif isinstance(subscript.ctx, ast.Load):
            stored = Member(fill.member.expr, "item", self._stored_into(subscript))
            uses.subscript_reads.append(Fill(stored, line, "`X[key]` on a defaultdict", fill.id_key))
        self._key(key, uses)

    def _stored_into(self, entry: ast.Subscript) -> Optional[ast.expr]:
        """What ``X[k][i] = v`` or ``X[k].append(v)`` stores in the entry of ``k``: ``v``."""
        parent = self.scopes.parent(entry)
        if isinstance(parent, ast.Subscript) and parent.value is entry and isinstance(parent.ctx, ast.Store):
            statement = self.scopes.parent(parent)
            return statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        call = self.scopes.parent(parent) if isinstance(parent, ast.Attribute) else None
        if isinstance(call, ast.Call) and call.func is parent and call.args:
            return call.args[-1]
        return None

    def _method(self, attribute: ast.Attribute, uses: SlotUses) -> None:
        method, line = attribute.attr, attribute.lineno
        uses.methods.append((line, method))
        call = self.scopes.parent(attribute)
        if not (isinstance(call, ast.Call) and call.func is attribute):
            uses.key_uses.append((line, f"`.{method}`"))
            return
        arguments = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
        if method in ("pop", "popitem", "clear", "remove", "discard", "popleft"):
            uses.removals.append(line)
        if method == "popitem" and (call.args or call.keywords):
            uses.blockers.append((line, "`.popitem()` takes arguments here, which the runtime's does not"))
        if method not in _KEY_FREE_METHODS:
            uses.key_uses.append((line, f"`.{method}()`"))
        if method == "setdefault" and arguments:
            value = arguments[1] if len(arguments) > 1 else None
            uses.fills.append(self._keyed_fill(arguments[0], value, line, "`X.setdefault(...)`"))
        elif method == "update":
            members = [member for argument in arguments for member in _update_members(argument, self.survey.names)]
            uses.fills.extend(Fill(member, line, "`X.update(...)`") for member in members)
        elif method in ("add", "append", "appendleft") and arguments:
            uses.fills.append(Fill(Member(arguments[0], "item"), line, f"`X.{method}(...)`"))
        elif method == "insert" and len(arguments) > 1:
            uses.fills.append(Fill(Member(arguments[1], "item"), line, "`X.insert(...)`"))
        elif method in ("extend", "extendleft") and arguments:
            uses.fills.append(Fill(Member(arguments[0], "iterable"), line, f"`X.{method}(...)`"))
        if method in ("get", "pop", "setdefault", "remove", "discard", "__contains__", "__getitem__") and arguments:
            self._key(arguments[0], uses)

    def _keyed_fill(self, key: ast.expr, value: Optional[ast.expr], line: int, how: str) -> Fill:
        inner = id_argument(key, self.survey.names)
        if inner is not None:
            return Fill(Member(inner, "item", value), line, how.replace("key", "id(key)"), id_key=True)
        return Fill(Member(key, "item", value), line, how)

    def _key(self, key: ast.expr, uses: SlotUses) -> None:
        """A use that takes a key: ``id(x)`` keys can be unwrapped by the id-keyed fix, others cannot."""
        if id_argument(key, self.survey.names) is not None:
            uses.id_calls.append(key)  # type: ignore[arg-type]
        else:
            uses.key_uses.append((key.lineno, f"the key `{text(key)}`"))

    def _argument(self, call: ast.Call, uses: SlotUses, line: int) -> None:
        callee = call.func
        qualified = self.survey.names.qualify(callee) or ""
        if qualified in _TYPE_CHECKS:
            uses.blockers.append((line, f"its type is checked with `{text(callee)}()`"))
        elif qualified.startswith(_SERIALIZER_PREFIXES):
            uses.blockers.append((line, f"it is serialized with `{text(callee)}()`"))
        elif qualified == "builtins.reversed":
            uses.blockers.append((line, "it is passed to `reversed()`, which the runtime does not support"))
        elif qualified in _KEY_FREE_CALLS or (isinstance(callee, ast.Attribute) and callee.attr in _LOGGING_METHODS):
            return
        elif qualified.startswith(("builtins.", "copy.")) or self._is_local_callable(callee):
            uses.key_uses.append((line, f"`{text(callee)}()`"))
        else:
            uses.blockers.append((line, f"it is passed to `{text(callee)}()`, which may need a plain container"))

    def _is_local_callable(self, callee: ast.expr) -> bool:
        """A function or class of this module (or a method of ``self``): it speaks the mapping protocol."""
        if isinstance(callee, ast.Name):
            resolved = self.scopes.resolve(callee.id, callee)
            return resolved is not None and all(
                isinstance(binding.node, (*FUNCTIONS, ast.ClassDef)) for binding in resolved[1]
            )
        return isinstance(callee, ast.Attribute) and self._instance_class(callee.value) is not None


def id_argument(key: ast.expr, names: Names) -> Optional[ast.expr]:
    """``x`` when ``key`` is ``id(x)`` (the builtin), else None."""
    if (
        isinstance(key, ast.Call)
        and len(key.args) == 1
        and not key.keywords
        and not isinstance(key.args[0], ast.Starred)
        and names.qualify(key.func) == "builtins.id"
    ):
        return key.args[0]
    return None


def _update_members(argument: ast.expr, names: Names) -> list[Member]:
    """``X.update(a)`` / ``X |= a``: what a display, comprehension or constructor holds, else ``a`` itself."""
    constructor = classify(argument, names)
    if constructor is not None and constructor.type is not ContainerType.PLACEHOLDER:
        return initial_members(constructor)
    return [Member(argument, "update")]
