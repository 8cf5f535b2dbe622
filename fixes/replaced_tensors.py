"""Where a program has torch replace the tensors or modules a model holds, which a fix that holds them weakly breaks.

A fix that holds tensors, parameters or modules weakly rests on things torch can take away:

- **Swaps.** ``torch.utils.swap_tensors(a, b)`` exchanges two tensors in place and raises ``RuntimeError``
  when either has a weak reference, which the fix gives each tensor it holds. torch swaps where the program
  calls it; in ``nn.Module`` conversions (``.to()``, ``.double()``, ``load_state_dict``) once the program
  calls ``torch.__future__.set_swap_module_params_on_conversion(True)``; and in the same conversions,
  always, for parameters that are traceable wrapper subclasses: DTensors (FSDP2's ``fully_shard``, tensor
  parallelism, ``distribute_tensor``), torchao's quantized and float8 weights, and a project's own
  subclass, which defines ``__tensor_flatten__``.
- **Recomputed weights.** A parametrized module (``torch.nn.utils.parametrize``, ``parametrizations``)
  computes ``module.weight`` anew on each access, and a pruned one (``prune``, the old ``weight_norm`` and
  ``spectral_norm``) on each forward: the module does not own the tensor that was read, so nothing but
  the container would.
- **Replaced in place.** Some of torch's own transforms put new objects where the model held the old ones,
  so the container becomes the old ones' only owner: ``torch.ao.quantization``'s ``fuse_modules``,
  ``quantize_dynamic``, ``prepare``, ``convert`` (and the rest of that family) with ``inplace=True``
  replace modules; ``load_state_dict(..., assign=True)`` and, once the program calls
  ``torch.__future__.set_overwrite_module_params_on_conversion(True)``, module conversions replace
  parameters. A fix of a container of modules is refused where the project replaces modules; one of
  tensors or parameters where it swaps, recomputes or replaces them.

Only a direct swap reaches any tensor; the other routes replace a module's parameters. They still refuse
the fix of any container of tensors: a parameter read as ``module.weight`` is often annotated, and so
known, as a plain tensor. A module can do any of these only by spelling the words of one of
``REPLACEMENT_SPELLINGS``, so only modules that spell them are parsed; the names they use are then resolved through their imports (``swap_tensors`` as an attribute
of a module's own object is no swap).
"""
from __future__ import annotations

import ast
from typing import Optional

from flake8_weakglobals.analysis.framework_types import MODULE, PARAMETER, TENSOR
from flake8_weakglobals.syntax.qualified_names import Names

_SWAPS = "torch swaps a tensor only while nothing refers to it weakly, and the fix would refer weakly to each tensor it holds"
_RECOMPUTED = "so a module's weight may be a new tensor that nothing but the container would keep"
_CALLS = {
    "torch.utils.swap_tensors": f"calls `torch.utils.swap_tensors`: {_SWAPS}",
    "torch.__future__.set_swap_module_params_on_conversion": (
        f"turns on `torch.__future__.set_swap_module_params_on_conversion`, so module conversions swap parameters: {_SWAPS}"
    ),
}
#: Libraries whose parameters are wrapper subclasses, which module conversions always swap.
_WRAPPER_PARAMETERS = (
    "torch.distributed.tensor",
    "torch.distributed._tensor",
    "torch.distributed.fsdp.fully_shard",
    "torch.distributed.fsdp._fully_shard",
    "torch.distributed._composable.fsdp",
    "torchao",
)
#: What recomputes a module's weight: on each access (parametrizations) or each forward (hooks).
_RECOMPUTING = (
    "torch.nn.utils.parametrize",
    "torch.nn.utils.parametrizations",
    "torch.nn.utils.prune",
    "torch.nn.utils.weight_norm",
    "torch.nn.utils.spectral_norm",
)
_WRAPPER_DEFINITION = "__tensor_flatten__"
_REPLACED = "and the old ones then have no owner but the container"
#: torch's transforms that, ``inplace=True``, replace a model's modules with fused, observed or quantized ones.
_REPLACING_MODULES = frozenset(
    f"{package}.{function}"
    for package in ("torch.ao.quantization", "torch.quantization")
    for function in ("fuse_modules", "fuse_modules_qat", "quantize", "quantize_dynamic", "quantize_qat", "prepare", "prepare_qat", "convert")
)
_OVERWRITE_ON_CONVERSION = "torch.__future__.set_overwrite_module_params_on_conversion"
#: What a module must spell to do any of the above, and to which kinds of object: every word of one of
#: these (``inplace`` alone is everywhere, ``nn.ReLU(inplace=True)``; a transform of torch's quantization is
#: imported from a module whose name spells ``quantization``).
REPLACEMENT_SPELLINGS: dict[tuple[str, ...], frozenset[str]] = {
    **{(word,): frozenset({TENSOR, PARAMETER}) for word in (
        "swap_tensors", "set_swap_module_params_on_conversion", _WRAPPER_DEFINITION, "torchao", "fully_shard", "DTensor",
        "distribute_tensor", "distribute_module", "parallelize_module", "parametrize", "parametrizations",
        "register_parametrization", "prune", "weight_norm", "spectral_norm", "set_overwrite_module_params_on_conversion")},
    ("load_state_dict", "assign"): frozenset({TENSOR, PARAMETER}),
    ("quantization", "inplace"): frozenset({MODULE}),
}


def replacement_sites(tree: ast.Module, names: Names) -> dict[str, tuple[int, str]]:
    """The first place in a module (``tree``, whose imports ``names`` resolves) where it has torch swap,
    recompute or replace objects of each kind: kind (``TENSOR``, ``PARAMETER``, ``MODULE``) -> ``(line,
    what it does and why the fix breaks)``."""
    found: dict[str, tuple[int, str]] = {}
    for node in ast.walk(tree):
        site = _site(node, names)
        if site is not None:
            for kind in site[0]:
                found.setdefault(kind, (node.lineno, site[1]))
    return found


_TENSORS = frozenset({TENSOR, PARAMETER})
_MODULES = frozenset({MODULE})


def _site(node: ast.AST, names: Names) -> Optional[tuple[frozenset[str], str]]:
    """What one node does to which kinds of objects, if it has torch swap, recompute or replace them."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == _WRAPPER_DEFINITION:
        return _TENSORS, f"defines `{_WRAPPER_DEFINITION}`: its tensors are wrapper subclasses, which module conversions swap: {_SWAPS}"
    if isinstance(node, ast.Call):
        return _replacing_call(node, names)
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
        used = [f"{node.module}.{alias.name}" for alias in node.names]
    elif isinstance(node, ast.Import):
        used = [alias.name for alias in node.names]
    elif isinstance(node, (ast.Name, ast.Attribute)):
        used = [names.qualify(node) or ""]
    else:
        return None
    for name in used:
        if name in _CALLS:
            return _TENSORS, _CALLS[name]
        if _under(name, _WRAPPER_PARAMETERS):
            return _TENSORS, f"uses `{name}`, whose parameters are wrapper subclasses, which module conversions swap: {_SWAPS}"
        if _under(name, _RECOMPUTING):
            return _TENSORS, f"uses `{name}`, which recomputes a module's weight on each access or forward, {_RECOMPUTED}"
    return None


def _replacing_call(call: ast.Call, names: Names) -> Optional[tuple[frozenset[str], str]]:
    """``fuse_modules(model, ..., inplace=True)``, ``model.load_state_dict(state, assign=True)``: a call
    that puts new objects where the model held old ones (a keyword that is not the constant False)."""
    callee = names.qualify(call.func) or ""
    if callee in _REPLACING_MODULES and _keyword_set(call, "inplace"):
        return _MODULES, f"calls `{callee}` in place, which puts new modules where the model held the old ones, {_REPLACED}"
    if isinstance(call.func, ast.Attribute) and call.func.attr == "load_state_dict" and _keyword_set(call, "assign"):
        return _TENSORS, f"calls `load_state_dict(..., assign=True)`, which puts the loaded tensors where the module's parameters were, {_REPLACED}"
    if callee == _OVERWRITE_ON_CONVERSION:
        return _TENSORS, f"turns on `{callee}`, so module conversions make new parameters, {_REPLACED}"
    return None


def _keyword_set(call: ast.Call, name: str) -> bool:
    value = next((keyword.value for keyword in call.keywords if keyword.arg == name), None)
    return value is not None and not (isinstance(value, ast.Constant) and not value.value)


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(f"{prefix}.") for prefix in prefixes)
