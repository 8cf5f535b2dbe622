"""Class 4: two nested classes with the same name; only one of their caches holds modules, the other is
keyed by strings."""
# expect: fixed
import gc

from torch import nn


class Encoder:
    class Meta:
        cache = {}

        @classmethod
        def remember(cls, module: nn.Module, note: str) -> None:
            cls.cache[module] = note


class Decoder:
    class Meta:
        cache = {}

        @classmethod
        def remember(cls, key: str, note: str) -> None:
            cls.cache[key] = note


def main() -> None:
    layers = [nn.Linear(2, 2), nn.Linear(2, 2)]
    for i, layer in enumerate(layers):
        Encoder.Meta.remember(layer, f"enc{i}")
    Decoder.Meta.remember("attn", "dec-attn")
    Decoder.Meta.remember("mlp", "dec-mlp")
    print("encoder cache:", len(Encoder.Meta.cache), [Encoder.Meta.cache[m] for m in layers])
    print("decoder cache:", sorted(Decoder.Meta.cache.items()))
    print("decoder lookup:", Decoder.Meta.cache.get("attn"), "attn" in Decoder.Meta.cache)
    del layers[0]
    gc.collect()
    print("[gc] encoder notes after dropping a layer:", sorted(Encoder.Meta.cache.values()))
    print("decoder untouched:", len(Decoder.Meta.cache))
