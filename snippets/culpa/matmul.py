"""Matrix products beyond two matrices: shape rules, vectors and stacks (for `Tensor.__matmul__`)."""

import numpy as np

from culpa import messages
from culpa import tensor as core  # (core.unbroadcast: tensor.py imports this module)


def product(A, B):
    """A @ B, or an error that names both shapes and what must fit."""
    left, right = A.shape, B.shape
    if not left or not right or left[-1] != right[max(-2, -len(right))]:
        raise messages.matmul_misfit(left, right)
    try:
        return A @ B
    except ValueError:  # the inner dimensions fit: the batch dimensions do not
        raise messages.matmul_batch_misfit(left, right) from None


def backward_nd(g, a, b):
    """(dL/dA, dL/dB) when A or B is a vector or a stack of matrices: a vector is a one-column matrix on
    the right and a one-row matrix on the left; stacked (batch) dimensions are summed back by unbroadcast."""
    A, B = a.data, b.data
    if B.ndim == 1:
        B, g = B[:, None], g[..., None]
    if A.ndim == 1:
        A, g = A[None, :], g[..., None, :]
    ga = gb = None
    if a.requires_grad:
        ga = core.unbroadcast(g @ np.swapaxes(B, -1, -2), A.shape).reshape(a.shape)
    if b.requires_grad:
        gb = core.unbroadcast(np.swapaxes(A, -1, -2) @ g, B.shape).reshape(b.shape)
    return (ga, gb)
