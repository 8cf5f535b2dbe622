"""Distributed helpers: what every rank must agree on."""
