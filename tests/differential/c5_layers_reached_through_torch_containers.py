"""Maps filled with what torch's own layers hold: the layers of an ``nn.Sequential`` (iterated) and of an
``nn.ModuleList`` (indexed), the ``self.weight`` an ``nn.Linear`` subclass inherits, and a forward hook's
module stored by a lambda through ``__setitem__``. The caller keeps the model while it reads the maps, so
every lookup finds what it found; once the model is dropped the fixed maps are empty."""
# expect: fixed
import gc

import torch
from torch import nn

FEATURES = {}
FIRST = {}
OUTPUTS = {}


def collect(model: nn.Sequential, x: int) -> None:
    for layer in model:
        FEATURES[layer] = x


def first(layers: nn.ModuleList) -> None:
    FIRST[layers[0]] = len(layers)


def attach(model: nn.Module) -> None:
    for module in model.modules():
        module.register_forward_hook(lambda module, args, output: OUTPUTS.__setitem__(module, output.shape))


class Tagged(nn.Linear):
    seen = {}

    def remember(self) -> None:
        self.seen[self.weight] = tuple(self.weight.shape)


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(Tagged(4, 4), nn.ReLU(), nn.Linear(4, 2))
    layers = nn.ModuleList([model[0], model[2]])
    collect(model, 7)
    first(layers)
    attach(model)
    model(torch.ones(1, 4))
    model[0].remember()
    print(len(FEATURES), [FEATURES.get(layer) for layer in model], FIRST.get(model[0]), FIRST.get(model[1]))
    print(len(OUTPUTS), [tuple(OUTPUTS[layer]) for layer in model], Tagged.seen.get(model[0].weight))
    print(model[0].weight in Tagged.seen, model[2].weight in Tagged.seen)
    del model, layers
    gc.collect()
    print("[gc] keys left:", len(FEATURES) + len(FIRST) + len(OUTPUTS) + len(Tagged.seen))


if __name__ == "__main__":
    main()
