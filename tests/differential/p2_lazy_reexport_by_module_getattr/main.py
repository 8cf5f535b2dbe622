"""Uses by every route: the package re-exports its submodule lazily through a module ``__getattr__``
(PEP 562), which finds the set by whatever name an importer asks for. ``main`` reads it as
``obs.NAN_PARAMS`` and unions it with the unbound ``set.union``: after a rewrite the set is no ``set``,
and the report fails."""
# expect: refused: finds objects by name
import torch
from torch import nn

import obs


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 2))
    model(torch.randn(2, 3)).sum().backward()
    model[0].weight.grad[0, 0] = float("nan")
    obs.scan(model)
    bad = set.union(obs.NAN_PARAMS, set())
    print("non-finite", sorted(name for name, parameter in model.named_parameters() if parameter in bad))
