"""Class 6: a compiled forward (fullgraph) counts its calls in a module-level dict keyed by modules, and
returns early for blocks in a module-level set; the count written inside the compiled region, and the set
changed after compiling, must both be seen."""
# expect: fixed
import torch
from torch import nn

call_counts = {}
skipped = set()


def skip(block: nn.Module) -> None:
    skipped.add(block)


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 3)
        call_counts[self] = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        call_counts[self] += 1
        if self in skipped:
            return x
        return torch.relu(self.fc(x)) + x


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(Block(), Block())
    compiled = torch.compile(model, backend="eager", fullgraph=True)
    x = torch.ones(1, 3)
    print("both blocks:", [round(v, 4) for v in compiled(x)[0].tolist()])
    skip(model[1])
    print("second skipped:", [round(v, 4) for v in compiled(x)[0].tolist()])
    print("eager agrees:", torch.allclose(compiled(x), model(x)))
    print("calls per block:", [call_counts[block] for block in model])
    print("skipped:", [block in skipped for block in model])
