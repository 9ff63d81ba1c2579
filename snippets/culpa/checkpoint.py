"""Gradient checkpointing (C12): keep only chosen boundaries, recompute the inside during backward.

`checkpoint(fn, *tensors)` runs `fn` and keeps its output but none of the activations inside it; when
backward reaches the output, it runs `fn` again (recording this time) and backpropagates through that
copy. Gradients are identical to the plain run; memory holds one segment's inside at a time instead of all
of them, for the price of a second forward pass. `checkpoint_sequential` applies it to a chain of layers.

`fn` must be deterministic (same result when run again). A checkpointed run behaves as the plain run:
tensors that `fn` uses without receiving them as arguments (the weights of its layers, or a non-leaf result
of the graph around it) are found on the first run and become inputs of the checkpoint op, so their
gradients flow through the outer backward pass as they would without the checkpoint; and the recomputation
runs under the floating-point error state of the forward pass (not backward's "raise").
"""

import numpy as np

from culpa.grad_mode import set_grad_enabled
from culpa.internals import backpropagate, constant, non_finite_raises, recording
from culpa.operands import as_tensor
from culpa.tensor import op_result, topo_order


def checkpoint(fn, *tensors):
    """fn(*tensors) without keeping its interior activations; they are recomputed during backward."""
    tensors = tuple(as_tensor(t) for t in tensors)

    def detached():
        return [constant(t.data, requires_grad=t.requires_grad) for t in tensors]

    inputs = detached()
    made = set()  # every tensor fn makes: the inside of the segment
    with recording(made.add):
        inner = fn(*inputs)  # recorded once, only to find what fn uses from outside; dropped right away
    outside = _outside_tensors(inner, made, set(inputs))
    out, error_state = inner.data, np.geterr()
    del inner, inputs, made

    def backward(g):  # run fn again, this time keeping its graph, and backpropagate g through it
        inputs = detached()
        # the tensors from outside look like leaves to the inner pass, which hands their shares back here
        kept = [(t, t.grad, t.parents, t.local_backward) for t in outside]
        try:
            for t in outside:
                t.grad, t.parents, t.local_backward = None, (), None
            with np.errstate(**error_state), set_grad_enabled(True):
                inner = fn(*inputs)
            if inner.requires_grad:  # a fresh graph (nothing released to refuse), and g is not copied:
                with non_finite_raises():  # the outer pass copies any share that turns out to be g itself
                    backpropagate({inner: g}, topo_order(inner))
            return tuple(t.grad for t in inputs) + tuple(t.grad for t in outside)
        finally:
            for t, grad, parents, local_backward in kept:
                t.grad, t.parents, t.local_backward = grad, parents, local_backward

    return op_result(out, "checkpoint", tensors + tuple(outside), backward)


def _outside_tensors(inner, made, own):
    """Tensors that require grad, that fn's graph reaches, and that fn did not make nor receive."""
    found, seen, stack = [], {inner}, [inner]
    while stack:
        node = stack.pop()
        if node not in made:  # made before fn ran (or one of fn's own inputs): the segment ends here
            if node.requires_grad and node not in own:
                found.append(node)
            continue
        for parent in node.parents:
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return found


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
