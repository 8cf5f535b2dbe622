"""Class 2, across modules: a script beside a package (the directory is no marked project) checks the type
of the package's map. The package's importers are everything under the directory it is imported from,
not only the package itself."""
# expect: refused: `e2_script_beside_package/main.py` line 11 uses it as `isinstance(names, dict)`
from torch import nn
from trainerpkg.state import index, names


def main() -> None:
    index(nn.Sequential(nn.ReLU()))
    print("is a dict:", isinstance(names, dict), len(names))
