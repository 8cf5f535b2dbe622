from torch import nn

from .manager import Manager


def prepare(model: nn.Module) -> None:
    manager = Manager.get_instance()
    for module in model.modules():
        if isinstance(module, nn.Embedding):
            manager.register(module, 8)
