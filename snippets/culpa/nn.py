"""Layers and an optimizer built from culpa Tensors: enough for every network on the site."""

import numpy as np

from culpa import messages
from culpa.fast_paths import SGD_SLICE, update_in_slices
from culpa.operands import as_tensor
from culpa.tensor import Tensor, new_version, op_result

ACTIVATIONS = ("tanh", "sigmoid", "relu")


def linear(x, weight, bias):
    """z = W h + b for one vector h, X @ W.T + b for a batch X of rows: one op, the seed's closed forms."""
    X, W, b = x._data, weight._data, bias._data  # the slots behind .data: no property call per read
    try:
        out = X @ W.T
        if b.ndim <= 1 and b.dtype == out.dtype:
            out += b  # in place: the same sum, one array fewer to allocate and fill
        else:
            out = out + b
    except ValueError:
        raise ValueError(
            f"linear: an input of shape {X.shape} does not fit weight {W.shape} and bias "
            f"{b.shape}: its last dimension must be in_features = {W.shape[1]}"
        ) from None
    rows_x = X if X.ndim == 2 else X.reshape(-1, X.shape[-1])

    def backward(g):  # dL/dh = W.T g,  dL/dW = g h.T (summed over the rows),  dL/db = g (summed)
        rows_g = g if g.ndim == 2 else g.reshape(-1, g.shape[-1])
        return (g @ W if x.requires_grad else None,
                rows_g.T @ rows_x if weight.requires_grad else None,
                rows_g.sum(axis=0) if bias.requires_grad else None)

    return op_result(out, "linear", (x, weight, bias), backward)


class Module:
    """Something with named parameters: `parameters()` lists them, `zero_grad()` clears their gradients."""

    def named_parameters(self):
        raise NotImplementedError

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None


class Linear(Module):
    """z = W h + b, with `weight` W of shape (out_features, in_features) and `bias` b of shape (out_features,)

    A batch holds one example per row, so a batch X of shape (batch, in_features) gives X @ W.T + b.
    W and b start uniform in ±1/sqrt(in_features); `rng` is a seed or a NumPy Generator (None: unseeded).
    """

    def __init__(self, in_features, out_features, rng=None, dtype=np.float64):
        rng = np.random.default_rng(rng)
        bound = 1.0 / np.sqrt(in_features)
        self.weight = Tensor(rng.uniform(-bound, bound, (out_features, in_features)).astype(dtype),
                             requires_grad=True, name="weight")
        self.bias = Tensor(rng.uniform(-bound, bound, out_features).astype(dtype),
                           requires_grad=True, name="bias")

    def named_parameters(self):
        return [("weight", self.weight), ("bias", self.bias)]

    def __call__(self, x):
        return linear(as_tensor(x), self.weight, self.bias)

    def __repr__(self):
        out_features, in_features = self.weight.shape
        return f"Linear(in_features={in_features}, out_features={out_features})"


class MLP(Module):
    """Linear layers of the given `sizes` with an activation between them; the last layer gives raw logits."""

    def __init__(self, sizes, activation="tanh", rng=None, dtype=np.float64):
        if activation not in ACTIVATIONS:
            raise ValueError(f"MLP: activation must be one of {ACTIVATIONS}, got {activation!r}")
        if len(sizes) < 2:
            raise ValueError(f"MLP: sizes needs at least an input and an output size, got {list(sizes)}")
        rng = np.random.default_rng(rng)
        self.sizes, self.activation = list(sizes), activation
        self.layers = [Linear(i, o, rng=rng, dtype=dtype) for i, o in zip(sizes[:-1], sizes[1:], strict=True)]
        for name, p in self.named_parameters():
            p.name = name  # "layers.0.weight": graphs and gradient reports say which parameter is which

    def named_parameters(self):
        return [(f"layers.{i}.{name}", p)
                for i, layer in enumerate(self.layers) for name, p in layer.named_parameters()]

    def __call__(self, x):
        activation = getattr(Tensor, self.activation)
        x = as_tensor(x)
        for layer in self.layers[:-1]:
            x = activation(linear(x, layer.weight, layer.bias))
        last = self.layers[-1]
        return linear(x, last.weight, last.bias)

    def blocks(self):
        """The forward pass as a list of functions (layer then activation), e.g. for checkpoint_sequential."""
        activation = getattr(Tensor, self.activation)

        def activated(layer):
            return lambda x: activation(layer(x))

        return [activated(layer) for layer in self.layers[:-1]] + [self.layers[-1]]

    def __repr__(self):
        return f"MLP({self.sizes}, activation={self.activation!r})"


class SGD:
    """Plain gradient descent: every parameter moves by -lr times its gradient."""

    def __init__(self, params, lr):
        self.params, self.lr = list(params), lr
        self._lr_arrays = (None, {})  # (the lr they hold, {dtype: lr as a 0-d array of that dtype})
        if len(set(map(id, self.params))) < len(self.params):
            raise messages.repeated_parameter(next(p for i, p in enumerate(self.params)
                                                   if any(q is p for q in self.params[:i])))

    def step(self):
        # lr as a 0-d array of each gradient's dtype: the same product as with the Python float, which NumPy
        # would convert again for every parameter (a cost that shows at small sizes); kept until lr changes
        held, lrs = self._lr_arrays
        if held != self.lr:
            self._lr_arrays = (self.lr, lrs := {})
        stamp = new_version()  # one version for all the parameters it changes: older graphs are stale
        for p in self.params:
            grad = p.grad
            if grad is None:
                continue
            lr = lrs.get(grad.dtype)
            if lr is None:
                lr = lrs[grad.dtype] = np.asarray(self.lr, dtype=grad.dtype)
            data = p._data  # updated in place, as torch does: the graph's arrays are the parameters
            if data.size <= SGD_SLICE:
                data -= lr * grad
            else:
                update_in_slices(data, grad, lr)
            p.version = stamp  # what `p.data = data` would do, without a call of the setter per parameter

    def zero_grad(self):
        for p in self.params:
            p.grad = None
