"""The core of culpa: a NumPy array that remembers how it was made, and the chain rule run backwards.

Every op computes its result and, right next to it, a `backward(g)` closure: given the gradient `g` of the
final result with respect to the op's output, it returns the gradient with respect to each input (its local
derivative applied to `g`). `backpropagate` walks the graph from the output to the leaves in reverse
topological order and sums the contributions of every path (multivariate chain rule). The closures keep
inputs and arrays, never the tensor they make (no reference cycles); `unbroadcast` undoes broadcasting for
every op; `topo_order` uses an explicit stack (no recursion limit). Around the core, a module for each:
`guarantees` (what backward promises beyond the chain rule), `grad_mode`, `operands` (and the dtype rule),
`matmul` (vectors and stacks), `losses`, `messages` and `fast_paths` (shortcuts for speed).
"""

import itertools
import operator

import numpy as np

from culpa import fast_paths, matmul, messages
from culpa import guarantees as guard
from culpa.grad_mode import switch
from culpa.operands import SCALARS, as_float_array, broadcasting, lift

_stamps = itertools.count()  # a tensor's version: when its data was made, or last changed
last_change = [-1]  # the version of the latest change of any tensor's .data


def new_version():
    """The version of a change of data about to be made (SGD.step stamps every parameter with one)."""
    stamp = last_change[0] = next(_stamps)
    return stamp


# --8<-- [start:tensor_init]
class Tensor:
    """A NumPy array (`.data`) plus what backward needs: the op that made it,
    its inputs, its gradient."""

    __slots__ = ("_data", "grad", "requires_grad", "name", "op",
                 "parents", "local_backward", "version", "origin", "source")
    __array_ufunc__ = None  # `ndarray + Tensor` calls Tensor.__radd__

    def __init__(self, data, requires_grad=False, name=None):
        self.data = as_float_array(data, copy=True)  # the tensor's own array
        self.grad = None  # filled by backward: same shape and dtype as data
        self.requires_grad = bool(requires_grad)
        self.name = name
        self.op = "leaf"  # the op that produced this tensor
        self.parents = ()  # the tensors it was computed from
        self.local_backward = None  # g -> one gradient per parent (or None)
    # --8<-- [end:tensor_init]
        if watchers:  # gradcheck reruns f and nudges the leaves f makes, e.g. a layer's weights
            watchers[-1](self)

    def _set_data(self, array):  # `t.data = a` and `t.data *= 2` land here: graphs that used it are stale
        self._data = array
        self.version = last_change[0] = getattr(self, "source", self).version = next(_stamps)  # see detach

    # reads go through C (attrgetter), not a Python function: ops read them many times per step
    data = property(operator.attrgetter("_data"), _set_data)
    shape = property(operator.attrgetter("_data.shape"))
    dtype = property(operator.attrgetter("_data.dtype"))
    ndim = property(operator.attrgetter("_data.ndim"))

    def item(self):
        if self._data.size != 1:
            raise messages.item_of_many(self)
        return self._data.item()

    def zero_grad(self):
        self.grad = None

    def detach(self):
        """The same array as a new leaf, cut off from the graph; a change of its data is this one's too."""
        out = constant(self._data)
        out.source = getattr(self, "source", self)  # as in torch: one version for both
        return out

    def __repr__(self):
        return messages.tensor_repr(self)

    # ---- elementwise arithmetic (broadcasting) ----
    def __add__(self, other):
        a, b = self, lift(other, self, "add")

        def backward(g):
            return (unbroadcast(g, a.shape) if a.requires_grad else None,
                    unbroadcast(g, b.shape) if b.requires_grad else None)

        return op_result(broadcasting(np.add, a.data, b.data, "add"), "add", (a, b), backward)

    def __sub__(self, other):
        a, b = self, lift(other, self, "sub")

        def backward(g):
            return (unbroadcast(g, a.shape) if a.requires_grad else None,
                    unbroadcast(-g, b.shape) if b.requires_grad else None)

        return op_result(broadcasting(np.subtract, a.data, b.data, "sub"), "sub", (a, b), backward)

    # --8<-- [start:op_mul]
    def __mul__(self, other):
        a, b = self, lift(other, self, "mul")
        A, B = a.data, b.data

        def backward(g):  # d(ab)/da = b, d(ab)/db = a
            return (unbroadcast(g * B, A.shape) if a.requires_grad else None,
                    unbroadcast(g * A, B.shape) if b.requires_grad else None)

        out = broadcasting(np.multiply, A, B, "mul")
        return op_result(out, "mul", (a, b), backward)
    # --8<-- [end:op_mul]

    def __truediv__(self, other):
        a, b = self, lift(other, self, "div")
        A, B = a.data, b.data
        out = broadcasting(np.divide, A, B, "div")

        def backward(g):  # d(a/b)/da = 1/b, d(a/b)/db = -a/b**2 = -out/b
            return (unbroadcast(g / B, A.shape) if a.requires_grad else None,
                    unbroadcast(-g * out / B, B.shape) if b.requires_grad else None)

        return op_result(out, "div", (a, b), backward)

    def __neg__(self):
        return op_result(-self.data, "neg", (self,), lambda g: (-g,))

    def __pow__(self, exponent):
        if isinstance(exponent, Tensor) or not isinstance(exponent, SCALARS):
            raise messages.pow_exponent(exponent)
        p = exponent.item() if isinstance(exponent, np.generic) else exponent  # weak: keeps float32
        x = self.data

        def backward(g):  # d(x**p)/dx = p * x**(p-1), and 0 for p = 0 (where 0 * 0**-1 would be nan)
            return (np.zeros_like(x) if p == 0 else g * (p * x ** (p - 1)),)

        return op_result(x**p, "pow", (self,), backward)

    def __rpow__(self, base):
        b, t = lift(base, self, "pow"), self
        if (b.data < 0).any():
            raise messages.negative_base(b.data.min())
        B = b.data
        out = broadcasting(np.power, B, t.data, "pow")

        def backward(g):  # d(b**t)/dt = b**t log(b); 0 where b = 0 and t >= 0 (0**t is flat there, as torch)
            with np.errstate(divide="ignore", invalid="ignore"):
                slope = out * np.log(B)
            slope = np.where((B == 0) & (t.data >= 0), 0, slope).astype(out.dtype, copy=False)
            return (unbroadcast(g * slope, t.shape),)

        return op_result(out, "pow", (t,), backward)

    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other):
        return lift(other, self, "sub") - self

    def __rtruediv__(self, other):
        return lift(other, self, "div") / self

    # --8<-- [start:op_matmul]
    def __matmul__(self, other):
        a, b = self, lift(other, self, "matmul")
        A, B = a.data, b.data

        def backward(g):  # out = A @ B:  dL/dA = g @ B.T,  dL/dB = A.T @ g
            if A.ndim != 2 or B.ndim != 2:  # vectors, stacks of matrices
                return matmul.backward_nd(g, a, b)
            ga = g @ B.T if a.requires_grad else None
            gb = fast_paths.in_layout_of(B, A, g) if b.requires_grad else None
            return (ga, gb)

        return op_result(matmul.product(A, B), "matmul", (a, b), backward)
    # --8<-- [end:op_matmul]

    def __rmatmul__(self, other):
        return lift(other, self, "matmul") @ self

    # ---- reductions and shapes ----
    def sum(self, axis=None, keepdims=False):
        shape = self.shape

        def backward(g):  # every input element contributed once: copy g back over the summed axes
            if not keepdims and axis is not None:
                g = np.expand_dims(g, axis)
            return (np.broadcast_to(g, shape).copy(),)

        with messages.axis_named("sum", axis, shape):
            out = self.data.sum(axis=axis, keepdims=keepdims)
        return op_result(out, "sum", (self,), backward)

    def mean(self, axis=None, keepdims=False):
        shape = self.shape
        with messages.axis_named("mean", axis, shape):
            out = self.data.mean(axis=axis, keepdims=keepdims)
        count = self.data.size // max(np.size(out), 1)

        def backward(g):  # each of the `count` averaged elements gets 1/count of g
            if not keepdims and axis is not None:
                g = np.expand_dims(g, axis)
            return (np.broadcast_to(g / count, shape).copy(),)

        return op_result(out, "mean", (self,), backward)

    def reshape(self, *shape):
        old = self.shape
        sizes = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple | list | np.ndarray) else shape
        try:
            shape = tuple(operator.index(n) for n in sizes)
        except TypeError:
            raise messages.reshape_sizes(sizes) from None
        try:
            data = self.data.reshape(shape)
        except ValueError:
            raise messages.reshape_misfit(old, self.data.size, shape) from None
        return op_result(data, "reshape", (self,), lambda g: (g.reshape(old),))

    @property
    def T(self):
        return op_result(self.data.T, "transpose", (self,), lambda g: (g.T,))

    # ---- elementwise functions ----
    def exp(self):
        out = np.exp(self.data)
        return op_result(out, "exp", (self,), lambda g: (g * out,))  # d exp(x) = exp(x)

    def log(self):
        x = self.data
        if not (x > 0).all():
            raise messages.log_of_non_positive(x, np.argwhere(~(x > 0))[0])
        return op_result(np.log(x), "log", (self,), lambda g: (g / x,))  # d log(x) = 1/x

    # --8<-- [start:op_tanh]
    def tanh(self):
        out = np.tanh(self.data)  # d tanh(x)/dx = 1 - tanh(x)**2
        return op_result(out, "tanh", (self,), lambda g: (g * (1 - out * out),))
    # --8<-- [end:op_tanh]

    def sigmoid(self):
        out = np.exp(-np.logaddexp(0, -self.data))  # 1 / (1 + e^-x), without overflow for large |x|
        return op_result(out, "sigmoid", (self,), lambda g: (g * out * (1 - out),))  # d s = s (1 - s)

    def relu(self):
        x = self.data
        return op_result(np.maximum(x, 0), "relu", (self,), lambda g: (g * (x > 0),))  # slope 1 or 0

    # ---- the backward pass ----
    # --8<-- [start:backward]
    @guard.non_finite_raises()  # NaN/inf in a local derivative raises
    def backward(self, grad=None, retain_graph=False):
        """Fill `.grad` of every tensor that requires grad and leads to
        this one (gradients accumulate)."""
        if not self.requires_grad:
            raise messages.no_grad_to_give(self)
        order = topo_order(self)
        guard.refuse_released_or_stale(order)  # before any write
        seed = guard.seed(grad, self)  # dL/dL = 1
        backpropagate({self: seed}, order, retain_graph)


def backpropagate(grads, order, retain_graph=False):
    """The chain rule, from the output back: each node's gradient goes
    through its local backward; each share is added to its parent's."""
    leaf_grads = {}
    while order:
        node = order.pop()  # children first: its gradient is complete
        g = grads.pop(node, None)
        if g is None:  # nothing flows here (a constant)
            continue
        if node.local_backward is None:  # a leaf: written at the end
            leaf_grads[node] = g
            continue
        node.grad = g if node.grad is None else node.grad + g
        for parent, share in guard.checked_shares(node, g, retain_graph):
            grads[parent] = grads[parent] + share if parent in grads else share
        share = None  # the last share's array can go with its node
    guard.write_leaf_grads(leaf_grads)
# --8<-- [end:backward]


# --8<-- [start:topo_order]
def topo_order(root):
    """Every tensor `root` depends on, each listed after all of its parents
    (a depth-first search with an explicit stack: no recursion)."""
    order, seen = [], {root}
    stack = [(root, iter(root.parents))]
    while stack:
        node, parents = stack[-1]
        for parent in parents:
            if parent not in seen:
                seen.add(parent)
                if parent.parents:
                    stack.append((parent, iter(parent.parents)))
                    break
                order.append(parent)  # a leaf has no parents to wait for
        else:  # all parents are placed: the node can follow them
            stack.pop()
            order.append(node)
    return order
# --8<-- [end:topo_order]


# --8<-- [start:unbroadcast]
def unbroadcast(grad, shape):
    """Sum `grad` back down to `shape`: an input that broadcasting copied
    gets the sum over its copies."""
    if grad.shape == shape:
        return grad
    added = tuple(range(grad.ndim - len(shape)))  # leading axes it added
    grad = grad.sum(axis=added)
    stretched = tuple(i for i, n in enumerate(shape)
                      if n == 1 and grad.shape[i] != 1)  # size 1, stretched
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad
# --8<-- [end:unbroadcast]


def op_result(data, op, parents, backward):
    """The tensor an op returns. It records its parents and `backward` only if a gradient can flow.

    This is how every op is made, and how to add one: compute `data` from the parents' data, and write
    `backward(g)` returning a tuple with one gradient (or None) per parent, of that parent's shape.
    """
    out = new_tensor(Tensor)
    out._data = data if type(data) is ndarray else np.asarray(data)
    out.grad, out.name, out.op, out.version = None, None, op, next(_stamps)
    if switch.enabled:
        for parent in parents:
            if parent.requires_grad:
                out.requires_grad, out.parents, out.local_backward = True, parents, backward
                if watchers:  # checkpoint and gradcheck watch what a function records
                    watchers[-1](out)
                return out
    out.requires_grad, out.parents, out.local_backward = False, (), None  # a constant: no past
    return out


ndarray, new_tensor = np.ndarray, Tensor.__new__  # as globals: 3.11 looks np.X up the slow way each time
watchers = []  # functions called with every tensor made while they watch (see internals.recording)


def constant(array, requires_grad=False):
    """A leaf around `array` itself (no copy): for arrays culpa makes or only reads."""
    out = Tensor.__new__(Tensor)
    out._data, out.version, out.grad, out.requires_grad = array, next(_stamps), None, requires_grad
    out.name, out.op, out.parents, out.local_backward = None, "leaf", (), None
    if watchers:
        watchers[-1](out)
    return out
