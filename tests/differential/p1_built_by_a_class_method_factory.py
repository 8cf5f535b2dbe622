"""Class 1 (ownership: instances built by the class's own factories): every `Expert` lists itself, and
`Expert.create` and `widened` build instances with `cls(...)` and `type(self)(...)` whose results the
program drops. Only calls of `Expert` by name were checked, so `self` seemed kept by its builders."""
# expect: refused: that `Expert.create`, called at line
import gc

from torch import nn

EXPERTS = []


class Expert(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.proj = nn.Linear(width, width)
        EXPERTS.append(self)

    @classmethod
    def create(cls, width: int) -> "Expert":
        return cls(width)

    def widened(self) -> "Expert":
        return type(self)(self.proj.in_features * 2)


def main() -> None:
    Expert.create(2)
    kept = Expert(3)
    kept.widened()
    gc.collect()
    print("widths:", [expert.proj.in_features for expert in EXPERTS])
    print("kept is listed:", any(expert is kept for expert in EXPERTS))
