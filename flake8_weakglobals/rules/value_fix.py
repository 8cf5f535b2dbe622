"""Whether WG008's fix, a ``WeakValueMap``, may replace a map: the first reason it must not, or None.

A weak value keeps nothing alive, and a lookup by name needs no reference to the object, so the fix is
safe only where every value the map is filled with is owned by something else for as long as it is looked
up, as a layer that registers itself (``_LAYERS[prefix] = self``) is owned by its model. That is a question
about the whole program, so the codemod makes this fix only with ``--unsafe-fixes`` (``rules/codes.py``),
and even then refuses what it can see is wrong. The check is positive: each value must be a reference the
code already holds:

- ``self``, an attribute or an item of a reference (``self.proj``, ``model[0]``), but not a read that builds
  a new object each time (``t.data``, ``t.T``, a slice, an item of a tensor);
- a parameter, whose callers in this module must pass references too (``register("scaled", base * 2)``
  hands over a tensor nothing else keeps);
- an element of a loop over a reference's own members (``model.named_modules()``) or over a parameter
  (whose callers must pass a reference, not ``[nn.Linear(2, 2) for _ in range(3)]``);
- a global bound once and never rebound through ``global`` (which would hold only the latest value);
- a local bound once to one of those; or a constant (held strongly anyway).

Also refused: an instance that registers itself while the module builds one it keeps nowhere (a bare
``Backend("cpu")``, a temporary ``Block("x")(inputs)``, a factory's ``cls(name)`` whose result is dropped),
a memo that builds the object only when the map has none (``_by_name.get(k) or cls(k)``: the map is meant
to own it), a caller that builds the object in the call (``analysis/ownership.py``, asked about values),
a ``defaultdict`` (its factory's values would be the map's alone), and pairs it cannot see.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Iterator, Optional

from ..analysis.evidence import Evidence, Obj, text
from ..analysis.fill_contents import Held
from ..analysis.framework_types import BOUND_METHOD, ITERATION_METHODS, PARAMETER, TENSOR
from ..analysis.ownership import SoleOwner
from ..analysis.recorded_uses import Definition, SlotUses
from ..analysis.survey import ClassInfo, Survey
from ..syntax.container_expressions import ContainerType, Member
from ..syntax.scopes import FUNCTIONS, FunctionNode, function_parameters, walk

#: Reads that make a new tensor object each time: only the map would keep what they return.
_NEW_OBJECT_ATTRIBUTES = frozenset("data T mT H mH real imag".split())
#: Iterating a reference through these walks what it holds (``model.named_modules()``, ``registry.items()``).
_MEMBER_WALKS = frozenset(ITERATION_METHODS) | {"items", "values", "named_buffers", "buffers"}
_WRAPPING_ITERATORS = frozenset({"enumerate", "reversed", "list", "tuple", "sorted"})


def stored_values(held: list[Held]) -> list[Held]:
    """Each fill of a value map as the value it stores (``X[name] = layer``: ``layer``), the object a weak
    value map holds weakly."""
    return [
        dataclasses.replace(h, fill=dataclasses.replace(h.fill, member=Member(h.fill.member.value, "item")))
        for h in held if h.fill.member.value is not None
    ]


class ValueFixSafety:
    """The check for one module's value maps."""

    def __init__(self, survey: Survey, evidence: Evidence, sole_owner: SoleOwner) -> None:
        self.survey = survey
        self.evidence = evidence
        self.sole_owner = sole_owner

    def why_not(self, uses: SlotUses, containers: list[Definition], held: list[Held]) -> Optional[str]:
        defaulted = next((d for d in containers if d.constructor and d.constructor.type is ContainerType.DEFAULT_MAP), None)
        if defaulted is not None:
            return (
                f"it is a defaultdict (line {defaulted.target.lineno}): the values its factory builds would be held "
                "by the map alone, and a weak value would drop them at once"
            )
        for h in held:
            member = h.fill.member
            if member.shape != "item":
                return (
                    f"it is filled with `{text(member.expr)}` (line {h.fill.line}), whose values the fix cannot see: "
                    "a weak value would drop any that only the map keeps"
                )
            if member.value is None:
                continue
            if isinstance(member.value, (ast.Tuple, ast.List, ast.Dict, ast.Set)):
                return (
                    f"it stores them inside `{text(member.value)}` (line {h.fill.line}), which a weak map holds strongly: "
                    "a tuple, list or dict cannot be weakly referenced, so the fix would pin them still"
                )
            built = self._not_a_reference(member.value)
            if built is not None:
                return (
                    f"it stores `{text(member.value)}` (line {h.fill.line}), {built}: only the map would keep it, "
                    "and a weak value would drop it"
                )
            handed = self._handed_over(member.value)
            if handed is not None:
                return f"it stores `{text(member.value)}` (line {h.fill.line}), {handed}: only the map would keep it"
            forgotten = self._instance_built_and_forgotten(uses, member.value)
            if forgotten is not None:
                return forgotten
        return self.sole_owner.why(stored_values(held), role="it stores")

    # --- what a value is ----------------------------------------------------------------------------

    def _not_a_reference(self, value: ast.expr, depth: int = 0) -> Optional[str]:
        """Why ``value`` is not an object the code already holds elsewhere, or None."""
        if isinstance(value, ast.Constant):
            return None
        if depth > 4:
            return "which the fix cannot follow"
        if isinstance(value, ast.Attribute):
            if value.attr in _NEW_OBJECT_ATTRIBUTES:
                return f"a new tensor on every read of `.{value.attr}`"
            bound = self.evidence.of(value)
            if isinstance(bound, Obj) and bound.kind == BOUND_METHOD:
                return f"a new bound method on every read of `.{value.attr}`"
            return self._not_a_reference(value.value, depth + 1)  # ``self.layer``: owned by the root
        if isinstance(value, ast.Subscript):
            slices = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            if any(isinstance(part, ast.Slice) for part in slices):
                return "a slice, a new object"
            found = self.evidence.of(value.value)
            if isinstance(found, Obj) and found.kind in (TENSOR, PARAMETER):
                return "an item of a tensor, a new tensor on every read"
            return self._not_a_reference(value.value, depth + 1)  # ``model[0]``, ``self.layers[i]``
        if not isinstance(value, ast.Name):
            return "which the fill builds" if isinstance(value, ast.Call) else "which is no reference the code keeps elsewhere"
        resolved = self.evidence.scopes.resolve(value.id, value)
        if resolved is None:
            return "a name the fix cannot follow"
        scope, bindings = resolved
        if not isinstance(scope, FUNCTIONS):
            return self._not_a_kept_global(value.id, bindings) if scope is self.evidence.scopes.module else None
        for binding in bindings:
            if binding.how == "parameter":
                continue  # its callers: ``_handed_over``
            if binding.how == "element":
                why = self._not_a_walk_of_a_reference(binding.node, depth)  # type: ignore[arg-type]
                if why is not None:
                    return f"an element of `{text(binding.node)}`, {why}"
                continue
            if binding.how == "value" and isinstance(binding.node, ast.expr) and not binding.path:
                if self._not_a_reference(binding.node, depth + 1) is not None:
                    return f"a local bound to `{text(binding.node)}` (line {binding.node.lineno})"
                continue
            return "a local bound where the fix cannot follow it"
        return None

    def _not_a_walk_of_a_reference(self, iterable: ast.expr, depth: int) -> Optional[str]:
        """A loop's iterable must walk a reference's own members (``model.named_modules()``), or a reference
        itself (a parameter's list), possibly through ``enumerate``/``zip``."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip":
            reasons = (self._not_a_walk_of_a_reference(argument, depth) for argument in iterable.args)
            return next((reason for reason in reasons if reason is not None), None)
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in _WRAPPING_ITERATORS:
            return self._not_a_walk_of_a_reference(iterable.args[0], depth) if iterable.args else "which is empty"
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and iterable.func.attr in _MEMBER_WALKS:
            return self._not_a_reference(iterable.func.value, depth + 1)
        if isinstance(iterable, (ast.Name, ast.Attribute, ast.Subscript)):
            return self._not_a_reference(iterable, depth + 1)
        if isinstance(iterable, (ast.List, ast.Tuple)):
            reasons = (self._not_a_reference(element, depth + 1) for element in iterable.elts)
            return next((reason for reason in reasons if reason is not None), None)
        return "which makes new objects as it goes" if isinstance(iterable, ast.Call) else "which the fix cannot follow"

    def _not_a_kept_global(self, name: str, bindings: list) -> Optional[str]:
        """A global keeps its object only if it is bound once and never rebound (``global latest``)."""
        if len(bindings) != 1 or bindings[0].how != "value":
            return "a global bound more than once, which keeps only its latest object"
        for node in walk(self.evidence.scopes.module):
            if isinstance(node, ast.Global) and name in node.names:
                return f"a global rebound through `global {name}` (line {node.lineno}), which keeps only its latest object"
        return None

    # --- who hands the value over ---------------------------------------------------------------------

    def _handed_over(self, value: ast.expr) -> Optional[str]:
        """A value that comes from a parameter (itself, or the elements of a list it walks), where a call in
        this module passes something that is no reference: a new object that nothing else keeps."""
        traced = self._parameter_behind(value)
        if traced is None:
            return None
        for call, argument in self.sole_owner.arguments_passed(*traced):
            why = self._not_a_reference(argument) if not isinstance(argument, (ast.List, ast.Tuple)) else self._not_a_walk_of_a_reference(argument, 0)
            if why is not None and not self._kept_by_the_caller(argument, call):
                return f"and `{text(call)}` (line {call.lineno}) passes `{text(argument)}`, {why}"
        return None

    def _kept_by_the_caller(self, argument: ast.expr, call: ast.Call) -> bool:
        """``model[1]`` or ``model``, where ``model`` is a local of the calling function that it reads again
        after the call: the caller keeps the object while it goes on (``model = build(); index(model)``)."""
        root = argument
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            if isinstance(root, ast.Attribute) and root.attr in _NEW_OBJECT_ATTRIBUTES:
                return False  # ``t.data``: a new tensor, whoever keeps ``t``
            if isinstance(root, ast.Subscript):
                found = self.evidence.of(root.value)
                if isinstance(root.slice, ast.Slice) or (isinstance(found, Obj) and found.kind in (TENSOR, PARAMETER)):
                    return False  # ``seq[1:]``, ``t[0]``: new objects
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        resolved = self.evidence.scopes.resolve(root.id, root)
        if resolved is None or not isinstance(resolved[0], FUNCTIONS):
            return False
        return any(
            isinstance(node, ast.Name) and node.id == root.id and isinstance(node.ctx, ast.Load) and node.lineno > call.lineno
            for node in walk(resolved[0])
        )

    def _parameter_behind(self, value: ast.expr, depth: int = 0) -> Optional[tuple[FunctionNode, str]]:
        """The parameter a value is (``def register(name, m)``), or whose elements it walks (``for i, layer
        in enumerate(layers)``), or None."""
        if not isinstance(value, ast.Name) or depth > 3:
            return None
        resolved = self.evidence.scopes.resolve(value.id, value)
        if resolved is None or not isinstance(resolved[0], FUNCTIONS) or len(resolved[1]) != 1:
            return None
        binding = resolved[1][0]
        if binding.how == "parameter":
            return resolved[0], value.id  # type: ignore[return-value]
        if binding.how == "element":
            iterable = binding.node
            while isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in _WRAPPING_ITERATORS | {"zip"} and iterable.args:
                iterable = next((a for a in iterable.args if isinstance(a, ast.Name) and self._parameter_behind(a, depth + 1)), iterable.args[0])
            return self._parameter_behind(iterable, depth + 1) if isinstance(iterable, ast.Name) else None  # type: ignore[arg-type]
        return None

    # --- instances that register themselves -------------------------------------------------------------

    def _instance_built_and_forgotten(self, uses: SlotUses, value: ast.expr) -> Optional[str]:
        """``self`` stored by a method of class ``C``, where this module builds a ``C`` (or a subclass, or
        through ``cls(...)``/``type(self)(...)``, or through a factory that returns one) and drops the result:
        a bare statement, a temporary (``C(x)(inputs)``), or a memo that builds one only when the map has none."""
        owner = self._self_of(value)
        if owner is None:
            return None
        classes = [info for info in self.survey.classes.values() if owner.name in {a.name for a in self.survey.lineage(info)}]
        constructions = list(self._constructions(classes))
        factories = {self._enclosing(call).name for call in constructions if self._returned(call)}  # type: ignore[union-attr]
        for call in constructions + [c for name in factories for c in self.evidence.calls_of(name, method=True) + self.evidence.calls_of(name)]:
            parent = self.evidence.scopes.parent(call)
            dropped = isinstance(parent, ast.Expr) or (isinstance(parent, ast.Call) and parent.func is call) or (
                isinstance(parent, ast.Attribute) and parent.value is call
            )
            if dropped:
                return (
                    f"it stores `{value.id}`, an instance of `{owner.name}`, and `{text(call)}` (line {call.lineno}) builds one that "  # type: ignore[attr-defined]
                    "nothing else keeps: a weak value would drop it at once"
                )
            if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.Or) and uses.slot.name in text(parent.values[0]):
                return (
                    f"it is a memo: `{text(parent)}` (line {parent.lineno}) builds a `{owner.name}` only when the map has "
                    "none, so the map is what keeps it"
                )
        return None

    def _self_of(self, value: ast.expr) -> Optional[ClassInfo]:
        """The class whose instance ``value`` is, when it is ``self`` of one of its methods."""
        if not isinstance(value, ast.Name):
            return None
        resolved = self.evidence.scopes.resolve(value.id, value)
        owner = self.survey.method_owner.get(resolved[0]) if resolved is not None else None
        if owner is None or resolved[0] in self.survey.unbound_methods or resolved[0] in self.survey.class_methods:  # type: ignore[index]
            return None
        parameters = function_parameters(resolved[0])  # type: ignore[index,arg-type]
        return owner if parameters and parameters[0].arg == value.id else None

    def _constructions(self, classes: list[ClassInfo]) -> Iterator[ast.Call]:
        """Calls that build one of ``classes``: by name, or as ``cls(...)`` / ``type(self)(...)`` in their methods."""
        names = {info.name for info in classes}
        for info in classes:
            for call in self.evidence.calls_of(info.name):
                yield call
        methods = {method for info in classes for method in info.methods.values()}
        for method in methods:
            parameters = function_parameters(method)
            first = parameters[0].arg if parameters else None
            for node in walk(method):
                if not isinstance(node, ast.Call):
                    continue
                by_cls = isinstance(node.func, ast.Name) and node.func.id == first and method in self.survey.class_methods
                by_type = isinstance(node.func, ast.Call) and isinstance(node.func.func, ast.Name) and node.func.func.id == "type"
                if (by_cls or by_type) and not (isinstance(node.func, ast.Name) and node.func.id in names):
                    yield node

    def _enclosing(self, node: ast.AST) -> Optional[FunctionNode]:
        scope = next(self.evidence.scopes.chain(node))
        return scope if isinstance(scope, FUNCTIONS) else None  # type: ignore[return-value]

    def _returned(self, call: ast.Call) -> bool:
        return isinstance(self.evidence.scopes.parent(call), ast.Return) and self._enclosing(call) is not None
