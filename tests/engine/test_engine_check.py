"""culpa.check: finite differences, gradcheck (and that it catches a wrong derivative), bad gradients."""

import re

import numpy as np
import pytest

import culpa
from culpa import Tensor
from culpa.check import (
    GradcheckError,
    find_bad_gradients,
    find_culprit,
    finite_difference,
    gradcheck,
    max_relative_error,
)


def test_finite_difference_central_and_forward_on_a_known_function():
    x = Tensor(np.array([0.3, -1.2, 2.0]))
    exact = np.cos(x.data) * 3 * x.data**2 + np.sin(x.data) * 6 * x.data  # d/dx sin(x) * 3x^2 ...

    def f(t):
        return (Tensor(np.sin(t.data)) * 0 + t.tanh() * 0 + Tensor(np.sin(t.data) * 3 * t.data**2)).sum()

    central = finite_difference(f, [x], eps=1e-5, method="central")[0]
    forward = finite_difference(f, [x], eps=1e-5, method="forward")[0]
    assert np.abs(central - exact).max() < 1e-8  # error O(eps^2)
    assert 1e-7 < np.abs(forward - exact).max() < 1e-3  # error O(eps): visibly worse
    assert np.array_equal(x.data, [0.3, -1.2, 2.0])  # every nudge was undone


def test_finite_difference_error_shrinks_like_eps_and_eps_squared():
    x = Tensor(np.array([0.7]))

    def f(t):
        return t.exp().sum()

    def error(eps, method):
        return abs(finite_difference(f, [x], eps=eps, method=method)[0][0] - np.exp(0.7))

    assert 50 < error(1e-2, "forward") / error(1e-4, "forward") < 200  # ~100x for 100x smaller eps
    assert 5e3 < error(1e-2, "central") / error(1e-4, "central") < 2e4  # ~10,000x


def test_finite_difference_handles_several_inputs_and_rejects_non_scalars():
    a, b = Tensor(np.array([1.0, 2.0])), Tensor(np.array([[3.0]]))
    ga, gb = finite_difference(lambda a, b: (a * b).sum(), [a, b])
    assert np.allclose(ga, [3.0, 3.0]) and np.allclose(gb, [[3.0]]) and gb.shape == (1, 1)
    with pytest.raises(ValueError, match="scalar"):
        finite_difference(lambda a: a * 2, [a])
    with pytest.raises(ValueError, match="'central' or 'forward'"):
        finite_difference(lambda a: a.sum(), [a], method="backward")


def test_gradcheck_returns_the_error_on_success_and_leaves_grads_alone():
    x = Tensor(np.random.default_rng(0).standard_normal((3, 2)), requires_grad=True, name="x")
    x.grad = np.full((3, 2), 7.0)
    assert gradcheck(lambda t: (t * t).sigmoid(), [x]) < 1e-6
    assert np.array_equal(x.grad, np.full((3, 2), 7.0))


def test_gradcheck_on_a_whole_mlp_loss():
    model = culpa.nn.MLP([3, 5, 4], rng=0)
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((6, 3)), rng.integers(0, 4, 6)
    assert gradcheck(lambda *params: culpa.cross_entropy(model(X), y), model.parameters()) < 1e-6


def wrong_tanh(self):
    """tanh with a planted mistake: the derivative forgets to square."""
    out = np.tanh(self.data)
    return culpa.op_result(out, "tanh", (self,), lambda g: (g * (1 - out),))


def test_gradcheck_catches_a_planted_wrong_derivative_and_names_it(monkeypatch):
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3)), requires_grad=True, name="x")
    assert gradcheck(lambda t: t.tanh(), [x]) < 1e-6  # the real one passes
    monkeypatch.setattr(Tensor, "tanh", wrong_tanh)
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda t: t.tanh(), [x])
    error = caught.value
    assert error.op == "tanh" and error.input_name == "x" and error.input_index == 0
    assert error.relative_error > 1e-2
    assert abs(error.analytic - error.numeric) > 1e-3
    worst = np.unravel_index(np.argmax(np.abs(np.tanh(x.data) - np.tanh(x.data) ** 2)), x.shape)
    assert error.index == tuple(int(i) for i in worst)  # the element where the mistake is largest
    message = str(error)
    assert "op 'tanh'" in message and "x at index" in message and "analytic" in message
    assert "numeric" in message and "relative error" in message


def test_gradcheck_names_the_ops_of_a_composite_with_a_planted_mistake(monkeypatch):
    monkeypatch.setattr(Tensor, "tanh", wrong_tanh)
    model = culpa.nn.MLP([2, 3, 2], rng=0)
    X = np.random.default_rng(1).standard_normal((4, 2))
    expected = (
        r"op 'tanh' .*It is the first op, in backward order, that disagrees\. "
        r"f's output op is 'cross_entropy' \(f records: linear, tanh, cross_entropy\)\."
    )
    with pytest.raises(GradcheckError, match=expected) as info:
        gradcheck(lambda *params: culpa.cross_entropy(model(X), [0, 1, 1, 0]), model.parameters())
    # both numbers of each comparison to 6 significant digits, as a reader compares them
    pairs = re.findall(
        r"backward gives (\S+) and finite differences (\S+) |analytic (\S+), numeric (\S+),", str(info.value)
    )
    numbers = [n for pair in pairs for n in pair if n]
    assert len(numbers) == 4, str(info.value)
    digits = [re.sub(r"e.*", "", n).replace("-", "").replace(".", "").lstrip("0") for n in numbers]
    assert all(len(d) <= 6 for d in digits), numbers


def test_gradcheck_differentiates_constant_inputs_too_and_restores_them():
    c = Tensor(np.array([0.5, -2.0]))  # requires_grad=False
    assert gradcheck(lambda t: (t * t).exp(), [c]) < 1e-6
    assert not c.requires_grad and c.grad is None


def test_gradcheck_insists_on_float64():
    x = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    with pytest.raises(TypeError, match="float64"):
        gradcheck(lambda t: t * 2, [x])


def test_max_relative_error_is_u_shaped_in_eps():
    model = culpa.nn.MLP([3, 4, 2], rng=0)
    X = np.random.default_rng(2).standard_normal((5, 3))

    def loss(*params):
        return culpa.cross_entropy(model(X), [0, 1, 0, 1, 1])

    errors = {eps: max_relative_error(loss, model.parameters(), eps=eps) for eps in (1e-1, 1e-5, 1e-11)}
    assert errors[1e-5] < 1e-7
    assert errors[1e-1] > 100 * errors[1e-5] and errors[1e-11] > 100 * errors[1e-5]


def test_find_bad_gradients_names_missing_non_finite_and_all_zero():
    model = culpa.nn.MLP([2, 3, 2], activation="relu", rng=0)
    model.layers[0].bias.data[:] = -100.0  # every ReLU of layer 0 is dead: nothing flows below it
    loss = culpa.cross_entropy(model(np.ones((4, 2))), [0, 1, 0, 1])
    loss.backward()
    problems = dict(find_bad_gradients(model))
    # below the dead units nothing flows, and the weights above them multiply zeros
    assert set(problems) == {"layers.0.weight", "layers.0.bias", "layers.1.weight"}
    assert all(p.startswith("all zero") for p in problems.values())

    model.layers[1].bias.grad = np.array([np.nan, 0.0])
    model.layers[1].weight.grad = None
    problems = dict(find_bad_gradients(model))
    assert problems["layers.1.bias"].startswith("non-finite") and problems["layers.1.weight"].startswith(
        "missing"
    )


def test_find_bad_gradients_accepts_dicts_pairs_and_tensors():
    good, unused = Tensor([1.0], requires_grad=True, name="good"), Tensor([1.0], requires_grad=True)
    (good * 2).sum().backward()
    assert find_bad_gradients({"good": good, "unused": unused}) == [
        ("unused", find_bad_gradients([unused])[0][1])
    ]
    assert [name for name, _ in find_bad_gradients([("a", unused), ("b", good)])] == ["a"]
    assert [name for name, _ in find_bad_gradients([good, unused])] == ["parameter 1"]
    assert find_bad_gradients(model_with_all_good_grads()) == []


def model_with_all_good_grads():
    model = culpa.nn.MLP([2, 3, 2], rng=0)
    culpa.cross_entropy(model(np.ones((2, 2))), [0, 1]).backward()
    return model


@pytest.mark.parametrize("cut", [lambda t: Tensor(t.data), lambda t: t.detach()], ids=["copy", "detach"])
def test_gradcheck_says_so_when_backward_never_reaches_an_input(cut):
    w = Tensor(np.array([0.5, -1.0]), requires_grad=True, name="w")
    with pytest.raises(GradcheckError, match=r"backward never reached w: it got no gradient at all") as info:
        gradcheck(lambda t: (cut(t) * 3.0).sum(), [w])
    assert "analytic 0, numeric 3" in str(info.value) and info.value.input_name == "w"
    with pytest.raises(GradcheckError, match=r"backward never reached input 1"):
        gradcheck(lambda a, b: (a * cut(b)).sum(), [w, Tensor(np.array([2.0, 1.0]))])


def test_finite_difference_names_a_step_too_small_for_the_dtype():
    x = culpa.Tensor(np.array([1000.0, 2.0], dtype=np.float32))
    expected = r"eps=1e-06 does not change the value 1000 at index \(0,\) in float32"
    with pytest.raises(ValueError, match=expected):
        culpa.check.finite_difference(lambda t: (t * t).sum(), [x], eps=1e-6)
    assert x.data.tolist() == [1000.0, 2.0]  # the input is restored


def log_near_zero(t):
    return t.log().sum()  # x - eps < 0 for the first element: the nudged evaluation raises


@pytest.mark.parametrize("check", ["finite_difference", "gradcheck"])
def test_an_input_is_restored_even_when_f_raises_during_a_nudge(check):
    x = Tensor(np.array([1e-7, 2.0]), requires_grad=True)
    run = {"finite_difference": lambda: finite_difference(log_near_zero, [x], eps=1e-6),
           "gradcheck": lambda: gradcheck(log_near_zero, [x], eps=1e-6)}[check]
    with pytest.raises(ValueError, match="^log:"):
        run()
    assert x.data.tolist() == [1e-7, 2.0]


# ---- naming the guilty op, deep inside: each recorded op checked on its own ----


def wrong_sigmoid(self):
    """sigmoid with a planted mistake: the derivative forgets the factor (1 - s)."""
    out = np.exp(-np.logaddexp(0, -self.data))
    return culpa.op_result(out, "sigmoid", (self,), lambda g: (g * out,))


def test_gradcheck_names_the_guilty_op_deep_inside_a_network(monkeypatch):
    monkeypatch.setattr(Tensor, "sigmoid", wrong_sigmoid)
    model = culpa.nn.MLP([3, 4, 2], activation="sigmoid", rng=0)
    X = np.random.default_rng(1).standard_normal((5, 3))
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda *params: culpa.cross_entropy(model(X), [0, 1, 1, 0, 1]), model.parameters())
    error = caught.value
    culprit = error.culprit
    assert error.op == "sigmoid" and culprit.op == "sigmoid"
    assert culprit.input_shapes == [(5, 4)] and culprit.input_position == 0
    assert culprit.relative_error > 1e-2 and abs(culprit.analytic - culprit.numeric) > 1e-3
    message = str(error)
    assert "op 'sigmoid'" in message and "(5, 4)" in message and "cross_entropy" in message
    assert error.output_op == "cross_entropy"


def test_the_guilty_op_is_the_first_in_backward_order_and_the_right_ops_pass(monkeypatch):
    """Two wrong ops: the one backward meets first is named (the other one receives a wrong gradient)."""
    monkeypatch.setattr(Tensor, "tanh", wrong_tanh)
    monkeypatch.setattr(Tensor, "sigmoid", wrong_sigmoid)
    x = Tensor(np.random.default_rng(2).standard_normal((2, 3)), requires_grad=True, name="x")
    w = Tensor(np.random.default_rng(3).standard_normal((3, 3)), requires_grad=True, name="w")
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda a, b: ((a @ b).tanh() * 2.0).sigmoid().sum(), [x, w])
    assert caught.value.culprit.op == "sigmoid"
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda a, b: ((a @ b).tanh() * 2.0).exp().sum(), [x, w])
    culprit = caught.value.culprit
    assert culprit.op == "tanh" and culprit.input_shapes == [(2, 3)]
    assert len(culprit.index) == 2 and x.grad is None and w.grad is None  # inputs left as found


def test_a_local_check_holds_the_other_inputs_of_the_op_fixed(monkeypatch):
    """h * tanh(h): the mul's local derivative w.r.t. its first input is tanh(h), not d(h tanh h)/dh."""
    def wrong_mul_first(a, b):  # a mul whose derivative for its left input is wrong
        return culpa.op_result(a.data * b.data, "mul", (a, b),
                               lambda g: (g * b.data * 1.5, g * a.data))

    x = Tensor(np.random.default_rng(4).standard_normal(4), requires_grad=True)
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda t: wrong_mul_first(t.exp(), t.exp().tanh()).sum(), [x])
    culprit = caught.value.culprit
    assert culprit.op == "mul" and culprit.input_position == 0 and culprit.input_shapes == [(4,), (4,)]


@pytest.mark.parametrize("f", [
    lambda t: ((h := t.exp()) * h.tanh()).sum(),  # the other input of mul depends on the first
    lambda t: (t.reshape(2, 2) * t.reshape(2, 2).T).sum(),  # ...or is a view of the same memory
    lambda t: (t * t).sigmoid().sum(),  # one tensor in both places: its shares are summed
    lambda t: culpa.cross_entropy(t.reshape(2, 2) @ t.reshape(2, 2), [1, 0]),
], ids=["dependent", "view", "same tensor twice", "matmul and cross_entropy"])
def test_right_ops_are_not_blamed_when_checked_on_their_own(f):
    x = Tensor(np.array([0.3, -0.7, 1.1, 0.4]), requires_grad=True)
    assert gradcheck(f, [x]) < 1e-6
    assert find_culprit(f, [x]) is None
