"""Flattens collected state with torch's pytree, so that every number can be logged."""
from torch.utils import _pytree as pytree

from .registry import collect


def numbers() -> tuple:
    leaves, spec = pytree.tree_flatten(collect())
    counts = [leaf for leaf in leaves if isinstance(leaf, int)]
    return spec.num_leaves, len(counts), sum(counts)
