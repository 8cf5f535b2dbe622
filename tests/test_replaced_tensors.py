"""Where a program has torch swap or recompute tensors (``fixes/replaced_tensors.py``): each route is
found, and a name that only looks like one is not."""
from __future__ import annotations

import ast
from typing import Optional

import pytest

from fixes.references import imported_names
from fixes.replaced_tensors import REPLACEMENT_WORDS, replacement_site


def site(source: str) -> Optional[tuple[int, str]]:
    tree = ast.parse(source)
    return replacement_site(tree, imported_names(tree))


@pytest.mark.parametrize(
    "source, line, says",
    [
        ("import torch\n\ntorch.utils.swap_tensors(a, b)\n", 3, "calls `torch.utils.swap_tensors`"),
        ("from torch.utils import swap_tensors as swap\n", 1, "calls `torch.utils.swap_tensors`"),
        ("import torch\ntorch.__future__.set_swap_module_params_on_conversion(True)\n", 2, "module conversions swap parameters"),
        ("from torch.distributed.tensor import DTensor\n", 1, "`torch.distributed.tensor.DTensor`, whose parameters"),
        ("from torch.distributed.fsdp import fully_shard\n", 1, "`torch.distributed.fsdp.fully_shard`"),
        ("import torchao.quantization\n", 1, "`torchao.quantization`"),
        ("class Packed:\n    def __tensor_flatten__(self):\n        return [], None\n", 2, "defines `__tensor_flatten__`"),
        ("from torch.nn.utils import parametrizations\nparametrizations.weight_norm(layer)\n", 1, "recomputes a module's weight"),
        ("import torch.nn.utils.prune as prune\nprune.l1_unstructured(m, 'weight', 0.5)\n", 1, "`torch.nn.utils.prune`"),
        ("from torch.nn.utils import weight_norm\n", 1, "`torch.nn.utils.weight_norm`"),
    ],
)
def test_each_route_by_which_torch_swaps_is_found(source: str, line: int, says: str) -> None:
    found = site(source)
    assert found is not None and found[0] == line and says in found[1], found
    assert any(word in source for word in REPLACEMENT_WORDS), "the words a module must spell cover the route"


@pytest.mark.parametrize(
    "source",
    [
        "class Swapper:\n    def __init__(self):\n        self.swap_tensors = {}\n",  # DeepSpeed's NVMe swapper
        "def swap_tensors(a, b):\n    return b, a\n\nswap_tensors(1, 2)\n",
        "from torch.distributed.fsdp import FullyShardedDataParallel\n",  # FSDP1 keeps plain parameters
        "import torchaudio\n",
        "def prune(tree):\n    return tree\n\nprune(weight_norm)\n",  # names of the program's own
    ],
)
def test_names_that_only_look_like_a_swap_are_not_one(source: str) -> None:
    assert site(source) is None

