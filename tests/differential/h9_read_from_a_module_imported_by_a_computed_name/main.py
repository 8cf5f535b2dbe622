# expect: refused: and line 7 reads `_REG` from what it finds
import torch
from pkg import reg
from pkg import report


def main():
    a = torch.nn.Linear(4, 4)
    b = torch.nn.Linear(4, 2)
    reg.register(a, "a")
    reg.register(b, "b")
    report.report("re" + "g")
    print(a.out_features, b.out_features)


if __name__ == "__main__":
    main()
