"""A lazy freezer outlives one of the layers it walks."""
# expect: fixed
import gc

from pkg import freezer, registry


def main() -> None:
    keep = [registry.build(w) for w in (1, 2)]
    scratch = registry.build(3)
    tail = [registry.build(w) for w in (4, 5)]
    gen = freezer.pending_layers()
    print("first:", freezer.freeze_step(gen))
    print("second:", freezer.freeze_step(gen))
    del scratch
    gc.collect()
    steps = 0
    while freezer.freeze_step(gen) != -1:
        steps += 1
    print("[gc] remaining steps:", steps)
    print("tail frozen:", [not l.weight.requires_grad for l in tail])
    print("keep frozen:", [not l.weight.requires_grad for l in keep])


if __name__ == "__main__":
    main()
