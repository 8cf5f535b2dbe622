from .tables import Rotary


def with_scale(base: type) -> type:
    return base


class Scaled(with_scale(Rotary)):
    pass
