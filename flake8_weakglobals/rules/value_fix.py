"""Whether WG008's fix, a ``WeakValueMap``, may replace a map: the first reason it must not, or None.

A weak value keeps nothing alive, so the fix is safe only where every value the map is filled with is
owned by something else that outlives the entry, as a layer that registers itself (``_LAYERS[prefix] =
self``) is owned by its model. The check is positive: each value must be a reference the code already holds
(``self``, a parameter, a loop's element, a global, an attribute or item of one of those, or a local bound
to such a reference), or a constant (held strongly anyway). A value the fill builds (``Wrapper(module)``,
``t.detach()``, a tuple) would be held by the map alone and is refused, as are the ways a caller hands over
an object it keeps nowhere else (``analysis/ownership.py``, asked about values instead of keys), and a class
whose instances register themselves while this module builds one and keeps no reference to it
(``Backend("cpu")`` as a statement). A ``defaultdict`` is refused: its factory builds values that only the
map would hold.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Optional

from ..analysis.evidence import Evidence, text
from ..analysis.fill_contents import Held
from ..analysis.ownership import SoleOwner
from ..analysis.recorded_uses import Definition
from ..analysis.survey import Survey
from ..syntax.container_expressions import ContainerType, Member
from ..syntax.scopes import FUNCTIONS

_HOLDING_BINDINGS = frozenset({"parameter", "element"})  # ``def f(m)``, ``for name, m in model.named_modules()``


class ValueFixSafety:
    """The check for one module's value maps."""

    def __init__(self, survey: Survey, evidence: Evidence, sole_owner: SoleOwner) -> None:
        self.survey = survey
        self.evidence = evidence
        self.sole_owner = sole_owner

    def why_not(self, containers: list[Definition], held: list[Held]) -> Optional[str]:
        defaulted = next((d for d in containers if d.constructor and d.constructor.type is ContainerType.DEFAULT_MAP), None)
        if defaulted is not None:
            return (
                f"it is a defaultdict (line {defaulted.target.lineno}): the values its factory builds would be held "
                "by the map alone, and a weak value would drop them at once"
            )
        values = []
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
            values.append(dataclasses.replace(h, fill=dataclasses.replace(h.fill, member=Member(member.value, "item"))))
            forgotten = self._instance_built_and_forgotten(member.value)
            if forgotten is not None:
                return forgotten
        return self.sole_owner.why(values, role="it stores")

    def _not_a_reference(self, value: ast.expr, depth: int = 0) -> Optional[str]:
        """Why ``value`` is not an object the code already holds elsewhere, or None."""
        if isinstance(value, ast.Constant):
            return None
        if isinstance(value, (ast.Attribute, ast.Subscript)):
            return self._not_a_reference(value.value, depth)  # ``self.layer``, ``model[0]``: owned by the root
        if not isinstance(value, ast.Name):
            return "which the fill builds" if isinstance(value, ast.Call) else "which is no reference the code keeps elsewhere"
        resolved = self.evidence.scopes.resolve(value.id, value)
        if resolved is None or depth > 4:
            return "a name the fix cannot follow"
        scope, bindings = resolved
        if not isinstance(scope, FUNCTIONS):
            return None  # a global (or a class attribute): the module keeps it
        for binding in bindings:
            if binding.how in _HOLDING_BINDINGS:
                continue
            if binding.how == "value" and isinstance(binding.node, ast.expr) and not binding.path:
                why = self._not_a_reference(binding.node, depth + 1)
                if why is None:
                    continue
                return f"a local bound to `{text(binding.node)}` (line {binding.node.lineno})"
            return f"a local bound where the fix cannot follow it"
        return None

    def _instance_built_and_forgotten(self, value: ast.expr) -> Optional[str]:
        """``self`` stored by a method of class ``C``, while this module calls ``C(...)`` as a statement:
        that instance is kept by nothing but the map."""
        if not isinstance(value, ast.Name):
            return None
        resolved = self.evidence.scopes.resolve(value.id, value)
        owner = self.survey.method_owner.get(resolved[0]) if resolved is not None else None
        if owner is None or resolved[0] in self.survey.unbound_methods:
            return None
        parameters = [argument.arg for argument in resolved[0].args.posonlyargs + resolved[0].args.args]  # type: ignore[attr-defined]
        if parameters[:1] != [value.id]:
            return None
        classes = [info for info in self.survey.classes.values() if owner.name in {a.name for a in self.survey.lineage(info)}]
        for info in classes:
            for call in self.evidence.calls_of(info.name):
                if isinstance(self.evidence.scopes.parent(call), ast.Expr):
                    return (
                        f"it stores `{value.id}`, a `{owner.name}`, and `{text(call)}` (line {call.lineno}) builds one that "
                        "nothing else keeps: a weak value would drop it at once"
                    )
        return None
