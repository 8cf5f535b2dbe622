import sys


def status() -> str:
    """What is pruned, if the pruning module was loaded at all (never importing it here)."""
    module = sys.modules.get("tools.masks")
    if module is None:
        return "not loaded"
    pruned = sys.modules["tools.masks"].PRUNED
    return f"{type(pruned).__name__}[{len(pruned)}]"
