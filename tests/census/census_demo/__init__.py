"""Small real modules with long-lived state, for the census tests (``tests/test_census.py``)."""
