"""flake8-weakglobals: find and fix long-lived containers that keep framework objects alive."""

__version__ = "0.1.0"
