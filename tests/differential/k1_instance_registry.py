"""Class 1: the state of a module-level instance (`registry = Registry()`, `self.items = {}`): the global
registry is keyed by modules, while other instances of the same class are keyed by strings."""
# expect: fixed
import gc

from torch import nn


class Registry:
    def __init__(self) -> None:
        self.items = {}

    def register(self, module: nn.Module, name: str) -> None:
        self.items[module] = name

    def alias(self, key: str, target: str) -> None:
        self.items[key] = target

    def get(self, key, default=None):
        return self.items.get(key, default)

    def names(self) -> list:
        return list(self.items.values())

    def __len__(self) -> int:
        return len(self.items)


registry = Registry()


def track(model: nn.Module) -> None:
    for name, module in model.named_modules():
        registry.register(module, name or "root")


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    track(model)
    aliases = Registry()
    aliases.alias("encoder", "model.0")
    aliases.alias("decoder", "model.1")
    print("modules tracked:", len(registry), registry.get(model[0]), registry.names())
    print("aliases:", len(aliases), aliases.get("encoder"), aliases.get("missing", "-"), aliases.names())
    registry.alias("head", "model.1")
    print("the global registry takes a string too:", registry.get("head"), len(registry))
    del model
    gc.collect()
    print("[gc] tracked once the model is gone:", registry.names())
    print("aliases unchanged:", aliases.names())
