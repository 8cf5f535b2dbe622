"""Evaluation helpers with per-episode statistics."""
