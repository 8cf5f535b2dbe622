import copy


def snapshot(*modules) -> dict:
    """Copies the state of each plugin module it is handed: its ``STATE``-like dict globals."""
    return {module.__name__: copy.deepcopy({n: v for n, v in vars(module).items() if type(v) is dict}) for module in modules}
