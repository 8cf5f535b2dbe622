"""Quantisation helpers. The scale table is public from 3.8 on (older interpreters go without)."""
import sys

from .scales import calibrate, scale_of

if sys.version_info >= (3, 8):
    from .scales import _SCALE as SCALE_TABLE
