"""A package whose own helpers share names with the runtime's, and which re-exports its modules with
star imports (the modules have no `__all__`)."""


def weak_cache(value: int) -> str:
    return f"the package's own weak_cache({value})"


WeakIdMap = "the package's own WeakIdMap"

from .mod import *  # noqa: E402,F401,F403
