"""Class 3: a table keyed by modules and by frozen-dataclass layer specs side by side; a spec built again
later (equal, not identical) must find its entry, as in a dict."""
# expect: fixed
import gc
from dataclasses import dataclass

from torch import nn


@dataclass(frozen=True)
class LayerSpec:
    kind: str
    width: int


init_gain = {}


def register_module(module: nn.Module, gain: float) -> None:
    init_gain[module] = gain


def register_spec(spec: LayerSpec, gain: float) -> None:
    init_gain[spec] = gain


def main() -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    for m in model:
        register_module(m, 1.0)
    register_spec(LayerSpec("linear", 4), 0.5)
    register_spec(LayerSpec("conv", 8), 2.0)
    print("spec lookup by an equal spec:", init_gain[LayerSpec("linear", 4)], LayerSpec("conv", 8) in init_gain)
    print("get a missing spec:", init_gain.get(LayerSpec("conv", 16), "none"))
    register_spec(LayerSpec("linear", 4), 0.75)
    print("re-register overwrites:", len(init_gain), init_gain[LayerSpec("linear", 4)])
    print("pop by an equal spec:", init_gain.pop(LayerSpec("conv", 8)), len(init_gain))
    print("order:", [k.kind if isinstance(k, LayerSpec) else type(k).__name__ for k in init_gain])
    model[0] = nn.Identity()
    gc.collect()
    print("[gc] keys after replacing a layer:", len(init_gain))
