"""§6: another module calls the cached function; calling is no use of the cache object."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
from torch import nn

from pkg import cached


def main() -> None:
    m = nn.Linear(2, 2)
    print(cached.device_of(m), cached.device_of.cache_info().hits)
