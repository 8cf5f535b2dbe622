"""Activation bookkeeping."""
