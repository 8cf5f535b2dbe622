"""Derive ``torch_tensor_valued.json`` from torch's own type stubs: the torch functions and ``Tensor`` methods
that return a tensor whatever they are given, and the functions that return a tuple of tensors they compute
(``torch.svd``).

    python -m flake8_weakglobals.analysis.derive_torch_signatures > flake8_weakglobals/analysis/torch_tensor_valued.json

Evidence may only call the result of an operation on tensors a tensor when the operation is known to return
one (``torch.log2(ramp)``, ``x.clamp_max(n)``), since some return a bool, an int or a tuple
(``torch.equal``, ``x.numel()``, ``torch.sort``). torch's generated stubs (``torch/_C/_VariableFunctions.pyi``
for ``torch.*``, ``TensorBase`` in ``torch/_C/__init__.pyi`` for the methods) state that for each overload,
so the table is read from them rather than listed by hand; a name is kept only when every overload returns a
``Tensor``. The stubs are parsed, never imported, and the table ships with the linter, which runs without torch.
"""
from __future__ import annotations

import ast
import json
from importlib.metadata import version
from importlib.util import find_spec
from pathlib import Path

#: What a stub's return annotation says when the result is a tensor (``Self``/``S`` on the methods that
#: return the tensor they change)
_TENSOR_RESULTS = frozenset({"Tensor", "Self", "S"})


def tensor_valued(definitions: list[ast.stmt]) -> list[str]:
    """The public names among ``definitions`` whose every overload is annotated to return a tensor."""
    returns: dict[str, set[str]] = {}
    for node in definitions:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            returns.setdefault(node.name, set()).add(ast.unparse(node.returns) if node.returns else "")
    return sorted(name for name, results in returns.items() if results <= _TENSOR_RESULTS)


def returning_results(definitions: list[ast.stmt]) -> list[str]:
    """The public names among ``definitions`` whose every overload returns one of torch's result tuples
    (``torch.return_types.svd``: ``U, S, V``), each item a tensor the call computes."""
    returns: dict[str, set[str]] = {}
    for node in definitions:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            returns.setdefault(node.name, set()).add(ast.unparse(node.returns) if node.returns else "")
    return sorted(name for name, results in returns.items() if all(result.startswith("torch.return_types.") for result in results))


def derive(torch_dir: Path) -> dict[str, object]:
    functions = ast.parse((torch_dir / "_C" / "_VariableFunctions.pyi").read_text(encoding="utf-8")).body
    stub = ast.parse((torch_dir / "_C" / "__init__.pyi").read_text(encoding="utf-8")).body
    tensor = next(node for node in stub if isinstance(node, ast.ClassDef) and node.name == "TensorBase")
    return {
        "derived_from": f"torch=={version('torch')}",
        "functions": tensor_valued(functions),
        "methods": tensor_valued(tensor.body),
        "results": returning_results(functions),
    }


def main() -> int:
    spec = find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("torch is not installed where this interpreter looks")
    print(json.dumps(derive(Path(spec.origin).parent), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
