"""softmax, log_softmax and the fused cross-entropy, with the checks a learner's first losses need."""

import warnings

import numpy as np

from culpa import messages
from culpa.operands import as_tensor
from culpa.tensor import Tensor, op_result


def softmax(z, axis=-1):
    """exp(z) / sum(exp(z)) along `axis`, shifted by the max so that large logits do not overflow."""
    z = as_tensor(z)
    shifted = _shifted(z.data, axis, "softmax")
    e = np.exp(shifted)
    p = e / e.sum(axis=axis, keepdims=True)
    return op_result(p, "softmax", (z,), lambda g: (p * (g - (g * p).sum(axis=axis, keepdims=True)),))


def log_softmax(z, axis=-1):
    """z - logsumexp(z) along `axis`, computed stably."""
    z = as_tensor(z)
    shifted = _shifted(z.data, axis, "log_softmax")
    out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return op_result(out, "log_softmax", (z,), lambda g: (g - np.exp(out) * g.sum(axis=axis, keepdims=True),))


def _shifted(x, axis, op):
    """x minus its max along axis (so that exp cannot overflow), or an error naming op and shape."""
    with messages.axis_named(op, axis, x.shape):
        try:
            return x - x.max(axis=axis, keepdims=True)
        except ValueError as error:
            if isinstance(error, np.exceptions.AxisError):
                raise
            raise messages.empty_axis(op, axis, x.shape) from None


# --8<-- [start:cross_entropy]
def cross_entropy(logits, target):
    """Mean over the batch of -log softmax(logits)[target]; logits of shape
    (batch, classes), or (classes,) for one example."""
    z, rows, picked = checked_logits_and_target(logits, target)
    n = rows.shape[0]
    # the largest logit becomes 0: no exponential can overflow
    shifted = rows - rows.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    # the mean over the rows of log(sum of e) - shifted[target]
    loss = (np.log(total).ravel() - shifted.ravel()[picked]).sum() / n

    def backward(g):  # dL/dz = (softmax(z) - onehot(target)) / batch
        grad = e / total
        grad.ravel()[picked] -= 1  # a new C-ordered array: ravel() is a view
        grad *= float(g) / n
        return (grad if rows is z.data else grad.reshape(z.shape),)

    loss = np.asarray(loss, dtype=rows.dtype)
    return op_result(loss, "cross_entropy", (z,), backward)
# --8<-- [end:cross_entropy]


def checked_logits_and_target(logits, target):
    """(logits as a Tensor, its rows as a C-ordered 2-D array, flat positions of each row's target),
    with the mistakes of a first loss named: swapped arguments, one-hot targets, wrong shapes."""
    if isinstance(logits, Tensor):
        z = logits
    elif _integers(logits) and not _integers(target) and np.ndim(_values(target)) == 2:  # (target, logits)
        raise messages.swapped_arguments(np.shape(_values(logits)), np.shape(_values(target)))
    else:
        z = as_tensor(logits)
    rows = z._data  # the slot behind .data: no property call
    shape = rows.shape
    if len(shape) not in (1, 2):
        raise messages.logits_shape(shape)
    if len(shape) == 1:
        rows = rows.reshape(1, -1)
    if rows.shape[0] == 0:
        raise messages.empty_batch(shape)
    rows = np.ascontiguousarray(rows)
    picked = _target_positions(target, rows, shape)
    if _probabilities(rows):
        warnings.warn(messages.PROBABILITIES_AS_LOGITS, stacklevel=3)
    return z, rows, picked


def _values(x):
    return x.data if hasattr(x, "local_backward") else x


def _integers(x):
    x = _values(x)
    return np.asarray(x).dtype.kind in "iu" if isinstance(x, np.ndarray | list | tuple) else False


def _probabilities(rows):
    """Every row in [0, 1] and summing to 1. A look at a few values of the first row comes first: logits
    rarely pass it, so the check costs a training step almost nothing."""
    if not 0.0 <= rows.item(0) <= 1.0 or not 0.0 <= rows.item(-1) <= 1.0:  # rows[0, 0], rows[-1, -1]
        return False
    head = rows[0, :16].tolist()
    if min(head) < 0 or max(head) > 1 or (len(head) == rows.shape[1] and abs(sum(head) - 1) > 1e-6):
        return False
    return rows.min() >= 0 and rows.max() <= 1 and np.allclose(rows.sum(axis=1), 1, rtol=0, atol=1e-6)


_last_rows = [np.arange(0)]  # 0, 1, ..., n-1 for the last batch size: a training loop asks for the same


def _new_row_numbers(n):
    rows = _last_rows[0] = np.arange(n)
    rows.flags.writeable = False  # shared between calls: nobody may write into it
    return rows


def _target_positions(target, rows, shape):
    """Flat positions of (row i, class target[i]) in rows, checked: one call finds and validates them all."""
    if type(target) is not np.ndarray or target.ndim != 1 or target.dtype.kind not in "iu":
        target = np.asarray(_values(target))
        if target.ndim == 2 and target.shape == rows.shape and target.shape[-1] > 1:
            raise messages.one_hot_target(shape, target.shape)
        if target.dtype.kind == "f" and (target == target.round()).all():
            if not (np.abs(target) < rows.shape[-1] + 1).all():  # would wrap around as an integer
                raise messages.target_range(shape, rows.shape[-1], target)
            target = target.astype(np.intp)  # a Tensor of class indices holds them as floats
        if target.dtype.kind not in "iu":
            raise messages.target_type(target.dtype)
        target = target.reshape(-1)
    n = rows.shape[0]
    if target.shape[0] == n:
        numbers = _last_rows[0]
        if len(numbers) != n:
            numbers = _new_row_numbers(n)
        try:  # raises for any index outside [0, classes), negative ones included
            return np.ravel_multi_index((numbers, target), rows.shape)
        except ValueError:
            pass
    raise messages.target_range(shape, rows.shape[-1], target)
