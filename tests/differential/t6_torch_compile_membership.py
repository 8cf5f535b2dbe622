"""Class 6: a compiled forward (fullgraph) asks whether its weight is in a module-level map of frozen
parameters and reads a per-module setting with .get(); both maps must stay traceable."""
# expect: fixed
import torch
from torch import nn

frozen_params = {}
dropout_rate = {}


def freeze(p: nn.Parameter) -> None:
    frozen_params[p] = True


def set_rate(module: nn.Module, rate: float) -> None:
    dropout_rate[module] = rate


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.fc.weight.detach() if self.fc.weight in frozen_params else self.fc.weight
        scale = 1.0 - dropout_rate.get(self, 0.0)
        return torch.nn.functional.linear(x, w, self.fc.bias) * scale


def main() -> None:
    torch.manual_seed(0)
    block = Block()
    x = torch.ones(2, 3)
    compiled = torch.compile(block, backend="eager", fullgraph=True)
    out = compiled(x)
    print("trainable:", out.requires_grad, [round(v, 4) for v in out[0].tolist()])
    freeze(block.fc.weight)
    set_rate(block, 0.5)
    out = compiled(x)
    print("after freezing:", out.grad_fn is not None, [round(v, 4) for v in out[0].tolist()])
    print("eager agrees:", torch.allclose(out, block(x)))
