"""Low-rank adapters with trial-and-rollback of their bookkeeping."""
