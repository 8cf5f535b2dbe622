"""Class 2: the container is the state of a module-level instance, and the instance itself is pickled
(a trainer checkpoints its bookkeeping object whole): the map escapes through its holder."""
# expect: refused: serialized | pickle | holder | instance
import pickle

from torch import nn


class Bookkeeping:
    def __init__(self) -> None:
        self.step_of = {}
        self.epoch = 0

    def record(self, module: nn.Module, step: int) -> None:
        self.step_of[module] = step


bookkeeping = Bookkeeping()


def checkpoint() -> bytes:
    return pickle.dumps(bookkeeping)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    for step, module in enumerate(model):
        bookkeeping.record(module, step)
    bookkeeping.epoch = 3
    restored = pickle.loads(checkpoint())
    print("restored epoch:", restored.epoch)
    print("restored steps:", sorted(restored.step_of.values()))
    print("restored keys:", sorted(type(m).__name__ for m in restored.step_of))
    print("live:", [bookkeeping.step_of[m] for m in model])
