from torch import nn

from .manager import Manager


def prepare(model: nn.Module) -> None:
    for module in model.modules():
        if isinstance(module, nn.Embedding):
            Manager.get_instance().register(module, 8)


def current() -> Manager:
    """Hands the singleton out: whoever calls this holds the instance whole."""
    return Manager.get_instance()
