from ._table import SEEN as traced, trace

__all__ = ["traced", "trace"]
