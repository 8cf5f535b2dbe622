"""Class 2 (uses by every route): a reset finds a library module with `inspect.getmodule`, its classes
with `inspect.getmembers(module, inspect.isclass)`, and clears whatever in `vars(cls)` is an
`lru_cache` wrapper. The weak cache is none, so a mask cached before the window changed survives."""
# expect: refused: finds objects by name with `inspect.getmembers(module, inspect.isclass)`
# codemod: --runtime import --unsafe-fixes
import resets
from attn.masks import BandAttention


def main() -> None:
    attention = BandAttention(window=1)
    print("band:", int(attention.mask(5).sum()))
    attention.window = 2
    print("cleared:", resets.clear_caches_of(BandAttention))
    print("band after:", int(attention.mask(5).sum()))
