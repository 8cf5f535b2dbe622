"""Class 3: a set of parameters already synchronised, combined with plain sets the way real code does."""
# expect: fixed
from torch import nn

synced = set()


def sync(p: nn.Parameter) -> None:
    synced.add(p)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    names = {p: n for n, p in model.named_parameters()}
    params = list(model.parameters())
    for p in params[:2]:
        sync(p)
    pending = set(params) - synced
    print("pending:", sorted(names[p] for p in pending), type(pending).__name__)
    everything = synced | set(params)
    print("union is a set:", isinstance(everything, set), len(everything))
    with_none = synced | {None}
    print("with a None marker:", len(with_none), None in with_none)
    common = synced & set(params[1:])
    print("common:", sorted(names[p] for p in common), isinstance(common, set))
    print("disjoint from the rest:", synced.isdisjoint(pending))
    print("subset:", synced <= set(params), synced < set(params))
    print("equal to a copy:", synced == set(params[:2]))
    sym = synced ^ set(params[1:3])
    print("symmetric difference:", sorted(names[p] for p in sym), isinstance(sym, set))
    print("issubset/issuperset:", synced.issubset(params), set(params).issuperset(synced))
    print("union method:", sorted(names[p] for p in synced.union(params[3:])))
