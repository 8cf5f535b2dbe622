"""Where a program has torch swap or recompute tensors (``fixes/replaced_tensors.py``): each route is
found, and a name that only looks like one is not."""
from __future__ import annotations

import ast
from typing import Optional

import pytest

from fixes.references import imported_names
from fixes.replaced_tensors import REPLACEMENT_SPELLINGS, replacement_sites
from flake8_weakglobals.analysis.framework_types import MODULE, PARAMETER, TENSOR


def site(source: str) -> Optional[tuple[int, str]]:
    """The first place, of any kind."""
    tree = ast.parse(source)
    return min(replacement_sites(tree, imported_names(tree)).values(), default=None)


def kinds(source: str) -> set[str]:
    tree = ast.parse(source)
    return set(replacement_sites(tree, imported_names(tree)))


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
        ("import torch\ntorch.__future__.set_overwrite_module_params_on_conversion(True)\n", 2, "conversions make new parameters"),
        ("def load(model, state):\n    model.load_state_dict(state, assign=True)\n", 2, "`load_state_dict(..., assign=True)`"),
        ("from torch.ao.quantization import fuse_modules\nfuse_modules(m, [['0', '1']], inplace=True)\n", 2,
         "calls `torch.ao.quantization.fuse_modules` in place"),
        ("import torch\ntorch.quantization.quantize_dynamic(m, {torch.nn.Linear}, inplace=flag)\n", 2, "puts new modules where"),
    ],
)
def test_each_route_by_which_torch_swaps_is_found(source: str, line: int, says: str) -> None:
    found = site(source)
    assert found is not None and found[0] == line and says in found[1], found
    assert any(all(word in source for word in words) for words in REPLACEMENT_SPELLINGS), "the words a module must spell cover the route"


@pytest.mark.parametrize(
    "source",
    [
        "class Swapper:\n    def __init__(self):\n        self.swap_tensors = {}\n",  # DeepSpeed's NVMe swapper
        "def swap_tensors(a, b):\n    return b, a\n\nswap_tensors(1, 2)\n",
        "from torch.distributed.fsdp import FullyShardedDataParallel\n",  # FSDP1 keeps plain parameters
        "import torchaudio\n",
        "def prune(tree):\n    return tree\n\nprune(weight_norm)\n",  # names of the program's own
        "from torch.ao.quantization import fuse_modules\nfused = fuse_modules(m, [['0', '1']], inplace=False)\n",  # a copy
        "from torch import nn\nact = nn.ReLU(inplace=True)\n",  # in place on a tensor, not on a model
        "def load(model, state):\n    model.load_state_dict(state, strict=False, assign=False)\n",
        "def prepare(model, inplace=True):\n    return model\n\nprepare(m, inplace=True)\n",  # the program's own prepare
    ],
)
def test_names_that_only_look_like_a_swap_are_not_one(source: str) -> None:
    assert site(source) is None



def test_each_route_refuses_the_kinds_of_object_it_replaces() -> None:
    """Modules replaced in place refuse containers of modules; swaps, recomputed weights and replaced
    parameters refuse containers of tensors and parameters, not of modules."""
    assert kinds("from torch.ao.quantization import convert\nconvert(m, inplace=True)\n") == {MODULE}
    assert kinds("def load(model, state):\n    model.load_state_dict(state, assign=True)\n") == {TENSOR, PARAMETER}
    assert kinds("import torch\ntorch.utils.swap_tensors(a, b)\n") == {TENSOR, PARAMETER}
