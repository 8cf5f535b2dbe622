from .tables import Rotary


class Scaled(Rotary):
    pass
