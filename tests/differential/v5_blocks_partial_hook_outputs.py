"""§4: outputs captured by a hook registered through functools.partial."""
# expect: refused: only | hook
import functools
import gc

import torch
from torch import nn

captured = {}


def capture(name, module, inputs, output: torch.Tensor):
    captured[output] = name


def main() -> None:
    m = nn.Linear(2, 2)
    m.register_forward_hook(functools.partial(capture, "lin"))
    m(torch.ones(1, 2))
    gc.collect()
    print(sorted(captured.values()))
