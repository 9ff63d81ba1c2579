"""culpa: a tiny autodiff engine that shows how backpropagation assigns the blame.

    >>> import culpa
    >>> w = culpa.Tensor([2.0, -1.0], requires_grad=True)
    >>> loss = (w * w).sum()
    >>> loss.backward()
    >>> w.grad
    array([ 4., -2.])
"""

from culpa import check, checkpoint, graph, nn
from culpa.tensor import (
    Tensor,
    cross_entropy,
    log_softmax,
    no_grad,
    op_result,
    set_grad_enabled,
    softmax,
    topo_order,
    unbroadcast,
)

__all__ = [
    "Tensor", "no_grad", "set_grad_enabled", "softmax", "log_softmax", "cross_entropy", "op_result",
    "topo_order", "unbroadcast",
    "nn", "check", "checkpoint", "graph",
]
