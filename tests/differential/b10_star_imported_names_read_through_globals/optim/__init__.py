"""Optimizer set-up helpers."""
