"""DeepSpeed's ``debug.py`` shape twice: a plain dict (WG001, pins every module it names) and the same map
as a ``WeakIdMap`` (holds them weakly: no pin)."""
from __future__ import annotations

from torch import nn

from flake8_weakglobals.runtime import WeakIdMap

module_names = {}
weak_names = WeakIdMap()


def record(model: nn.Module) -> None:
    module_names.update((module, name) for name, module in model.named_modules())


def record_weakly(model: nn.Module) -> None:
    weak_names.update((module, name) for name, module in model.named_modules())
