"""Class 5: values with no reference back to their key must not block the fix: a momentum buffer made with
`p.new_zeros` (a new tensor without autograd history) and a layer's own weight (a parameter does not
refer to the module that owns it)."""
# expect: fixed
import gc

from torch import nn

momentum = {}
weights = {}


def init_state(model: nn.Module) -> None:
    for p in model.parameters():
        momentum[p] = p.new_zeros(p.shape)
    for module in model.modules():
        if isinstance(module, nn.Linear):
            weights[module] = module.weight


def main() -> None:
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    init_state(model)
    print("buffers:", [tuple(m.shape) for m in momentum.values()], all(float(m.sum()) == 0 for m in momentum.values()))
    print("weights:", [tuple(w.shape) for w in weights.values()], weights[model[0]] is model[0].weight)
    del model
    gc.collect()
    print("[gc] buffers once the model is gone:", len(momentum))
    print("[gc] weights once the model is gone:", len(weights))
