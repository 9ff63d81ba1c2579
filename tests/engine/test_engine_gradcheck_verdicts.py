"""gradcheck's verdicts: no false alarm on correct code at any size or magnitude, slips caught and named.

A central difference carries rounding noise of about eps_machine * |f| / eps and a truncation error of about
eps**2 * f''' / 6; gradcheck must not call either a wrong derivative. A wrong derivative (x1.5, x1.0001, a
sign, a transposed matrix) must still be caught, and the op that carries it named, wherever it sits in f.
"""

import numpy as np
import pytest

import culpa
from culpa import Tensor, op_result
from culpa.check import GradcheckError, find_culprit, gradcheck

CORRECT = {
    "square": lambda t: (t * t).sum(),
    "log": lambda t: t.log().sum(),
    "reciprocal": lambda t: (1 / t).sum(),
    "tanh, weighted": lambda t: (t.tanh() * 3.0).mean(),
    "cube over a constant": lambda t: (t**3 / 7.0).sum(),
}


@pytest.mark.parametrize("magnitude", [1e-4, 1e-2, 1.0, 1e2, 1e4, 1e6])
@pytest.mark.parametrize("size", [10, 1000])
@pytest.mark.parametrize("name", list(CORRECT))
def test_correct_functions_pass_at_every_size_and_magnitude(name, size, magnitude):
    x = np.random.default_rng(size).uniform(magnitude, 2 * magnitude, size)  # positive: log and 1/x work
    assert gradcheck(CORRECT[name], [x]) >= 0


@pytest.mark.parametrize(("name", "magnitude"), [("square", 1e6), ("log", 1e-4), ("reciprocal", 1e-4)])
def test_correct_functions_pass_with_ten_thousand_values(name, magnitude):
    x = np.random.default_rng(7).uniform(magnitude, 2 * magnitude, 10_000)
    assert gradcheck(CORRECT[name], [x]) >= 0


def test_the_issue_s_sum_of_squares_passes():
    rng = np.random.default_rng(0)
    for size in (300, 1000):  # before: blamed mul (relative error 9.2e-6), or blamed nothing
        assert gradcheck(lambda t: (t * t).sum(), [rng.standard_normal(size)]) >= 0


@pytest.mark.parametrize("size", [10, 1000])
def test_a_slip_of_one_part_in_ten_thousand_is_caught_at_ordinary_magnitudes(size, monkeypatch):
    x = np.random.default_rng(4).uniform(1.0, 2.0, size)
    monkeypatch.setattr(Tensor, "log", planted("log", "log", factor=1.0001))
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda t: t.log().sum(), [x])
    assert caught.value.culprit.op == "log" and caught.value.relative_error > 5e-5


def planted(method, op, factor=1.0, transpose=False):
    """The op `method` of Tensor with its local derivative multiplied by `factor` (or transposed)."""
    right = getattr(Tensor, method)

    def wrong(self, *args):
        out = right(self, *args)
        local = out.local_backward

        def backward(g):
            grads = local(g)
            return tuple(None if pg is None else (pg.T if transpose else pg * factor) for pg in grads)

        return op_result(out.data, op, out.parents, backward)

    return wrong


SLIPS = {
    "x1.5": dict(method="tanh", op="tanh", factor=1.5),
    "x1.0001": dict(method="log", op="log", factor=1.0001),
    "sign": dict(method="tanh", op="tanh", factor=-1.0),
    "transposed": dict(method="__matmul__", op="matmul", transpose=True),
}


def function_with(slip):
    if slip == "transposed":
        w = Tensor(np.random.default_rng(5).standard_normal((3, 3)))
        return lambda t: (t.reshape(3, 3) @ w).tanh().sum()
    if slip == "x1.0001":
        return lambda t: (t.exp() + 1.0).log().sum()  # log at ordinary magnitudes
    return lambda t: (t.exp() * 0.5).tanh().sum()


@pytest.mark.parametrize("slip", list(SLIPS))
def test_planted_slips_are_caught_and_named(slip, monkeypatch):
    spec = SLIPS[slip]
    x = np.random.default_rng(1).standard_normal(9)
    f = function_with(slip)
    assert gradcheck(f, [x]) >= 0  # the right derivative passes
    monkeypatch.setattr(Tensor, spec["method"], planted(**spec))
    with pytest.raises(GradcheckError) as caught:
        gradcheck(f, [x])
    assert caught.value.op == spec["op"] and caught.value.culprit.op == spec["op"]


@pytest.mark.parametrize("slip", ["x1.5", "x1.0001", "sign"])
def test_a_slip_after_a_layer_built_inside_f_is_named_not_the_layer(slip, monkeypatch):
    spec = SLIPS[slip]

    def f(t):  # a layer made on every call of f: the per-op rerun must nudge the rerun's own weights
        layer = culpa.nn.Linear(4, 3, rng=0)
        h = layer(t.reshape(2, 4))
        return (h.tanh() * 2.0).sum() if spec["method"] == "tanh" else (h.exp() + 1.0).log().sum()

    x = np.random.default_rng(2).standard_normal(8)
    assert gradcheck(f, [x]) >= 0
    assert find_culprit(f, [x]) is None  # linear, checked on its own, agrees: its weights are f's own
    monkeypatch.setattr(Tensor, spec["method"], planted(**spec))
    with pytest.raises(GradcheckError) as caught:
        gradcheck(f, [x])
    assert caught.value.culprit.op == spec["op"]


def test_a_wrong_layer_built_inside_f_is_named(monkeypatch):
    right = culpa.nn.linear

    def slipped_linear(x, weight, bias):
        out = right(x, weight, bias)
        local = out.local_backward
        return op_result(out.data, "linear", (x, weight, bias),
                         lambda g: tuple(None if pg is None else pg * 1.5 for pg in local(g)))

    monkeypatch.setattr(culpa.nn, "linear", slipped_linear)
    x = np.random.default_rng(2).standard_normal(8)
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda t: culpa.nn.Linear(4, 3, rng=0)(t.reshape(2, 4)).tanh().sum(), [x])
    assert caught.value.culprit.op == "linear"


def test_a_wrong_tanh_under_a_loss_near_a_million_is_named(monkeypatch):
    x = np.random.default_rng(3).standard_normal(50)

    def f(t):
        return (t.tanh() * 1e4).sum() + 1e6

    assert gradcheck(f, [x]) >= 0
    monkeypatch.setattr(Tensor, "tanh", planted("tanh", "tanh", factor=1.5))
    with pytest.raises(GradcheckError) as caught:
        gradcheck(f, [x])
    assert caught.value.culprit.op == "tanh"  # before: 'sum' or 'add', whose checks drowned in rounding


def test_gradcheck_leaves_the_parameters_f_closes_over_alone():
    w = Tensor(np.array([1.0, -2.0, 0.5]), requires_grad=True, name="w")
    w.grad = np.array([0.1, 0.2, 0.3])  # a gradient from the training step's backward, before step()
    x = np.array([0.3, 0.4, -0.5])
    assert gradcheck(lambda t: (t * w).tanh().sum(), [x]) >= 0
    assert w.grad.tolist() == [0.1, 0.2, 0.3]


def test_gradcheck_and_finite_difference_take_read_only_inputs():
    x = np.array([0.3, 0.4, -0.5])
    x.flags.writeable = False
    assert gradcheck(lambda t: (t * t).tanh().sum(), [x]) >= 0
    (numeric,) = culpa.check.finite_difference(lambda t: (t * t).sum(), [x])
    assert np.allclose(numeric, 2 * x)
    assert x.tolist() == [0.3, 0.4, -0.5]
