"""The seed's two habits as tools: compare backprop with finite differences, and look at every gradient.

* `finite_difference(f, inputs, eps, method)`: the numeric gradient, nudging one number at a time.
* `gradcheck(f, inputs)`: backward against central differences in float64; on failure a `GradcheckError`
  names the guilty op, the input, the worst element, both values and their relative error. The guilty op is
  found by checking every op that f recorded on its own (its inputs as recorded, central differences in
  float64), in backward order: the first whose local derivative disagrees is named (`error.culprit`), however
  deep inside f it sits, and not just the op that produced f's output.
* `max_relative_error(f, inputs, eps)`: the same comparison as one number (to plot error against eps).
* `find_bad_gradients(named_params)`: after one backward, every parameter whose gradient is missing,
  non-finite or all zero, by name.

The relative error of an element is |analytic - numeric| / max(|analytic|, |numeric|, floor): the floor
keeps gradients that are (nearly) zero from turning rounding noise into huge ratios.
"""

from dataclasses import dataclass

import numpy as np

from culpa import tensor as _engine
from culpa.tensor import Tensor, no_grad, topo_order


@dataclass
class Culprit:
    """The first op, in backward order, whose local derivative disagrees with finite differences.

    `input_position` is the input of the op (in its order) whose derivative is wrong, `index` the worst
    element of that input; `analytic` and `numeric` are the op's backward and the central difference there
    (both of sum(w * op output) for fixed random weights w), `relative_error` how far apart they are.
    """

    op: str
    name: str | None
    input_shapes: list
    input_position: int
    index: tuple
    analytic: float
    numeric: float
    relative_error: float


class GradcheckError(AssertionError):
    """Backprop and finite differences disagree; the attributes describe the worst element.

    `op` is the guilty op: `culprit.op` when one op of f was caught on its own (`culprit`, a Culprit),
    otherwise the op that produced f's output (`output_op`).
    """

    def __init__(self, message, *, op, input_index, input_name, index, analytic, numeric, relative_error,
                 output_op=None, culprit=None):
        super().__init__(message)
        self.op, self.input_index, self.input_name, self.index = op, input_index, input_name, index
        self.analytic, self.numeric, self.relative_error = analytic, numeric, relative_error
        self.output_op, self.culprit = output_op or op, culprit


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
            try:  # restore the input whatever happens, f raising at a nudged value included
                data[index] = x + eps
                x_up, up = float(data[index]), value()  # the step the dtype could really take
                if method == "central":
                    data[index] = x - eps
                    x_down, down = float(data[index]), value()
                else:
                    x_down, down = float(x), base
                if x_up == x_down:
                    raise ValueError(
                        f"finite_difference: a step of eps={eps:g} does not change the value {float(x):g} "
                        f"at index {index} in {data.dtype} (too small for that precision), so there is no "
                        "slope to measure. Use a larger eps, or float64 inputs."
                    )
                gradient[index] = (up - down) / (x_up - x_down)
            finally:
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
    GradcheckError naming the input, the worst element, both values and the relative error, and the guilty
    op: `find_culprit` checks each op f recorded on its own and names the first one, in backward order,
    whose local derivative disagrees (`error.culprit`: its name, input shapes and worst element).
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
    culprit = None
    whole = f"the worst element is {where}, relative error {error:.3g} > rtol {rtol:g}"
    if not reached[worst]:  # not a wrong derivative: the graph never connected this input to the output
        message = (
            f"gradcheck: backward never reached {name}: it got no gradient at all (shown as 0), yet f's "
            f"value depends on it ({where}). f must compute its result from this very input Tensor, with "
            "recording on: not from a copy of its data (Tensor(x.data), x.detach()), nor inside "
            "culpa.no_grad()."
        )
    else:
        culprit = find_culprit(f, tensors, eps=eps, rtol=rtol, floor=floor)
        context = f"f's output op {out_op!r} (ops in f: {', '.join(ops)})"
        if culprit is None:
            message = (f"gradcheck failed for {context}: {whole}. Every op of f checked on its own agrees "
                       "with finite differences: look for a part of f's result computed outside culpa's "
                       "ops (from .data, or with NumPy directly), which backward cannot see.")
        else:
            c = culprit
            shapes = ", ".join(str(shape) for shape in c.input_shapes)
            message = (
                f"gradcheck failed: the local derivative of op {c.op!r} (inputs of shape {shapes}) disagrees "
                f"with finite differences, checked on its own: at element {c.index} of its input "
                f"{c.input_position}, backward gives {c.analytic:.10g} and finite differences "
                f"{c.numeric:.10g} (relative error {c.relative_error:.3g}). It is the first op in backward "
                f"order that disagrees; {context}. Over all of f, {whole}"
            )
    raise GradcheckError(
        message,
        op=culprit.op if culprit else out_op, input_index=worst, input_name=name,
        index=tuple(int(i) for i in index), analytic=a, numeric=n, relative_error=error,
        output_op=out_op, culprit=culprit,
    )


class _Reached(BaseException):
    """Stops a rerun of f as soon as the op under check has been computed (BaseException: f's own
    `except Exception` cannot swallow it)."""

    def __init__(self, data):
        self.data = data


def find_culprit(f, inputs, eps=1e-6, rtol=1e-6, floor=1e-3):
    """The first op of f(*inputs), in backward order, whose local derivative disagrees (a Culprit), or None.

    f is run once recording every op it makes. Then each op N, from the output back, is checked on its
    own: its backward applied to fixed random weights w, against central differences of sum(w * N) where
    one input element of N moves by +-eps and every other input of N keeps its recorded value. To compute
    N again, f is rerun up to N, and the input is nudged right after N's last recorded input was made.
    Inputs must be float64 Tensors; their `.grad` and `requires_grad` are left as they were found.
    """
    tensors = _float64_inputs(inputs)
    saved = [(t.grad, t.requires_grad) for t in tensors]
    try:
        for t in tensors:
            t.grad, t.requires_grad = None, True
        out, made = _recorded(f, tensors)
        position = {node: i for i, node in enumerate(made)}
        rng = np.random.default_rng(0)
        for node in reversed(topo_order(out) if isinstance(out, Tensor) else []):
            if node in position:
                culprit = _check_one_op(f, tensors, node, position, rng, eps, rtol, floor)
                if culprit is not None:
                    return culprit
        return None
    finally:
        for t, (grad, requires_grad) in zip(tensors, saved, strict=True):
            t.grad, t.requires_grad = grad, requires_grad


def _recorded(f, tensors, when_made=None):
    """Run f, handing every result it records to when_made (default: collect them); (output, results)."""
    made = []
    previous, _engine._on_record = _engine._on_record, when_made or made.append
    try:
        return f(*tensors), made
    finally:
        _engine._on_record = previous


def _check_one_op(f, tensors, node, position, rng, eps, rtol, floor):
    weights = rng.standard_normal(node.data.shape)
    with np.errstate(all="ignore"):
        local = node._backward(weights)
    parents = node._parents
    last = max((position[p] for p in parents if p in position), default=-1)  # N's last input made in f
    for slot, parent in enumerate(parents):
        if not parent.requires_grad or parents.index(parent) != slot:
            continue  # a constant, or a tensor seen already (x * x: its shares are summed below)
        analytic = sum(np.asarray(local[i], dtype=np.float64) for i, p in enumerate(parents)
                       if p is parent and local[i] is not None)
        analytic = np.broadcast_to(analytic, parent.data.shape)
        numeric = np.zeros(parent.data.shape)
        try:
            for index in np.ndindex(parent.data.shape):
                up, down = (_rerun_op(f, tensors, node, position, last, parent, index, step, weights)
                            for step in (eps, -eps))
                numeric[index] = (up - down) / (2 * eps)
        except _Unmeasurable:
            continue
        errors = relative_error(analytic, numeric, floor)
        worst = np.unravel_index(int(errors.argmax()), errors.shape) if errors.size else ()
        if errors.size and errors[worst] > rtol:
            return Culprit(
                op=node.op, name=node.name, input_shapes=[p.data.shape for p in parents],
                input_position=slot, index=tuple(int(i) for i in worst),
                analytic=float(analytic[worst]), numeric=float(numeric[worst]),
                relative_error=float(errors[worst]),
            )
    return None


class _Unmeasurable(Exception):
    """f raised at a nudged value, or did not record the same ops again: this input cannot be checked."""


def _rerun_op(f, tensors, node, position, last, parent, index, step, weights):
    """sum(weights * N) with N computed again from its recorded inputs, one element of `parent` moved."""
    target, inside = position[node], position.get(parent)
    moved = []  # the tensor whose data was swapped for a nudged copy, and its own array, to put back

    def nudge(tensor):
        data = np.array(tensor.data, dtype=np.float64)
        data[index] += step
        moved.append((tensor, tensor.data))
        tensor.data = data

    made = []

    def when_made(result):
        made.append(result)
        if len(made) - 1 == last:
            nudge(made[inside] if inside is not None else parent)
        if len(made) - 1 == target:
            raise _Reached(result.data)

    try:
        if last == -1:  # N's inputs all come from outside f: nudge before f starts
            nudge(parent)
        _recorded(f, tensors, when_made)
    except _Reached as reached:
        if reached.data.shape != node.data.shape:
            raise _Unmeasurable from None
        return float((np.asarray(reached.data, dtype=np.float64) * weights).sum())
    except Exception:
        raise _Unmeasurable from None
    finally:
        for tensor, data in moved:
            tensor.data = data
    raise _Unmeasurable  # f finished without recording N again: it does not run the same ops twice


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
