"""One object held through every kind of step a census path writes: a set, a class attribute, an
instance's attribute, a closure cell, a function's defaults, a bound method's ``__self__``, nested lists
and dicts, and a ``Mock``'s record of its calls. Each printed path must evaluate to the object itself."""
from __future__ import annotations

from typing import Any, Callable, Optional
from unittest import mock

from torch import nn

SEEN: set = set()
NESTED: list = []
RECORDER = mock.Mock()


class Registry:
    latest: Optional[nn.Module] = None


class Holder:
    def __init__(self) -> None:
        self.kept: Optional[nn.Module] = None

    def report(self) -> Optional[nn.Module]:
        return self.kept


HOLDER = Holder()
REPORT: Callable[[], Any] = Holder().report  # its holder is reached only through the bound method


def _closing() -> Callable[[], list]:
    kept: list = []  # reached only through the closure

    def read() -> list:
        return kept

    return read


READ = _closing()


def keep_every_way(module: nn.Module) -> None:
    global USES
    SEEN.add(module)
    NESTED.append({"layers": [module]})
    Registry.latest = module
    HOLDER.kept = module
    REPORT.__self__.kept = module  # type: ignore[attr-defined]
    READ().append(module)
    RECORDER(module)

    def uses(first: nn.Module = module) -> nn.Module:
        return first

    USES = uses


def forget() -> None:
    global USES
    SEEN.clear()
    NESTED.clear()
    READ().clear()
    REPORT.__self__.kept = None  # type: ignore[attr-defined]
    Registry.latest = None
    HOLDER.kept = None
    RECORDER.reset_mock()
    USES = None


USES: Any = None
