"""Resumable-state registry: component name -> 'module:attr' reference, resolved only when a checkpoint is described."""
import pkgutil

_STATE = {}


def register_state(component: str, module: str, attr: str) -> None:
    _STATE[component] = "%s:%s" % (module, attr)


def describe() -> list:
    lines = []
    for component, ref in sorted(_STATE.items()):
        obj = pkgutil.resolve_name(ref)
        kind = type(obj).__name__
        size = len(obj) if kind in ("dict", "list", "set", "tuple") else "-"
        lines.append("%s=%s[%s]" % (component, kind, size))
    return lines
