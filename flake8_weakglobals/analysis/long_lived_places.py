"""Which long-lived place a reference names: a module global, a class attribute, or the state of a
module-level instance. Python's scoping rules decide (a local or parameter shadows a global; a class body
is invisible from its methods), and so do the few spellings that name a class (``cls``, ``ClassName``,
``type(self)``, ``self.__class__``) or an instance (``self`` in a method, a module-level singleton).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..syntax.scopes import FUNCTIONS, Scopes, function_parameters
from .survey import ClassInfo, Survey


@dataclass(frozen=True)
class Slot:
    """A long-lived place that holds a container: a module global, a class attribute, an instance attribute."""

    where: str  # "module", "class" or "instance"
    owner: str  # the qualified name of the class that defines it (``A.Meta``); "" for module globals
    name: str

    @property
    def display(self) -> str:
        return f"{self.owner}.{self.name}" if self.owner else self.name


class SlotResolver:
    """Resolves a ``Name`` or ``Attribute`` reference to the ``Slot`` it reads or writes, if any."""

    def __init__(self, scopes: Scopes, survey: Survey) -> None:
        self.scopes = scopes
        self.survey = survey

    def resolve(self, reference: ast.expr) -> Optional[Slot]:
        if isinstance(reference, ast.Name):
            return self._resolve_name(reference)
        assert isinstance(reference, ast.Attribute)
        instance_of = self.instance_class(reference.value)
        if instance_of is not None:
            lineage = list(self.survey.lineage(instance_of))
            for ancestor in lineage:
                if reference.attr in self.survey.instance_candidates.get(ancestor.name, ()):
                    return Slot("instance", ancestor.name, reference.attr)
            if any(reference.attr in ancestor.self_attributes for ancestor in lineage):
                return None  # an instance attribute shadows the class attribute
            return self._class_slot(instance_of, reference.attr)
        named_class = self.named_class(reference.value)
        return self._class_slot(named_class, reference.attr) if named_class is not None else None

    def _resolve_name(self, name: ast.Name) -> Optional[Slot]:
        for scope in self.scopes.chain(name):
            bindings = self.scopes.bindings(scope)
            if isinstance(scope, ast.ClassDef):
                if name.id not in bindings.names:
                    continue
                info = self.survey.class_of_node.get(scope)
                candidates = self.survey.class_candidates.get(info.name, ()) if info is not None else ()
                if info is None or name.id not in candidates:
                    return None
                statement = self.scopes.parent(name)
                declares = isinstance(statement, ast.AnnAssign) and statement.value is None
                if declares and name.id in self.survey.instance_candidates.get(info.name, ()):
                    return Slot("instance", info.name, name.id)  # ``x: WeakSet[T]`` declares ``self.x``
                return Slot("class", info.name, name.id)
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

    def instance_class(self, expr: ast.expr) -> Optional[ClassInfo]:
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

    def named_class(self, expr: ast.expr) -> Optional[ClassInfo]:
        """The class ``expr`` names: ``cls`` in a classmethod, ``ClassName``, ``Outer.Inner``, ``type(self)``,
        ``self.__class__``."""
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
            return self.instance_class(expr.args[0])
        if isinstance(expr, ast.Attribute) and expr.attr == "__class__":
            return self.instance_class(expr.value)
        if isinstance(expr, ast.Attribute):
            outer = self.named_class(expr.value)
            return self.survey.classes.get(f"{outer.name}.{expr.attr}") if outer is not None else None
        return None
