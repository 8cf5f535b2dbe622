from torch import nn

from . import registry

registry.register(nn.GELU())
registry.register(nn.SiLU())
