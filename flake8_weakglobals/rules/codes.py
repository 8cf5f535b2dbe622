"""The rules: codes, default policy, and messages.

A message is one short line, as ruff's and flake8's are: the code, the container, what it holds, and the
structural evidence with the line it is on, so a reader can check the claim without running anything. Why it
matters and what to do: ``advice`` (under ``--show-source``) and ``rule_docs`` (``--explain``, the README).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..analysis.framework_types import describe
from .findings import Evidence, Finding


@dataclass(frozen=True)
class Rule:
    code: str
    summary: str


RULES: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        Rule("WG001", "module-level dict keyed by modules, parameters or tensors"),
        Rule("WG002", "module-level set, list or deque holding modules, parameters or tensors"),
        Rule("WG003", "class-level container keyed by or holding modules, parameters or tensors"),
        Rule("WG004", "WeakKeyDictionary or WeakSet whose keys are tensors or parameters"),
        Rule("WG005", "long-lived dict keyed by id() of framework objects, never emptied"),
        Rule("WG006", "functools cache on a function or method that takes modules or tensors"),
        Rule("WG007", "module- or class-level workspace (a container or a slot), or cache called with plain values, of modules or tensors it allocates itself"),
        Rule("WG008", "module- or class-level dict holding modules, parameters or tensors as values"),
        Rule("WG009", "weakref.finalize or weakref.ref callback that refers to its own object"),
        Rule("WG010", "hook that stashes what it sees, registered on a module handed in, its handle dropped"),
        Rule("WG011", "long-lived instance's attribute set to a module, parameter or tensor handed to it, or to a model it loads, never set back"),
        Rule("WG012", "module-level name or class attribute a function sets to a model (or a tensor handed to it), never set back"),
    )
}
#: Reported by the flake8 plugin, at line 1, when the analysis itself fails on a file (a bug of ours): the
#: other files' results still come through, which an exception would prevent.
INTERNAL_ERROR = "WG000"
#: Its page, beside the rule families' (``docs.py`` gathers them): ``--explain WG000`` prints it.
DOCS: dict[str, str] = {
    INTERNAL_ERROR: """\
*The analysis itself failed on this file: a bug of flake8-weakglobals, reported instead of raised.*

- **Why it matters**: flake8 stops a whole run at a plugin's exception, so the plugin reports the failure as
  a finding at line 1 of the file, with the exception in one line, and every other file is still checked;
  `weakglobals` says it on standard error and exits 2. This file's containers were not checked.
- **Example**: `WG000 internal error in flake8-weakglobals, please report it: RecursionError(...)`.
- **Fix**: none in your code: please report it with the file (or the smallest part of it that still fails).
  Silence it meanwhile with `# flake8: noqa: WG000` or `--extend-ignore WG000`.
- **Fix safety**: the codemod leaves a file it cannot analyse as it is.
- **Known false positives**: none: it is never a finding about your code.
""",
}
def _holds(kinds: tuple[str, ...]) -> str:
    return " and ".join(describe(kind) for kind in kinds)


#: Codes whose fix the codemod makes only with ``--unsafe-fixes`` (as ruff's unsafe fixes), each with what
#: the user must check first: the codemod checks what it can, but cannot prove the program unchanged.
#: - WG008: a weak value changes what a lookup by name finds once the object's other owners let go, and who
#:   keeps an object a registry holds is a whole-program question.
#: - WG006: ``weak_lru_cache`` cannot be an instance of ``functools._lru_cache_wrapper``, so code anywhere
#:   that tells the two apart (a reset that clears every ``_lru_cache_wrapper`` that ``gc`` finds,
#:   ``inspect.isfunction``, ``functools.wraps`` over it, ``torch.jit``) sees another type.
#: - WG004: a ``WeakKeyDictionary`` or ``WeakSet`` finds a key by ``==``, its replacement by identity. For a
#:   tensor the two differ exactly where the fix is wanted: a key with more than one element makes the
#:   lookup raise, and a scalar that is NaN is never found (``nan != nan``). No analysis can show that no
#:   key is ever NaN, so the replacement cannot be shown to be the type it replaces.
UNSAFE_FIX_REASONS = {
    "WG008": "a weak value changes what a lookup by name finds once the object's other owners let go; make sure "
    "each value is owned elsewhere for as long as it is looked up, then rerun with `--unsafe-fixes`",
    "WG006": "the weak cache is not a `functools._lru_cache_wrapper`, which `isinstance`, `inspect.isfunction`, "
    "`functools.wraps` and torch.jit/torch.compile tell apart; make sure nothing in the program looks, then rerun "
    "with `--unsafe-fixes`",
    "WG004": "the fix finds keys by identity where the weak container compares them with `==`: a lookup of a "
    "tensor with more than one element, which raises, succeeds, and a NaN scalar, never found, is found; make sure "
    "nothing relies on either, then rerun with `--unsafe-fixes`",
}
UNSAFE_FIX_CODES = frozenset(UNSAFE_FIX_REASONS)
_MAPS = frozenset({"dict", "defaultdict", "OrderedDict"})
_SEQUENCES = frozenset({"list", "deque"})


def container_message(
    code: str, kind: str, place: str, name: str, kinds: tuple[str, ...], evidence: str, keyed_by: str = "id()"
) -> str:
    """The flake8 line of WG001-WG005 and WG007: the code, the container, what it holds and the evidence with
    its line, short enough to read in a terminal (``place`` is ``module-level``, ``class-level``,
    ``module-level instance's`` or ``singleton's``; ``keyed_by``, for WG005, is ``id()`` or ``data_ptr()``).
    Why it matters and what to do: ``advice`` and ``weakglobals --explain``."""
    holds = _holds(kinds)
    if code == "WG004":
        return f"{code} {kind} `{name}` is keyed by {holds} {evidence}, which it compares with =="
    if code == "WG005":
        return f"{code} {place} {kind} `{name}` is keyed by {keyed_by} of {holds} {evidence}, never emptied"
    if code == "WG007":
        return f"{code} {place} {kind} `{name}` holds {holds} it allocates itself {evidence}"
    if code == "WG008":
        return f"{code} {place} {kind} `{name}` holds {holds} as values {evidence}"
    relation = "is keyed by" if kind in _MAPS else "holds"
    return f"{code} {place} {kind} `{name}` {relation} {holds} {evidence}"


def defined_elsewhere(module: str, line: int) -> str:
    """Why the codemod leaves a finding reported where another module's container is filled."""
    return f"it is defined in `{module}` (line {line}); fix it there"


def cache_message(decorator: str, name: str, kinds: tuple[str, ...], evidence: str, results: bool = False) -> str:
    """The flake8 line of WG006, as short as ``container_message``'s; ``results`` when what the cache keeps
    is the method's results, not its keys."""
    if results:
        return f"WG006 `@{decorator}` on `{name}` caches calls keyed by `self` and keeps the {_holds(kinds)} they return {evidence}"
    return f"WG006 `@{decorator}` on `{name}` caches calls keyed by {_holds(kinds)} {evidence}"


def built_results_message(decorator: str, name: str, kinds: tuple[str, ...], evidence: str, takes_arguments: bool = True) -> str:
    """WG007 on a cache whose keys are plain values: what it keeps is what the function makes (once, for a
    function that takes no arguments)."""
    how_many = "one per distinct call" if takes_arguments else "its one result (it takes no arguments)"
    return f"WG007 `@{decorator}` on `{name}` keeps the {_holds(kinds)} it returns, {how_many}, for the process {evidence}"


def memo_message(decorator: str, container: str, wrapper: str, fill_line: int, kinds: tuple[str, ...], evidence: str, slot: bool = False) -> str:
    """WG006 on a hand-written cache in a decorator's closure: a container, or a slot holding the last call."""
    calls = f"the last call `{wrapper}` sets it to" if slot else f"the calls `{wrapper}` stores"
    return (
        f"WG006 `{decorator}.<locals>.{container}`, a cache the decorator keeps by hand, one per function it decorates, "
        f"keeps the {_holds(kinds)} of {calls} at line {fill_line} {evidence}"
    )


#: Why the codemod leaves a WG007 workspace alone.
WORKSPACE = "it is a workspace of objects it builds itself; a weak container would drop them at once"


def workspace(at: ast.expr, name: str, kind: str, place: str, scope: str, holds: str, proof: Evidence, evidence: str) -> Finding:
    """WG007, reported at ``at`` (where ``# noqa`` belongs): a workspace of objects the code builds itself,
    kept for the process, which the codemod leaves alone (``WORKSPACE``)."""
    return Finding(
        code="WG007", line=at.lineno, col=at.col_offset, name=name, kind=kind, scope=scope, holds=(holds,), evidence=proof,
        message=container_message("WG007", kind, place, name, (holds,), evidence), fix_reason=WORKSPACE,
    )


#: Why the codemod leaves a decorator's own cache alone.
HAND_WRITTEN_CACHE = (
    "a hand-written cache in a decorator's closure: the codemod rewrites containers and lru_caches, not "
    "the decorator's own lookup; bound it, key it weakly or clear it by hand"
)


#: Why a finding matters and what to do, for the codes whose words do not depend on the finding.
_ADVICE: dict[str, tuple[str, str]] = {
    "WG005": ("it pins the values, and returns stale hits once an id is reused", "key it by the object in a WeakIdMap"),
    "WG006": (
        "the cache is a process-wide dict with strong keys that keeps them alive",
        "use weak_lru_cache / weak_cache, lru_cache with freeing: an entry goes when its argument (or self) is collected",
    ),
    "WG007": (
        "a workspace that lives for the whole process, not a leak of someone else's objects",
        "free it (or cache_clear()) when done if it is large, or # noqa: WG007 where the process is meant to keep it",
    ),
    "WG009": (
        "the process-wide finalizer registry keeps the object alive through its own callback",
        "pass only what the cleanup needs, never the object or its bound methods",
    ),
    "WG010": (
        "the module keeps the hook, and the hook the object with what it stores, for as long as the module lives",
        "keep the handle and remove the hook when done",
    ),
    "WG011": (
        "the instance lives as long as the process, and keeps what it was handed until the next call replaces it",
        "set the attribute back to None when done, or hold it weakly",
    ),
    "WG012": (
        "the module (or class) lives as long as the process, and keeps the model after the work that needed it",
        "give it an unload that sets it back to None, or # noqa: WG012 where the process is meant to keep it",
    ),
}


def advice(finding: Finding) -> str:
    """Why one finding matters and what to do about it, in a sentence: what ``--show-source`` prints under
    the finding's source (the whole entry is ``--explain``'s)."""
    code = finding.code
    if code == "WG004":
        why = "lookups compare keys with == and raise 'Boolean value of Tensor with more than one value is ambiguous'"
        how = f"use {'StrictWeakIdSet' if finding.kind == 'WeakSet' else 'StrictWeakIdMap'}, which compares by identity"
    elif code in _ADVICE:
        why, how = _ADVICE[code]
    elif code == "WG008":
        why = f"its values stay alive {'as long as the class exists' if finding.scope == 'class' else 'for the life of the process'}"
        how = "hold them in a WeakValueMap, which drops an entry when its value is collected"
    else:
        why = f"it keeps them alive {'as long as the class exists' if finding.scope == 'class' else 'for the life of the process'}"
        if finding.kind in _MAPS:
            how = "key it weakly by identity with WeakIdMap"
        elif finding.kind in _SEQUENCES:
            how = "hold them in a WeakIdList, which keeps order and duplicates"
        else:
            how = "hold them in a WeakIdSet"
    command = "python -m fixes.apply --unsafe-fixes" if code in UNSAFE_FIX_CODES else "python -m fixes.apply"
    fix = f"`{command}` rewrites it" if finding.fixable else f"fix it by hand: {finding.fix_reason}"
    return f"{why}; {how} ({fix})"
