"""The rules: one module per rule family with its documentation (`containers.py` for WG001-WG005 and WG007,
`caches.py` for WG006, and WG007 for a cache of what its function makes), how each family's fix is decided
(`container_fix.py`, `cache_fix.py`), the codes and messages, and `analyze_module.py`, which runs the analysis
and every rule over one module."""
