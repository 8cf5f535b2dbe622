"""Class 7 (values), adversarial: a per-name singleton, `Device.get(name)` returns the registered instance
or builds one (which registers itself): the registry is meant to own it."""
# expect: refused: it is a memo
# codemod: --runtime import --unsafe-fixes
import gc

from torch import nn


class Device(nn.Module):
    _by_name = {}

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.calls = 0
        type(self)._by_name[name] = self

    @classmethod
    def get(cls, name: str) -> "Device":
        return cls._by_name.get(name) or cls(name)


def main() -> None:
    Device.get("cpu").calls += 1
    Device.get("cpu").calls += 1
    gc.collect()
    print("calls", Device.get("cpu").calls, list(Device._by_name))
