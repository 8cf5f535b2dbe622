"""Uses by routes: a report reaches the frozen set through operator.attrgetter on a dotted path built from parts, and json's default= encodes only real sets."""
# expect: refused: reads attributes by a computed dotted path
import torch
from torch import nn

from finetune import freezing, report


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.norm = nn.LayerNorm(8)
        self.head = nn.Linear(8, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.embed(ids)))


def main() -> None:
    torch.manual_seed(0)
    model = Tiny()
    print("frozen", freezing.freeze(model))
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print("trainable", trainable)
    print("report", report.run_report(1))
    print("logits", model(torch.tensor([[1, 2, 3]])).shape)


if __name__ == "__main__":
    main()
