"""Class 7 (values), adversarial, across modules: the index walks a model an imported factory builds for
the loop, which nothing but the index keeps."""
# expect: refused: workspace
# (a workspace, WG007: the index reads what the annotated factory builds, as for a factory of the module itself)
# codemod: --runtime import --unsafe-fixes
import gc

from pkg.index import NAMED, index_model


def main() -> None:
    index_model()
    gc.collect()
    print("names", list(NAMED), NAMED["0"])
