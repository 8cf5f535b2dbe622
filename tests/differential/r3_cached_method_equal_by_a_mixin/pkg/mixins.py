class ByName:
    """Instances with the same name are equal: lru_cache shares their entries."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ByName) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)
