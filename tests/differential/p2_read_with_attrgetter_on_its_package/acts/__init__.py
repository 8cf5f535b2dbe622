"""Activation bookkeeping."""
from . import table  # noqa: F401
