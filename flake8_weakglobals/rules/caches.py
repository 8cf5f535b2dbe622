"""WG006: ``functools.lru_cache``/``cache`` (or a project wrapper of it) keyed by framework objects; WG007 for
one called with plain values that keeps the tensors or modules its function makes (a workspace, whose page
is ``containers.py``'s)."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.evidence import Evidence, Obj, Value, text
from ..analysis.fill_contents import object_in_tuple
from ..analysis.memo_decorators import MemoDecorator
from ..analysis.survey import CachedFunction, ClassInfo, KeptArgument, Survey
from ..syntax.scopes import FUNCTIONS, FunctionNode, function_parameters, module_level, own_returns, values_through_branches, walk
from . import cache_fix, codes
from .findings import Evidence as Proof, Finding

#: The rule pages of WG006, one entry per code: ``weakglobals --explain``, the SARIF rule help and
#: ``docs/rules.md`` all read them (through ``docs.py``). Markdown: an italic one-line definition, then the
#: same five bullets (why it matters, an example, the fix, what the fix changes at run time, known false
#: positives), as ruff's rule pages.
DOCS: dict[str, str] = {
    "WG006": """\
*`functools.lru_cache` / `functools.cache` (also `lru_cache(None)`, `lru_cache()`, stacked under other
decorators, or called on a function of the module, `f_cached = functools.lru_cache(maxsize=256)(f)`,
reported at that call under the name it is bound to and left by the codemod) on a function that takes
modules or tensors (or objects holding them), or on a method of an `nn.Module` subclass, an optimizer, a scheduler, or a class whose instances hold modules or tensors (stored
by `__init__`, or by any of its methods, a `set_up()` that builds the model), or on a method of any class that returns tensors or modules (annotated `-> Tensor`, `-> tuple[Tensor, str]`, or
unannotated and returning one it makes, `return torch.from_numpy(array)`, or an element of a container the instance starts empty and fills itself, `return self.tokens[i]` after `self.tokens.append(ids.long())`); also a decorator that caches by hand, filling a container of its own closure with the calls of what it decorates, or rebinding a slot of it to the last call through `nonlocal`.*

- **Why it matters**: the cache is a process-wide dict with strong keys: every `self` (every module) or
  tensor argument stays alive. On `forward` of a rotary-embedding module it is the most common pinning idiom;
  Megatron-LM calls `forward.cache_clear()` with a comment that the cache otherwise leaks memory.
- **Example**: `@functools.cache def assert_and_get_unique_device(module: torch.nn.Module)` (torch);
  `@lru_cache(maxsize=128) def _load_image(self, id_: str) -> Tensor` on a dataset class, which keeps up to
  128 loaded images, and the dataset, after the dataset is gone; `def tensor_cache(fn: Callable[...,
  torch.Tensor])` whose wrapper appends `(args, kwargs, result)` to a `deque` bound in the decorator
  (reported at that `deque`, and left to fix by hand), or whose wrapper sets `last_args, last_result = args,
  result` through `nonlocal` (reported at `last_args`).
- **Fix**: an unsafe fix, made only by `python -m fixes.apply --unsafe-fixes`: the weak cache keeps
  `lru_cache`'s keys, order, results and methods, but it is no `functools._lru_cache_wrapper`, which
  `isinstance`, `inspect.isfunction`, `functools.wraps` and `torch.jit` tell apart; check that nothing in
  the program looks. `@functools.lru_cache(maxsize=N)` becomes `@weak_lru_cache(maxsize=N)` and
  `@functools.cache` `@weak_cache`, from [the runtime](#the-runtime) (every spelling: bare, called, `lru_cache(None)`,
  imported by name; stacked decorators stay), on methods of `nn.Module` subclasses and on functions, static
  and class methods, under `@property` too. (DeepSpeed's coordinator, whose method is cached on framework
  arguments, gets `@weak_shared_lru_cache` / `@weak_shared_cache`, today the same cache under its older
  name.) Left as is, with the reason: a method whose class compares by value (`__eq__`/`__hash__`, a
  value-comparing `@dataclass`, in the class, a base or mixin of any project module, or a subclass:
  lru_cache shares entries between equal instances, which the runtime keeps by holding them as lru_cache
  does, freeing nothing); an argument that is a tuple of framework objects (no weak reference); a result
  compared with `is`; the cached function or its `cache_info` passed, stored or returned; a coroutine
  function; a function cached through the project's own wrapper of `lru_cache` (the fix belongs in the
  wrapper).
- **Fix safety**: it is `lru_cache` with freeing: one cache per function, shared by every call and every
  instance, the same keys, hits, LRU order, `maxsize`, `cache_info()` (counts of collected instances
  included), `cache_clear()` (of every instance), `cache_parameters()`, `__wrapped__` (also
  `self.method.__wrapped__(self, n)`), `typed`, bound and unbound calls sharing entries, copies and pickles
  of a module unaffected (nothing in its `__dict__`). What changes: an entry goes when an argument held by
  identity (`self`, a module, a tensor) is collected, and a new object never hits an old entry.
- **Known false positives**: `lru_cache(maxsize=1)` on objects that live as long as the process anyway. A
  project decorator that builds its `lru_cache` inside the function it returns (one cache per call or per
  instance, stored on `self`: flair's `instance_lru_cache`) keeps no process-wide cache and is not reported.

**Beside flake8-bugbear's B019** (`cached-instance-method`): B019 flags `functools.cache` / `lru_cache` on
every method, so a cached method of an `nn.Module` subclass gets both B019 and WG006, on the same line and
column (`# noqa: B019, WG006` silences both). What WG006 adds: it is torch-aware (it fires only when the
cache keys are modules or tensors, so `@cache` on a method of a plain class that takes strings stays
quiet); it covers functions as well as methods (torch's `assert_and_get_unique_device(module)` is a
function, which B019 never sees); and it comes with a fix (see **Fix** above), where B019 and pylint's
W1518 only report. `tests/test_neighbours.py` runs both plugins on such a file.
""",
}


def judge_cache(cached: CachedFunction, survey: Survey, evidence: Evidence) -> Optional[Finding]:
    """WG006: a cache on a method of a framework class, or on a function taking framework objects
    (annotated, or passed them by its callers in this module); the fix is ``cache_fix.py``'s decision."""
    function, owner = cached.function, cached.owner
    bound = owner is not None and function not in survey.unbound_methods
    if not cached.keeps_arguments:  # an app server's cache: only what it returns stays
        return None if bound else _keeps_what_it_builds(cached, survey, evidence)
    if owner is not None and _cleared_on_every_mode_switch(function.name, owner, survey):
        return None
    if _always_raises(function):
        return None
    found: Optional[Obj] = None
    if bound and owner is not None and owner.kind:
        found = Obj(owner.kind, f"`self` is a `{owner.name}`, a subclass of `{owner.framework_base}`", function.lineno)
    elif bound and owner is not None and (held := evidence.holding(owner, any_method=True)) is not None:  # the cache keeps ``self``
        found = Obj(owner.name, f"`self` is a `{owner.name}`", function.lineno, holds=held)
    receives_self_or_cls = bound or function in survey.class_methods
    skipped = 1 if receives_self_or_cls else 0
    for position, parameter in enumerate(function_parameters(function)[skipped:], start=skipped):
        if found is not None:
            break
        value = evidence.of_annotation(parameter.annotation)
        # a tuple of tensors is hashable: ``Tuple[Tensor, Tensor]``, or ``Tuple[Chunk, ...]`` read as a sequence
        obj = value if isinstance(value, Obj) else object_in_tuple(value)
        if obj is not None:
            found = Obj(obj.kind, f"parameter `{parameter.arg}: {text(parameter.annotation)}`", parameter.lineno, holds=obj.holds)  # type: ignore[arg-type]
        elif parameter.annotation is None and owner is None:
            called = evidence.from_call_sites(function, parameter, position)
            found = called if isinstance(called, Obj) else None
    results = found is None and bound and owner is not None
    if results and owner is not None:
        found = _returns_framework_objects(function, evidence)
    if found is None:
        return None if bound else _keeps_what_it_builds(cached, survey, evidence)
    name, decorator = _spelled(cached)
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
        evidence=Proof(found.line or function.lineno, found.why),
        message=codes.cache_message(decorator, name, (found.kind,), f"({found.cited(function.lineno)})", results),
        fix_reason=fix.reason,
        edits=fix.edits,
        runtime_names=fix.runtime_names,
    )


def _always_raises(function: FunctionNode) -> bool:
    """``def num_flops(self): raise NotImplementedError`` under ``@lru_cache`` in a base class: a cache keeps
    nothing of a call that raises, so it never holds ``self`` (the subclasses' overrides are judged apart)."""
    body = function.body[1:] if ast.get_docstring(function, clean=False) is not None else function.body
    return bool(body) and all(isinstance(statement, ast.Raise) for statement in body)


#: ``nn.Module`` methods every switch between training and inference goes through (``eval()`` calls
#: ``train(False)``).
_MODE_SWITCHES = ("train", "eval")


def _cleared_on_every_mode_switch(name: str, owner: ClassInfo, survey: Survey) -> bool:
    """A lifetime the class manages: its ``train()`` (or ``eval()``) clears the cache (``self.mask.cache_clear()``),
    so what a run of predictions cached is let go at the next switch of mode, which every use goes through."""
    for cls in survey.lineage(owner):
        for switch in _MODE_SWITCHES:
            method = cls.methods.get(switch)
            for node in walk(method) if method is not None else ():
                if (
                    isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "cache_clear"
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == name
                ):
                    return True
    return False


def _spelled(cached: CachedFunction) -> tuple[str, str]:
    """How a message names the cached function (``Owner.method`` or ``function``, or the name a cache made by a
    call is bound to) and its decorator as written."""
    function, owner = cached.function, cached.owner
    name = cached.bound_to or (f"{owner.name}.{function.name}" if owner is not None else function.name)
    return name, text(cached.decorator.func if isinstance(cached.decorator, ast.Call) else cached.decorator)


def _keeps_what_it_builds(cached: CachedFunction, survey: Survey, evidence: Evidence) -> Optional[Finding]:
    """WG007 for a cached function (or static or class method) called with no framework object that returns
    tensors or modules: the cache is a module-level table of what the function makes, one per distinct call,
    kept for the process (``@lru_cache def mel_filters(device, n) -> Tensor``, a loader of models by name).
    A workspace, as a dict the module fills itself is: no fix (a weak cache frees nothing under plain keys).
    A model the module keeps anyway (``return MODEL``) and the functions of a program are not reported, but for
    an app server's cache: Streamlit runs the app as ``__main__`` on every rerun, and keeps its caches across
    them, for the server's life; and for a module its package uses (``Survey.is_a_program``), imported whatever
    its ``__main__`` block does (nnUNet's ``compute_gaussian``)."""
    if survey.is_a_program and cached.keeps_arguments:
        return None
    found = _returns_framework_objects(cached.function, evidence)
    if found is None or any(isinstance(result, Obj) and result.module_held for result in _returned(cached.function, evidence)):
        return None
    name, decorator = _spelled(cached)
    return Finding(
        code="WG007",
        line=cached.decorator.lineno,
        col=cached.decorator.col_offset,
        name=name,
        kind=decorator,
        scope="function",
        holds=(found.kind,),
        evidence=Proof(found.line or cached.function.lineno, found.why),
        message=codes.built_results_message(decorator, name, (found.kind,), f"({found.cited(cached.function.lineno)})", _takes_arguments(cached.function)),
        fix_reason=codes.WORKSPACE,
    )


def _takes_arguments(function: FunctionNode) -> bool:
    """Whether calls can differ in what they pass (``self`` and ``cls`` aside): a loader without arguments
    is called one way, so its cache keeps one result."""
    parameters = function_parameters(function)
    bound = 1 if parameters and parameters[0].arg in ("self", "cls") else 0
    return len(parameters) > bound or function.args.vararg is not None or function.args.kwarg is not None


def _returns_framework_objects(function: ast.FunctionDef | ast.AsyncFunctionDef, evidence: Evidence) -> Optional[Obj]:
    """A cached method of any class that returns tensors or modules: each result is kept under its ``self``,
    so a dataset's loaded images outlive the dataset, up to ``maxsize`` of them and, unbounded, every one.
    The annotation says so (``-> Tensor``, ``-> tuple[Tensor, CRS]``); without one, or with one that names
    no framework type (``-> Optional[Dict[str, Tensor]]``: a map's values), a ``return`` of the method's own
    whose value is one (``return torch.from_numpy(array)``, a local bound to one)."""
    if function.returns is not None:
        result = evidence.of_annotation(function.returns)
        obj = result if isinstance(result, Obj) else object_in_tuple(result)
        if obj is not None:
            return Obj(obj.kind, f"annotated `-> {text(function.returns)}`", function.lineno)
    for statement, result in zip(own_returns(function), _returned(function, evidence)):
        obj = result if isinstance(result, Obj) else object_in_tuple(result)
        if obj is not None:
            returned = f"`{text(statement.value)}`"
            quoted = not isinstance(statement.value, ast.Name) and returned in obj.why  # ``return f(x)``, "computed as `f(x)`"
            return Obj(obj.kind, obj.why if quoted else f"returns {returned}, {obj.why}", statement.lineno)
    return None


def _returned(function: FunctionNode, evidence: Evidence) -> Iterator[Value]:
    """What each of the function's own ``return`` statements returns, as the evidence sees it. A local that
    the branches of an ``if`` bind each their own way returns a framework object when one branch binds it
    to one: the cache keeps what every call returns, whichever branch made it."""
    for statement in own_returns(function):
        found = evidence.of(statement.value)  # type: ignore[arg-type]
        if found is None and isinstance(statement.value, ast.Name):
            branches = values_through_branches(evidence.scopes, statement.value, function)
            found = next((value for value in map(evidence.of, branches) if isinstance(value, Obj)), None)
        yield found


def judge_kept_by_cache(kept: KeptArgument, evidence: Evidence) -> Optional[Finding]:
    """``_warn_once(self)`` from a module's ``forward``, where ``_warn_once`` is another project module's
    cached function: its cache keeps ``self``. Reported here, at the call, where the evidence is; the
    definition cannot see who calls it, and its fix belongs there."""
    keeper = kept.keeper
    found = evidence.of(kept.argument)
    if keeper.type is not None or not isinstance(found, Obj) or not found.foreign:
        return None
    line = kept.call.lineno
    name = f"{keeper.module}.{keeper.container}"
    where = f"({found.cited(line)}, passed to `{text(kept.call.func)}` at line {line}; defined at `{keeper.module}` line {keeper.line})"
    return Finding(
        code="WG006",
        line=line,
        col=kept.call.col_offset,
        name=name,
        kind=keeper.decorator,
        scope="function",
        holds=(found.kind,),
        evidence=Proof(found.line or line, found.why),
        message=codes.cache_message(keeper.decorator, name, (found.kind,), where),
        fix_reason=codes.defined_elsewhere(keeper.module, keeper.line),
    )


def judge_memo_decorator(memo: MemoDecorator, tree: ast.Module, evidence: Evidence) -> Optional[Finding]:
    """WG006 on a decorator's own closure cache (``memo_decorators.py``), where its annotations, or a
    function of this module that it decorates, show that the calls it keeps carry framework objects."""
    found = _annotated_framework(memo.decorator, evidence) or _decorating_framework_functions(memo, tree, evidence)
    if found is None:
        return None
    decorator, made = memo.decorator.name, memo.made
    kind = "slot" if memo.slot else text(made.func) if isinstance(made, ast.Call) else type(made).__name__.lower()
    fill_line = getattr(memo.fill, "lineno", made.lineno)
    return Finding(
        code="WG006",
        line=made.lineno,
        col=made.col_offset,
        name=f"{decorator}.<locals>.{memo.container}",
        kind=kind,
        scope="function",
        holds=(found.kind,),
        evidence=Proof(found.line, found.why),
        message=codes.memo_message(decorator, memo.container, memo.wrapper.name, fill_line, (found.kind,), f"({found.cited(made.lineno)})", memo.slot),
        fix_reason=codes.HAND_WRITTEN_CACHE,
    )


def _annotated_framework(function: FunctionNode, evidence: Evidence) -> Optional[Obj]:
    """A framework type anywhere in the decorator's annotations: ``fn: Callable[..., torch.Tensor]``."""
    annotations = [argument.annotation for argument in function_parameters(function)] + [function.returns]
    for annotation in annotations:
        for node in walk(annotation) if annotation is not None else ():
            kind = evidence.kind_of_type(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
            if kind is not None:
                return Obj(kind, f"annotated `{text(annotation)}`", annotation.lineno)  # type: ignore[union-attr]
    return None


def _decorating_framework_functions(memo: MemoDecorator, tree: ast.Module, evidence: Evidence) -> Optional[Obj]:
    """A function of this module decorated with it whose parameters or result are annotated as framework
    objects: the calls the closure keeps carry them."""
    for statement in module_level(tree.body):
        if not (isinstance(statement, FUNCTIONS) and any(
            isinstance(decorator, ast.Name) and decorator.id == memo.decorator.name for decorator in statement.decorator_list
        )):
            continue
        for annotation in [argument.annotation for argument in function_parameters(statement)] + [statement.returns]:
            value = evidence.of_annotation(annotation)
            obj = value if isinstance(value, Obj) else object_in_tuple(value)
            if obj is not None and annotation is not None:
                return Obj(obj.kind, f"`{statement.name}`, which it decorates, annotated `{text(annotation)}`", annotation.lineno)
    return None
