"""A run keeps a module-level map of the models it trained, keyed by model, and a report registered with
``@atexit.register`` reads it when the interpreter exits: by then ``main`` has returned and its locals, the
models' other owners, are gone, so the map is their only owner when the report reads it. A weak map would
report nothing. (``main`` drops its models and calls the report itself, so the transcript shows the read.)"""
# expect: refused: registered with `atexit`
import atexit
import gc

import torch
from torch import nn

TRAINED = {}


def train(model: nn.Module, name: str) -> None:
    loss = model(torch.ones(2, 4)).pow(2).mean()
    loss.backward()
    TRAINED[model] = (name, round(loss.item(), 5))


@atexit.register
def report() -> None:
    gc.collect()
    print("trained", len(TRAINED), sorted(TRAINED.values()))


def main() -> None:
    torch.manual_seed(0)
    encoder, head = nn.Linear(4, 3), nn.Linear(4, 1)
    train(encoder, "encoder")
    train(head, "head")
    print("parameters", sum(p.numel() for p in encoder.parameters()) + sum(p.numel() for p in head.parameters()))
    del encoder, head
    report()


if __name__ == "__main__":
    main()
