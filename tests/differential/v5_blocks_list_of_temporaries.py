"""§7: temporaries appended each forward for a loss: the list is their only owner."""
# expect: refused: built where it is filled | only
import torch
from torch import nn

_LOSSES = []


class Router(nn.Module):
    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        _LOSSES.append(torch.softmax(hidden, dim=-1).mean())
        return hidden


def main() -> None:
    r = Router()
    r(torch.ones(2, 3))
    r(torch.ones(2, 3))
    print(len(_LOSSES), [round(float(x), 3) for x in _LOSSES])
