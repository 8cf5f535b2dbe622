"""A module whose ``__loader__`` is a plain object that holds what the module is given (as pytest's
assertion-rewriting loader leads to its session and each test's fixtures): the import system's names are no
route into the module's state; the module's own names are."""
from __future__ import annotations

from typing import Any


class Loader:
    def __init__(self) -> None:
        self.held: list[Any] = []


__loader__ = Loader()  # type: ignore[assignment]
keep: list[Any] = []


def fill(layer: Any) -> None:
    __loader__.held.append(layer)  # type: ignore[attr-defined]
    keep.append(layer)


def forget() -> None:
    __loader__.held.clear()  # type: ignore[attr-defined]
    keep.clear()
