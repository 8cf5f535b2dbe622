"""Class 2: the map escapes through a local alias, which is filled and then pickled for a checkpoint."""
# expect: refused: serialized | pickle | alias
import pickle

from torch import nn

layer_tags = {}


def tag_layers(model: nn.Module) -> None:
    for name, module in model.named_modules():
        layer_tags[module] = name.upper() or "ROOT"


def checkpoint(extra: nn.Module) -> bytes:
    table = layer_tags
    table[extra] = "EXTRA"
    return pickle.dumps(table)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.1))
    tag_layers(model)
    blob = checkpoint(model[1])
    restored = pickle.loads(blob)
    print("pickled entries:", len(restored))
    print("restored tags:", sorted(restored.values()))
    print("restored key types:", sorted(type(k).__name__ for k in restored))
    print("live lookups:", [layer_tags[m] for m in model])
