"""A project's own helper that happens to be called WeakIdMap: a cache of values held weakly, keyed by
strings (nothing to do with flake8-weakglobals' runtime)."""
import weakref


class WeakIdMap:
    def __init__(self) -> None:
        self._refs = {}

    def put(self, key: str, value: object) -> None:
        self._refs[key] = weakref.ref(value)

    def get(self, key: str):
        ref = self._refs.get(key)
        return None if ref is None else ref()

    def __len__(self) -> int:
        return len(self._refs)
