"""Trap: the plugin is exec(compile(...))'d from its text and the loader takes the classes defined in that namespace as its plugins."""
# expect: refused: and reads the namespace it runs in
import os

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


def load_plugin(path):
    """Run a plugin file in a fresh namespace (no package, no sys.modules entry) and find its classes."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    name = "plugin_" + os.path.splitext(os.path.basename(path))[0]
    namespace = {"__name__": name, "__file__": path}
    exec(compile(source, path, "exec"), namespace)
    classes = [obj for obj in namespace.values()
               if isinstance(obj, type) and obj.__module__ == name]
    print(f"{os.path.basename(path)}: {len(classes)} class(es) defined:",
          ", ".join(c.__name__ for c in classes))
    if len(classes) != 1:
        print("  ambiguous plugin, using the first one")
    return classes[0]


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    plugin_cls = load_plugin(os.path.join(HERE, "plugins", "grad_clip.py"))
    plugin = plugin_cls(limit=0.5)
    print("plugin:", type(plugin).__name__)
    plugin.attach(model)
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    for step in range(4):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        plugin.after_backward(model)
        opt.step()
        print(f"step {step}: loss={loss.item():.4f}")
    for line in plugin.summary(model):
        print(line)
    print(f"[gc] tracked: {plugin.tracked()}")


if __name__ == "__main__":
    main()
