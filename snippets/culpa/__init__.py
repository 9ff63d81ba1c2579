"""culpa: a tiny autodiff engine that shows how backpropagation assigns the blame.

    >>> import culpa
    >>> w = culpa.Tensor([2.0, -1.0], requires_grad=True)
    >>> loss = (w * w).sum()
    >>> loss.backward()
    >>> w.grad
    array([ 4., -2.])
"""

from culpa import check, checkpoint, graph, internals, nn
from culpa.grad_mode import is_grad_enabled, no_grad, set_grad_enabled
from culpa.losses import cross_entropy, log_softmax, softmax
from culpa.tensor import Tensor, op_result, topo_order, unbroadcast

__all__ = [
    "Tensor", "no_grad", "set_grad_enabled", "is_grad_enabled", "softmax", "log_softmax", "cross_entropy",
    "op_result", "topo_order", "unbroadcast",
    "nn", "check", "checkpoint", "graph", "internals",
]
