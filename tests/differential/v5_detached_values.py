"""Class 5: values derived from each key that do not refer back to it (gradients, detached copies, plain
Python data): none of them may block the fix, and entries must still go away with their parameter."""
# expect: fixed
import gc

import torch
from torch import nn

grads = {}
datas = {}
detached = {}
snapshots = {}
as_lists = {}
grad_norms = {}
itemsizes = {}


def record(model: nn.Module) -> None:
    for p in model.parameters():
        grads[p] = p.grad
        datas[p] = p.data
        detached[p] = p.detach()
        snapshots[p] = p.detach().clone()
        as_lists[p] = p.tolist()
        grad_norms[p] = p.grad.norm()
        itemsizes[p] = p.dtype.itemsize


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    model(torch.ones(4, 3)).sum().backward()
    record(model)
    w = model.weight
    print("sizes:", len(grads), len(datas), len(detached), len(snapshots), len(as_lists), len(grad_norms), len(itemsizes))
    print("grad is p.grad:", grads[w] is w.grad)
    print("data shares storage:", datas[w].data_ptr() == w.data_ptr())
    print("detached shares storage:", detached[w].data_ptr() == w.data_ptr())
    print("snapshot is a copy:", snapshots[w].data_ptr() != w.data_ptr(), torch.equal(snapshots[w], w.detach()))
    print("list:", [[round(x, 4) for x in row] for row in as_lists[w]])
    print("grad norm:", round(float(grad_norms[model.bias]), 4))
    print("itemsize:", itemsizes[w])
    del model, w
    gc.collect()
    print("[gc] grads once the model is gone:", len(grads))
    print("[gc] datas once the model is gone:", len(datas))
    print("[gc] detached once the model is gone:", len(detached))
    print("[gc] snapshots once the model is gone:", len(snapshots))
    print("[gc] lists once the model is gone:", len(as_lists))
    print("[gc] grad norms once the model is gone:", len(grad_norms))
    print("[gc] itemsizes once the model is gone:", len(itemsizes))
