"""Class 3: `defaultdict()` without a factory still prints as a defaultdict; WeakIdMap without a
default_factory prints as a dict."""
# expect: refused: without a default factory
from collections import defaultdict

from torch import nn

notes = defaultdict()


def note(m: nn.Module, text: str) -> None:
    notes[m] = text


def main() -> None:
    layer = nn.Identity()
    note(layer, "skip")
    print(notes)
