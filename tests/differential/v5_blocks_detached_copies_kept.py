"""§4: t.detach().to(dtype) copies kept alive on purpose."""
# expect: refused: built where it is filled | only
import gc

import torch

shadows = set()


def track(t: torch.Tensor) -> None:
    shadows.add(t)


def shadow(t: torch.Tensor) -> None:
    copy_ = t.detach().to(torch.float64)
    shadows.add(copy_)


def main() -> None:
    w = torch.ones(3)
    track(w)
    shadow(w)
    gc.collect()
    print(len(shadows), sorted(float(x.sum()) for x in shadows))
