from . import state


def reset_all() -> None:
    for name, value in vars(state).items():
        if not name.startswith("__") and isinstance(value, dict):
            value.clear()
