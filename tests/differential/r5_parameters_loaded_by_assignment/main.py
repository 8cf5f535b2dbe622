"""Class 1 (ownership), an owner that lets go: ``load_state_dict(state, assign=True)`` puts the checkpoint's
tensors where the module's parameters were, so a list of the parameters frozen before the load is their
only owner afterwards, and the end-of-run report reads it. Held weakly, the report would be empty."""
# expect: refused: calls `load_state_dict(..., assign=True)`
import gc

import torch
from torch import nn

import frozen


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 2))
    frozen.freeze_embeddings(model)
    checkpoint = {key: value.clone() + 1 for key, value in model.state_dict().items()}
    model.load_state_dict(checkpoint, assign=True)
    gc.collect()
    print("loaded", round(model[0].weight.sum().item(), 4))
    print("frozen before the load", [(tuple(p.shape), p.requires_grad) for p in frozen.FROZEN])
