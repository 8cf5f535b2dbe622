"""Where a program may swap tensors, which no weak reference to them survives.

``torch.utils.swap_tensors(a, b)`` exchanges two tensors' contents in place and raises ``RuntimeError``
when either has a weak reference. A fix that holds tensors or parameters weakly gives each one a weak
reference, so a program that swaps them breaks. torch swaps them:

- where the program calls ``torch.utils.swap_tensors``;
- in ``nn.Module`` conversions (``.to()``, ``.double()``, ``load_state_dict``) once the program calls
  ``torch.__future__.set_swap_module_params_on_conversion(True)``;
- in the same conversions, always, for parameters that are traceable wrapper subclasses: DTensors (FSDP2's
  ``fully_shard``, tensor parallelism, ``distribute_tensor``), torchao's quantized and float8 weights, and a
  project's own subclass, which defines ``__tensor_flatten__``.

A module can do any of these only by spelling one of ``SWAP_WORDS``, so only modules that spell one are
parsed; the names they use are then resolved through their imports (``swap_tensors`` as an attribute of a
module's own object is no swap).
"""
from __future__ import annotations

import ast
from typing import Optional

from flake8_weakglobals.syntax.qualified_names import Names

_SWAP_CALLS = {
    "torch.utils.swap_tensors": "calls `torch.utils.swap_tensors`",
    "torch.__future__.set_swap_module_params_on_conversion": (
        "turns on `torch.__future__.set_swap_module_params_on_conversion`, so module conversions swap parameters"
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
_WRAPPER_DEFINITION = "__tensor_flatten__"
#: What a module must spell to do any of the above.
SWAP_WORDS = frozenset(
    {"swap_tensors", "set_swap_module_params_on_conversion", _WRAPPER_DEFINITION, "torchao", "fully_shard", "DTensor",
     "distribute_tensor", "distribute_module", "parallelize_module"}
)


def swap_site(tree: ast.Module, names: Names) -> Optional[tuple[int, str]]:
    """The first place in a module (``tree``, whose imports ``names`` resolves) where it swaps tensors or
    makes parameters that module conversions swap: ``(line, what it does)``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == _WRAPPER_DEFINITION:
            return node.lineno, f"defines `{_WRAPPER_DEFINITION}`: its tensors are wrapper subclasses, which module conversions swap"
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            imported = [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            imported = [alias.name for alias in node.names]
        elif isinstance(node, (ast.Name, ast.Attribute)):
            imported = [names.qualify(node) or ""]
        else:
            continue
        for name in imported:
            if name in _SWAP_CALLS:
                return node.lineno, _SWAP_CALLS[name]
            if any(name == prefix or name.startswith(f"{prefix}.") for prefix in _WRAPPER_PARAMETERS):
                return node.lineno, (
                    f"uses `{name}`, whose parameters are wrapper subclasses, which module conversions swap"
                )
    return None
