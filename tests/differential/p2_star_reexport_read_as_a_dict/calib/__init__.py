"""The public API lives in calib.core."""
from .core import *  # noqa: F401,F403
