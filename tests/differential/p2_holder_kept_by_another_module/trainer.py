import copy

import tracker


class Trainer:
    def __init__(self) -> None:
        self.state = tracker.STATE

    def snapshot(self) -> list:
        saved = copy.deepcopy(self.state)
        return sorted(saved.norms.values())
