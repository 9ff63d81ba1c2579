"""What backward guarantees beyond the chain rule, one helper each (page 06 explains each once).

* A refused pass writes nothing: a graph already released by a backward pass, or one whose data changed
  after the forward pass used it (`refuse_released_or_stale`, before anything is written).
* Every `.grad` is an array of its own, of its tensor's shape and dtype (`checked_shares`): a local
  backward may hand back its incoming gradient or a view of it (add, reshape, .T do), or a NumPy scalar, or
  a result of another dtype.
* A local derivative that turns finite values into NaN or inf stops the pass with an error naming the op
  (`checked_shares`, under `non_finite_raises()`); leaves' `.grad` are written only when the whole pass
  has succeeded (`write_leaf_grads`), so a refused or failed pass never counts a gradient twice.
"""

import numpy as np

from culpa import messages
from culpa import tensor as core  # (core.last_change: tensor.py imports this module)

ndarray = np.ndarray


def released(g):
    """What a released node keeps instead of its local backward (backward refuses to run it)."""
    raise AssertionError("unreachable: backward checks for a released graph first")


def is_released(node):
    return node.local_backward is released


def refuse_released_or_stale(order):
    """Raise before anything changes when part of the graph was released or its data changed since."""
    changed = core.last_change[0]
    for node in order:
        if node.local_backward is released:
            raise messages.released(node)
        if node.version < changed:  # some data changed after this node was made: was it a parent's?
            for parent in node.parents:
                if parent.version > node.version:
                    raise messages.stale(parent, node)


def non_finite_raises():
    """NumPy's floating-point errors raised, not warned: NaN or inf in a local derivative stops backward.

    A `with` block, or a decorator, as on `Tensor.backward`: a decorator's NumPy object is made once, at
    import, not at every call (measured: about 2% of a training step at tiny size)."""
    return np.errstate(over="raise", divide="raise", invalid="raise")


def seed(grad, root):
    """The gradient backward starts from: 1 for a scalar, else a copy of what the caller passes."""
    data = root._data
    if grad is None:
        if data.size != 1:
            raise messages.need_a_scalar(root)
        one = np.array(1, dtype=data.dtype)
        return one if data.ndim == 0 else one.reshape(data.shape)
    grad = np.array(grad.data if hasattr(grad, "local_backward") else grad, dtype=data.dtype)
    if grad.shape != data.shape:
        raise messages.seed_shape(grad.shape, data.shape)
    return grad


def checked_shares(node, g, retain_graph):
    """[(parent, share)] for every parent that gets a gradient from node: node's local backward run once on
    g and checked (one gradient per input, finite values), each share of its parent's shape and dtype, in an
    array no other `.grad` holds (g is node.grad). Without retain_graph the node lets go of its parents and
    its closure first, so that activations can be freed."""
    parents, local_backward = node.parents, node.local_backward
    if not retain_graph:
        node.parents, node.local_backward = (), released
    try:
        parent_grads = local_backward(g)
    except FloatingPointError as error:
        parent_grads = recheck_non_finite(node, local_backward, g, error)
    if type(parent_grads) is not tuple or len(parent_grads) != len(parents):
        raise messages.gradient_count(node, parent_grads, parents)
    base = g.base
    taken, shares = [g if base is None else base], []  # memory already given to a .grad
    position = -1
    for share in parent_grads:
        position += 1
        if share is None:
            continue
        parent = parents[position]
        if not parent.requires_grad:
            continue
        data = parent._data  # the slot behind .data: no property call per share
        if type(share) is not ndarray or (share.dtype is not data.dtype and share.dtype != data.dtype):
            share = np.asarray(share, dtype=data.dtype)  # a NumPy scalar, or a result of mixed dtypes
        if share.shape != data.shape:
            raise messages.gradient_shape(node, position, share.shape, data.shape)
        memory = share.base
        if memory is None:
            memory = share
        for other in taken:
            if memory is other:  # g itself (add), a view of it (reshape, .T), or an array handed out twice
                share = memory = share.copy()
                break
        taken.append(memory)
        shares.append((parent, share))
    return shares


def recheck_non_finite(node, local_backward, g, error):
    """NumPy flagged NaN/inf in node's backward: confirm it on the values, then name the op."""
    with np.errstate(all="ignore"):
        parent_grads = local_backward(g)
    if all(pg is None or np.isfinite(pg).all() for pg in parent_grads):
        return parent_grads  # a spurious flag (some BLAS builds raise them): the values are fine
    raise messages.non_finite(node, error) from None


def write_leaf_grads(leaf_grads):
    """Every leaf's share, added to its `.grad` once the whole pass has succeeded."""
    for leaf, g in leaf_grads.items():
        leaf.grad = g if leaf.grad is None else leaf.grad + g
