"""Class 6: a compiled forward (fullgraph) looks its weight's scale up in a module-level map keyed by
parameters; the rewritten map must still be traceable."""
# expect: fixed
import torch
from torch import nn

weight_scale = {}


def set_scale(p: nn.Parameter, scale: float) -> None:
    weight_scale[p] = scale


class Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * weight_scale[self.fc.weight]


def main() -> None:
    torch.manual_seed(0)
    model = Scaled()
    set_scale(model.fc.weight, 0.5)
    x = torch.ones(2, 3)
    eager = model(x)
    compiled = torch.compile(model, backend="eager", fullgraph=True)
    with torch.no_grad():
        out = compiled(x)
    print("compiled matches eager:", torch.allclose(out, eager.detach()))
    print("output:", [[round(v, 4) for v in row] for row in out.tolist()])
    set_scale(model.fc.weight, 2.0)
    with torch.no_grad():
        again = compiled(x)
    print("rescaled:", torch.allclose(again, eager.detach() * 4))
