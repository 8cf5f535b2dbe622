"""Uses by every route: the set is used by a module of a subpackage named `dist` (distributed helpers),
which pickles it and checks its type."""
# expect: refused: which the rewrite may change
import pickle

import torch
from torch import nn

from trainer.dist import sync
from trainer.hooks import clip


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    model(torch.randn(8, 4)).pow(2).sum().backward()
    print("clipped", clip(model, 0.01))
    print("plain set", sync.is_plain_set())
    try:
        print("payload entries", len(pickle.loads(sync.payload())))
    except Exception as error:  # noqa: BLE001
        print("payload failed", type(error).__name__)
