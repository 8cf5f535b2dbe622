"""Class 7 (values), adversarial, across modules: the index walks a model an imported factory builds for
the loop, which nothing but the index keeps."""
# expect: refused: an element of `models.build().named_children()`
# codemod: --runtime import --unsafe-fixes
import gc

from pkg.index import NAMED, index_model


def main() -> None:
    index_model()
    gc.collect()
    print("names", list(NAMED), NAMED["0"])
