"""Trap: a hook script run by runpy.run_path with injected globals; the runner lists and checks the names it defines."""
# expect: refused: and reads the namespace it runs in
import os
import runpy

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
REQUIRED = ("install", "after_backward", "report")


def load_hook_script(path, threshold, lines):
    ns = runpy.run_path(path, init_globals={"THRESHOLD": threshold, "log": lines.append},
                        run_name="grad_stats_hook")
    defined = sorted(k for k in ns if not k.startswith("__") and k not in ("THRESHOLD", "log"))
    print("script defines:", ", ".join(defined))
    missing = [k for k in REQUIRED if k not in ns]
    print("missing entry points:", missing or "none")
    return ns


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    lines = []
    hooks = load_hook_script(os.path.join(HERE, "hooks", "grad_stats.py"), 0.2, lines)
    hooks["install"](model)
    x, y = torch.randn(16, 6), torch.randn(16, 1)
    for step in range(3):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        hooks["after_backward"](model)
        opt.step()
        print(f"step {step}: loss={loss.item():.4f}")
    hooks["report"]()
    for line in lines:
        print(line)
    print(f"[gc] tracked: {hooks['tracked']()}")


if __name__ == "__main__":
    main()
