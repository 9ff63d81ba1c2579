"""The core of culpa: a NumPy array that remembers how it was made, and the chain rule run backwards.

Every op computes its result and, right next to it, a `backward(g)` closure: given the gradient `g` of the
final result with respect to the op's output, it returns the gradient with respect to each input (its local
derivative applied to `g`). `Tensor.backward` walks the recorded graph from the output to the leaves in
reverse topological order and sums the contributions of every path (multivariate chain rule).

Design choices a reader may want to know:

* The closures capture the inputs (and arrays), never the tensor they produce, so a graph holds no reference
  cycles and is freed by reference counting as soon as the last tensor of a step goes away.
* NumPy broadcasting is undone in one place, `unbroadcast`.
* The topological order is built with an explicit stack, so a chain of 10,000 ops is fine.
* Every tensor that requires grad and that backward reaches gets `.grad`, leaves and intermediate results
  alike. Gradients accumulate (`grad = grad + new`) until `zero_grad()` sets them back to None.
* By default backward releases the graph as it goes (closures and links to parents), so activations are freed
  early; running backward through the same graph again raises a RuntimeError. Pass `retain_graph=True` to keep
  the graph (to export it, or to run backward again, as long as no `.data` is changed in between).
* Every tensor's `.grad` is an array of its own: when a local backward hands back its incoming gradient or a
  view of it (add, reshape, .T do), backward copies it, so `p.grad *= 0.5` scales that gradient alone.
  `backward(grad)` copies the caller's array.
* Dtypes, one rule: data is float (ints and bools become float64; float32 stays float32). A scalar operand,
  Python or NumPy (2, 2.0, True, np.int64(2), np.float64(2), ...), takes the Tensor's dtype, and so does a
  number exponent (`t32 ** np.float64(2)` is float32); arrays of any shape (0-d included) and Tensors follow
  NumPy's promotion (float32 with float64 gives float64). A gradient always has its tensor's dtype.
* Errors: shape mismatches name the op and both shapes; `log` of a non-positive value raises ValueError
  naming the op; when a local derivative turns finite values into NaN or inf during backward, backward raises
  FloatingPointError naming the op (NumPy's floating-point error state is set to "raise" during backward).
"""

import functools
import operator

import numpy as np

# --8<-- [start:no_grad]
_grad_enabled = True


class set_grad_enabled:
    """Recording on or off, three ways (as in torch).

    `set_grad_enabled(False)` called alone switches recording off until `set_grad_enabled(True)`;
    `with set_grad_enabled(False):` switches it for the block and restores it after; used as a decorator,
    for every call of the function (calls may nest: each restores what it found).
    """

    def __init__(self, mode):
        global _grad_enabled
        self.mode = bool(mode)
        self._saved = [_grad_enabled]  # what the `with` that usually follows will restore
        self._pending = True  # the call itself switched the mode (a plain call keeps it so)
        _grad_enabled = self.mode

    def __enter__(self):
        global _grad_enabled
        if self._pending:  # `with set_grad_enabled(m):` right after the call: already switched
            self._pending = False
        else:  # a reused instance (a decorator, a nested `with`): save what is there now
            self._saved.append(_grad_enabled)
            _grad_enabled = self.mode

    def __exit__(self, *exc):
        global _grad_enabled
        _grad_enabled = self._saved.pop()

    def __call__(self, function):
        global _grad_enabled
        if self._pending:  # decorating switches nothing: undo what the call did
            self._pending = False
            _grad_enabled = self._saved.pop()

        @functools.wraps(function)
        def switched(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return switched


class no_grad(set_grad_enabled):
    """Within `with culpa.no_grad():` ops record nothing: results are plain constants (for updates, eval)."""

    def __init__(self):  # unlike set_grad_enabled(False), creating it switches nothing yet
        self.mode, self._saved, self._pending = False, [], False
# --8<-- [end:no_grad]


def _to_array(data):
    """Any accepted input as a float array: ints and bools become float64, float32 stays float32."""
    if isinstance(data, Tensor):
        return data.data
    array = np.asarray(data)
    if array.dtype.kind == "f":
        return array
    if array.dtype.kind in "biu":
        return array.astype(np.float64)
    if array.dtype.kind in "US":
        shown = repr(data) if len(repr(data)) <= 40 else repr(data)[:37] + "..."
        raise TypeError(
            f"culpa.Tensor holds numbers, but got text ({type(data).__name__} {shown}): strings are not "
            "numbers, even when they look like one. Convert them first: float('2.5') for one value, "
            "np.array(values, dtype=float) for several."
        )
    raise TypeError(
        f"culpa.Tensor holds numbers: got {type(data).__name__} (dtype {array.dtype}); "
        "pass a Python number, a list of numbers or a NumPy array of numbers"
    )


# --8<-- [start:tensor_init]
class Tensor:
    """A NumPy array (`.data`) plus what backward needs: the op that made it,
    its inputs, its gradient."""

    __slots__ = ("data", "grad", "requires_grad", "name", "op",
                 "_parents", "_backward")
    __array_ufunc__ = None  # `ndarray + Tensor` calls Tensor.__radd__

    def __init__(self, data, requires_grad=False, name=None):
        is_float_array = type(data) is np.ndarray and data.dtype.kind == "f"
        self.data = data if is_float_array else _to_array(data)
        self.grad = None  # filled by backward: same shape and dtype as data
        self.requires_grad = bool(requires_grad)
        self.name = name
        self.op = "leaf"  # the op that produced this tensor
        self._parents = ()  # the tensors it was computed from
        self._backward = None  # g -> one gradient per parent (or None)
    # --8<-- [end:tensor_init]

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: self.data.ndim)

    def item(self):
        return self.data.item()

    def zero_grad(self):
        self.grad = None

    def detach(self):
        """The same values as a new leaf, cut off from the graph."""
        return Tensor(self.data)

    def __repr__(self):
        def show(array):
            return np.array2string(array, separator=", ", prefix="Tensor(")

        extra = "" if self.op == "leaf" else f", op={self.op!r}"
        extra += ", requires_grad=True" if self.requires_grad else ""
        extra += f", name={self.name!r}" if self.name is not None else ""
        grad = None if self.grad is None else show(self.grad)
        return f"Tensor({show(self.data)}{extra}, grad={grad})"

    # ---- elementwise arithmetic (broadcasting) ----
    def __add__(self, other):
        a, b = self, _lift(other, self, "add")

        def backward(g):
            return (unbroadcast(g, a.data.shape) if a.requires_grad else None,
                    unbroadcast(g, b.data.shape) if b.requires_grad else None)

        return op_result(_broadcasting(np.add, a, b, "add"), "add", (a, b), backward)

    def __sub__(self, other):
        a, b = self, _lift(other, self, "sub")

        def backward(g):
            return (unbroadcast(g, a.data.shape) if a.requires_grad else None,
                    unbroadcast(-g, b.data.shape) if b.requires_grad else None)

        return op_result(_broadcasting(np.subtract, a, b, "sub"), "sub", (a, b), backward)

    # --8<-- [start:op_mul]
    def __mul__(self, other):
        a, b = self, _lift(other, self, "mul")

        def backward(g):  # d(ab)/da = b, d(ab)/db = a
            ga = gb = None
            if a.requires_grad:
                ga = unbroadcast(g * b.data, a.data.shape)
            if b.requires_grad:
                gb = unbroadcast(g * a.data, b.data.shape)
            return (ga, gb)

        out = _broadcasting(np.multiply, a, b, "mul")
        return op_result(out, "mul", (a, b), backward)
    # --8<-- [end:op_mul]

    def __truediv__(self, other):
        a, b = self, _lift(other, self, "div")
        out = _broadcasting(np.divide, a, b, "div")

        def backward(g):  # d(a/b)/da = 1/b, d(a/b)/db = -a/b**2 = -out/b
            return (unbroadcast(g / b.data, a.data.shape) if a.requires_grad else None,
                    unbroadcast(-g * out / b.data, b.data.shape) if b.requires_grad else None)

        return op_result(out, "div", (a, b), backward)

    def __neg__(self):
        return op_result(-self.data, "neg", (self,), lambda g: (-g,))

    def __pow__(self, exponent):
        if isinstance(exponent, Tensor):
            raise TypeError("pow: the exponent must be a number, not Tensor: culpa differentiates x ** p for "
                            "a number p. For a Tensor exponent u, write (u * x.log()).exp() (for x > 0).")
        if not isinstance(exponent, _SCALARS):
            raise TypeError(f"pow: the exponent must be a number, not {type(exponent).__name__}")
        p = exponent.item() if isinstance(exponent, np.generic) else exponent  # weak: keeps float32
        a = self

        def backward(g):  # d(a**p)/da = p * a**(p-1), and 0 for p = 0 (where 0 * 0**-1 would be nan)
            if p == 0:
                return (np.zeros(a.data.shape, a.data.dtype),)
            return (g * (p * a.data ** (p - 1)),)

        return op_result(a.data**p, "pow", (a,), backward)

    def __rpow__(self, base):
        b, t = _lift(base, self, "pow"), self
        if (b.data < 0).any():
            raise ValueError(
                f"pow: base ** t with a negative base ({b.data.min()}) is not a real number for most t; "
                "culpa differentiates base ** t = exp(t log base) for base >= 0. Take the sign out first."
            )
        out = _broadcasting(np.power, b, t, "pow")

        def backward(g):  # d(b**t)/dt = b**t log(b); 0 where b = 0 and t >= 0 (0**t is flat there, as torch)
            with np.errstate(divide="ignore", invalid="ignore"):
                slope = out * np.log(b.data)
            slope = np.where((b.data == 0) & (t.data >= 0), 0, slope).astype(out.dtype, copy=False)
            return (unbroadcast(g * slope, t.data.shape),)

        return op_result(out, "pow", (t,), backward)

    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other):
        return _lift(other, self, "sub") - self

    def __rtruediv__(self, other):
        return _lift(other, self, "div") / self

    # --8<-- [start:op_matmul]
    def __matmul__(self, other):
        a, b = self, _lift(other, self, "matmul")
        left, right = a.data.shape, b.data.shape
        if not left or not right or left[-1] != right[max(-2, -len(right))]:
            raise _matmul_error(left, right)

        def backward(g):  # out = A @ B:  dL/dA = g @ B.T,  dL/dB = A.T @ g
            A, B = a.data, b.data
            if A.ndim == 2 and B.ndim == 2:
                ga = g @ B.T if a.requires_grad else None
                if not b.requires_grad:
                    return (ga, None)
                # a transposed B (like W.T) gets its gradient in its own layout
                transposed = B.strides[0] < B.strides[1]
                return (ga, (g.T @ A).T if transposed else A.T @ g)
            if B.ndim == 1:  # a vector is a one-column matrix...
                B, g = B[:, None], g[..., None]
            if A.ndim == 1:  # ...or a one-row matrix
                A, g = A[None, :], g[..., None, :]
            ga = gb = None
            if a.requires_grad:
                ga = unbroadcast(g @ np.swapaxes(B, -1, -2), A.shape)
                ga = ga.reshape(a.shape)
            if b.requires_grad:
                gb = unbroadcast(np.swapaxes(A, -1, -2) @ g, B.shape)
                gb = gb.reshape(b.shape)
            return (ga, gb)

        return op_result(_matmul(a.data, b.data), "matmul", (a, b), backward)
    # --8<-- [end:op_matmul]

    def __rmatmul__(self, other):
        return _lift(other, self, "matmul") @ self

    # ---- reductions and shapes ----
    def sum(self, axis=None, keepdims=False):
        shape = self.data.shape

        def backward(g):  # every input element contributed once: copy g back over the summed axes
            if not keepdims and axis is not None:
                g = np.expand_dims(g, axis)
            return (np.broadcast_to(g, shape).copy(),)

        with _axis_named("sum", axis, shape):
            out = self.data.sum(axis=axis, keepdims=keepdims)
        return op_result(out, "sum", (self,), backward)

    def mean(self, axis=None, keepdims=False):
        shape = self.data.shape
        with _axis_named("mean", axis, shape):
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
            raise TypeError(f"reshape: sizes must be whole numbers, got {sizes!r}; write t.reshape(2, 3) or "
                            "t.reshape((2, 3)), with -1 for the one size to infer") from None
        try:
            data = self.data.reshape(shape)
        except ValueError:
            message = f"reshape: cannot turn shape {old} ({self.data.size} values) into {shape}"
            raise ValueError(message) from None
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
            bad = np.argwhere(~(x > 0))[0]
            raise ValueError(
                f"log: the input has {int((~(x > 0)).sum())} value(s) that are not positive "
                f"(the first at index {tuple(int(i) for i in bad)}: {x[tuple(bad)]}); log needs x > 0. "
                "For log-probabilities use culpa.log_softmax or culpa.cross_entropy, which never take log(0)."
            )
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
    def backward(self, grad=None, retain_graph=False):
        """Fill `.grad` of every tensor that requires grad and leads to this
        one (gradients accumulate)."""
        if not self.requires_grad:
            raise _no_grad_error(self)
        order = topo_order(self)
        for node in order:  # refuse before anything changes: nothing written
            if node._backward is _released:
                raise _released_error(node)
        _backpropagate({self: _seed(grad, self)}, order, retain_graph)


# NaN or inf in a local derivative raises FloatingPointError
@np.errstate(over="raise", divide="raise", invalid="raise")
def _backpropagate(grads, order, retain_graph):
    """Hand each node's summed gradient to its local backward."""
    while order:
        node = order.pop()  # children before parents; finished nodes can go
        g = grads.pop(node, None)
        if g is None:  # a constant, or a leaf already served
            continue
        node.grad = g if node.grad is None else node.grad + g
        local_backward, parents = node._backward, node._parents
        if local_backward is None:  # the root was a leaf
            continue
        if not retain_graph:  # drop the links now: activations are freed
            node._backward, node._parents = _released, ()
        try:
            parent_grads = local_backward(g)
        except FloatingPointError as error:
            parent_grads = _recheck_non_finite(node, local_backward, g, error)
        if type(parent_grads) is not tuple or len(parent_grads) != len(parents):
            raise _gradient_count_error(node, parent_grads, parents)
        held = g if g.base is None else g.base  # the memory node.grad holds
        taken = [] if len(parents) > 1 else None  # memory of shares handed out
        for parent, pg in zip(parents, parent_grads):  # noqa: B905 (checked)
            if pg is None:
                continue
            data = parent.data
            if type(pg) is not np.ndarray or (
                pg.dtype is not data.dtype and pg.dtype != data.dtype
            ):  # a NumPy scalar, or a mixed-dtype result
                pg = np.asarray(pg, dtype=data.dtype)
            if pg.shape != data.shape:
                raise _gradient_shape_error(
                    node, parents.index(parent), pg.shape, data.shape)
            memory = pg if pg.base is None else pg.base
            if memory is held:  # g itself (add) or a view of it (reshape, .T)
                pg = memory = pg.copy()
            elif taken:  # an op with several inputs may hand out an array twice
                for other in taken:
                    if memory is other:
                        pg = memory = pg.copy()
                        break
            if taken is not None:
                taken.append(memory)
            if parent._backward is None:  # a leaf: its share goes in now
                parent.grad = pg if parent.grad is None else parent.grad + pg
            else:  # wait until every consumer has added its share
                grads[parent] = grads[parent] + pg if parent in grads else pg
        held = taken = memory = None  # let g go as soon as its node does
# --8<-- [end:backward]


def _no_grad_error(tensor):
    return RuntimeError(
        f"backward: this tensor (op {tensor.op!r}) does not require grad. Create the inputs you want "
        "gradients for with requires_grad=True, and do not compute the result inside culpa.no_grad()."
    )


def _released_error(node):
    return RuntimeError(
        f"backward: the graph through op {node.op!r} was already used by a backward pass "
        "and released, so this pass would be incomplete; it changed nothing. Run the "
        "forward pass again, or call the first backward(retain_graph=True)."
    )


def _gradient_count_error(node, parent_grads, parents):
    got = (f"{len(parent_grads)} gradient(s)" if type(parent_grads) is tuple
           else f"a {type(parent_grads).__name__}, not a tuple")
    return TypeError(
        f"backward of op {node.op!r} returned {got} for its {len(parents)} input(s): a backward function "
        "returns a tuple with one gradient per input, in the order of the inputs (None where none is needed)"
    )


def _gradient_shape_error(node, position, got, shape):
    return ValueError(
        f"backward of op {node.op!r} returned a gradient of shape {got} for its input {position} of shape "
        f"{shape}: each gradient must have the shape of its input. If the forward pass broadcast that input, "
        "sum the gradient back to its shape with culpa.unbroadcast(grad, shape)."
    )


def _released(g):
    raise AssertionError("unreachable: backward checks for a released graph first")


def _recheck_non_finite(node, local_backward, g, error):
    """NumPy flagged NaN/inf in node's backward: confirm it on the values, then name the op."""
    with np.errstate(all="ignore"):
        parent_grads = local_backward(g)
    if all(pg is None or np.isfinite(pg).all() for pg in parent_grads):
        return parent_grads  # a spurious flag (some BLAS builds raise them): the values are fine
    name = f" (name {node.name!r})" if node.name else ""
    raise FloatingPointError(
        f"backward of op {node.op!r}{name} produced NaN or inf ({error}). Its local derivative is not "
        "finite at these forward values: check the inputs of this op (e.g. x**0.5 at 0, division by 0)."
    ) from None


def _seed(grad, root):
    """The gradient backward starts from: 1 for a scalar, else what the caller passes."""
    if grad is None:
        if root.data.size != 1:
            raise ValueError(
                f"backward() without an argument needs a scalar result, but this tensor (op {root.op!r}) has "
                f"shape {root.data.shape}. Reduce it first (e.g. .sum() or .mean()), or pass the gradient of "
                f"the final result with respect to it: an array of shape {root.data.shape}."
            )
        one = np.array(1, dtype=root.data.dtype)
        return one if root.data.ndim == 0 else one.reshape(root.data.shape)  # (reshape costs a microsecond)
    grad = np.array(_to_array(grad), dtype=root.data.dtype)  # a copy: .grad never keeps the caller's array
    if grad.shape != root.data.shape:
        raise ValueError(f"backward: the gradient has shape {grad.shape}, but the tensor has shape "
                         f"{root.data.shape}; pass an array of shape {root.data.shape}")
    return grad


# --8<-- [start:topo_order]
def topo_order(root):
    """Every tensor `root` depends on, each listed after all of its parents
    (a depth-first search with an explicit stack: no recursion)."""
    order, seen = [], {root}
    stack = [(root, iter(root._parents))]
    while stack:
        node, parents = stack[-1]
        for parent in parents:
            if parent not in seen:
                seen.add(parent)
                if parent._parents:
                    stack.append((parent, iter(parent._parents)))
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


_on_record = None  # None, or a function called with every result that op_result records


# --8<-- [start:op_result]
def op_result(data, op, parents, backward):
    """The tensor an op returns. It records its parents and `backward` only if a gradient can flow.

    This is how every op is made, and how to add one: compute `data` from the parents' data, and write
    `backward(g)` returning a tuple with one gradient (or None) per parent, of that parent's shape.
    """
    out = Tensor.__new__(Tensor)
    out.data = data if type(data) is np.ndarray else np.asarray(data)
    out.grad, out.name, out.op = None, None, op
    if _grad_enabled:
        for parent in parents:
            if parent.requires_grad:
                out.requires_grad, out._parents, out._backward = True, parents, backward
                if _on_record is not None:  # checkpoint and gradcheck watch what a function records
                    _on_record(out)
                return out
    out.requires_grad, out._parents, out._backward = False, (), None  # a constant: no past to record
    return out
# --8<-- [end:op_result]


_SCALARS = (int, float, np.integer, np.floating, np.bool_)  # bool is an int


def _lift(x, like, op):
    """The other operand as a Tensor. A scalar (Python or NumPy) takes the dtype of `like`."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, _SCALARS):
        return Tensor(np.asarray(x, dtype=like.data.dtype))
    if isinstance(x, np.ndarray | np.number | list | tuple):
        return Tensor(x)
    raise TypeError(f"{op}: culpa ops combine Tensors, numbers and NumPy arrays, not {type(x).__name__}")


def _broadcasting(ufunc, a, b, op):
    try:
        return ufunc(a.data, b.data)
    except ValueError:
        raise ValueError(
            f"{op}: shapes {a.data.shape} and {b.data.shape} do not broadcast. Aligned from the right, each "
            "pair of dimensions must be equal or one of them 1 (a missing leading dimension counts as 1)."
        ) from None


def _matmul(A, B):
    try:
        return A @ B
    except ValueError:  # the inner dimensions fit (checked before): the batch dimensions do not
        raise ValueError(
            f"matmul: shapes {A.shape} @ {B.shape} do not fit: their batch dimensions {A.shape[:-2]} and "
            f"{B.shape[:-2]} do not broadcast. Aligned from the right, each pair must be equal or one be 1."
        ) from None


class _axis_named:
    """`with _axis_named(op, axis, shape):` turns NumPy's AxisError into one naming the op and the shape."""

    def __init__(self, op, axis, shape):
        self.op, self.axis, self.shape = op, axis, shape

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None or not issubclass(kind, np.exceptions.AxisError):
            return False
        ndim, axes = len(self.shape), self.axis if isinstance(self.axis, tuple) else (self.axis,)
        bad = next((a for a in axes if not -ndim <= a < ndim), self.axis)
        allowed = f"use an axis from {-ndim} to {ndim - 1}" if ndim else "a 0-d tensor has none: axis=None"
        raise np.exceptions.AxisError(
            f"{self.op}: axis {bad} is out of range for shape {self.shape} ({ndim} dimensions): {allowed}"
        ) from None


def _matmul_error(left, right):
    if not left or not right:
        return ValueError(f"matmul: both operands need at least one dimension, got shapes {left} and {right}")
    inner = "length" if len(right) == 1 else "second-to-last dimension"
    return ValueError(
        f"matmul: shapes {left} @ {right} do not fit: the last dimension of the left operand ({left[-1]}) "
        f"must equal the {inner} of the right one ({right[-2 if len(right) > 1 else 0]})."
    )


def softmax(z, axis=-1):
    """exp(z) / sum(exp(z)) along `axis`, shifted by the max so that large logits do not overflow."""
    z = z if isinstance(z, Tensor) else Tensor(z)
    with _axis_named("softmax", axis, z.data.shape):
        e = np.exp(z.data - z.data.max(axis=axis, keepdims=True))
    p = e / e.sum(axis=axis, keepdims=True)
    return op_result(p, "softmax", (z,), lambda g: (p * (g - (g * p).sum(axis=axis, keepdims=True)),))


def log_softmax(z, axis=-1):
    """z - logsumexp(z) along `axis`, computed stably."""
    z = z if isinstance(z, Tensor) else Tensor(z)
    with _axis_named("log_softmax", axis, z.data.shape):
        shifted = z.data - z.data.max(axis=axis, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return op_result(out, "log_softmax", (z,), lambda g: (g - np.exp(out) * g.sum(axis=axis, keepdims=True),))


# --8<-- [start:cross_entropy]
def cross_entropy(logits, target):
    """Mean over the batch of -log softmax(logits)[target]; logits of shape
    (batch, classes), or (classes,) for one example."""
    z = logits if isinstance(logits, Tensor) else Tensor(logits)
    rows = z.data.reshape(1, -1) if z.data.ndim == 1 else z.data
    rows = np.ascontiguousarray(rows)
    # where each row's target sits in rows.ravel()
    picked = _target_positions(target, rows, z.data.shape)
    n = rows.shape[0]
    # the largest logit becomes 0: no exponential can overflow
    shifted = rows - rows.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    # the mean of log(sum of e) - shifted[target]
    loss = (np.log(total).sum() - shifted.ravel()[picked].sum()) / n

    def backward(g):  # dL/dz = (softmax(z) - onehot(target)) / batch
        grad = e / total
        grad.ravel()[picked] -= 1  # a new C-ordered array: ravel() is a view
        grad *= float(g) / n
        return (grad if rows is z.data else grad.reshape(z.data.shape),)

    loss = np.asarray(loss, dtype=rows.dtype)
    return op_result(loss, "cross_entropy", (z,), backward)
# --8<-- [end:cross_entropy]


def _target_positions(target, rows, shape):
    """Flat positions of (row i, class target[i]) in rows, checked: one call finds and validates them all."""
    if type(target) is not np.ndarray or target.ndim != 1 or target.dtype.kind not in "iu":
        target = np.asarray(target.data if isinstance(target, Tensor) else target)
        if target.dtype.kind == "f" and (target == target.round()).all():
            if not (np.abs(target) < rows.shape[-1] + 1).all():  # would wrap around as an integer
                raise _target_error(shape, rows.shape[-1], target)
            target = target.astype(np.intp)  # a Tensor of class indices holds them as floats
        if target.dtype.kind not in "iu":
            raise TypeError(f"cross_entropy: target must hold integer class indices, not {target.dtype}")
        target = target.reshape(-1)
    classes = rows.shape[-1]
    if rows.ndim == 2 and target.shape[0] == rows.shape[0]:
        try:  # raises for any index outside [0, classes), negative ones included
            return np.ravel_multi_index((np.arange(rows.shape[0]), target), rows.shape)
        except ValueError:
            pass
    raise _target_error(shape, classes, target)


def _target_error(shape, classes, target):
    return ValueError(f"cross_entropy: logits of shape {shape} need one class index in "
                      f"[0, {classes}) per row, as integers; got target {target.tolist()}")
