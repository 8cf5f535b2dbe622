"""Running statistics about a model's layers."""
