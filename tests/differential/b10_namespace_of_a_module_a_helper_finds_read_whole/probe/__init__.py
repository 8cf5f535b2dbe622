"""Activation probes."""
