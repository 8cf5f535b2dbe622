"""Shape probing for sequential models."""
