"""Class 5: the norm of each parameter, taken while gradients flow (its graph saves the parameter for
backward): the value keeps its key alive, so the fix must be refused."""
# expect: refused: refers to its own key | keeps its key alive | own key
import torch
from torch import nn

norms = {}


def record(model: nn.Module) -> None:
    for p in model.parameters():
        norms[p] = p.norm()


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    record(model)
    print("entries:", len(norms))
    print("norms:", sorted(round(float(v), 4) for v in norms.values()))
    print("differentiable:", all(v.requires_grad for v in norms.values()))
    sum(norms.values()).backward()
    print("grads flowed:", all(p.grad is not None for p in model.parameters()))
