"""One object held in several places at once, for the census's every-holder rule: two maps, the same map
twice, two globals, and two lists sharing one tuple."""
from __future__ import annotations

from typing import Any

from torch import nn

BY_MODULE: dict = {}
BY_NAME: dict = {}
HISTORY: list = []
RECENT: list = []
CURRENT: Any = None
LAST: Any = None


def keep_everywhere(module: nn.Module) -> None:
    global CURRENT, LAST
    BY_MODULE[module] = "first"
    BY_MODULE["again"] = module  # the same map once more: still one holder
    BY_NAME["first"] = module
    entry = ("first", module)
    HISTORY.append(entry)
    RECENT.append(entry)  # the same tuple: both lists hold the module through it
    CURRENT = LAST = module


def forget() -> None:
    global CURRENT, LAST
    for container in (BY_MODULE, BY_NAME, HISTORY, RECENT):
        container.clear()
    CURRENT = LAST = None
