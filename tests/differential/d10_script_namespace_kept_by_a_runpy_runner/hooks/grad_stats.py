"""Gradient statistics, executed by the trainer with runpy.run_path (THRESHOLD and log are injected)."""

# parameter -> qualified name, and parameter -> norm of its last gradient
_NAMES = {}
_NORMS = {}


def install(model):
    for name, p in model.named_parameters():
        _NAMES[p] = name


def after_backward(model):
    for p in model.parameters():
        if p.grad is not None:
            _NORMS[p] = p.grad.norm().item()


def report():
    for p, norm in _NORMS.items():
        flag = "small" if norm < THRESHOLD else "ok"  # noqa: F821 (injected)
        log(f"{_NAMES[p]}: {norm:.4f} {flag}")  # noqa: F821 (injected)


def tracked():
    return len(_NAMES)
