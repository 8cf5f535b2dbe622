import functools
import inspect


def clear_caches_of(obj) -> list:
    cleared = []
    module = inspect.getmodule(obj)
    for _, member in inspect.getmembers(module, inspect.isclass):
        for name, value in vars(member).items():
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()
                cleared.append(f"{member.__name__}.{name}")
    return cleared
