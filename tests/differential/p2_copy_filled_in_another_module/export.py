from torch import nn

import names


def export_names(model: nn.Module) -> dict:
    exported = names.LAYER_NAMES.copy()
    exported[nn.Softmax(-1)] = "head"
    return exported
