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

A module-level function does the same with state of its own: a local the hook closes over (``state["out"]
= output``), one a ``partial`` binds (``partial(record, debug_state, name)``), or a hook object it builds
from a class of the module (``tool = HookTool()``, then ``m.register_forward_hook(tool.hook_fun)``), on a
module its caller hands it (not in a program, whose model is its own). The module may be reached through a helper function
handed it (``get_layer(self.model, name)``) or through attributes (``model.blocks[0].attn``): only modules
have these registrars.
Found from one module's text: only classes and functions whose text names a hook registration are walked.
"""
from __future__ import annotations

import ast
from typing import Callable, Iterator, Optional

from ..analysis.evidence import Evidence, Obj, argument_at, text
from ..analysis.fill_contents import plain_data
from ..analysis.framework_types import MODULE
from ..analysis.survey import ClassInfo, Survey
from ..syntax.mentions import Mentions
from ..syntax.qualified_names import Names
from ..syntax.scopes import FUNCTIONS, FunctionNode, function_parameters, own_returns, returned_function, walk
from .findings import Evidence as Proof, Finding

#: The rule page of WG010 (``docs.py`` gathers it with the other families').
DOCS: dict[str, str] = {
    "WG010": """\
*A hook that stores what it sees on its object, registered on a module the caller handed in, with the
handle the registration returns dropped; or one registered, handle dropped, on every call of a `forward`
or `__call__`, on any module.*

- **Why it matters**: the module keeps the hook in its own hook table, and the hook (a bound method, or a
  closure over `self`) keeps the object, so the caller's model keeps the object alive for as long as the
  model lives, with what the hook stores on it: the last batch's activations or gradients, with their
  autograd graph. With the handle gone nothing can remove the hook, and each new wrapper of the same model
  adds one more. Registered on every call, the hooks pile up on the module, one more per call, each with
  what it stored.
- **Example**: `layer.register_forward_hook(self._hook)` in a wrapper whose `_hook` does
  `self.embedding = output` (or `self.features.append(output)`), with `layer` taken from the model passed
  to `__init__` (directly, or through the object's own methods: `layer = self._find_layer()`, a child of
  `self.net`, layers taken through `enumerate(self.blocks[:-1])`), and the handle dropped or bound to a
  local nothing reads; a function `attach(model)` whose nested hook does `state["out"] = output` into a dict
  of its own, or that builds a hook object per layer (`tool = HookTool()`) and registers its bound method
  (`m.register_forward_hook(tool.hook_fun)`) or the object itself (through `__call__`), which stores
  `self.fea = output.detach()`; a `forward` that does `self.norm.register_forward_hook(hook_fn)` with a
  nested `hook_fn` that keeps the norm's input in a list of the call's own.
- **Fix**: none automatic. Keep the handle (`self._handle = layer.register_forward_hook(...)`) and call
  `self._handle.remove()` when the object is done (a `close()`, `__exit__` or `__del__`), or register a hook
  that holds the object weakly (`weakref.WeakMethod`). In a `forward`, remove the hook before it returns, or
  register it once, in `__init__`.
- **Fix safety**: not applicable.
- **Known false positives**: a wrapper meant to live exactly as long as the model it instruments (it is then
  an intended pin). A hook on a module the object builds itself, or on the object itself, is not reported
  (they are collected together) unless it is registered on every call; nor is one registered under a test
  (`if not self.hooked:`), or on a tensor (its hooks go with it); nor one that stores only sizes, counts or
  what a callable handed in returns (`self.hw = input[0].shape[-2:]`, `out = hook_fn(m, i, o)`).
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
                if finding is None and method.name in _RUN_ON_EVERY_USE and _on_every_call(method, call):
                    finding = _judge_every_call(call, method, info, survey, evidence_of)
                if finding is not None:
                    found.append(finding)
    for function in () if survey.runs_as_script else survey.functions.values():  # a program's model is its own
        if Mentions.within(lines, function):
            found.extend(filter(None, (_judge_closure(call, function, survey, evidence_of) for call in _dropped_registrations(function, registrars))))
    return found


#: A call of any registrar (``register_forward_hook(``, ``register_module_full_backward_hook (``): which one
#: is checked on the call itself.
_REGISTRATION = r"register_\w*hook\s*\("
#: A module that touches a module's hook tables directly can take a hook off without its handle.
_HOOK_TABLES = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
#: The methods an object runs on every use (a model's ``forward``, a callable's ``__call__``): a hook they
#: register with its handle dropped is one more hook on each run.
_RUN_ON_EVERY_USE = frozenset({"forward", "__call__"})


def _dropped_registrations(method: FunctionNode, registrars: frozenset[str]) -> Iterator[ast.Call]:
    """``x.register_forward_hook(h)`` as a statement of its own, or bound to a local the function never
    reads (``handle = layer.register_forward_hook(h)``): the handle it returns is dropped."""
    read: Optional[set[str]] = None
    for node in walk(method):
        if isinstance(node, ast.Expr):
            call = node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if read is None:
                read = {name.id for name in walk(method) if isinstance(name, ast.Name) and not isinstance(name.ctx, ast.Store)}
                read |= {name for statement in walk(method) if isinstance(statement, (ast.Global, ast.Nonlocal)) for name in statement.names}
            call = node.value if node.targets[0].id not in read else None
        else:
            continue
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in registrars and (call.args or call.keywords):
            yield call


def _judge(call: ast.Call, method: FunctionNode, info: ClassInfo, survey: Survey, evidence_of: Callable[[], Evidence]) -> Optional[Finding]:
    me = function_parameters(method)[0].arg
    written, hook, _ = _hook_of(call, survey)
    held = _hook_holding_self(hook, me, method, info, survey) if hook is not None else None
    if held is None:
        return None
    function, receiver = held
    stored = _first_store_on(function, receiver, survey.names)
    if stored is None:
        return None  # keeps the object, but stashes nothing of what it sees
    module = call.func.value  # type: ignore[attr-defined]
    handed = _handed_in(module, method, info, survey, depth=0)
    if handed is None:
        return None
    if not _a_module(module, evidence_of):
        return None
    return _finding(
        call, written, _hook_name(hook, info, method), "instance", Proof(handed[1], handed[0]),
        _kept_by_the_caller(call, handed, f"this `{info.name}` and what the hook stores (`{text(stored)}`, line {stored.lineno})"),
        "keep the handle and remove the hook when the object is done, or hold the object weakly in the hook",
    )


def _judge_every_call(call: ast.Call, method: FunctionNode, info: ClassInfo, survey: Survey, evidence_of: Callable[[], Evidence]) -> Optional[Finding]:
    """WG010 for a registration that runs on every call of ``forward`` or ``__call__``, on any module, one
    the object builds itself included (sweep 18: DiffSynth-Studio's text encoder hooks its own norm in
    ``forward``): each run adds one more hook to the module's table, which keeps them all for as long as
    the module lives, each with what it stored, on the object or in a local of the call it closes over."""
    written, hook, bound = _hook_of(call, survey)
    if hook is None:
        return None
    held = _hook_holding_self(hook, function_parameters(method)[0].arg, method, info, survey)
    stored = _first_store_on(*held, survey.names) if held is not None else None
    nested = _nested_named(method, hook.id) if isinstance(hook, ast.Name) else []
    if stored is None and len(nested) == 1:
        stored = _first_store_in_state(nested[0], method, bound, survey.names)
    module = call.func.value  # type: ignore[attr-defined]
    if stored is None or not _a_module(module, evidence_of):
        return None
    return _finding(
        call, written, _hook_name(hook, info, method), "instance", Proof(stored.lineno, f"the hook stores `{text(stored)}`"),
        f"`{method.name}` adds one more hook to `{text(module)}` on every call, and it keeps them all, with what "
        f"they store (`{text(stored)}`, line {stored.lineno}), for as long as it lives",
        "keep the handle and remove the hook before the call returns, or register it once, in `__init__`",
    )


def _hook_of(call: ast.Call, survey: Survey) -> tuple[Optional[ast.expr], Optional[ast.expr], list[ast.expr]]:
    """The hook a registration passes, as written; what it runs (``partial(self._hook, name)`` runs
    ``self._hook``); and what a ``partial`` binds before what the module hands it."""
    written = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "hook"), None)
    if isinstance(written, ast.Call) and survey.names.qualify(written.func) == "functools.partial" and written.args:
        return written, written.args[0], written.args[1:]
    return written, written, []


def _on_every_call(method: FunctionNode, call: ast.Call) -> bool:
    """Whether the registration runs whenever the method does: a statement of its body, or of a loop or
    ``with`` block in it, never one under a test (``if not self.hooked:``) or in a handler."""

    def reaches(statements: list[ast.stmt]) -> bool:
        for statement in statements:
            if isinstance(statement, ast.Expr) and statement.value is call:
                return True
            if isinstance(statement, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)) and reaches(statement.body):
                return True
        return False

    return reaches(method.body)


def _judge_closure(call: ast.Call, function: FunctionNode, survey: Survey, evidence_of: Callable[[], Evidence]) -> Optional[Finding]:
    """WG010 for a module-level function that hooks the caller's module with a hook keeping what it sees in
    state of the function's own: a local the hook closes over (``_state["out"] = output``), one a
    ``partial`` binds (``partial(save, debug_state, name)``), or a hook object it builds (``tool =
    HookTool()``, ``tool.hook_fun``). The caller's model keeps the hook, the hook
    keeps that state, and with the handle dropped nothing takes them off."""
    _, hook, bound = _hook_of(call, survey)
    made = _hook_object(hook, function, survey, evidence_of)
    if made is not None:  # ``tool = HookTool()``, then ``m.register_forward_hook(tool.hook_fun)``
        stored, name = _first_store_on(made[0], function_parameters(made[0])[0].arg, survey.names), made[1]
    else:
        found = _function_named(hook, function, survey) if isinstance(hook, ast.Name) else None
        if found is None or isinstance(found, ast.Lambda):
            return None
        stored, name = _first_store_in_state(found, function, bound, survey.names), found.name
    if stored is None:
        return None
    module = call.func.value  # type: ignore[attr-defined]
    handed = _handed_in(module, function, None, survey, depth=0)
    if handed is None or not _a_module(module, evidence_of) or _built_by_every_caller(function, handed[2], survey, evidence_of):
        return None
    return _finding(
        call, call.args[0] if call.args else hook, name, "function", Proof(handed[1], handed[0]),
        _kept_by_the_caller(call, handed, f"the hook `{name}` and what it stores (`{text(stored)}`, line {stored.lineno})"),
        "keep the handle and remove the hook when the work is done",
    )


def _hook_object(
    hook: Optional[ast.expr], function: FunctionNode, survey: Survey, evidence_of: Callable[[], Evidence]
) -> Optional[tuple[FunctionNode, str]]:
    """The method a hook runs when it is an object the function builds from a class of this module, and
    that method's name: ``tool.hook_fun`` or ``saver`` (its ``__call__``), with every binding of the local
    a call of that class (``tool = HookTool()``). The object is then state of the hook's own, on which the
    method stores what it sees."""
    local, method = (hook.value, hook.attr) if isinstance(hook, ast.Attribute) else (hook, "__call__")
    if not isinstance(local, ast.Name):
        return None
    bindings = evidence_of().scopes.bindings(function).names.get(local.id, [])
    classes = {b.node.func.id for b in bindings if b.how == "value" and isinstance(b.node, ast.Call) and isinstance(b.node.func, ast.Name)}
    if not bindings or not all(b.how == "value" and not b.path and isinstance(b.node, ast.Call) for b in bindings):
        return None
    if len(classes) != 1 or (cls := classes.pop()) not in survey.classes:
        return None
    found = _instance_method(survey.classes[cls], method, survey)
    return (found, f"{cls}.{method}") if found is not None else None


def _kept_by_the_caller(call: ast.Call, handed: tuple[str, int, str], kept: str) -> str:
    """What a registration on a module handed in keeps, and where the module came from."""
    return f"`{text(call.func.value)}`, handed in ({handed[0]} at line {handed[1]}), keeps {kept} for as long as it lives"  # type: ignore[attr-defined]


def _finding(call: ast.Call, written: ast.expr, name: str, scope: str, evidence: Proof, consequence: str, fix_reason: str) -> Finding:
    """The WG010 finding at a registration: what it spells, and what keeping the hook keeps."""
    return Finding(
        code="WG010",
        line=call.lineno,
        col=call.col_offset,
        name=name,
        kind="hook",
        scope=scope,
        holds=(MODULE,),
        evidence=evidence,
        message=f"WG010 `{text(call.func)}({text(written)})` drops its handle: {consequence}",
        fix_reason=fix_reason,
    )


def _built_by_every_caller(function: FunctionNode, parameter: str, survey: Survey, evidence_of: Callable[[], Evidence]) -> bool:
    """Whether a private function's callers, all in this module, each hand it a model they build themselves
    (OLMo-core's ``hf_model = AutoModelForCausalLM.from_pretrained(...)``, then ``del hf_model``): the hook
    goes with that local, not with a model of whoever called them."""
    if not function.name.startswith("_"):
        return False
    position = next(i for i, p in enumerate(function_parameters(function)) if p.arg == parameter)
    calls = evidence_of().calls_of(function.name)
    arguments = [argument_at(call, parameter, position) for call in calls]
    found = [evidence_of().of(argument) if argument is not None else None for argument in arguments]
    return bool(calls) and all(isinstance(value, Obj) and value.kind == MODULE and (value.built or value.owned) and not value.from_foreign for value in found)


def _a_module(receiver: ast.expr, evidence_of: Callable[[], Evidence]) -> bool:
    """Whether the hooked object is a module: the evidence says so, or says nothing of an attribute the
    registration reaches (``model.blocks[0].attn.register_forward_hook``): only modules have these methods,
    and the evidence reads that only off a name."""
    kind = evidence_of().of(receiver)
    if isinstance(kind, Obj):
        return kind.kind == MODULE
    return kind is None and isinstance(receiver, (ast.Attribute, ast.Subscript))


def _function_named(name: ast.Name, function: FunctionNode, survey: Survey) -> Optional[FunctionNode]:
    """The ``def`` a hook's name refers to: one nested in ``function``, else a module-level one."""
    nested = _nested_named(function, name.id)
    if len(nested) == 1:
        return nested[0]
    return survey.functions.get(name.id) if not nested else None


def _nested_named(function: FunctionNode, name: str) -> list[FunctionNode]:
    """The functions nested in ``function`` (at any depth) that are defined as ``name``."""
    return [inner for inner in walk(function) if isinstance(inner, FUNCTIONS) and inner is not function and inner.name == name]


def _first_store_in_state(hook: FunctionNode, function: FunctionNode, bound: list[ast.expr], names: Names) -> Optional[ast.expr]:
    """The first ``state[k] = v`` (or ``state.append(v)``) in the hook where ``v`` is computed from what the
    module hands it, and ``state`` is a local of ``function`` the hook closes over, or a parameter a
    ``partial`` binds to one of ``function``'s names (``bound``): state that lives with the hook."""
    parameters = [p.arg for p in function_parameters(hook)]
    given = parameters[: len(bound)]
    seen = set(parameters[len(bound) + 1:])  # after what ``partial`` binds and the module itself
    if bound:
        owned = {p for p, value in zip(given, bound) if isinstance(value, ast.Name) and value.id in _assigned(function)}
    elif any(inner is hook for inner in walk(function)):
        owned = _assigned(function) - _assigned(hook) - set(parameters)
    else:
        return None  # a module-level hook's state is the module's: WG008 and WG002 judge its containers
    seen |= _computed_from(hook, seen, names)
    for node in walk(hook):
        container, value = _stored_into(node)
        if container is None or not isinstance(container.value if isinstance(container, ast.Subscript) else container, ast.Name):
            continue
        root = container.value if isinstance(container, ast.Subscript) else container
        if root.id in owned and any(isinstance(part, ast.Name) and part.id in seen for part in walk(value)):  # type: ignore[union-attr, arg-type]
            return container
    return None


def _computed_from(hook: FunctionNode | ast.Lambda, seen: set[str], names: Names) -> set[str]:
    """The hook's locals computed from what it is handed (``x = args[0].detach()``), in statement order; a
    size or a count (``n = args[0].shape[0]``) keeps nothing of it, and what a callable handed in returns
    (``out = hook_fn(module, input, output)``, ``hook_fn`` neither imported nor the module's own) nothing
    shows: timm's statistics hooks return floats."""
    found: set[str] = set()
    for node in walk(hook):
        if not isinstance(node, ast.Assign) or plain_data(node.value, names) or _handed_callable(node.value, names):
            continue
        if any(type(part) is ast.Name and part.id in seen | found for part in walk(node.value)):  # type: ignore[attr-defined]
            found.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return found


def _handed_callable(value: ast.expr, names: Names) -> bool:
    """``hook_fn(...)``: a call of a bare name that is neither imported, a builtin, nor defined in the module."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and names.qualify(value.func) is None and not names.defines(value.func.id)


def _assigned(function: FunctionNode) -> set[str]:
    """The names assigned anywhere in ``function``, its nested functions included."""
    return {node.id for node in walk(function) if type(node) is ast.Name and type(node.ctx) is ast.Store}  # type: ignore[attr-defined]


def _stored_into(node: ast.AST) -> tuple[Optional[ast.expr], Optional[ast.expr]]:
    """``X[k] = v`` (the subscript and ``v``), ``X.append(v)`` (``X`` and ``v``), else nothing."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        return node.targets[0], node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" and len(node.args) == 1:
        return node.func.value, node.args[0]
    return None, None


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
        nested = _nested_named(method, hook.id)
        return (nested[0], me) if len(nested) == 1 else None
    return None


def _instance_method(info: ClassInfo, name: str, survey: Survey) -> Optional[FunctionNode]:
    for cls in survey.lineage(info):
        if name in cls.methods:
            found = cls.methods[name]
            return found if found not in survey.unbound_methods and function_parameters(found) else None
    return None


def _first_store_on(function: FunctionNode | ast.Lambda, receiver: str, names: Names) -> Optional[ast.expr]:
    """The first ``receiver.X = v``, ``receiver.X[k] = v`` or ``receiver.X.append(v)`` in the hook where
    ``v`` is computed from what the hook is handed after the module (its input, output or gradients),
    directly or through its locals (``patches = input[0]``): what it stashes of what it sees. A counter, a
    timestamp or a size (``self.calls += 1``, ``self._start = time.time()``, ``self.hw = x.shape[-2:]``)
    keeps nothing of the model's."""
    parameters = [p.arg for p in function_parameters(function)]  # type: ignore[arg-type]
    if parameters and parameters[0] == receiver:
        parameters = parameters[1:]  # a bound method: ``self``, then what the module hands it
    seen = set(parameters[1:])  # after the module itself
    seen |= _computed_from(function, seen, names)
    for node in walk(function):
        if isinstance(node, ast.Call) and (stored := _stored_into(node))[0] is not None:
            targets, value = [stored[0]], stored[1]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets, value = (node.targets if isinstance(node, ast.Assign) else [node.target]), node.value
        else:
            continue
        if plain_data(value, names) or not any(isinstance(part, ast.Name) and part.id in seen for part in walk(value)):  # type: ignore[arg-type]
            continue
        for target in targets:
            root = target.value if isinstance(target, ast.Subscript) else target
            if isinstance(root, ast.Attribute) and isinstance(root.value, ast.Name) and root.value.id == receiver:
                return target
    return None


def _handed_in(expr: ast.expr, method: FunctionNode, info: Optional[ClassInfo], survey: Survey, depth: int) -> Optional[tuple[str, int, str]]:
    """Where ``expr`` (the hooked module) comes from outside the object, in words with its line: a parameter
    of a method other than ``self``, reached through iteration (``named_modules()``), indexing, ``list(...)``,
    a local, or an attribute of ``self`` that a method assigns a parameter. None for a module the object
    builds itself, or ``self``. For a plain function (``info`` None) every parameter is handed in."""
    if depth > 10:  # a chain of locals, calls and attributes; a cycle of locals ends here
        return None
    if isinstance(expr, ast.Subscript):
        return _handed_in(expr.value, method, info, survey, depth + 1)
    if isinstance(expr, (ast.List, ast.Tuple)):  # ``[*self.net.children()]``
        parts = (element.value if isinstance(element, ast.Starred) else element for element in expr.elts)
        return next((found for part in parts if (found := _handed_in(part, method, info, survey, depth + 1)) is not None), None)
    if isinstance(expr, ast.Call):
        own = _own_method_called(expr, method, info, survey)
        if own is not None:  # ``layer = self._find_layer()``: what the method returns, where it comes from
            returned = (statement.value for statement in own_returns(own) if statement.value is not None)
            return next((found for value in returned if (found := _handed_in(value, own, info, survey, depth + 1)) is not None), None)
        if isinstance(expr.func, ast.Attribute):  # ``model.named_modules()``, ``model.get_submodule(name)``
            return _handed_in(expr.func.value, method, info, survey, depth + 1)
        if survey.names.qualify(expr.func) in _PASSED_THROUGH and expr.args:
            return _handed_in(expr.args[0], method, info, survey, depth + 1)
        if isinstance(expr.func, ast.Name) and expr.args and _a_function(expr.func, survey):
            return _handed_in(expr.args[0], method, info, survey, depth + 1)  # ``get_layer(self.model, name)``
        return None
    parameters = function_parameters(method)
    me = parameters[0].arg if info is not None and parameters else None
    if isinstance(expr, ast.Attribute):
        if info is not None and isinstance(expr.value, ast.Name) and expr.value.id == me:
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
    for parameter in parameters[1 if info is not None else 0:]:
        if parameter.arg == expr.id:
            return f"parameter `{parameter.arg}` of `{method.name}`", parameter.lineno, parameter.arg
    loops = [node for node in walk(method) if isinstance(node, (ast.For, ast.comprehension)) and any(isinstance(t, ast.Name) and t.id == expr.id for t in walk(node.target))]
    around = [loop for loop in loops if any(inner is expr for inner in walk(loop))]  # the loop the use is in, first
    for node in around + [node for node in walk(method) if node not in around]:
        if node in loops:
            return _handed_in(node.iter, method, info, survey, depth + 1)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets):
            return _handed_in(node.value, method, info, survey, depth + 1)
    return None


#: Builtins whose result yields the elements of their first argument (``enumerate(blocks[:-1])``).
_PASSED_THROUGH = frozenset(f"builtins.{name}" for name in ("list", "dict", "tuple", "iter", "enumerate", "reversed", "sorted"))


def _own_method_called(call: ast.Call, method: FunctionNode, info: Optional[ClassInfo], survey: Survey) -> Optional[FunctionNode]:
    """The instance method of the object's class that ``self.m(...)`` calls in ``method``, if any."""
    parameters = function_parameters(method)
    callee = call.func
    if info is None or not parameters or not (isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == parameters[0].arg):
        return None
    return _instance_method(info, callee.attr, survey)


def _a_function(callee: ast.Name, survey: Survey) -> bool:
    """Whether ``callee`` is a function rather than a class: handed a module first (``get_layer(self.model,
    name)``), a function returns a part of it, where a class builds something new from what it is handed
    (``Block(dim)``). This module's functions, and imported names the project index does not know as
    classes (torch's and the builtins' excepted)."""
    if callee.id in survey.classes:
        return False
    if callee.id in survey.functions:
        return True
    qualified = survey.names.qualify(callee)
    return qualified is not None and not qualified.startswith(("builtins.", "torch.")) and not survey.imported.is_class(qualified)


def _assigned_to(method: FunctionNode, receiver: str, attribute: str) -> Iterator[ast.expr]:
    for node in walk(method):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == attribute and isinstance(t.value, ast.Name) and t.value.id == receiver
            for t in node.targets
        ):
            yield node.value
