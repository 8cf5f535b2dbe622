"""Learning-rate schedule state."""
from . import registry

WARMUP = {"steps": 10, "peak": 3e-4}
registry.register_state("schedule", __name__, "WARMUP")
