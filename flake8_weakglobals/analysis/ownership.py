"""Keys that only the container would keep: a weak container drops them at once, so the fix would lose them.

``rules/container_fix.py`` already refuses objects built in the fill itself (``{nn.ReLU(): 2}``). This finds the same
loss one step away, where the object is built elsewhere and handed over: by a caller, in the call that
fills the container (``register(nn.ReLU(), "relu")`` at import time, ``index(nn.Sequential(...))`` that
walks its modules); by a factory of the module, whose model a loop walks (``make_model().named_modules()``);
or by the call a hook observes (a forward hook's output, a tensor hook's gradient). Keys of a local class
with its own ``__eq__``/``__hash__`` are held strongly by the runtime, as a dict holds them: never lost.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..syntax.container_expressions import Member
from ..syntax.scopes import FUNCTIONS, FunctionNode, function_parameters, walk
from .evidence import Evidence, Obj, argument_at, text
from .fill_contents import Held
from .framework_types import ITERATION_METHODS, MODULE_HOOK_REGISTRARS
from .survey import Survey


#: Methods that always return a new tensor object, and those that return a tensor (a new one, or their
#: receiver) when called on one: ``x.detach().to(torch.float64)`` is a new object whatever ``x`` is.
_NEW_TENSOR_METHODS = frozenset({"detach", "clone"})
_TENSOR_METHODS = frozenset(
    "to float double half bfloat16 cpu cuda contiguous view reshape flatten requires_grad_ pin_memory type_as".split()
) | _NEW_TENSOR_METHODS


def _detached(node: ast.AST) -> bool:
    """``x.detach()``, ``x.clone()``, or a chain of tensor methods on one: a new tensor object, even where
    the analysis does not know ``x`` is a tensor (``model[0].weight``, an unannotated parameter)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TENSOR_METHODS:
        if node.func.attr in _NEW_TENSOR_METHODS:
            return True
        node = node.func.value
    return False


def _function_of_a_module(call: ast.expr, survey: Survey) -> bool:
    """``factory.make_layer()``: a call through an imported module's attribute, not a method of an object."""
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return False
    root = call.func.value
    return isinstance(root, ast.Name) and survey.names.is_imported(root.id)


class SoleOwner:
    """Finds, for one module, the keys that nothing but the container would refer to."""

    def __init__(self, survey: Survey, evidence: Evidence) -> None:
        self.survey = survey
        self.evidence = evidence

    def why(self, held: list[Held], role: str = "it is keyed by") -> Optional[str]:
        """The first fill whose key only the container would keep, in words, or None. ``role`` says what the
        member is to the container (WG008's fix asks about the values it stores: ``"it stores"``)."""
        for h in held:
            member, line = h.fill.member, h.fill.line
            passed = self._built_by_a_caller(member)
            if passed is not None:
                return (
                    f"{role} `{text(member.expr)}` (line {line}), from {passed} and nothing else refers to: "
                    "a weak container would drop it at once"
                )
            fresh = self._hook_built(member)
            if fresh is not None:
                return (
                    f"{role} `{text(member.expr)}` (line {line}), from {fresh}: a tensor built for the call that nothing "
                    "else keeps, which a weak container would drop once the call returns"
                )
            kept = self._registered_and_forgotten(member, h.fill.line)
            if kept is not None:
                return f"it holds `{text(member.expr)}` (line {line}), {kept}: only the container keeps it, and a weak one would drop it"
        return None

    def _registered_and_forgotten(self, member: Member, line: int) -> Optional[str]:
        """An object built for the container and handed to it to keep: the result of a call made right in the
        fill (``layers.add(make_layer())``, a factory of this module or another), a local the filling
        function builds and never uses again (``copy_ = t.detach().to(dtype)``; ``shadows.add(copy_)``), or
        a local a caller builds, registers and forgets (``local = nn.Linear(2, 2)``; ``register(local)``).
        A local that is used after the fill (a scratch model registered while it runs) keeps its object."""
        if member.shape != "item":
            return None
        key = member.expr
        if _detached(key):
            return f"the result of `{text(key)}`, a new tensor that nothing else refers to"
        if isinstance(key, ast.Call) and (not isinstance(key.func, ast.Attribute) or _function_of_a_module(key, self.survey)):
            found = self.evidence.of(key)
            if (isinstance(found, Obj) and not found.module_held) or self._fresh_copy(key) or self._local_factory(key):
                return f"the result of `{text(key)}`, which nothing else refers to"
        built = self._built_local(key, line)
        if built is not None:
            return built
        parameter = self._parameter_behind(key)
        if parameter is None or self.survey.functions.get(parameter[0].name) is not parameter[0]:
            return None
        function, name = parameter
        position = [argument.arg for argument in function_parameters(function)].index(name)
        for call in self.evidence.calls_of(function.name):
            argument = argument_at(call, name, position)
            if argument is not None and (why := self._built_local(argument, call.lineno)) is not None:
                return f"passed at line {call.lineno} as {why}"
        return None

    def _fresh_copy(self, node: ast.AST) -> bool:
        """``copy.deepcopy(x)`` / ``copy.copy(x)``: a new object whatever ``x`` is, even where its kind is
        unknown (``copy.deepcopy(model[1])``); put in a container of framework objects, only it keeps it."""
        return isinstance(node, ast.Call) and self.survey.names.qualify(node.func) in ("copy.deepcopy", "copy.copy")

    def _local_factory(self, node: ast.AST) -> bool:
        """A call to a module-level function of this module whose every ``return`` hands back an object it
        builds right there (``def make(): return nn.Linear(2, 2)``), which the evidence does not follow."""
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return False
        function = self.survey.functions.get(node.func.id)
        resolved = self.evidence.scopes.resolve(node.func.id, node)
        if function is None or resolved is None or not isinstance(resolved[0], ast.Module) or len(resolved[1]) != 1:
            return False  # not this module's function, shadowed by a local, or rebound
        returns = [n for n in walk(function) if isinstance(n, ast.Return)]
        if not returns or any(n.value is None for n in returns):
            return False
        return all(self._builds(n.value, function) for n in returns)  # type: ignore[arg-type]

    def _builds(self, expr: ast.expr, function: FunctionNode, depth: int = 0) -> bool:
        """``expr`` evaluates, in ``function``, to an object built there: one the evidence sees built, a
        copy, a detached tensor, an item of a display of built objects (``[nn.Linear(3, 4), ...][i]``), or
        a local bound once to one of those (``layer = ...; return layer``)."""
        found = self.evidence.of(expr)
        if (isinstance(found, Obj) and found.owned and not found.module_held) or self._fresh_copy(expr) or _detached(expr):
            return True
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, (ast.List, ast.Tuple)) and expr.value.elts:
            return all(self._builds(element, function, depth + 1) for element in expr.value.elts)
        if isinstance(expr, ast.Name) and depth < 4:
            resolved = self.evidence.scopes.resolve(expr.id, expr)
            if resolved is not None and resolved[0] is function and len(resolved[1]) == 1:
                binding = resolved[1][0]
                return binding.how == "value" and not binding.path and self._builds(binding.node, function, depth + 1)  # type: ignore[arg-type]
        return False

    def _built_local(self, name: ast.expr, line: int) -> Optional[str]:
        """``name`` is a local its function binds once, to an object it builds or computes, and never reads
        again after ``line``."""
        if not isinstance(name, ast.Name):
            return None
        resolved = self.evidence.scopes.resolve(name.id, name)
        if resolved is None or not isinstance(resolved[0], FUNCTIONS) or len(resolved[1]) != 1 or resolved[1][0].how != "value":
            return None
        value = resolved[1][0].node
        found = self.evidence.of(value)
        if self._fresh_copy(value) or self._local_factory(value) or _detached(value):
            found = Obj("object", f"built by `{text(value)}`", getattr(value, "lineno", 0), owned=True)
        if not isinstance(found, Obj) or not (found.owned or found.from_foreign):
            return None
        function = resolved[0]
        later = [node for node in walk(function) if isinstance(node, ast.Name) and node.id == name.id
                 and isinstance(node.ctx, ast.Load) and node.lineno > line]
        # The local holds it until its function returns: only a function that returns to a caller (one this
        # module calls) leaves the container the sole owner while the program goes on.
        called = self.evidence.calls_of(function.name) or self.evidence.calls_of(function.name, method=True)
        return None if later or not called else f"a local `{name.id}` ({found.why}) that `{function.name}` never uses again before returning"

    def _built_by_a_caller(self, member: Member) -> Optional[str]:
        """How a caller builds the key in the call itself, when the key is a parameter of a module-level
        function or of a method (``register(nn.ReLU(), "relu")``, ``registry.add(nn.GELU())`` at import
        time: the container is its only owner). Methods are matched by name, whatever the receiver."""
        parameter = self._parameter_behind(member.expr) if member.shape == "item" else None
        if parameter is None:
            return None
        for call, argument in self.arguments_passed(*parameter):
            if isinstance(argument, ast.Name):
                continue  # a local: whether anything else keeps it is ``_built_local``'s question (its later uses)
            found = self.evidence.of(argument)
            if isinstance(found, Obj) and found.owned and not self._held_by_equality(argument):
                return f"`{text(argument)}`, which the call at line {call.lineno} builds right there"
        return None

    def arguments_passed(self, function: FunctionNode, name: str) -> list[tuple[ast.Call, ast.expr]]:
        """What each call in this module passes for parameter ``name`` of ``function``, a module-level
        function or a method (matched by name, whatever the receiver; ``self`` is not passed)."""
        position = [argument.arg for argument in function_parameters(function)].index(name)
        if self.survey.functions.get(function.name) is function:  # type: ignore[attr-defined]
            calls = self.evidence.calls_of(function.name)  # type: ignore[attr-defined]
        elif function in self.survey.method_owner:
            position -= 0 if function in self.survey.unbound_methods and function not in self.survey.class_methods else 1
            calls = self.evidence.calls_of(function.name, method=True)  # type: ignore[attr-defined]
        else:
            return []
        passed = ((call, argument_at(call, name, position) if position >= 0 else None) for call in calls)
        return [(call, argument) for call, argument in passed if argument is not None]

    def _parameter_behind(self, key: ast.expr, depth: int = 0) -> Optional[tuple[FunctionNode, str]]:
        """The function parameter a key comes from: the key itself (``def register(m): X[m] = ...``) or the
        model whose modules or parameters a loop walks (``def index(model): for m in model.modules()``),
        a few loops deep."""
        resolved = self.evidence.scopes.resolve(key.id, key) if isinstance(key, ast.Name) and depth < 4 else None
        if resolved is None or len(resolved[1]) != 1:
            return None
        binding = resolved[1][0]
        if binding.how == "element":
            walked = binding.node
            owner = walked.func.value if isinstance(walked, ast.Call) and isinstance(walked.func, ast.Attribute) else None
            if owner is None or walked.func.attr not in ITERATION_METHODS:  # type: ignore[union-attr]
                return None
            return self._parameter_behind(owner, depth + 1)
        if binding.how == "parameter" and isinstance(resolved[0], FUNCTIONS):
            return resolved[0], key.id  # type: ignore[attr-defined]
        return None

    def _held_by_equality(self, built: ast.expr) -> bool:
        """``NamedBlock("decoder")`` of a local class with its own ``__eq__`` or ``__hash__``: the runtime holds
        such keys strongly, as a dict does, so nothing is dropped."""
        name = built.func.id if isinstance(built, ast.Call) and isinstance(built.func, ast.Name) else ""
        info = self.survey.classes.get(name)
        return info is not None and any({"__eq__", "__hash__"} & set(ancestor.methods) for ancestor in self.survey.lineage(info))

    def _hook_built(self, member: Member) -> Optional[str]:
        """Which hook, when the key is an argument that the call builds for a hook (a forward hook's inputs
        or output, a backward hook's gradients, a tensor hook's gradient), not the module or tensor the
        hook is registered on."""
        key = member.expr
        while isinstance(key, ast.Subscript):  # ``output[0]``, ``grad_output[0]``: an element of what the call built
            key = key.value
        if member.shape != "item" or not isinstance(key, ast.Name):
            return None
        resolved = self.evidence.scopes.resolve(key.id, key)
        hook = self.evidence.hooks.get(resolved[0]) if resolved is not None else None
        if hook is None or any(binding.how != "parameter" for binding in resolved[1]):  # type: ignore[index]
            return None
        position = [parameter.arg for parameter in function_parameters(resolved[0])].index(key.id)  # type: ignore[index,arg-type]
        module_hook = hook.registrar in MODULE_HOOK_REGISTRARS
        if (module_hook and position > hook.position) or (hook.registrar == "register_hook" and position == hook.position):
            return f"an argument of a hook registered with `{hook.registrar}` at line {hook.line}"
        return None
