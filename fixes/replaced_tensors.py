"""Where a program has torch replace the tensors its modules hold, which a fix that holds them weakly breaks.

A fix that holds tensors or parameters weakly rests on two things torch can take away:

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

Only a direct swap reaches any tensor; the other routes replace a module's parameters. They still refuse
the fix of any container of tensors: a parameter read as ``module.weight`` is often annotated, and so
known, as a plain tensor. A module can do any of these only by spelling one of ``REPLACEMENT_WORDS``, so only modules that spell one
are parsed; the names they use are then resolved through their imports (``swap_tensors`` as an attribute
of a module's own object is no swap).
"""
from __future__ import annotations

import ast
from typing import Optional

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
#: What a module must spell to do any of the above.
REPLACEMENT_WORDS = frozenset(
    {"swap_tensors", "set_swap_module_params_on_conversion", _WRAPPER_DEFINITION, "torchao", "fully_shard", "DTensor",
     "distribute_tensor", "distribute_module", "parallelize_module", "parametrize", "parametrizations",
     "register_parametrization", "prune", "weight_norm", "spectral_norm"}
)


def replacement_site(tree: ast.Module, names: Names) -> Optional[tuple[int, str]]:
    """The first place in a module (``tree``, whose imports ``names`` resolves) where it has torch swap or
    recompute tensors: ``(line, what it does and why the fix breaks)``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == _WRAPPER_DEFINITION:
            return node.lineno, f"defines `{_WRAPPER_DEFINITION}`: its tensors are wrapper subclasses, which module conversions swap: {_SWAPS}"
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            used = [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            used = [alias.name for alias in node.names]
        elif isinstance(node, (ast.Name, ast.Attribute)):
            used = [names.qualify(node) or ""]
        else:
            continue
        for name in used:
            if name in _CALLS:
                return node.lineno, _CALLS[name]
            if _under(name, _WRAPPER_PARAMETERS):
                return node.lineno, f"uses `{name}`, whose parameters are wrapper subclasses, which module conversions swap: {_SWAPS}"
            if _under(name, _RECOMPUTING):
                return node.lineno, f"uses `{name}`, which recomputes a module's weight on each access or forward, {_RECOMPUTED}"
    return None


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(f"{prefix}.") for prefix in prefixes)
