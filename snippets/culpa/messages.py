"""What culpa says when something is wrong: one function per mistake, each naming the op, the shapes and
what to do next. The engine raises what these return; keeping the wording here keeps the core short. (And
how a tensor prints.)"""

import numpy as np


def describe(tensor):
    """How a message names a tensor: its name, else what made it, with its shape."""
    made = "a leaf" if tensor.op == "leaf" else f"the result of op {tensor.op!r}"
    name = f"tensor {tensor.name!r} ({made}" if tensor.name else f"a tensor ({made}"
    return f"{name}, shape {tensor.data.shape})"


def tensor_repr(t):
    """Tensor([...], op='mul', requires_grad=True, name='w', grad=[...]): what a tensor shows when printed."""
    def show(array):
        return np.array2string(array, separator=", ", prefix="Tensor(")

    extra = "" if t.op == "leaf" else f", op={t.op!r}"
    extra += ", requires_grad=True" if t.requires_grad else ""
    extra += f", name={t.name!r}" if t.name is not None else ""
    grad = None if t.grad is None else show(t.grad)
    return f"Tensor({show(t.data)}{extra}, grad={grad})"


def text_is_not_numbers(data):
    shown = repr(data) if len(repr(data)) <= 40 else repr(data)[:37] + "..."
    return TypeError(
        f"culpa.Tensor holds numbers, but got text ({type(data).__name__} {shown}): strings are not "
        "numbers, even when they look like one. Convert them first: float('2.5') for one value, "
        "np.array(values, dtype=float) for several."
    )


def not_numbers(data, dtype):
    return TypeError(
        f"culpa.Tensor holds numbers: got {type(data).__name__} (dtype {dtype}); "
        "pass a Python number, a list of numbers or a NumPy array of numbers"
    )


def item_of_many(tensor):
    return ValueError(
        f"item(): {describe(tensor)} holds {tensor.data.size} values; item() gives the one number of a "
        "tensor that holds a single value. Reduce it first (t.sum().item(), t.mean().item()), or pick one "
        "value (t.data[0])."
    )


def does_not_broadcast(op, left, right):
    return ValueError(
        f"{op}: shapes {left} and {right} do not broadcast. Aligned from the right, each "
        "pair of dimensions must be equal or one of them 1 (a missing leading dimension counts as 1)."
    )


def matmul_misfit(left, right):
    if not left or not right:
        return ValueError(f"matmul: both operands need at least one dimension, got shapes {left} and {right}")
    inner = "length" if len(right) == 1 else "second-to-last dimension"
    return ValueError(
        f"matmul: shapes {left} @ {right} do not fit: the last dimension of the left operand ({left[-1]}) "
        f"must equal the {inner} of the right one ({right[-2 if len(right) > 1 else 0]})."
    )


def matmul_batch_misfit(left, right):
    return ValueError(
        f"matmul: shapes {left} @ {right} do not fit: their batch dimensions {left[:-2]} and "
        f"{right[:-2]} do not broadcast. Aligned from the right, each pair must be equal or one be 1."
    )


def axis_out_of_range(op, axis, shape):
    ndim, axes = len(shape), axis if isinstance(axis, tuple) else (axis,)
    bad = next((a for a in axes if not -ndim <= a < ndim), axis)
    allowed = f"use an axis from {-ndim} to {ndim - 1}" if ndim else "a 0-d tensor has none: axis=None"
    return np.exceptions.AxisError(
        f"{op}: axis {bad} is out of range for shape {shape} ({ndim} dimensions): {allowed}")


class axis_named:
    """`with axis_named(op, axis, shape):` turns NumPy's AxisError into one naming the op and the shape."""

    def __init__(self, op, axis, shape):
        self.op, self.axis, self.shape = op, axis, shape

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None or not issubclass(kind, np.exceptions.AxisError):
            return False
        raise axis_out_of_range(self.op, self.axis, self.shape) from None


def empty_axis(op, axis, shape):
    return ValueError(
        f"{op}: axis {axis} of shape {shape} is empty: there is no value to normalize over. Check the "
        "slice or the batch that produced this tensor."
    )


def log_of_non_positive(x, bad):
    return ValueError(
        f"log: the input has {int((~(x > 0)).sum())} value(s) that are not positive "
        f"(the first at index {tuple(int(i) for i in bad)}: {x[tuple(bad)]}); log needs x > 0. "
        "For log-probabilities use culpa.log_softmax or culpa.cross_entropy, which never take log(0)."
    )


def pow_exponent(exponent):
    if type(exponent).__name__ == "Tensor":
        return TypeError("pow: the exponent must be a number, not Tensor: culpa differentiates x ** p for "
                         "a number p. For a Tensor exponent u, write (u * x.log()).exp() (for x > 0).")
    return TypeError(f"pow: the exponent must be a number, not {type(exponent).__name__}")


def negative_base(smallest):
    return ValueError(
        f"pow: base ** t with a negative base ({smallest}) is not a real number for most t; "
        "culpa differentiates base ** t = exp(t log base) for base >= 0. Take the sign out first."
    )


def reshape_sizes(sizes):
    return TypeError(f"reshape: sizes must be whole numbers, got {sizes!r}; write t.reshape(2, 3) or "
                     "t.reshape((2, 3)), with -1 for the one size to infer")


def reshape_misfit(old, size, shape):
    return ValueError(f"reshape: cannot turn shape {old} ({size} values) into {shape}")


def not_an_operand(op, x):
    return TypeError(f"{op}: culpa ops combine Tensors, numbers and NumPy arrays, not {type(x).__name__}")


# ---- backward ----


def no_grad_to_give(tensor):
    return RuntimeError(
        f"backward: this tensor (op {tensor.op!r}) does not require grad. Create the inputs you want "
        "gradients for with requires_grad=True, and do not compute the result inside culpa.no_grad()."
    )


def released(node):
    return RuntimeError(
        f"backward: the graph through op {node.op!r} was already used by a backward pass "
        "and released, so this pass would be incomplete; it changed nothing. Run the "
        "forward pass again, or call the first backward(retain_graph=True)."
    )


def stale(parent, node):
    return RuntimeError(
        f"backward: the data of {describe(parent)} changed after op {node.op!r} used it (t.data *= ..., "
        "t.data = ..., or an optimizer step), so the gradients of this graph would mix old and new values; "
        "this pass changed nothing. Run the forward pass again after changing the data: change it after "
        "backward (as optimizer.step() does), not between the forward pass and backward."
    )


def need_a_scalar(root):
    return ValueError(
        f"backward() without an argument needs a scalar result, but this tensor (op {root.op!r}) has "
        f"shape {root.data.shape}. Reduce it first (e.g. .sum() or .mean()), or pass the gradient of "
        f"the final result with respect to it: an array of shape {root.data.shape}."
    )


def seed_shape(got, shape):
    return ValueError(f"backward: the gradient has shape {got}, but the tensor has shape "
                      f"{shape}; pass an array of shape {shape}")


def gradient_count(node, parent_grads, parents):
    got = (f"{len(parent_grads)} gradient(s)" if type(parent_grads) is tuple
           else f"a {type(parent_grads).__name__}, not a tuple")
    return TypeError(
        f"backward of op {node.op!r} returned {got} for its {len(parents)} input(s): a backward function "
        "returns a tuple with one gradient per input, in the order of the inputs (None where none is needed)"
    )


def gradient_shape(node, position, got, shape):
    return ValueError(
        f"backward of op {node.op!r} returned a gradient of shape {got} for its input {position} of shape "
        f"{shape}: each gradient must have the shape of its input. If the forward pass broadcast that input, "
        "sum the gradient back to its shape with culpa.unbroadcast(grad, shape)."
    )


def non_finite(node, error):
    name = f" (name {node.name!r})" if node.name else ""
    return FloatingPointError(
        f"backward of op {node.op!r}{name} produced NaN or inf ({error}). Its local derivative is not "
        "finite at these forward values: check the inputs of this op (e.g. x**0.5 at 0, division by 0). "
        "No leaf's .grad was changed by this pass (parameters and inputs keep what they had; only the "
        "results between the output and this op got a .grad), and unless retain_graph=True that part of the "
        "graph was released: run the forward pass again once the inputs are fixed."
    )


# ---- losses ----


def logits_shape(shape):
    if len(shape) == 0:
        got = "a 0-d tensor (one number)"
        fix = "pass one score per class: shape (classes,) for one example"
    else:
        got = f"shape {shape}"
        fix = (f"for scores per position, reshape them to (-1, {shape[-1]}) and the targets to (-1,)"
               if len(shape) > 2 else "")
    return ValueError(
        f"cross_entropy: logits must have shape (batch, classes), or (classes,) for one example; got {got}"
        + (f": {fix}." if fix else ".")
    )


def empty_batch(shape):
    return ValueError(
        f"cross_entropy: the batch is empty (logits of shape {shape}): there is no example to average "
        "over. Check the slice or the loader that produced it."
    )


def swapped_arguments(logits_shape_, target_shape):
    return TypeError(
        f"cross_entropy(logits, target): the first argument holds integers of shape {logits_shape_} and "
        f"the second floats of shape {target_shape}: the arguments look swapped. Call "
        "cross_entropy(logits, target): the scores first, the class indices second."
    )


def one_hot_target(shape, target_shape):
    return ValueError(
        f"cross_entropy: target has shape {target_shape}, like the logits {shape}: it looks like one-hot "
        "rows or probabilities. cross_entropy takes one class index per row, e.g. target.argmax(1)."
    )


def target_type(dtype):
    return TypeError(f"cross_entropy: target must hold integer class indices, one class index per row, "
                     f"not {dtype}")


def target_range(shape, classes, target):
    return ValueError(f"cross_entropy: logits of shape {shape} need one class index in "
                      f"[0, {classes}) per row, as integers; got target {target.tolist()}")


PROBABILITIES_AS_LOGITS = (
    "cross_entropy: every row of the logits is in [0, 1] and sums to 1: these look like probabilities "
    "(a softmax applied already?). cross_entropy applies softmax itself: pass the raw scores (logits)."
)


# ---- optimizer ----


def repeated_parameter(tensor):
    return ValueError(
        f"SGD: {describe(tensor)} is in the parameter list more than once, so every step would move it "
        "two times or more. List each parameter once (e.g. list(dict.fromkeys(params)))."
    )
