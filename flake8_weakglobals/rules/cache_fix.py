"""WG006's fix: whether the codemod may swap ``functools.lru_cache`` / ``cache`` for the runtime's
``weak_lru_cache`` / ``weak_cache``, and the edit that does it.

The replacement is ``lru_cache`` with freeing: one cache per function, for every call and every instance,
with ``lru_cache``'s keys, LRU order, results, ``cache_info``, ``cache_clear``, ``cache_parameters``,
``__wrapped__`` and ``typed``; a method stays a function of the class (``obj.f`` is a bound method, with
``__self__`` and ``__func__``). What changes at run time: an entry goes when an argument found by identity
(``self``, a module, a parameter, a tensor) is collected. A method of a class that is no framework type,
cached on framework arguments (DeepSpeed's coordinator, cached per submodule), gets
``weak_shared_lru_cache`` / ``weak_shared_cache``, which are now the same functions under their earlier
names. The fix is refused, with the reason, wherever the module shows that something relies on more than
that, or that it would free nothing:

- a method whose class defines ``__eq__`` or ``__hash__``: ``lru_cache`` shares entries between equal
  instances; the runtime keeps that by holding such a ``self`` as ``lru_cache`` does, so it frees nothing;
- a function with an argument that is a tuple of framework objects: a tuple cannot be weakly referenced;
- a result compared with ``is`` (identity across calls that a shorter-lived cache may break);
- the cached function, or its ``cache_info``/``cache_clear``, passed, stored or returned; an attribute
  ``lru_cache``'s wrapper has and the replacement lacks;
- a coroutine function, and a module that defines or imports its own ``weak_lru_cache``;
- a call of it in code a compiler traces (``analysis/compiled_regions.py``), where the weak cache stores
  nothing and the cached work runs on every call;
- a function cached through the project's own wrapper of ``lru_cache``: the fix belongs in the wrapper.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator, Optional

from ..analysis.compiled_regions import compiled_functions, enclosing_function, spells_a_compiler
from ..analysis.evidence import Evidence, Obj, Tup, Value, text
from ..analysis.survey import CachedFunction, ClassInfo, Survey
from ..index.summaries import defines_value_equality
from ..syntax.container_expressions import root_name
from ..syntax.qualified_names import base_class, is_our_runtime
from ..syntax.scopes import FUNCTIONS, function_parameters, walk
from .findings import Edit, EditKind, Span

#: What the replacement names each ``functools`` decorator; for methods cached on framework arguments of a
#: class that is no framework type, the shared forms.
REPLACEMENTS = {"functools.lru_cache": "weak_lru_cache", "functools.cache": "weak_cache"}
SHARED = {"functools.lru_cache": "weak_shared_lru_cache", "functools.cache": "weak_shared_cache"}
_CACHE_METHODS = frozenset({"cache_info", "cache_clear", "cache_parameters"})
#: Read as on ``lru_cache``'s wrapper; ``__self__`` and ``__func__`` are a bound method's, which both give.
_METADATA = frozenset({"__wrapped__", "__name__", "__qualname__", "__doc__", "__module__", "__annotations__", "__self__", "__func__"})


@dataclass(frozen=True)
class CacheFix:
    """The codemod's verdict on one WG006 finding: a reason to leave it, or the edit and the runtime name."""

    reason: Optional[str]
    edits: tuple[Edit, ...] = ()
    runtime_names: frozenset[str] = frozenset()


def decide(cached: CachedFunction, survey: Survey, evidence: Evidence) -> CacheFix:
    decorator = cached.decorator
    callee = decorator.func if isinstance(decorator, ast.Call) else decorator
    if cached.wrapper is not None:
        return CacheFix(f"it is cached through `{cached.wrapper}`, the project's own wrapper of lru_cache: fix the wrapper")
    if cached.bound_to is not None:
        return CacheFix(f"the cache is made by a call, bound to `{cached.bound_to}`: the fix rewrites decorators only")
    qualified = survey.names.qualify(callee) or ""
    if qualified not in REPLACEMENTS:
        return CacheFix(f"`{text(callee)}` is not a decorator the fix knows")
    function, owner = cached.function, cached.owner
    method = owner is not None and function not in survey.unbound_methods
    parameters = function_parameters(function)[1 if method or function in survey.class_methods else 0 :]
    arguments = [(parameter, evidence.of_annotation(parameter.annotation)) for parameter in parameters]
    shared = method and owner.kind is None and any(isinstance(value, Obj) for _, value in arguments)  # type: ignore[union-attr]
    runtime = (SHARED if shared else REPLACEMENTS)[qualified]
    reason = _refusal(cached, survey, evidence, runtime, arguments, weak_arguments=shared or not method)
    if reason is not None:
        return CacheFix(reason)
    # ``lru_cache(...)`` keeps its arguments, which ``weak_lru_cache`` takes alike; a bare name is replaced whole.
    kind = EditKind.RENAME_CALLEE if isinstance(decorator, ast.Call) else EditKind.RENAME_GENERIC
    return CacheFix(None, (Edit(kind, Span.of(decorator), runtime, root_name(callee)),), frozenset({runtime}))


def _refusal(
    cached: CachedFunction,
    survey: Survey,
    evidence: Evidence,
    runtime: str,
    arguments: list[tuple[ast.arg, Value]],
    weak_arguments: bool,
) -> Optional[str]:
    """Why the fix must leave this cache alone; ``weak_arguments``: its arguments go to the function cache."""
    function, owner = cached.function, cached.owner
    if isinstance(function, ast.AsyncFunctionDef):
        return "it caches a coroutine function, whose coroutines can be awaited only once"
    if survey.names.defines(runtime):
        return f"this module already defines its own `{runtime}`"
    origin = survey.names.imported_from(runtime)
    if origin is not None and not is_our_runtime(origin):
        return f"this module already imports its own `{runtime}` (from `{origin}`)"
    if owner is not None and function not in survey.unbound_methods:
        equality = _value_equality(owner, survey)
        if equality is not None:
            return (
                f"`{equality}` defines `__eq__` or `__hash__`: lru_cache shares entries between equal instances, "
                "so the fix would hold them as lru_cache does and free nothing"
            )
    tupled = next((parameter for parameter, value in arguments if _holds_object(value)), None)
    if weak_arguments and tupled is not None:
        written = f"{tupled.arg}: {text(tupled.annotation)}"  # type: ignore[arg-type]
        return f"its argument `{written}` is a tuple, which cannot be weakly referenced"
    return _escape(cached, evidence)


def _value_equality(owner: ClassInfo, survey: Survey) -> Optional[str]:
    """The class that makes instances of ``owner`` (or of a subclass of it here) compare by value, which
    lets ``lru_cache`` share entries between equal instances: ``__eq__``/``__hash__`` or a value-comparing
    ``@dataclass``, in the class, a local base, a base in another project module or a mixin (through the
    project index), or a local subclass."""
    local = [*survey.lineage(owner), *(info for info in survey.classes.values() if owner in survey.lineage(info))]
    for info in local:
        if defines_value_equality(info.node, survey.names.qualify):
            return info.name
    for info in survey.lineage(owner):
        for base in info.node.bases:
            qualified = survey.names.qualify(base_class(base))
            if qualified is not None and survey.imported.compares_by_value(qualified):
                return qualified
    return None


def _holds_object(value: object) -> bool:
    return isinstance(value, Tup) and any(isinstance(item, Obj) or _holds_object(item) for item in value.items)


def _escape(cached: CachedFunction, evidence: Evidence) -> Optional[str]:
    """The first use of the cached function that needs more than calls and ``lru_cache``'s own methods."""
    scopes = evidence.scopes
    if any(_decorator_word(decorator) == "property" for decorator in cached.function.decorator_list):
        return None  # ``obj.table`` is the cached result, never the cache: what is done with it is the caller's
    compiled: Optional[dict[ast.AST, str]] = None
    for reference in _references(cached, scopes.module, evidence.survey):
        parent = scopes.parent(reference)
        if isinstance(parent, ast.Call) and parent.func is reference:
            if compiled is None:
                compiled = compiled_functions(scopes.module, evidence.survey.names, spells_a_compiler(evidence.source))  # type: ignore[assignment]
            caller = enclosing_function(reference, scopes.parent)
            if caller is not None and caller in compiled:  # type: ignore[operator]
                return (
                    f"it is called at line {reference.lineno} in `{caller.name}`, {compiled[caller]}: "  # type: ignore[index]
                    "a compiler calls lru_cache's wrapper as it is, and the weak cache would store nothing there"
                )
            grand = scopes.parent(parent)
            if isinstance(grand, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in grand.ops):
                return (
                    f"its result is compared with `is` (line {grand.lineno}): a cache that dies with its arguments "
                    "may return a new object where lru_cache returned the same one"
                )
            continue
        if isinstance(parent, ast.Attribute) and parent.value is reference:
            user = scopes.parent(parent)
            if parent.attr in _METADATA or (parent.attr in _CACHE_METHODS and isinstance(user, ast.Call) and user.func is parent):
                continue
            if parent.attr in _CACHE_METHODS:
                return f"its `{parent.attr}` is passed elsewhere (`{text(user or parent)}`, line {parent.lineno})"
            return f"it uses `.{parent.attr}`, which the replacement does not provide (line {parent.lineno})"
        where = text(parent) if isinstance(parent, ast.expr) else type(parent).__name__.lower()
        return f"the cached function is passed elsewhere (`{where}`, line {reference.lineno}), which may rely on lru_cache"
    return None


def _references(cached: CachedFunction, module: ast.Module, survey: Survey) -> Iterator[ast.expr]:
    """Every read of the cached function in the module: its name for a function; ``x.name`` for a method,
    whatever ``x`` is (an instance, the class), which may over-count but never misses; except where ``x``
    plainly is another class of the module (``Other.name``, ``self.name`` in a method of an unrelated class)."""
    function, owner = cached.function, cached.owner
    for node in walk(module):
        if not isinstance(getattr(node, "ctx", None), ast.Load):
            continue
        if owner is None and isinstance(node, ast.Name) and node.id == function.name:
            yield node
        elif owner is not None and isinstance(node, ast.Attribute) and node.attr == function.name:
            if not _plainly_another_class(node.value, owner, survey):
                yield node


def _plainly_another_class(receiver: ast.expr, owner: ClassInfo, survey: Survey) -> bool:
    """``Other.name`` for a module class ``Other`` unrelated to the cached method's class (neither a base nor
    a subclass), or ``self.name`` inside a method of such a class."""
    if not isinstance(receiver, ast.Name):
        return False
    related = {info.name for info in survey.lineage(owner)}
    if receiver.id in survey.classes:
        other = survey.classes[receiver.id]
    else:
        method = next((f for f, info in survey.method_owner.items() if _first_parameter(f) == receiver.id and _within(receiver, f)), None)
        other = survey.method_owner.get(method) if method is not None else None
    if other is None:
        return False
    return other.name not in related and owner.name not in {info.name for info in survey.lineage(other)}


def _first_parameter(function: ast.AST) -> Optional[str]:
    parameters = function_parameters(function) if isinstance(function, FUNCTIONS) else []  # type: ignore[arg-type]
    return parameters[0].arg if parameters else None


def _within(node: ast.AST, function: ast.AST) -> bool:
    return function.lineno <= node.lineno <= (function.end_lineno or function.lineno)  # type: ignore[attr-defined]


def _decorator_word(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
