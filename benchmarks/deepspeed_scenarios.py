"""DeepSpeed ``debug.py`` scenarios, one per fresh interpreter, against whichever ``deepspeed`` comes first
on ``sys.path`` (the installed 0.19.6, or a copy rewritten by ``python -m fixes.apply``).

    python benchmarks/deepspeed_scenarios.py SCENARIO [SCENARIO ...]

prints one JSON line per scenario with its result and the ``debug.py`` file that ran, so a caller can check
which ``deepspeed`` it measured. Used by ``tests/test_deepspeed_proof.py`` and ``benchmarks/deepspeed_release.py``.
"""
from __future__ import annotations

import gc
import json
import sys
import tracemalloc
import weakref
from typing import Any, Callable

import deepspeed.utils.debug as debug
import torch
from torch import nn

from _common import best

MIB = 2**20


def _blocks(count: int = 16, width: int = 1024) -> nn.Sequential:
    return nn.Sequential(*(nn.Linear(width, width, bias=False) for _ in range(count)))


def leak() -> dict[str, Any]:
    """Extract names, replace every block of a 64 MiB model, and count the old weights still alive."""
    model = _blocks()
    debug.debug_extract_module_and_param_names(model)
    old = [weakref.ref(block.weight) for block in model]
    replaced = sum(block.weight.numel() * block.weight.element_size() for block in model) / MIB
    for index in range(len(model)):
        setattr(model, str(index), nn.Linear(1024, 1024, bias=False))
    gc.collect()
    alive = [tensor for ref in old if (tensor := ref()) is not None]
    resident = sum(tensor.numel() * tensor.element_size() for tensor in alive) / MIB
    return {"replaced_mib": replaced, "resident_mib": resident, "alive": len(alive), "blocks": len(old)}


def lookups() -> dict[str, Any]:
    """Every helper's answer for every module and parameter, plus objects never extracted."""
    model = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Linear(4, 2), nn.ReLU()), nn.LayerNorm(2))
    for index, parameter in enumerate(model.parameters()):
        parameter.ds_id, parameter.ds_status = index, "AVAILABLE"  # DeepSpeed's ZeRO attributes
    debug.debug_extract_module_and_param_names(model)
    modules = [
        [debug.debug_module2name(module), debug.debug_module2name_id(module), debug.debug_module2name_class(module)]
        for module in model.modules()
    ]
    helpers = [
        debug.debug_param2name, debug.debug_param2name_id, debug.debug_param2name_id_shape,
        debug.debug_param2name_id_shape_device, debug.debug_param2name_id_numel, debug.debug_param2name_id_shape_status,
    ]
    parameters = [[helper(parameter) for helper in helpers] for parameter in model.parameters()]
    strangers = [debug.debug_module2name(nn.Linear(2, 2)), debug.debug_param2name(nn.Parameter(torch.zeros(3)))]
    return {"modules": modules, "parameters": parameters, "strangers": strangers}


def clear() -> dict[str, Any]:
    """Clear while the model is alive (held here), then extract again."""
    model = _blocks(4, 8)

    def sizes() -> list[int]:
        return [len(debug.module_names), len(debug.param_names)]

    debug.debug_extract_module_and_param_names(model)
    before = sizes()
    debug.debug_clear_module_and_param_names()
    after = sizes()
    debug.debug_extract_module_and_param_names(model)
    again = sizes()
    return {"before": before, "after_clear": after, "after_extract": again, "model_alive": len(model)}


def collected_parameter() -> dict[str, Any]:
    """Delete one parameter and collect it: its entry must go, and only its."""
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
    debug.debug_extract_module_and_param_names(model)
    before = len(debug.param_names)
    bias = weakref.ref(model[1].bias)
    del model[1].bias
    gc.collect()
    return {"before": before, "after": len(debug.param_names), "collected": bias() is None}


def cycles() -> dict[str, Any]:
    """1,000 extract/clear cycles on the same model: memory and every registry stay flat."""
    model = _blocks(8, 64)

    def cycle(times: int) -> None:
        for _ in range(times):
            debug.debug_extract_module_and_param_names(model)
            debug.debug_clear_module_and_param_names()

    cycle(50)
    gc.collect()
    tracemalloc.start()
    memory, objects = tracemalloc.get_traced_memory()[0], len(gc.get_objects())
    finalizers = len(weakref.finalize._registry)  # type: ignore[attr-defined]
    cycle(1000)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - memory
    tracemalloc.stop()
    return {
        "grown_bytes": grown,
        "new_objects": len(gc.get_objects()) - objects,
        "new_finalizers": len(weakref.finalize._registry) - finalizers,  # type: ignore[attr-defined]
        "weakrefs_per_parameter": max(weakref.getweakrefcount(parameter) for parameter in model.parameters()),
    }


def timing(repeat: int = 5, copies: int = 100) -> dict[str, Any]:
    """One extract over 10,000 parameters, and 1,000,000 ``debug_param2name`` lookups (best of 5)."""
    model = nn.Sequential(*(nn.Linear(1, 1) for _ in range(5000)))  # 5,000 weights + 5,000 biases
    parameters = list(model.parameters())
    extract = best(lambda: debug.debug_extract_module_and_param_names(model), repeat=repeat)
    debug.debug_extract_module_and_param_names(model)
    keys = parameters * copies  # 1,000,000 lookups
    lookup = best(lambda: [debug.debug_param2name(parameter) for parameter in keys], repeat=repeat)
    return {"parameters": len(parameters), "extract_s": extract, "lookups": len(keys), "lookup_s": lookup}


def quick_timing() -> dict[str, Any]:
    """``timing`` once, over 10,000 lookups: a smoke run of the release benchmark, not a measurement."""
    return timing(repeat=1, copies=1)


SCENARIOS: dict[str, Callable[[], dict[str, Any]]] = {
    function.__name__: function for function in (leak, lookups, clear, collected_parameter, cycles, timing, quick_timing)
}

if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(json.dumps({"debug_file": debug.__file__, **SCENARIOS[name]()}))
