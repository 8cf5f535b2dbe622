"""Control: a class-level set of modules already wrapped, shared by every wrapper instance."""
# expect: fixed
import gc

from torch import nn


class Checkpointer:
    wrapped = set()

    def wrap(self, module: nn.Module) -> bool:
        if module in self.wrapped:
            return False
        Checkpointer.wrapped.add(module)
        return True

    def unwrap(self, module: nn.Module) -> None:
        self.wrapped.discard(module)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.GELU(), nn.Linear(2, 2))
    names = {m: n or "root" for n, m in model.named_modules()}
    c = Checkpointer()
    print("first wrap:", [c.wrap(m) for m in model])
    print("second wrap:", [c.wrap(m) for m in model])
    print("size:", len(Checkpointer.wrapped))
    print("members:", sorted(names[m] for m in Checkpointer.wrapped))
    c.unwrap(model[1])
    print("after unwrap:", sorted(names[m] for m in Checkpointer.wrapped), model[1] in c.wrapped)
    c.unwrap(model[1])
    print("unwrap twice is fine:", len(Checkpointer.wrapped))
    print("bool:", bool(Checkpointer.wrapped))
    extra = nn.Linear(1, 1)
    c.wrap(extra)
    del extra
    gc.collect()
    print("[gc] wrapped after a temporary module is dropped:", len(Checkpointer.wrapped))
