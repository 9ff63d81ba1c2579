"""The seed's two habits as tools: compare backprop with finite differences, and look at every gradient.

* `finite_difference(f, inputs, eps, method)`: the numeric gradient, nudging one number at a time.
* `gradcheck(f, inputs)`: backward against central differences in float64; on failure a `GradcheckError`
  names the op, the input, the worst element, both values and their relative error.
* `max_relative_error(f, inputs, eps)`: the same comparison as one number (to plot error against eps).
* `find_bad_gradients(named_params)`: after one backward, every parameter whose gradient is missing,
  non-finite or all zero, by name.

The relative error of an element is |analytic - numeric| / max(|analytic|, |numeric|, floor): the floor
keeps gradients that are (nearly) zero from turning rounding noise into huge ratios.
"""

import numpy as np

from culpa.tensor import Tensor, no_grad, topo_order


class GradcheckError(AssertionError):
    """Backprop and finite differences disagree; the attributes describe the worst element."""

    def __init__(self, message, *, op, input_index, input_name, index, analytic, numeric, relative_error):
        super().__init__(message)
        self.op, self.input_index, self.input_name, self.index = op, input_index, input_name, index
        self.analytic, self.numeric, self.relative_error = analytic, numeric, relative_error


def finite_difference(f, inputs, eps=1e-6, method="central"):
    """Numeric gradient of the scalar f(*inputs) with respect to every element of every input.

    `inputs` are Tensors (or arrays); each element is nudged in place by eps and restored.
    "central": (f(x + eps) - f(x - eps)) / 2 eps, error O(eps**2);
    "forward": (f(x + eps) - f(x)) / eps, error O(eps).
    Returns one array per input, of its shape.
    """
    if method not in ("central", "forward"):
        raise ValueError(f"finite_difference: method must be 'central' or 'forward', got {method!r}")
    tensors = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]

    def value():
        with no_grad():
            out = f(*tensors)
        out = out.data if isinstance(out, Tensor) else np.asarray(out)
        if out.size != 1:
            raise ValueError(f"finite_difference: f must return a scalar, got shape {out.shape}")
        return float(out.reshape(()))

    base = value() if method == "forward" else None
    gradients = []
    for t in tensors:
        data, gradient = t.data, np.zeros(t.data.shape)
        for index in np.ndindex(data.shape):
            x = data[index]
            data[index] = x + eps
            x_up, up = float(data[index]), value()  # the step the dtype could really take
            if method == "central":
                data[index] = x - eps
                x_down, down = float(data[index]), value()
            else:
                x_down, down = float(x), base
            if x_up == x_down:
                data[index] = x
                raise ValueError(
                    f"finite_difference: a step of eps={eps:g} does not change the value {float(x):g} at "
                    f"index {index} in {data.dtype} (too small for that precision), so there is no slope "
                    "to measure. Use a larger eps, or float64 inputs."
                )
            gradient[index] = (up - down) / (x_up - x_down)
            data[index] = x
        gradients.append(gradient.astype(data.dtype))
    return gradients


def relative_error(analytic, numeric, floor=1e-3):
    """Elementwise |a - n| / max(|a|, |n|, floor)."""
    analytic, numeric = np.asarray(analytic, dtype=np.float64), np.asarray(numeric, dtype=np.float64)
    return np.abs(analytic - numeric) / np.maximum(np.maximum(np.abs(analytic), np.abs(numeric)), floor)


def _float64_inputs(inputs):
    tensors = []
    for i, x in enumerate(inputs):
        t = x if isinstance(x, Tensor) else Tensor(np.array(x, dtype=np.float64), requires_grad=True)
        if t.data.dtype != np.float64:
            raise TypeError(
                f"gradcheck: input {i} is {t.data.dtype}; gradient checks need float64 (float32 rounding, "
                "about 1e-7, swamps a 1e-6 tolerance). Build it with dtype=np.float64."
            )
        tensors.append(t)
    return tensors


def compare(f, inputs, eps=1e-6, method="central", floor=1e-3):
    """Backprop and finite differences side by side, in float64.

    A non-scalar output y is compared through sum(y * w) for a fixed random w (a vector-Jacobian product).
    Every input is differentiated (requires_grad is switched on for the check); `.grad` and
    `requires_grad` of the inputs are left as they were found.
    Returns (analytic, numeric, relative errors: one array per input; op names in f; op of f's output).
    """
    return _compare(f, inputs, eps, method, floor)[:5]


def _compare(f, inputs, eps, method, floor):
    """`compare`, plus for each input whether backward reached it at all (its analytic gradient is real)."""
    tensors = _float64_inputs(inputs)
    saved = [(t.grad, t.requires_grad) for t in tensors]
    try:
        for t in tensors:
            t.grad, t.requires_grad = None, True
        out = f(*tensors)
        if not isinstance(out, Tensor):
            raise TypeError(f"gradcheck: f must return a culpa Tensor, got {type(out).__name__}")
        out_op, ops = out.op, list(dict.fromkeys(node.op for node in topo_order(out) if node._parents))
        scalar = f
        if out.data.size != 1:
            weights = np.random.default_rng(0).standard_normal(out.data.shape)
            out = (out * weights).sum()

            def scalar(*xs):
                return (f(*xs) * weights).sum()

        if out.requires_grad:
            out.backward()
        reached = [t.grad is not None for t in tensors]
        analytic = [np.zeros(t.data.shape) if t.grad is None else t.grad.copy() for t in tensors]
    finally:
        for t, (grad, requires_grad) in zip(tensors, saved, strict=True):
            t.grad, t.requires_grad = grad, requires_grad
    numeric = finite_difference(scalar, tensors, eps=eps, method=method)
    errors = [relative_error(a, n, floor) for a, n in zip(analytic, numeric, strict=True)]
    return analytic, numeric, errors, ops, out_op, reached


def max_relative_error(f, inputs, eps=1e-6, method="central", floor=1e-3):
    """The largest elementwise relative error between backprop and finite differences: one number."""
    errors = compare(f, inputs, eps=eps, method=method, floor=floor)[2]
    return max((float(e.max()) for e in errors if e.size), default=0.0)


def gradcheck(f, inputs, eps=1e-6, rtol=1e-6, method="central", floor=1e-3):
    """Check backprop's gradient of f(*inputs) against finite differences, in float64.

    Returns the largest relative error when every element agrees within `rtol`; otherwise raises
    GradcheckError naming the op, the input, the worst element, both values and the relative error.
    """
    tensors = _float64_inputs(inputs)
    analytic, numeric, errors, ops, out_op, reached = _compare(f, tensors, eps, method, floor)
    worst = max(range(len(errors)), key=lambda i: errors[i].max() if errors[i].size else 0.0, default=None)
    if worst is None or errors[worst].size == 0:
        return 0.0
    index = np.unravel_index(int(errors[worst].argmax()), errors[worst].shape)
    error = float(errors[worst][index])
    if error <= rtol:
        return error
    name = tensors[worst].name or f"input {worst}"
    a, n = float(analytic[worst][index]), float(numeric[worst][index])
    where = f"{name} at index {tuple(int(i) for i in index)}: analytic {a:.10g}, numeric {n:.10g}"
    if not reached[worst]:  # not a wrong derivative: the graph never connected this input to the output
        message = (
            f"gradcheck: backward never reached {name}: it got no gradient at all (shown as 0), yet f's "
            f"value depends on it ({where}). f must compute its result from this very input Tensor, with "
            "recording on: not from a copy of its data (Tensor(x.data), x.detach()), nor inside "
            "culpa.no_grad()."
        )
    else:
        message = (f"gradcheck failed for op {out_op!r} (ops in f: {', '.join(ops)}): the worst element is "
                   f"{where}, relative error {error:.3g} > rtol {rtol:g}")
    raise GradcheckError(
        message,
        op=out_op, input_index=worst, input_name=name, index=tuple(int(i) for i in index),
        analytic=a, numeric=n, relative_error=error,
    )


def find_bad_gradients(named_params):
    """[(name, problem)] for every parameter whose gradient is missing, non-finite or all zero.

    `named_params`: a module (anything with `named_parameters()`), a dict name -> Tensor, pairs
    (name, Tensor), or plain Tensors (named by their `.name` or position). Call it after one backward.
    """
    if hasattr(named_params, "named_parameters"):
        named_params = named_params.named_parameters()
    elif isinstance(named_params, dict):
        named_params = named_params.items()
    problems = []
    for i, item in enumerate(named_params):
        name, p = item if isinstance(item, tuple) else (item.name or f"parameter {i}", item)
        if p.grad is None:
            problems.append((name, "missing: no gradient reached it (is it used in the loss?)"))
        elif not np.isfinite(p.grad).all():
            problems.append((name, f"non-finite: {int((~np.isfinite(p.grad)).sum())} NaN or inf entries"))
        elif not p.grad.any():
            problems.append((name, "all zero: nothing flows back to it (dead ReLUs? saturated units?)"))
    return problems
