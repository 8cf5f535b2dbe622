"""Control: DeepSpeed's quantized_weight_registry shape, a dict keyed by id() of weights."""
# expect: fixed
import gc

import torch
from torch import nn

quantized_weight_registry = {}


def quantize(weight: torch.Tensor) -> torch.Tensor:
    if id(weight) in quantized_weight_registry:
        return quantized_weight_registry[id(weight)]
    q = (weight.detach() * 127).round().to(torch.int8)
    quantized_weight_registry[id(weight)] = q
    return q


def lookup(weight: torch.Tensor):
    return quantized_weight_registry.get(id(weight))


def main() -> None:
    torch.manual_seed(0)
    layers = [nn.Linear(3, 3) for _ in range(3)]
    for layer in layers:
        quantize(layer.weight)
    print("registry size:", len(quantized_weight_registry))
    again = quantize(layers[0].weight)
    print("cached hit is the same tensor:", again is lookup(layers[0].weight))
    print("dtype:", again.dtype, "shape:", tuple(again.shape))
    print("unknown:", lookup(torch.zeros(3, 3)))
    print("value sums:", [int(v.sum()) for v in quantized_weight_registry.values()])
    del layers[1]
    gc.collect()
    print("[gc] after dropping a layer:", len(quantized_weight_registry))
    print("survivor still cached:", lookup(layers[1].weight) is not None)
