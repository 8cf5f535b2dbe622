# expect: refused: and line 5 reads `_SEEN` from what it finds
import torch
from pkg import seen
from pkg import audit


def main():
    x = torch.zeros(3)
    y = torch.ones(2)
    seen.mark(x)
    seen.mark(y)
    audit.audit("pkg." + "seen")
    print(x.sum().item(), y.sum().item())


if __name__ == "__main__":
    main()
