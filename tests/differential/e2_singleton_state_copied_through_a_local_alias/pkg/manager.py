"""A singleton reached through its accessor, keeping the modules it is handed (bitsandbytes'
``GlobalOptimManager`` in small)."""
from typing import Dict

from torch import nn


class Manager:
    _instance = None

    def __init__(self) -> None:
        self.overrides: Dict[nn.Module, int] = {}

    @classmethod
    def get_instance(cls) -> "Manager":
        if cls._instance is None:
            cls._instance = Manager()
        return cls._instance

    def register(self, module: nn.Module, bits: int) -> None:
        self.overrides[module] = bits

    def lookup(self, module: nn.Module) -> int:
        return self.overrides.get(module, 0)

    def count(self) -> int:
        return len(self.overrides)
