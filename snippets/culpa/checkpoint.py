"""Gradient checkpointing (C12): keep only chosen boundaries, recompute the inside during backward.

`checkpoint(fn, *tensors)` runs `fn` and keeps its output but none of the activations inside it; when
backward reaches the output, it runs `fn` again (recording this time) and backpropagates through that
copy. Gradients are identical to the plain run; memory holds one segment's inside at a time instead of all
of them, for the price of a second forward pass. `checkpoint_sequential` applies it to a chain of layers.

`fn` must be deterministic (same result when run again). Parameters that `fn` uses without receiving them
as arguments (the weights of its layers) are found on the first run and get their gradients too.
"""

import numpy as np

from culpa.tensor import Tensor, op_result, set_grad_enabled, topo_order


def checkpoint(fn, *tensors):
    """fn(*tensors) without keeping its interior activations; they are recomputed during backward."""
    tensors = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in tensors)

    def detached():
        return [Tensor(t.data, requires_grad=t.requires_grad) for t in tensors]

    inputs = detached()
    inner = fn(*inputs)  # recorded once, only to find the parameters fn uses; dropped right away
    own = set(inputs)
    params = [n for n in topo_order(inner) if n.requires_grad and not n._parents and n not in own]
    out = inner.data
    del inner, inputs, own

    def backward(g):  # run fn again, this time keeping its graph, and backpropagate g through it
        inputs = detached()
        with set_grad_enabled(True):
            inner = fn(*inputs)
        if inner.requires_grad:
            inner.backward(g)  # the parameters inside fn get their gradients here, directly
        return tuple(t.grad for t in inputs) + (None,) * len(params)

    return op_result(out, "checkpoint", tensors + tuple(params), backward)


def checkpoint_sequential(functions, segments, x):
    """Run x through `functions` in order, in `segments` checkpointed pieces (the last one runs plainly).

    `functions` is a list of callables (layers, activations), or an MLP (its layers with activations).
    """
    if hasattr(functions, "blocks"):
        functions = functions.blocks()
    functions = list(functions)
    if not 1 <= segments <= len(functions):
        raise ValueError(f"checkpoint_sequential: segments must be in 1..{len(functions)}, got {segments}")
    bounds = np.linspace(0, len(functions), segments + 1).round().astype(int)
    for start, stop in zip(bounds[:-2], bounds[1:-1], strict=True):
        x = checkpoint(_chain(functions[start:stop]), x)
    return _chain(functions[bounds[-2]:])(x)


def _chain(functions):
    def run(x):
        for function in functions:
            x = function(x)
        return x

    return run
