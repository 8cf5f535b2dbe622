"""WG010: a hook that stashes what it sees, registered on a module the caller owns, with its handle dropped.

``model.layer.register_forward_hook(self._hook)`` puts the bound method, and with it ``self``, in the
layer's own hook table. When ``model`` was handed in by the caller (a parameter, or an attribute assigned
one), the caller's model now keeps this object alive for as long as the model lives, with everything the
hook stores on it (``self.activations[name] = output``: the last batch's activations and their autograd
graph). With the handle dropped nothing can take the hook off again, so wrapping the same model twice
stacks the hooks and keeps both wrappers. The same holds for a closure over ``self`` that a method makes
(``mod.register_forward_hook(self.forward_hook(name))``) or a nested function that uses ``self``.

A hook on a module the object builds itself, or on ``self``, is no pin: the module and the object go
together. A hook that stores nothing on ``self`` keeps the object but not what it sees, and is left alone.
Found from one module's text: only classes whose text names a hook registration are walked.
"""
from __future__ import annotations

import ast
from typing import Callable, Iterator, Optional

from ..analysis.evidence import Evidence, Obj, text
from ..analysis.framework_types import MODULE
from ..analysis.survey import ClassInfo, Survey
from ..syntax.mentions import Mentions
from ..syntax.scopes import FUNCTIONS, FunctionNode, function_parameters, returned_function, walk
from .findings import Evidence as Proof, Finding

#: The rule page of WG010 (``docs.py`` gathers it with the other families').
DOCS: dict[str, str] = {
    "WG010": """\
*A hook that stores what it sees on its object, registered on a module the caller handed in, with the
handle the registration returns dropped.*

- **Why it matters**: the module keeps the hook in its own hook table, and the hook (a bound method, or a
  closure over `self`) keeps the object, so the caller's model keeps the object alive for as long as the
  model lives, with what the hook stores on it: the last batch's activations or gradients, with their
  autograd graph. With the handle gone nothing can remove the hook, and each new wrapper of the same model
  adds one more.
- **Example**: `layer.register_forward_hook(self._hook)` in a wrapper whose `_hook` does
  `self.embedding = output`, with `layer` taken from the model passed to `__init__`.
- **Fix**: none automatic. Keep the handle (`self._handle = layer.register_forward_hook(...)`) and call
  `self._handle.remove()` when the object is done (a `close()`, `__exit__` or `__del__`), or register a hook
  that holds the object weakly (`weakref.WeakMethod`).
- **Fix safety**: not applicable.
- **Known false positives**: a wrapper meant to live exactly as long as the model it instruments (it is then
  an intended pin). A hook on a module the object builds itself, or on the object itself, is not reported:
  they are collected together.
""",
}


def judge_kept_hooks(survey: Survey, evidence_of: Callable[[], Evidence], registrars: frozenset[str], mentions: Mentions) -> list[Finding]:
    """WG010 for every registration, in an instance method, of a hook that holds ``self`` and stores on it,
    on a module handed in from outside, whose handle is dropped (a statement of its own). ``evidence_of``
    builds the module's evidence, asked for only once a registration qualifies."""
    if "_hook" not in mentions.source or any(table in mentions.source for table in _HOOK_TABLES):
        return []  # every registrar's name has "_hook": one scan of the text skips most modules
    lines = mentions.lines(_REGISTRATION)  # led by a literal, so one quick search for all of them
    if not lines:
        return []
    found = []
    for info in survey.classes.values():
        if not Mentions.within(lines, info.node):
            continue
        for method in info.methods.values():
            if method in survey.unbound_methods or not function_parameters(method) or not Mentions.within(lines, method):
                continue
            for call in _dropped_registrations(method, registrars):
                finding = _judge(call, method, info, survey, evidence_of)
                if finding is not None:
                    found.append(finding)
    return found


#: A call of any registrar (``register_forward_hook(``, ``register_module_full_backward_hook (``): which one
#: is checked on the call itself.
_REGISTRATION = r"register_\w*hook\s*\("
#: A module that touches a module's hook tables directly can take a hook off without its handle.
_HOOK_TABLES = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


def _dropped_registrations(method: FunctionNode, registrars: frozenset[str]) -> Iterator[ast.Call]:
    """``x.register_forward_hook(h)`` as a statement of its own: the handle it returns is dropped."""
    for node in walk(method):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if isinstance(call.func, ast.Attribute) and call.func.attr in registrars and (call.args or call.keywords):
                yield call


def _judge(call: ast.Call, method: FunctionNode, info: ClassInfo, survey: Survey, evidence_of: Callable[[], Evidence]) -> Optional[Finding]:
    me = function_parameters(method)[0].arg
    hook = written = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "hook"), None)
    if isinstance(hook, ast.Call) and survey.names.qualify(hook.func) == "functools.partial" and hook.args:
        hook = hook.args[0]  # ``partial(self._hook, name)`` runs ``self._hook``
    held = _hook_holding_self(hook, me, method, info, survey) if hook is not None else None
    if held is None:
        return None
    function, receiver = held
    stored = _first_store_on(function, receiver)
    if stored is None:
        return None  # keeps the object, but stashes nothing of what it sees
    module = call.func.value  # type: ignore[attr-defined]
    handed = _handed_in(module, method, info, survey, depth=0)
    if handed is None:
        return None
    kind = evidence_of().of(module)
    if not (isinstance(kind, Obj) and kind.kind == MODULE):
        return None
    spelled = f"{text(call.func)}({text(written)})"
    stash = f"`{text(stored)}`, line {stored.lineno}"
    return Finding(
        code="WG010",
        line=call.lineno,
        col=call.col_offset,
        name=_hook_name(hook, info, method),
        kind="hook",
        scope="instance",
        holds=(MODULE,),
        evidence=Proof(handed[1], handed[0]),
        message=(
            f"WG010 `{spelled}` drops its handle: `{text(module)}`, handed in ({handed[0]} at line {handed[1]}), "
            f"keeps this `{info.name}` and what the hook stores ({stash}) for as long as it lives"
        ),
        fix_reason="keep the handle and remove the hook when the object is done, or hold the object weakly in the hook",
    )


def _hook_name(hook: ast.expr, info: ClassInfo, method: FunctionNode) -> str:
    """What the finding names: the method the hook is, or that makes it (``Wrapper._hook``,
    ``ModelWithHooks.forward_hook``), else the method that registers it."""
    target = hook.func if isinstance(hook, ast.Call) else hook
    if isinstance(target, ast.Attribute):
        return f"{info.name}.{target.attr}"
    return f"{info.name}.{method.name}"


def _hook_holding_self(
    hook: ast.expr, me: str, method: FunctionNode, info: ClassInfo, survey: Survey
) -> Optional[tuple[FunctionNode | ast.Lambda, str]]:
    """The function a hook runs and the name ``self`` has inside it, when the hook holds ``self``: a bound
    method (``self._hook``), a closure a method of the class returns
    (``self.forward_hook(name)``), or a nested function or lambda of ``method`` that uses ``self``."""
    if isinstance(hook, ast.Attribute) and isinstance(hook.value, ast.Name) and hook.value.id == me:
        bound = _instance_method(info, hook.attr, survey)
        return (bound, function_parameters(bound)[0].arg) if bound is not None else None
    if isinstance(hook, ast.Call) and isinstance(hook.func, ast.Attribute) and isinstance(hook.func.value, ast.Name) and hook.func.value.id == me:
        factory = _instance_method(info, hook.func.attr, survey)
        closure = returned_function(factory) if factory is not None else None
        return (closure, function_parameters(factory)[0].arg) if closure is not None else None  # type: ignore[arg-type]
    if isinstance(hook, ast.Lambda):
        return hook, me
    if isinstance(hook, ast.Name):
        nested = [s for s in walk(method) if isinstance(s, FUNCTIONS) and s is not method and s.name == hook.id]
        return (nested[0], me) if len(nested) == 1 else None
    return None


def _instance_method(info: ClassInfo, name: str, survey: Survey) -> Optional[FunctionNode]:
    for cls in survey.lineage(info):
        if name in cls.methods:
            found = cls.methods[name]
            return found if found not in survey.unbound_methods and function_parameters(found) else None
    return None


def _first_store_on(function: FunctionNode | ast.Lambda, receiver: str) -> Optional[ast.expr]:
    """The first ``receiver.X = v`` or ``receiver.X[k] = v`` in the hook where ``v`` is computed from what the
    hook is handed after the module (its input, output or gradients): what it stashes of what it sees. A
    counter or a timestamp (``self.calls += 1``, ``self._start = time.time()``) keeps nothing of the model's."""
    parameters = [p.arg for p in function_parameters(function)]  # type: ignore[arg-type]
    if parameters and parameters[0] == receiver:
        parameters = parameters[1:]  # a bound method: ``self``, then what the module hands it
    seen = set(parameters[1:])  # after the module itself
    for node in walk(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(part, ast.Name) and part.id in seen for part in walk(node.value)):
                continue
            for target in targets:
                root = target.value if isinstance(target, ast.Subscript) else target
                if isinstance(root, ast.Attribute) and isinstance(root.value, ast.Name) and root.value.id == receiver:
                    return target
    return None


def _handed_in(expr: ast.expr, method: FunctionNode, info: ClassInfo, survey: Survey, depth: int) -> Optional[tuple[str, int]]:
    """Where ``expr`` (the hooked module) comes from outside the object, in words with its line: a parameter
    of a method other than ``self``, reached through iteration (``named_modules()``), indexing, ``list(...)``,
    a local, or an attribute of ``self`` that a method assigns a parameter. None for a module the object
    builds itself, or ``self``."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Subscript):
        return _handed_in(expr.value, method, info, survey, depth + 1)
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute):  # ``model.named_modules()``, ``model.get_submodule(name)``
            return _handed_in(expr.func.value, method, info, survey, depth + 1)
        if survey.names.qualify(expr.func) in ("builtins.list", "builtins.dict", "builtins.tuple", "builtins.iter") and expr.args:
            return _handed_in(expr.args[0], method, info, survey, depth + 1)
        return None
    parameters = function_parameters(method)
    me = parameters[0].arg
    if isinstance(expr, ast.Attribute):
        if isinstance(expr.value, ast.Name) and expr.value.id == me:
            for cls in survey.lineage(info):
                for other in (m for m in cls.methods.values() if m not in survey.unbound_methods and function_parameters(m)):
                    for value in _assigned_to(other, function_parameters(other)[0].arg, expr.attr):
                        found = _handed_in(value, other, info, survey, depth + 1)
                        if found is not None:
                            return found
            return None
        return _handed_in(expr.value, method, info, survey, depth + 1)
    if not isinstance(expr, ast.Name) or expr.id == me:
        return None
    for parameter in parameters[1:]:
        if parameter.arg == expr.id:
            return f"parameter `{parameter.arg}` of `{method.name}`", parameter.lineno
    for node in walk(method):
        if isinstance(node, (ast.For, ast.comprehension)) and any(isinstance(t, ast.Name) and t.id == expr.id for t in walk(node.target)):
            return _handed_in(node.iter, method, info, survey, depth + 1)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets):
            return _handed_in(node.value, method, info, survey, depth + 1)
    return None


def _assigned_to(method: FunctionNode, receiver: str, attribute: str) -> Iterator[ast.expr]:
    for node in walk(method):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == attribute and isinstance(t.value, ast.Name) and t.value.id == receiver
            for t in node.targets
        ):
            yield node.value
