"""A name -> module index over the model the package's factory builds on each call."""
from pkg import models

NAMED = {}


def index_model() -> None:
    for name, module in models.build().named_children():
        NAMED[name] = module
