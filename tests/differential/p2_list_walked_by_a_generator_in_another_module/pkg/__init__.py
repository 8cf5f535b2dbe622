"""Layer tracking for a staged freeze."""
