"""A module of the package named ``setup.py``: a set-up step, not the project's marker."""
from torch import nn

from .manager import Manager


def setup(model: nn.Module) -> None:
    manager = Manager.get_instance()
    for module in model.modules():
        if isinstance(module, nn.Embedding):
            manager.register(module, 8)
