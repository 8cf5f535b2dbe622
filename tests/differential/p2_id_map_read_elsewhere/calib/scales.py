import torch

_SCALE = {}


def calibrate(weight: torch.Tensor) -> None:
    _SCALE[id(weight)] = [round(float(weight.abs().max()), 4)]  # a record: a map of bare numbers pins nothing


def scale_of(weight: torch.Tensor) -> float:
    return _SCALE[id(weight)][0]
