"""culpa: a tiny autodiff engine that shows how backpropagation assigns the blame.

    >>> import culpa
    >>> w = culpa.Tensor([2.0, -1.0], requires_grad=True)
    >>> loss = (w * w).sum()
    >>> loss.backward()
    >>> w.grad
    array([ 4., -2.])
"""

from culpa import check, checkpoint, graph, nn
from culpa.tensor import Tensor, cross_entropy, log_softmax, no_grad, softmax, topo_order, unbroadcast

__all__ = [
    "Tensor", "no_grad", "softmax", "log_softmax", "cross_entropy", "topo_order", "unbroadcast",
    "nn", "check", "checkpoint", "graph",
]
