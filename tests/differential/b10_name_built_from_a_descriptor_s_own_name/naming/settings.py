"""Run settings; some fields are live views of another module's globals, checked before a run."""
import importlib


class Live:
    """A class attribute that reads the upper-cased global of the same name from a sibling module."""

    def __init__(self, leaf: str, kind: type) -> None:
        self.leaf, self.kind = leaf, kind

    def __set_name__(self, owner, name: str) -> None:
        self.attr = name.upper()

    def __get__(self, obj, owner=None):
        module = importlib.import_module("." + self.leaf, __package__)
        return getattr(module, self.attr)


class Settings:
    module_names = Live("names", dict)
    log_every = 10

    def problems(self) -> list:
        found = []
        for name, field in vars(type(self)).items():
            if isinstance(field, Live):
                value = getattr(self, name)
                if not isinstance(value, field.kind):
                    found.append("%s: expected %s, got %s" % (name, field.kind.__name__, type(value).__name__))
        return found
