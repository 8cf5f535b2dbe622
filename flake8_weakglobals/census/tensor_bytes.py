"""The tensor memory a pin keeps alive: the bytes of each distinct storage behind its tensors (and their
gradients), so that a parameter, its views and a tied copy count once.

torch is only read from ``sys.modules``: a process that never imported it has no tensors. Tensor methods
are called as ``torch.Tensor``'s own, with ``__torch_function__`` overrides disabled, so a subclass's Python
code never runs; a subclass with its own ``__torch_dispatch__`` (a wrapper such as ``DTensor``) has no
storage of its own and is skipped: the census walks into it, and its inner tensors count instead.
"""
from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Iterable

from .heap import class_lookup

StorageKey = str  # "pid:device:address": storages of two processes (pytest-xdist workers) never merge


def storages(tensors: Iterable[Any]) -> dict[StorageKey, int]:
    """Each distinct storage behind ``tensors`` and their gradients, with its size in bytes."""
    torch = sys.modules.get("torch")
    if torch is None:
        return {}
    base = torch._C.TensorBase
    default_dispatch = class_lookup(torch.Tensor, "__torch_dispatch__")
    found: dict[StorageKey, int] = {}
    with torch._C.DisableTorchFunctionSubclass(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for tensor in tensors:
            if class_lookup(type(tensor), "__torch_dispatch__") is not default_dispatch:
                continue
            _add(found, tensor, torch)
            if base.is_leaf.__get__(tensor):
                grad = base.grad.__get__(tensor)
                if grad is not None:
                    _add(found, grad, torch)
    return found


def _add(found: dict[StorageKey, int], tensor: Any, torch: Any) -> None:
    try:
        storage = torch.Tensor.untyped_storage(tensor)
    except (RuntimeError, TypeError):  # NotImplementedError included: sparse, nested and other layouts without one
        return
    device = storage.device
    if device.type == "meta" or not storage.data_ptr():
        return
    found[f"{os.getpid()}:{device}:{storage.data_ptr():#x}"] = storage.nbytes()
