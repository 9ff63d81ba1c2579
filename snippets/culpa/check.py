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

What a verdict means. A central difference is not exact: rounding in f's two evaluations adds noise of about
eps_machine * |f| / eps (it grows with |f| and as eps shrinks), and f's curvature a truncation error of about
eps**2 * (third derivative of f) / 6. An element fails only when backprop and finite differences differ by
more than rtol (relative) plus that noise (NOISE * eps_machine * |f| / eps), and still do when measured again
at 2 eps (two steps combined cancel the truncation error: Richardson's extrapolation) and at 8 and 16 eps
(where the noise is 8 to 16 times smaller). A wrong derivative stays put as the step changes; noise and
truncation move. So a pass means: no disagreement larger than rtol plus the noise of the measurement. Where
|f| is huge next to the gradient, that noise can hide a wrong derivative (the check then tells little), and
at a kink of f (relu at 0) within a step of x no step size helps.
"""

from dataclasses import dataclass

import numpy as np

from culpa.grad_mode import no_grad
from culpa.internals import recording, substituted_data
from culpa.tensor import Tensor, topo_order


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


RTOL = 1e-6  # gradcheck's relative tolerance: float64 backprop and a good central difference agree closer
EPS_MACHINE = float(np.finfo(np.float64).eps)
NOISE = 8  # rounding of one evaluation of f, in units of eps_machine * |f| (sums of many terms round more)
RECHECK_STEPS = ((1, 2), (8, 16))  # multiples of eps: two central differences, combined (Richardson)


def finite_difference(f, inputs, eps=1e-6, method="central"):
    """Numeric gradient of the scalar f(*inputs) with respect to every element of every input.

    `inputs` are Tensors (or arrays); each element is nudged by eps (in a private copy of the input's data,
    so read-only arrays work and nothing of the caller's changes).
    "central": (f(x + eps) - f(x - eps)) / 2 eps, error O(eps**2);
    "forward": (f(x + eps) - f(x)) / eps, error O(eps).
    Returns one array per input, of its shape.
    """
    if method not in ("central", "forward"):
        raise ValueError(f"finite_difference: method must be 'central' or 'forward', got {method!r}")
    tensors = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
    value = _scalar_value(f, tensors, "finite_difference")
    base = value() if method == "forward" else None
    gradients = []
    for t in tensors:
        with substituted_data(t, t.data.copy()) as data:
            gradient = np.zeros(data.shape)
            for index in np.ndindex(data.shape):
                gradient[index] = _slope(value, data, index, eps, base)[0]
        gradients.append(gradient.astype(data.dtype))
    return gradients


def _scalar_value(f, tensors, caller):
    def value():
        with no_grad():
            out = f(*tensors)
        out = out.data if isinstance(out, Tensor) else np.asarray(out)
        if out.size != 1:
            raise ValueError(f"{caller}: f must return a scalar, got shape {out.shape}")
        return float(out.reshape(()))

    return value


def _slope(value, data, index, step, base=None):
    """(slope, |f| at its largest, half the step really taken) of value() as data[index] moves by +-step
    (central) or by +step from `base` = value() (forward). data[index] is restored whatever happens."""
    x = data[index]
    try:
        data[index] = x + step
        x_up, up = float(data[index]), value()  # the step the dtype could really take
        if base is None:
            data[index] = x - step
            x_down, down = float(data[index]), value()
        else:
            x_down, down = float(x), base
    finally:
        data[index] = x
    if x_up == x_down:
        raise ValueError(
            f"finite_difference: a step of eps={step:g} does not change the value {float(x):g} "
            f"at index {index} in {data.dtype} (too small for that precision), so there is no "
            "slope to measure. Use a larger eps, or float64 inputs."
        )
    return (up - down) / (x_up - x_down), max(abs(up), abs(down)), (x_up - x_down) / 2


def relative_error(analytic, numeric, floor=1e-3):
    """Elementwise |a - n| / max(|a|, |n|, floor)."""
    analytic, numeric = np.asarray(analytic, dtype=np.float64), np.asarray(numeric, dtype=np.float64)
    return np.abs(analytic - numeric) / np.maximum(np.maximum(np.abs(analytic), np.abs(numeric)), floor)


def _agrees(a, n, noise, rtol, floor):
    return abs(a - n) <= rtol * max(abs(a), abs(n), floor) + noise


def _noise(magnitude, half_step):
    """The rounding noise of a central difference: f's rounding, twice, over the step."""
    return NOISE * EPS_MACHINE * magnitude / half_step


def disagrees(a, measure, eps, rtol=RTOL, floor=1e-3, first=None):
    """Whether the analytic value `a` disagrees with finite differences beyond rounding noise and
    truncation. `measure(step)` gives (slope, |f|, half step) at a step; `first` is the one at eps."""
    slope, magnitude, half = first or measure(eps)
    if _agrees(a, slope, _noise(magnitude, half), rtol, floor):
        return False
    for small, large in RECHECK_STEPS:
        n1, m1, h1 = (slope, magnitude, half) if small == 1 else measure(small * eps)
        n2, m2, h2 = measure(large * eps)
        richardson = (4 * n1 - n2) / 3  # the eps**2 error terms of the two cancel
        if _agrees(a, richardson, (4 * _noise(m1, h1) + _noise(m2, h2)) / 3, rtol, floor):
            return False
        if _agrees(a, n2, _noise(m2, h2), rtol, floor):
            return False
    return True


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
    `requires_grad` of the inputs, and the `.grad` of every tensor f uses, are left as they were found.
    Returns (analytic, numeric, relative errors: one array per input; op names in f; op of f's output).
    """
    run = _compare(f, _float64_inputs(inputs), eps, method, floor)
    return run.analytic, run.numeric, run.errors, run.ops, run.out_op


class _Run:
    """What one comparison measured (see `_compare`)."""


def _compare(f, tensors, eps, method, floor):
    """`compare` with what gradcheck needs besides: each element's measurement (slope, |f|, half step),
    whether backward reached each input at all (its analytic gradient is real), and f's value function."""
    run = _Run()
    run.analytic, run.reached, run.out_op, run.ops, scalar = _backprop(f, tensors)
    run.value = value = _scalar_value(scalar, tensors, "gradcheck")
    base = value() if method == "forward" else None
    run.numeric, run.measured = [], []
    for t in tensors:
        with substituted_data(t, t.data.copy()) as data:
            measured = [_slope(value, data, index, eps, base) for index in np.ndindex(data.shape)]
        run.numeric.append(np.array([m[0] for m in measured], dtype=np.float64).reshape(data.shape))
        run.measured.append(measured)
    run.errors = [relative_error(a, n, floor) for a, n in zip(run.analytic, run.numeric, strict=True)]
    return run


def _backprop(f, tensors):
    """Backprop's gradient of f for each input; every tensor's .grad and requires_grad are left as found."""
    saved = [(t.grad, t.requires_grad) for t in tensors]
    kept = []
    try:
        for t in tensors:
            t.grad, t.requires_grad = None, True
        out = f(*tensors)
        if not isinstance(out, Tensor):
            raise TypeError(f"gradcheck: f must return a culpa Tensor, got {type(out).__name__}")
        out_op, ops = out.op, list(dict.fromkeys(node.op for node in topo_order(out) if node.parents))
        scalar = f
        if out.data.size != 1:
            weights = np.random.default_rng(0).standard_normal(out.data.shape)
            out = (out * weights).sum()

            def scalar(*xs):
                return (f(*xs) * weights).sum()

        kept = [(node, node.grad) for node in topo_order(out) if node.requires_grad]
        if out.requires_grad:
            out.backward(retain_graph=True)  # a graph f closes over stays usable
        reached = [t.grad is not None for t in tensors]
        analytic = [np.zeros(t.data.shape) if t.grad is None else t.grad.copy() for t in tensors]
    finally:
        for node, grad in kept:  # parameters f closes over: a check between backward and step is harmless
            node.grad = grad
        for t, (grad, requires_grad) in zip(tensors, saved, strict=True):
            t.grad, t.requires_grad = grad, requires_grad
    return analytic, reached, out_op, ops, scalar


def max_relative_error(f, inputs, eps=1e-6, method="central", floor=1e-3):
    """The largest elementwise relative error between backprop and finite differences: one number."""
    errors = compare(f, inputs, eps=eps, method=method, floor=floor)[2]
    return max((float(e.max()) for e in errors if e.size), default=0.0)


def gradcheck(f, inputs, eps=1e-6, rtol=RTOL, method="central", floor=1e-3):
    """Check backprop's gradient of f(*inputs) against finite differences, in float64.

    Returns the largest relative error when every element agrees (within `rtol` plus the rounding noise of
    the measurement, see the module's docstring); otherwise raises GradcheckError naming the input, the
    worst element, both values and the relative error, and the guilty op: `find_culprit` checks each op f
    recorded on its own and names the first one, in backward order, whose local derivative disagrees
    (`error.culprit`: its name, input shapes and worst element). Nothing of the caller's changes: inputs,
    their `.grad`, and the `.grad` of every tensor f closes over are as they were.
    """
    tensors = _float64_inputs(inputs)
    run = _compare(f, tensors, eps, method, floor)
    failing = []  # (relative error, input, index) of every element that disagrees beyond noise
    for i, t in enumerate(tensors):
        suspects = [tuple(index) for index in np.argwhere(run.errors[i] > rtol)]
        if not suspects:
            continue
        with substituted_data(t, t.data.copy()) as data:
            for index in suspects:
                first = run.measured[i][int(np.ravel_multi_index(index, data.shape)) if data.ndim else 0]
                measure = lambda step, index=index: _slope(run.value, data, index, step)  # noqa: E731
                if method == "forward" or disagrees(float(run.analytic[i][index]), measure, eps, rtol,
                                                    floor, first):
                    failing.append((float(run.errors[i][index]), i, index))
    if not failing:
        return max((float(e.max()) for e in run.errors if e.size), default=0.0)
    error, worst, index = max(failing, key=lambda item: item[0])
    name = tensors[worst].name or f"input {worst}"
    a, n = float(run.analytic[worst][index]), float(run.numeric[worst][index])
    where = f"{name} at index {tuple(int(i) for i in index)}: analytic {a:.6g}, numeric {n:.6g}"
    culprit = None
    whole = (f"the worst element is {where}, relative error {error:.3g} > rtol {rtol:g}, beyond rounding "
             "noise and at larger steps too")
    out_op = run.out_op
    if not run.reached[worst]:  # not a wrong derivative: the graph never connected this input to the output
        message = (
            f"gradcheck: backward never reached {name}: it got no gradient at all (shown as 0), yet f's "
            f"value depends on it ({where}). f must compute its result from this very input Tensor, with "
            "recording on: not from a copy of its data (Tensor(x.data), x.detach()), nor inside "
            "culpa.no_grad()."
        )
    else:
        culprit = find_culprit(f, tensors, eps=eps, rtol=rtol, floor=floor)
        context = f"f's output op is {out_op!r} (f records: {', '.join(run.ops)})."
        if culprit is None:
            message = (f"gradcheck failed: {whole}. {context} Every op of f checked on its own agrees "
                       "with finite differences: look for a part of f's result computed outside culpa's "
                       "ops (from .data, or with NumPy directly), which backward cannot see.")
        else:
            c = culprit
            shapes = ", ".join(str(shape) for shape in c.input_shapes)
            message = (
                f"gradcheck failed: the local derivative of op {c.op!r} (inputs of shape {shapes}) disagrees "
                f"with finite differences, checked on its own: at element {c.index} of its input "
                f"{c.input_position}, backward gives {c.analytic:.6g} and finite differences "
                f"{c.numeric:.6g} (relative error {c.relative_error:.3g}). It is the first op, in backward "
                f"order, that disagrees. {context} Over all of f, {whole}."
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


def find_culprit(f, inputs, eps=1e-6, rtol=RTOL, floor=1e-3):
    """The first op of f(*inputs), in backward order, whose local derivative disagrees (a Culprit), or None.

    f is run once recording every tensor it makes (op results, and leaves such as the weights of a layer
    built inside f). Then each op N, from the output back, is checked on its own: its backward applied to
    fixed random weights w, against central differences of sum(w * N) where one input element of N moves by
    +-eps and every other input of N keeps its recorded value. To compute N again, f is rerun up to N, and
    the input (the rerun's own tensor, when f makes it) is nudged right after N's last input was made. The
    verdict allows for rounding noise and truncation as gradcheck's does.
    Inputs must be float64 Tensors; their `.grad` and `requires_grad` are left as they were found.
    """
    tensors = _float64_inputs(inputs)
    saved = [(t.grad, t.requires_grad) for t in tensors]
    try:
        for t in tensors:
            t.grad, t.requires_grad = None, True
        made = []
        with recording(made.append):
            out = f(*tensors)
        position = {node: i for i, node in enumerate(made)}
        rng = np.random.default_rng(0)
        for node in reversed(topo_order(out) if isinstance(out, Tensor) else []):
            if node in position and node.parents:
                culprit = _check_one_op(f, tensors, node, position, rng, eps, rtol, floor)
                if culprit is not None:
                    return culprit
        return None
    finally:
        for t, (grad, requires_grad) in zip(tensors, saved, strict=True):
            t.grad, t.requires_grad = grad, requires_grad


def _check_one_op(f, tensors, node, position, rng, eps, rtol, floor):
    weights = rng.standard_normal(node.data.shape)
    with np.errstate(all="ignore"):
        local = node.local_backward(weights)
    parents = node.parents
    last = max((position[p] for p in parents if p in position), default=-1)  # N's last input made in f
    for slot, parent in enumerate(parents):
        if not parent.requires_grad or parents.index(parent) != slot:
            continue  # a constant, or a tensor seen already (x * x: its shares are summed below)
        analytic = sum(np.asarray(local[i], dtype=np.float64) for i, p in enumerate(parents)
                       if p is parent and local[i] is not None)
        analytic = np.broadcast_to(analytic, parent.data.shape)

        def measure(step, index, parent=parent):
            return _rerun_op(f, tensors, node, position, last, parent, index, step, weights)

        try:
            first = {index: measure(eps, index) for index in np.ndindex(parent.data.shape)}
            numeric = np.zeros(parent.data.shape)
            for index, (slope, _, _) in first.items():
                numeric[index] = slope
            errors = relative_error(analytic, numeric, floor)
            failing = [index for index in map(tuple, np.argwhere(errors > rtol))
                       if disagrees(float(analytic[index]), lambda step, index=index: measure(step, index),
                                    eps, rtol, floor, first[index])]
        except _Unmeasurable:
            continue
        if failing:
            worst = max(failing, key=lambda index: errors[index])
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
    """(slope, |terms|, half step) of sum(weights * N), with N computed again from its recorded inputs and
    one element of `parent` moved by +-step (a central difference)."""
    up, size_up, x_up = _rerun_once(f, tensors, node, position, last, parent, index, step, weights)
    down, size_down, x_down = _rerun_once(f, tensors, node, position, last, parent, index, -step, weights)
    if x_up == x_down:
        raise _Unmeasurable
    return (up - down) / (x_up - x_down), max(size_up, size_down), (x_up - x_down) / 2


def _rerun_once(f, tensors, node, position, last, parent, index, step, weights):
    """(sum(weights * N), sum |weights * N|, the nudged element's value) for one rerun of f up to N."""
    target, inside = position[node], position.get(parent)
    substitutions, nudged_to = [], []

    def nudge(tensor):
        data = np.array(tensor.data, dtype=np.float64)
        data[index] += step
        nudged_to.append(float(data[index]))
        substitution = substituted_data(tensor, data)
        substitution.__enter__()
        substitutions.append(substitution)

    made = []

    def when_made(result):
        made.append(result)
        if len(made) - 1 == last:
            nudge(made[inside] if inside is not None else parent)  # the rerun's own tensor, when f made it
        if len(made) - 1 == target:
            raise _Reached(result.data)

    try:
        if last == -1:  # N's inputs all come from outside f: nudge before f starts
            nudge(parent)
        with recording(when_made):
            f(*tensors)
    except _Reached as reached:
        if reached.data.shape != node.data.shape:
            raise _Unmeasurable from None
        terms = np.asarray(reached.data, dtype=np.float64) * weights
        return float(terms.sum()), float(np.abs(terms).sum()), nudged_to[0]
    except Exception:
        raise _Unmeasurable from None
    finally:
        for substitution in reversed(substitutions):
            substitution.__exit__(None, None, None)
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
