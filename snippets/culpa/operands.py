"""What an op accepts as an operand, and the dtype rule.

One rule: a tensor's data is float (ints and bools become float64; float32 stays float32).

A scalar operand, Python or NumPy (2, 2.0, True, np.int64(2), np.float64(2), ...), takes the Tensor's dtype,
and so does a number exponent (`t32 ** np.float64(2)` is float32); arrays of any shape (0-d included) and
Tensors follow NumPy's promotion (float32 with float64 gives float64). A gradient has its tensor's dtype.
"""

import numpy as np

from culpa import messages
from culpa import tensor as core  # (core.Tensor, core.constant: tensor.py imports this module)

SCALARS = (int, float, np.integer, np.floating, np.bool_)  # bool is an int


def as_float_array(data, copy=False):
    """Any accepted input (a number, a list, an array, a Tensor) as a float array; with copy=True, never
    the caller's own array (as torch.tensor copies)."""
    if hasattr(data, "local_backward"):  # a Tensor
        data = data.data
    array = np.asarray(data)
    if array.dtype.kind == "f":  # numbers, lists, tuples: asarray makes a new array
        return array.copy() if copy and not isinstance(data, (*SCALARS, list, tuple)) else array
    if array.dtype.kind in "biu":
        return array.astype(np.float64)
    if array.dtype.kind in "US":
        raise messages.text_is_not_numbers(data)
    raise messages.not_numbers(data, array.dtype)


def as_tensor(x):
    """A Tensor for x: x itself, or a constant around x's array (no copy: culpa only reads it)."""
    return x if isinstance(x, core.Tensor) else core.constant(as_float_array(x))


def lift(x, like, op):
    """The other operand as a Tensor. A scalar (Python or NumPy) takes the dtype of `like`."""
    if isinstance(x, core.Tensor):
        return x
    if isinstance(x, SCALARS):
        return core.constant(np.asarray(x, dtype=like.dtype))
    if isinstance(x, np.ndarray | np.number | list | tuple):
        return core.constant(as_float_array(x))
    raise messages.not_an_operand(op, x)


def broadcasting(ufunc, A, B, op):
    """ufunc(A, B), or an error that names the op and both shapes."""
    try:
        return ufunc(A, B)
    except ValueError:
        raise messages.does_not_broadcast(op, A.shape, B.shape) from None
