"""Trap: the kernel module names its build cache by a hash of its own source (inspect.getsource), so any added line moves it."""
# expect: refused: reads source text with
import torch
from torch import nn

from kernels import packed


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 12), nn.SiLU(), nn.Linear(12, 6), nn.SiLU(), nn.Linear(6, 2))
    x = torch.randn(4, 6)
    with torch.no_grad():
        ref = model(x)
        out = packed.run(model, x)
        out2 = packed.run(model, x)
    print(f"close to eager: {torch.allclose(out, ref, atol=1e-6)}")
    print(f"repeat equal: {torch.equal(out, out2)}")
    print(f"build tag: {packed.build_tag()}")
    print(f"kernel source lines: {packed.source_lines()}")
    print(f"cache dir: {packed.cache_dir('/tmp/kcache')}")
    print(f"[gc] packed layers: {packed.packed_count()}")


if __name__ == "__main__":
    main()
