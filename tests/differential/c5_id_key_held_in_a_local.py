"""An ``id()``-keyed calibration map whose key is computed once into a local (``key = id(weight)``) and
read only as that map's key: unwrapping ``id()`` at the binding keys the map by the weight itself, and
every lookup finds what it found (``c5_id_key_held_in_a_local_and_compared`` is the refusal beside it)."""
# expect: fixed
import gc

import torch
from torch import nn

_CALIB = {}


def calibrate(weight: torch.Tensor) -> float:
    key = id(weight)
    if key not in _CALIB:
        _CALIB[key] = [round(weight.detach().abs().max().item() / 127, 6)]  # a record: a map of bare numbers pins nothing
    return _CALIB.get(key, [-1.0])[0]


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    print([calibrate(m.weight) for m in model])
    print([calibrate(m.weight) for m in model], len(_CALIB))
    del model
    gc.collect()
    print("[gc] size:", len(_CALIB))


if __name__ == "__main__":
    main()
