def reset_class_caches(obj) -> list:
    """Test isolation: empties every class-level dict that the object's classes hold."""
    cleared = []
    for klass in type(obj).__mro__:
        for name, value in list(klass.__dict__.items()):
            if not name.startswith("__") and isinstance(value, dict) and value:
                value.clear()
                cleared.append(f"{klass.__name__}.{name}")
    return cleared
