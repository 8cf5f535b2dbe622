"""Class 3: a WeakKeyDictionary of tags on tensors (WG004), whose callers rely on it refusing what cannot
be weakly referenced: plain numbers are reported as untaggable (TypeError), and `get` of one raises."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
import weakref

import torch

_tags = weakref.WeakKeyDictionary()


def tag(obj: torch.Tensor, label: str) -> bool:
    try:
        _tags[obj] = label
    except TypeError:
        return False
    return True


def tag_of(obj) -> str:
    try:
        return _tags.get(obj, "untagged")
    except TypeError:
        return "untaggable"


def main() -> None:
    t = torch.zeros(2)
    print("tensor:", tag(t, "activations"))
    print("float:", tag(3.0, "lr"), "str:", tag("name", "key"))
    print("len:", len(_tags))
    print("tags:", [(tuple(k.shape), v) for k, v in _tags.items()])
    print("tag of a float:", tag_of(3.0))
    print("values:", sorted(_tags.values()))
