"""Class 3 (the replacement observable): a model's `forward` divides by an `lru_cache`d norm of its layer,
and the program compiles the model. The cache stores the norm once under lru_cache; the weak cache, traced
through its Python code inside the compiled forward, stores nothing and recomputes it every call."""
# expect: refused: a compiler calls lru_cache's wrapper as it is
# codemod: --runtime import --unsafe-fixes
import functools

import torch
from torch import nn

NORMS_COMPUTED = []


@functools.lru_cache(maxsize=None)
def weight_norm(layer: nn.Linear) -> float:
    NORMS_COMPUTED.append(layer.out_features)
    return float(layer.weight.detach().norm())


class Normalised(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(2, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) / weight_norm(self.fc)


def main() -> None:
    torch.manual_seed(0)
    model = torch.compile(Normalised(), backend="eager")
    for _ in range(3):
        out = model(torch.ones(1, 2))
    print("out:", [round(v, 4) for v in out.sum(0).tolist()])
    print("norms computed:", len(NORMS_COMPUTED))
