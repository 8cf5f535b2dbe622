"""A small training toolkit whose components register resumable state."""
