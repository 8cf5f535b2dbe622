"""Class 5: reference names computed from a template model that a factory of this module builds in the
comprehension itself. Nothing else keeps that model, so a weak map would be empty at once: the map is a
workspace (WG007), never fixed."""
# expect: refused: a workspace of objects it builds itself
from torch import nn

names = {}


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(2, 2), nn.ReLU())


def index() -> None:
    global names
    names = {m: n for n, m in make_model().named_modules()}


def main() -> None:
    index()
    print("reference names:", sorted(names.values()))
