"""Qualified names for modules of a model."""
