"""Class 1 (ownership: the global an owner is stored in lets go): a model server loads models into a cache
by name and stamps each model object with its load step. Evicting a model pops it from the cache; the
audit then walks the stamps and prints one row per model ever loaded, a row the stamps alone keep once the
cache let go."""
# expect: refused: reads the whole container after that
import gc

import torch
from torch import nn

_MODELS = {}
_LOADED_AT = {}


def load(name: str, width: int, step: int) -> nn.Module:
    model = nn.Linear(width, 1)
    _MODELS[name] = model
    _LOADED_AT[model] = step
    return model


def evict(name: str) -> None:
    _MODELS.pop(name)


def audit() -> list:
    return sorted((step, model.in_features) for model, step in _LOADED_AT.items())


def main() -> None:
    torch.manual_seed(0)
    load("small", 2, 1)
    load("large", 8, 2)
    print("audit", audit())
    evict("small")
    gc.collect()
    print("audit after eviction", audit())


if __name__ == "__main__":
    main()
