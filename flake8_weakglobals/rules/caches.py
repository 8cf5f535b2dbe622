"""WG006: ``functools.lru_cache``/``cache`` (or a project wrapper of it) keyed by framework objects."""
from __future__ import annotations

import ast
from typing import Optional

from . import cache_fix, rules
from .evidence import Evidence, Obj, text
from .findings import Evidence as Proof, Finding
from .held import object_in_tuple
from .scopes import function_parameters
from .survey import CachedFunction, KeptArgument, Survey


def judge_cache(cached: CachedFunction, survey: Survey, evidence: Evidence) -> Optional[Finding]:
    """WG006: a cache on a method of a framework class, or on a function taking framework objects
    (annotated, or passed them by its callers in this module); the fix is ``cache_fix.py``'s decision."""
    function, owner = cached.function, cached.owner
    bound = owner is not None and function not in survey.unbound_methods
    found: Optional[Obj] = None
    if bound and owner is not None and owner.kind:
        found = Obj(owner.kind, f"`self` is a `{owner.name}`, a subclass of `{owner.framework_base}`")
    receives_self_or_cls = bound or function in survey.class_methods
    skipped = 1 if receives_self_or_cls else 0
    for position, parameter in enumerate(function_parameters(function)[skipped:], start=skipped):
        if found is not None:
            break
        value = evidence.of_annotation(parameter.annotation)
        obj = value if isinstance(value, Obj) else object_in_tuple(value)  # a tuple of tensors is hashable
        if obj is not None:
            found = Obj(obj.kind, f"parameter `{parameter.arg}: {text(parameter.annotation)}`")  # type: ignore[arg-type]
        elif parameter.annotation is None and owner is None:
            called = evidence.from_call_sites(function, parameter, position)
            found = called if isinstance(called, Obj) else None
    if found is None:
        return None
    name = f"{owner.name}.{function.name}" if owner is not None else function.name
    decorator = text(cached.decorator.func if isinstance(cached.decorator, ast.Call) else cached.decorator)
    line = cached.decorator.lineno
    fix = cache_fix.decide(cached, survey, evidence)  # WG006's fix: cache_fix.py
    return Finding(
        code="WG006",
        line=line,
        col=cached.decorator.col_offset,
        name=name,
        kind=decorator,
        scope="function",
        holds=(found.kind,),
        evidence=Proof(function.lineno, found.why),
        message=rules.cache_message(decorator, name, (found.kind,), f"({found.why} at line {function.lineno})"),
        fix_reason=fix.reason,
        edits=fix.edits,
        runtime_names=fix.runtime_names,
    )


def judge_kept_by_cache(kept: KeptArgument, evidence: Evidence) -> Optional[Finding]:
    """``_warn_once(self)`` from a module's ``forward``, where ``_warn_once`` is another project module's
    cached function: its cache keeps ``self``. Reported here, at the call, where the evidence is; the
    definition cannot see who calls it, and its fix belongs there."""
    keeper = kept.keeper
    found = evidence.of(kept.argument)
    if keeper.type is not None or not isinstance(found, Obj) or found.owned:
        return None
    line = kept.call.lineno
    name = f"{keeper.module}.{keeper.container}"
    where = f"({found.why}, passed to `{text(kept.call.func)}` at line {line}; defined at `{keeper.module}` line {keeper.line})"
    return Finding(
        code="WG006",
        line=line,
        col=kept.call.col_offset,
        name=name,
        kind=keeper.decorator,
        scope="function",
        holds=(found.kind,),
        evidence=Proof(line, found.why),
        message=rules.cache_message(keeper.decorator, name, (found.kind,), where),
        fix_reason=rules.defined_elsewhere(keeper.module, keeper.line),
    )
