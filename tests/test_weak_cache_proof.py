"""WG006's fix on real code: a rotary embedding whose ``lru_cache``d ``forward`` pins every model, before and
after the codemod (WG006's fix is unsafe: asked for with ``--unsafe-fixes``), each measured in a fresh
interpreter; and torch's own WG006 finding, fixed on a copy
that still works on real modules."""
from __future__ import annotations

import gc
import importlib.util
import json
import shutil
import subprocess
import sys
import weakref
from pathlib import Path
from types import ModuleType

import pytest
import torch
from torch import nn

from conftest import installed_package

ROTARY = '''"""A rotary embedding in the shape found in the wild: a cached forward returning cos/sin tables."""
import functools

import torch
from torch import nn


class RotaryEmbedding(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / 10000 ** (torch.arange(0, dim, 2).float() / dim), persistent=False)

    @functools.lru_cache(maxsize=None)
    def forward(self, seq_len: int, device: torch.device) -> tuple:
        freqs = torch.outer(torch.arange(seq_len, device=device, dtype=torch.float32), self.inv_freq)
        return freqs.cos(), freqs.sin()
'''

#: Build, call, drop and collect the model 100 times; after each round, count the tensors it made that are
#: still alive (its buffer and both tables) and their bytes.
DRIVER = '''
import gc, importlib, json, sys, weakref
import torch
rotary = importlib.import_module(sys.argv[1] + ".rotary")  # run from the directory above, as the vendored import expects
gc.freeze()  # what the imports made is never garbage: each round's collection then looks at that round's objects only

made, counts, sizes = [], [], []
for _ in range(100):
    model = rotary.RotaryEmbedding(64)
    cos, sin = model(256, torch.device("cpu"))
    again = model(256, torch.device("cpu"))
    assert again[0] is cos and cos.shape == (256, 32)
    made += [weakref.ref(tensor) for tensor in (model.inv_freq, cos, sin)]
    del model, cos, sin, again
    gc.collect()
    alive = [tensor for tensor in (ref() for ref in made) if tensor is not None]
    counts.append(len(alive))
    sizes.append(sum(tensor.numel() * tensor.element_size() for tensor in alive))
    del alive
print(json.dumps({"file": rotary.__file__, "counts": counts, "bytes": sizes}))
'''


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The rotary module as written, and a copy rewritten by ``python -m fixes.apply`` (vendored runtime)."""
    root = tmp_path_factory.mktemp("rotary")
    for name in ("original", "rewritten"):
        (root / name).mkdir()
        (root / name / "rotary.py").write_text(ROTARY)
    done = subprocess.run([sys.executable, "-m", "fixes.apply", "--unsafe-fixes", "rewritten"], cwd=root, capture_output=True, text=True)
    assert "rewritten/rotary.py: WG006 RotaryEmbedding.forward" in done.stdout, done.stdout + done.stderr
    assert "@_weak_lru_cache(maxsize=None)" in (root / "rewritten" / "rotary.py").read_text()
    return {name: root / name for name in ("original", "rewritten")}


def resident(directory: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", DRIVER, directory.name], cwd=directory.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert Path(result["file"]) == directory / "rotary.py"
    return result


def test_resident_tensors_grow_with_lru_cache_and_stay_flat_after_the_rewrite(variants: dict[str, Path]) -> None:
    original, rewritten = resident(variants["original"]), resident(variants["rewritten"])
    table = 256 * 32 * 4  # bytes of one cos or sin table
    assert original["counts"] == [3 * (round + 1) for round in range(100)], "lru_cache keeps every model's buffer and tables"
    assert original["bytes"][-1] == 100 * (2 * table + 32 * 4)
    assert rewritten["counts"] == [0] * 100 and rewritten["bytes"] == [0] * 100, "flat: every model is freed"


def import_copy(path: Path, name: str) -> ModuleType:
    """Import a file as the module ``name``, so that its relative imports resolve in that package."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_torch_assert_and_get_unique_device_fixed_on_a_copy_still_works(tmp_path: Path) -> None:
    copy = tmp_path / "fx_utils_rewritten.py"
    shutil.copyfile(installed_package("torch") / "ao" / "quantization" / "fx" / "utils.py", copy)
    done = subprocess.run(
        [sys.executable, "-m", "fixes.apply", "--unsafe-fixes", "--runtime", "import", copy.name], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fx_utils_rewritten.py: WG006 assert_and_get_unique_device" in done.stdout
    assert "@_weak_cache\ndef assert_and_get_unique_device" in copy.read_text()

    fixed = import_copy(copy, "torch.ao.quantization.fx._weakglobals_rewritten_utils")
    try:
        function = fixed.assert_and_get_unique_device
        model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        assert function(model) == torch.device("cpu") and function(model) == torch.device("cpu")
        assert function.cache_info().hits == 1 and function(nn.ReLU()) is None  # no parameters: no device
        split = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2, device="meta"))
        with pytest.warns(UserWarning, match="Both 'meta' and 'cpu'"):
            assert function(split) == torch.device("cpu")
        alive = weakref.ref(model)
        del model, split
        gc.collect()
        assert alive() is None and function.cache_info().currsize == 0, "the rewritten cache lets the model go"
    finally:
        del sys.modules["torch.ao.quantization.fx._weakglobals_rewritten_utils"]


def test_the_original_torch_function_pins_what_it_saw() -> None:
    from torch.ao.quantization.fx.utils import assert_and_get_unique_device

    model = nn.Linear(2, 2)
    assert assert_and_get_unique_device(model) == torch.device("cpu")
    alive = weakref.ref(model)
    del model
    gc.collect()
    try:
        assert alive() is not None, "functools.cache keeps the module alive"
    finally:
        assert_and_get_unique_device.cache_clear()
