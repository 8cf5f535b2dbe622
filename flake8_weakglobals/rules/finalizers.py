"""WG009: a finalizer or weak-reference callback that holds the very object it waits for.

``weakref.finalize(obj, func, *args, **kwargs)`` keeps ``func``, ``args`` and ``kwargs`` in a process-wide
registry until ``obj`` dies; if any of them refers to ``obj`` (``self.close``, ``obj`` itself, a lambda or a
nested function that closes over it, ``functools.partial(f, obj)``), ``obj`` never dies, as Python's own
documentation warns. A ``weakref.ref(obj, callback)`` whose callback closes over ``obj`` is the same trap:
the reference keeps the callback, the callback keeps the object. Found from one module's text: only the
statements that name ``finalize(`` or ``ref(`` are walked.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..analysis.evidence import text
from ..syntax.mentions import STAR_IMPORT, Mentions
from ..analysis.survey import Survey
from ..syntax.scopes import FUNCTIONS, Scopes, function_parameters, walk
from .findings import Evidence as Proof, Finding

#: The rule page of WG009 (``docs.py`` gathers it with the other families').
DOCS: dict[str, str] = {
    "WG009": """\
*`weakref.finalize(obj, func, *args, **kwargs)` whose `func`, `args` or `kwargs` refer to `obj`, or a
`weakref.ref(obj, callback)` whose callback closes over `obj`.*

- **Why it matters**: the finalizer registry is process-wide and holds `func` and its arguments strongly
  until `obj` is collected, so a finalizer that refers to `obj` (a bound method `self.close`, `obj` itself,
  a lambda or nested function that uses it, `functools.partial(f, obj)`) keeps `obj` alive forever, and
  with it every tensor a module holds; the finalizer never runs before exit. Python's documentation of
  `weakref.finalize` warns of exactly this.
- **Example**: `weakref.finalize(self, self.release)`; `weakref.finalize(model, lambda: print(model))`.
- **Fix**: none automatic. Pass only what the cleanup needs, never the object: `weakref.finalize(self,
  release, self.handle)` with a plain function, or a callback that takes the dead reference.
- **Fix safety**: not applicable.
- **Known false positives**: none known: a finalizer that refers to its object can never fire before exit.
  An object that is no module or tensor and holds none (an executor, a client, a process group) is not
  reported: kept until exit, it pins nothing of the framework's, and an at-exit hook is often the intent.
""",
}

_FINALIZERS = {"weakref.finalize": "finalize", "weakref.ref": "ref"}
_PARTIALS = {"functools.partial", "functools.partialmethod"}


def judge_finalizers(
    module: ast.Module, mentions: Mentions, survey: Survey, scopes: Scopes, holds_framework_objects: Callable[[ast.expr], bool]
) -> list[Finding]:
    """WG009 for every ``weakref.finalize``/``weakref.ref`` call of the module that holds its own object,
    when that object is (or holds) a module or tensor: an executor or a process group kept until exit is
    what an at-exit hook is for, and pins nothing of the framework's."""
    if "weakref" not in mentions.source and not STAR_IMPORT.search(mentions.source):
        return []  # neither imported nor maybe brought by a star import: no call can resolve to one
    lines = mentions.words(["finalize", "ref"], then=r"\s*\(")
    if not lines:
        return []
    found = []
    names = survey.names
    for node in scopes.index_parts(module, lambda part: Mentions.within(lines, part)):
        if type(node) is ast.Call and names.qualify(node.func) in _FINALIZERS and node.args:
            finding = _judge(node, _FINALIZERS[names.qualify(node.func)], survey, scopes)  # type: ignore[index]
            if finding is not None and holds_framework_objects(node.args[0]):
                found.append(finding)
    return found


def _judge(call: ast.Call, kind: str, survey: Survey, scopes: Scopes) -> Optional[Finding]:
    target = call.args[0]
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return None
    if kind == "finalize":
        held = [*call.args[1:], *(keyword.value for keyword in call.keywords)]
    else:
        held = call.args[1:2] + [keyword.value for keyword in call.keywords if keyword.arg == "callback"]
    for position, value in enumerate(held):
        refers = _refers_to(value, target, survey, scopes, argument_itself=kind == "finalize", called=position == 0)
        if refers is not None:
            how, line = refers
            spelled = text(target)
            return Finding(
                code="WG009",
                line=call.lineno,
                col=call.col_offset,
                name=spelled,
                kind=f"weakref.{kind}",
                scope="function",
                holds=(),
                evidence=Proof(line, how),
                message=(
                    f"WG009 `weakref.{kind}({spelled}, ...)` keeps `{spelled}` alive: {how} at line {line}, "
                    "so it is never collected"
                ),
                fix_reason="it needs a callback that does not refer to the object; write one by hand",
            )
    return None


def _refers_to(
    value: ast.expr, target: ast.expr, survey: Survey, scopes: Scopes, argument_itself: bool, called: bool
) -> Optional[tuple[str, int]]:
    """How ``value`` (a finalizer's callable when ``called``, else one of its arguments) keeps ``target``
    alive, in words, with the line that shows it; None if it does not. ``self.handle`` as an argument is
    a value read now; ``self.release`` as the callable is a bound method that holds ``self``."""
    spelled = ast.dump(target)
    if argument_itself and ast.dump(value) == spelled:
        return f"it is passed `{text(value)}` itself", value.lineno
    if called and isinstance(value, ast.Attribute) and ast.dump(value.value) == spelled and _bound_method(value, survey, scopes):
        return f"`{text(value)}` is a bound method of it", value.lineno
    if isinstance(value, ast.Lambda) and (use := _use_of(value.body, target)) is not None:
        return f"the lambda `{text(value)}` uses it", use.lineno  # type: ignore[attr-defined]
    if isinstance(value, ast.Call) and survey.names.qualify(value.func) in _PARTIALS:
        for argument in [*value.args, *(keyword.value for keyword in value.keywords)]:
            if (use := _use_of(argument, target)) is not None:
                return f"`{text(value)}` holds it", use.lineno  # type: ignore[attr-defined]
    if isinstance(value, ast.Name):
        function = _nested_function(value, scopes)
        own = {parameter.arg for parameter in function_parameters(function)} if isinstance(function, FUNCTIONS) else set()
        if isinstance(target, ast.Name) and target.id in own:
            return None  # ``def finalize_pg(pg)``: its own parameter, passed in, not a variable it closes over
        uses = [use for statement in getattr(function, "body", []) if (use := _use_of(statement, target)) is not None]
        if uses:
            return f"the nested function `{function.name}` uses it", uses[0].lineno  # type: ignore[union-attr,attr-defined]
    return None


def _bound_method(attribute: ast.Attribute, survey: Survey, scopes: Scopes) -> bool:
    """``obj.release`` binds ``obj``, unless ``obj`` is ``self`` and ``release`` is no instance method of its
    class (a static or class method binds nothing of ``self``; an attribute may hold any function)."""
    if not isinstance(attribute.value, ast.Name):
        return True
    resolved = scopes.resolve(attribute.value.id, attribute)
    function = resolved[0] if resolved is not None else None
    owner = survey.method_owner.get(function) if function is not None else None  # type: ignore[arg-type]
    parameters = function_parameters(function) if isinstance(function, FUNCTIONS) else []
    if owner is None or not parameters or parameters[0].arg != attribute.value.id:
        return True  # not ``self``: a method called on an object binds it
    methods = [cls.methods[attribute.attr] for cls in survey.lineage(owner) if attribute.attr in cls.methods]
    return bool(methods) and methods[0] not in survey.unbound_methods


def _use_of(node: ast.AST, target: ast.expr) -> Optional[ast.AST]:
    """The first place under ``node`` that spells ``target`` (``m``, ``self.model``)."""
    spelled = ast.dump(target)
    return next((part for part in walk(node) if type(part) is type(target) and ast.dump(part) == spelled), None)


def _nested_function(name: ast.Name, scopes: Scopes) -> Optional[ast.AST]:
    """The function ``name`` is bound to by a ``def`` in an enclosing function (a closure), if that is all."""
    resolved = scopes.resolve(name.id, name)
    if resolved is None or not isinstance(resolved[0], FUNCTIONS):
        return None
    definitions = [binding.node for binding in resolved[1] if binding.how == "def"]
    return definitions[0] if len(definitions) == len(resolved[1]) == 1 else None
