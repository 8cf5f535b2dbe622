"""The rules: codes, default policy, and messages in the style of bugbear and ruff (what, why, what to do).

Every message names the fill line and the structural evidence, so a reader can check the claim without
running anything. The README's "Rules" section documents each code at length.
"""
from __future__ import annotations

from dataclasses import dataclass

from .vocabulary import describe


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
        Rule("WG007", "module- or class-level workspace of modules or tensors it allocates itself (off by default)"),
    )
}
#: Reported by the flake8 plugin, at line 1, when the analysis itself fails on a file (a bug of ours): the
#: other files' results still come through, which an exception would prevent.
INTERNAL_ERROR = "WG000"
#: Opt-in codes (flake8's ``extend_default_ignore``): reported only when a selected prefix names them.
#: WG007 is no leak of someone else's objects: a workspace or fixture list the module owns by design.
DEFAULT_IGNORED: tuple[str, ...] = ("WG007",)


def _holds(kinds: tuple[str, ...]) -> str:
    return " and ".join(describe(kind) for kind in kinds)


def container_message(
    code: str, kind: str, place: str, name: str, kinds: tuple[str, ...], evidence: str, fixable: bool
) -> str:
    """The message of WG001-WG005; ``place`` is ``module-level``, ``class-level`` or ``instance``."""
    holds = _holds(kinds)
    fix = "`python -m fixes.apply` rewrites it" if fixable else "fix it by hand"
    if code == "WG004":
        return (
            f"{code} {kind} `{name}` is keyed by {holds} {evidence}: it compares keys with ==, so lookups raise "
            f"'Boolean value of Tensor with more than one value is ambiguous'; use WeakIdMap ({fix})"
        )
    if code == "WG007":
        return (
            f"{code} {place} {kind} `{name}` holds {holds} it allocates itself {evidence}: a workspace that lives "
            "for the whole process, not a leak of someone else's objects; free it when done if it is large"
        )
    if code == "WG005":
        return (
            f"{code} {place} {kind} `{name}` is keyed by id() of {holds} {evidence} and never drops an entry: it pins "
            f"the values and returns stale hits once an id is reused; key it by the object in a WeakIdMap ({fix})"
        )
    relation = "is keyed by" if kind in ("dict", "defaultdict", "OrderedDict") else "holds"
    lifetime = "as long as the class exists" if place == "class-level" else "for the life of the process"
    remedy = "key it weakly by identity with WeakIdMap" if relation == "is keyed by" else "hold them in a WeakIdSet"
    return f"{code} {place} {kind} `{name}` {relation} {holds} {evidence} and keeps them alive {lifetime}; {remedy} ({fix})"


def cache_message(decorator: str, name: str, kinds: tuple[str, ...], evidence: str) -> str:
    return (
        f"WG006 `@{decorator}` on `{name}` caches calls keyed by {_holds(kinds)} {evidence}: the cache is a "
        "process-wide dict with strong keys that keeps them alive; cache on the instance or key on values "
        "that do not pin (shapes, dtypes, names)"
    )
