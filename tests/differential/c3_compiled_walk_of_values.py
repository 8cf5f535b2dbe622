"""Class 3 (the replacement observable): a regulariser compiled whole (`fullgraph=True`) walks the values
of a map keyed by experts. Dynamo traces a dict's walk natively and the runtime's only through its Python
code, where `fullgraph=True` raises."""
# expect: refused: the runtime lets a compiler trace
import torch
from torch import nn

GATE_SCALES = {}


def init_gates(experts: nn.ModuleList) -> None:
    for expert in experts:
        GATE_SCALES[expert] = torch.tensor(1.0 + 0.25 * len(GATE_SCALES))


@torch.compile(fullgraph=True, backend="eager")
def scale_penalty(weight: torch.Tensor) -> torch.Tensor:
    total = torch.zeros(())
    for scale in GATE_SCALES.values():
        total = total + scale.pow(2)
    return weight * total


def main() -> None:
    experts = nn.ModuleList(nn.Linear(2, 2) for _ in range(3))
    init_gates(experts)
    print("penalty:", round(float(scale_penalty(torch.tensor(0.01))), 6))
