"""Uses by every route: a src layout without project markers; this script puts `src` on the path itself
and then checks the set's type and pickles it."""
# expect: refused: which the rewrite may change
import os
import pickle
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))

from trainer.hooks import CLIPPED, clip  # noqa: E402


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    model(torch.randn(8, 4)).pow(2).sum().backward()
    print("clipped", clip(model, 0.01))
    print("plain set", isinstance(CLIPPED, set))
    try:
        print("pickled entries", len(pickle.loads(pickle.dumps(CLIPPED))))
    except Exception as error:  # noqa: BLE001
        print("pickle failed", type(error).__name__)
