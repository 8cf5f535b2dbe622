"""Public face of the package: the activation table, with a fallback for the old layout."""
from .table import remember

try:
    from .table import ACTIVATIONS
except ImportError:  # pragma: no cover - an old checkout without the table
    ACTIVATIONS = None

__all__ = ["ACTIVATIONS", "remember"]
