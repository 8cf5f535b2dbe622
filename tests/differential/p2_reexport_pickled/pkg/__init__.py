from .names import NAMES, record

__all__ = ["NAMES", "record"]
