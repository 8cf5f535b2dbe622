"""Partial fine-tuning helpers."""
