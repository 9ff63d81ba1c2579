"""Errors a learner can act on: each names the op, the shapes or the type, and what to do."""

import re

import numpy as np
import pytest

import culpa
from culpa import Tensor


@pytest.mark.parametrize(
    "op, apply",
    [
        ("add", lambda a, b: a + b),
        ("sub", lambda a, b: a - b),
        ("mul", lambda a, b: a * b),
        ("div", lambda a, b: a / b),
    ],
)
def test_broadcast_mismatch_names_the_op_and_both_shapes(op, apply):
    with pytest.raises(ValueError) as error:
        apply(Tensor(np.ones((2, 3))), Tensor(np.ones(4)))
    message = str(error.value)
    assert message.startswith(f"{op}:") and "(2, 3)" in message and "(4,)" in message


@pytest.mark.parametrize(
    "left, right, needle",
    [
        ((2, 3), (4, 5), "(2, 3) @ (4, 5)"),
        ((2, 3), (4,), "(2, 3) @ (4,)"),
        ((3,), (2, 3), "(3,) @ (2, 3)"),
        ((), (3,), "at least one dimension"),
    ],
)
def test_matmul_mismatch_names_the_op_and_both_shapes(left, right, needle):
    with pytest.raises(ValueError, match="^matmul:") as error:
        Tensor(np.ones(left)) @ Tensor(np.ones(right))
    assert needle in str(error.value)


def test_linear_mismatch_says_what_the_layer_expects():
    layer = culpa.nn.Linear(3, 2, rng=0)
    with pytest.raises(ValueError, match=r"linear: an input of shape \(5, 4\).*in_features = 3"):
        layer(np.ones((5, 4)))


def test_backward_on_a_non_scalar_says_what_to_pass():
    y = Tensor(np.ones((2, 3)), requires_grad=True) * 2
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*pass the gradient.*an array of shape \(2, 3\)"):
        y.backward()
    with pytest.raises(ValueError, match=r"gradient has shape \(3,\).*shape \(2, 3\)"):
        y.backward(np.ones(3))


def test_backward_without_anything_to_differentiate():
    with pytest.raises(RuntimeError, match="requires_grad=True"):
        (Tensor([1.0]) * 2).sum().backward()


@pytest.mark.parametrize(
    "bad, type_name", [("abc", "str"), (None, "NoneType"), ({"a": 1}, "dict"), (1 + 2j, "complex")]
)
def test_unsupported_data_names_the_type(bad, type_name):
    with pytest.raises(TypeError, match=type_name):
        Tensor(bad)


@pytest.mark.parametrize("bad, type_name", [("abc", "str"), (None, "NoneType"), ({1, 2}, "set")])
def test_unsupported_operand_names_the_op_and_the_type(bad, type_name):
    x = Tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=f"^add:.*{type_name}"):
        x + bad
    with pytest.raises(TypeError, match=f"^mul:.*{type_name}"):
        bad * x
    with pytest.raises(TypeError, match=f"^matmul:.*{type_name}"):
        x @ bad
    with pytest.raises(TypeError, match=f"pow: the exponent must be a number, not {type_name}"):
        x**bad


def test_log_of_non_positive_values_raises_with_the_op_name():
    with pytest.raises(ValueError, match=r"^log: .*2 value\(s\).*index \(1,\).*log_softmax"):
        Tensor([1.0, 0.0, -3.0]).log()
    with pytest.raises(ValueError, match="^log:"):
        Tensor([np.nan]).log()


def test_nan_or_inf_appearing_in_backward_raises_with_the_op_name():
    x = Tensor([0.0, 4.0], requires_grad=True)
    y = (x**0.5).sum()  # forward is fine (0 and 2); the derivative 0.5 / sqrt(0) is not
    with pytest.raises(FloatingPointError, match=r"backward of op 'pow'.*not finite"):
        y.backward()
    a = Tensor([1e200], requires_grad=True)
    b = Tensor([1e-100], requires_grad=True)
    quotient = a / b  # 1e300: still finite
    quotient.name = "quotient"
    with pytest.raises(FloatingPointError, match=r"backward of op 'div' \(name 'quotient'\)"):
        quotient.sum().backward()  # d(a/b)/db = -a/b**2 = -1e400 overflows


def test_backward_leaves_numpys_error_state_alone():
    before = np.geterr()
    x = Tensor([1.0], requires_grad=True)
    (x * 2).sum().backward()
    assert np.geterr() == before


@pytest.mark.parametrize(
    "backward, needle",
    [
        (lambda g: (g,), "returned 1 gradient(s) for its 2 input(s)"),  # one short: b would get nothing
        (lambda g: (g, g, g), "returned 3 gradient(s) for its 2 input(s)"),
        (lambda g: [g, g], "returned a list, not a tuple"),
    ],
)
def test_an_op_whose_backward_returns_the_wrong_gradients_is_named(backward, needle):
    a, b = Tensor([1.0, 2.0], requires_grad=True), Tensor([3.0, 4.0], requires_grad=True)
    out = culpa.op_result(a.data + b.data, "my_add", (a, b), backward)
    with pytest.raises(TypeError, match=r"backward of op 'my_add' " + re.escape(needle)):
        out.sum().backward()


def test_cross_entropy_target_errors():
    z = Tensor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"one class index in \[0, 3\) per row"):
        culpa.cross_entropy(z, [0, 3])
    with pytest.raises(ValueError, match="per row"):
        culpa.cross_entropy(z, [0, -1])
    with pytest.raises(ValueError, match="per row"):
        culpa.cross_entropy(z, [0])
    with pytest.raises(TypeError, match="integer class indices"):
        culpa.cross_entropy(z, [0.5, 1.0])


def test_reshape_error_names_both_shapes():
    with pytest.raises(ValueError, match=r"reshape: cannot turn shape \(2, 3\) \(6 values\) into \(4,\)"):
        Tensor(np.ones((2, 3))).reshape(4)


def test_mlp_rejects_an_unknown_activation():
    with pytest.raises(ValueError, match="'tanh', 'sigmoid', 'relu'"):
        culpa.nn.MLP([2, 3], activation="gelu")


@pytest.mark.parametrize(
    "gradient, needle",
    [
        (lambda g: (g,), "a gradient of shape () for its input 0 of shape (3,)"),  # forgot to broadcast back
        (lambda g: (np.ones((2, 3)),), "a gradient of shape (2, 3) for its input 0 of shape (3,)"),
        (lambda g: (1.0,), "a gradient of shape () for its input 0 of shape (3,)"),
    ],
)
def test_an_op_whose_backward_returns_a_gradient_of_the_wrong_shape_is_named(gradient, needle):
    a = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = culpa.op_result(a.data.sum(), "my_sum", (a,), gradient)
    with pytest.raises(ValueError, match=r"^backward of op 'my_sum' returned " + re.escape(needle)) as error:
        out.backward()
    assert "unbroadcast" in str(error.value)  # what to do
    assert a.grad is None


def test_batched_matmul_with_batch_dimensions_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"^matmul: shapes \(2, 3, 4\) @ \(3, 4, 5\).*batch") as error:
        Tensor(np.ones((2, 3, 4))) @ Tensor(np.ones((3, 4, 5)))
    assert "(2,) and (3,)" in str(error.value)


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "sum", "mean"])
def test_an_axis_out_of_range_names_the_op_and_the_shape(op):
    z = Tensor(np.ones((2, 3)))
    apply = {"softmax": lambda: culpa.softmax(z, axis=2), "log_softmax": lambda: culpa.log_softmax(z, axis=2),
             "sum": lambda: z.sum(axis=2), "mean": lambda: z.mean(axis=(0, 2))}[op]
    with pytest.raises(ValueError, match=rf"^{op}: axis 2 is out of range for shape \(2, 3\).*-2 to 1"):
        apply()


def test_reshape_takes_sizes_in_any_sequence_and_names_what_is_not_a_size():
    t = Tensor(np.arange(6.0), requires_grad=True)
    for sizes in (np.array([2, 3]), [2, 3], (2, 3), (np.int64(2), 3)):
        out = t.reshape(sizes) if not isinstance(sizes, tuple) or len(sizes) != 2 else t.reshape(*sizes)
        assert out.shape == (2, 3)
    with pytest.raises(TypeError, match=r"^reshape: sizes must be whole numbers.*2\.5"):
        t.reshape(2.5, 3)
    with pytest.raises(TypeError, match=r"^reshape: sizes must be whole numbers"):
        t.reshape("23")


def test_tensor_to_a_tensor_power_says_what_to_write():
    x = Tensor([1.0, 2.0])
    expected = r"^pow: the exponent must be a number, not Tensor.*log\(\)\)\.exp\(\)"
    with pytest.raises(TypeError, match=expected):
        x**x


def test_cross_entropy_reports_a_huge_float_target_as_given():
    z = Tensor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"per row") as error:
        culpa.cross_entropy(z, [1e20, 0.0])
    assert "1e+20" in str(error.value) and "-9223372036854775808" not in str(error.value)


@pytest.mark.parametrize("text", [["a", "b"], "2.5", np.array(["1", "2"]), [b"x"]])
def test_strings_are_not_numbers(text):
    with pytest.raises(TypeError, match=r"text .*strings are not numbers.*float\(") as error:
        Tensor(text)
    assert "dtype <U" not in str(error.value)
