"""Every op of culpa's core, and every broadcasting pattern, against central differences in float64."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import culpa
from culpa import Tensor
from culpa.check import gradcheck, max_relative_error

RTOL = 1e-6


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def leaf(*shape, seed=0, positive=False):
    data = randn(*shape, seed=seed)
    return Tensor(np.abs(data) + 0.5 if positive else data, requires_grad=True)


# name -> (function of the inputs, input shapes, inputs must be positive)
OPS = {
    "add": (lambda a, b: a + b, [(3, 4), (3, 4)], False),
    "sub": (lambda a, b: a - b, [(3, 4), (3, 4)], False),
    "mul": (lambda a, b: a * b, [(3, 4), (3, 4)], False),
    "div": (lambda a, b: a / b, [(3, 4), (3, 4)], True),
    "neg": (lambda a: -a, [(3, 4)], False),
    "pow_square": (lambda a: a**2, [(3, 4)], False),
    "pow_fraction": (lambda a: a**1.5, [(3, 4)], True),
    "pow_negative": (lambda a: a**-1, [(3, 4)], True),
    "matmul_2d": (lambda a, b: a @ b, [(3, 4), (4, 5)], False),
    "matmul_matrix_vector": (lambda a, b: a @ b, [(3, 4), (4,)], False),
    "matmul_vector_matrix": (lambda a, b: a @ b, [(4,), (4, 5)], False),
    "matmul_vector_vector": (lambda a, b: a @ b, [(4,), (4,)], False),
    "matmul_batched": (lambda a, b: a @ b, [(2, 3, 4), (4, 5)], False),
    "matmul_batched_both": (lambda a, b: a @ b, [(2, 3, 4), (1, 4, 5)], False),
    "matmul_transposed_right": (lambda a, b: a @ b.T, [(3, 4), (5, 4)], False),
    "sum_all": (lambda a: a.sum(), [(3, 4)], False),
    "sum_axis": (lambda a: a.sum(axis=1), [(3, 4)], False),
    "sum_negative_axis_keepdims": (lambda a: a.sum(axis=-2, keepdims=True), [(2, 3, 4)], False),
    "sum_axes_tuple": (lambda a: a.sum(axis=(0, 2)), [(2, 3, 4)], False),
    "mean_all": (lambda a: a.mean(), [(3, 4)], False),
    "mean_axis": (lambda a: a.mean(axis=0), [(3, 4)], False),
    "mean_axes_keepdims": (lambda a: a.mean(axis=(0, 2), keepdims=True), [(2, 3, 4)], False),
    "exp": (lambda a: a.exp(), [(3, 4)], False),
    "log": (lambda a: a.log(), [(3, 4)], True),
    "tanh": (lambda a: a.tanh(), [(3, 4)], False),
    "sigmoid": (lambda a: a.sigmoid(), [(3, 4)], False),
    "relu": (lambda a: a.relu(), [(3, 4)], False),  # random inputs stay away from the kink at 0
    "reshape": (lambda a: a.reshape(4, 3), [(3, 4)], False),
    "reshape_tuple": (lambda a: a.reshape((2, 6)), [(3, 4)], False),
    "transpose": (lambda a: a.T, [(3, 4)], False),
    "transpose_3d": (lambda a: a.T, [(2, 3, 4)], False),
    "softmax": (lambda a: culpa.softmax(a), [(3, 4)], False),
    "softmax_axis0": (lambda a: culpa.softmax(a, axis=0), [(3, 4)], False),
    "log_softmax": (lambda a: culpa.log_softmax(a), [(3, 4)], False),
    "log_softmax_axis0": (lambda a: culpa.log_softmax(a, axis=0), [(3, 4)], False),
    "cross_entropy": (lambda a: culpa.cross_entropy(a, [0, 3, 1]), [(3, 4)], False),
    "cross_entropy_vector": (lambda a: culpa.cross_entropy(a, 2), [(4,)], False),
    "linear_batch": (lambda x, w, b: culpa.nn.linear(x, w, b), [(5, 4), (3, 4), (3,)], False),
    "linear_vector": (lambda x, w, b: culpa.nn.linear(x, w, b), [(4,), (3, 4), (3,)], False),
    "linear_leading_dims": (lambda x, w, b: culpa.nn.linear(x, w, b), [(2, 5, 4), (3, 4), (3,)], False),
}


@pytest.mark.parametrize("name", OPS)
def test_every_op_passes_gradcheck_in_float64(name):
    f, shapes, positive = OPS[name]
    inputs = [leaf(*shape, seed=i, positive=positive) for i, shape in enumerate(shapes)]
    assert gradcheck(f, inputs, rtol=RTOL) <= RTOL


def test_the_op_table_covers_every_public_op():
    ops_seen = set()
    for f, shapes, positive in OPS.values():
        out = f(*[leaf(*shape, seed=i, positive=positive) for i, shape in enumerate(shapes)])
        ops_seen.update(node.op for node in culpa.topo_order(out) if node.op != "leaf")
    expected = {
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "pow",
        "matmul",
        "sum",
        "mean",
        "exp",
        "log",
        "tanh",
        "sigmoid",
        "relu",
        "reshape",
        "transpose",
        "softmax",
        "log_softmax",
        "cross_entropy",
        "linear",
    }
    assert expected <= ops_seen


# ---- broadcasting: the gradient of a broadcast input is summed back to its own shape ----

PATTERNS = {
    "scalar_left": ((), (3, 4)),
    "scalar_right": ((3, 4), ()),
    "row": ((3, 4), (4,)),
    "row_keepdims": ((3, 4), (1, 4)),
    "column": ((3, 4), (3, 1)),
    "leading_dims": ((2, 3, 4), (3, 4)),
    "both_stretched": ((3, 1), (1, 4)),
    "middle": ((2, 1, 4), (2, 3, 1)),
}


ELEMENTWISE = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}


@pytest.mark.parametrize("op", ELEMENTWISE)
@pytest.mark.parametrize("pattern", PATTERNS)
def test_broadcasting_patterns_pass_gradcheck(op, pattern):
    left, right = PATTERNS[pattern]
    a, b = leaf(*left, seed=1), leaf(*right, seed=2, positive=(op == "div"))
    f = ELEMENTWISE[op]
    assert gradcheck(f, [a, b], rtol=RTOL) <= RTOL
    out = f(a, b)
    out.backward(np.ones(out.shape))
    assert a.grad.shape == a.shape and b.grad.shape == b.shape


@st.composite
def broadcastable_pair(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    return shapes.input_shapes


@settings(max_examples=40, deadline=None)
@given(shapes=broadcastable_pair(), op=st.sampled_from(list(ELEMENTWISE)), seed=st.integers(0, 99))
def test_generated_broadcast_shapes_pass_gradcheck(shapes, op, seed):
    a = leaf(*shapes[0], seed=seed)
    b = leaf(*shapes[1], seed=seed + 1, positive=(op == "div"))
    f = ELEMENTWISE[op]
    assert gradcheck(f, [a, b], rtol=RTOL) <= RTOL


@settings(max_examples=25, deadline=None)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), data=st.data())
def test_generated_reductions_pass_gradcheck(shape, data):
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    keepdims = data.draw(st.booleans())
    x = leaf(*shape, seed=len(shape))
    assert gradcheck(lambda t: t.sum(axis=axis, keepdims=keepdims) * 1.5, [x], rtol=RTOL) <= RTOL
    assert gradcheck(lambda t: t.mean(axis=axis, keepdims=keepdims).tanh(), [x], rtol=RTOL) <= RTOL


def test_unbroadcast_sums_over_the_copies():
    grad = np.ones((2, 3, 4))
    assert np.array_equal(culpa.unbroadcast(grad, (4,)), np.full(4, 6.0))
    assert np.array_equal(culpa.unbroadcast(grad, (3, 1)), np.full((3, 1), 8.0))
    assert np.array_equal(culpa.unbroadcast(grad, ()), np.asarray(24.0))
    assert culpa.unbroadcast(grad, (2, 3, 4)) is grad


# ---- the seed's worked example, exact closed forms ----


def test_worked_example_softmax_loss_and_gradient():
    z = Tensor([2.0, 1.0, 0.1], requires_grad=True)
    loss = culpa.cross_entropy(z, 0)
    loss.backward()
    p = culpa.softmax(Tensor([2.0, 1.0, 0.1])).data
    assert np.allclose(p, [0.659, 0.242, 0.099], atol=5e-4)
    assert abs(loss.item() - 0.417) < 5e-4
    assert np.allclose(z.grad, [-0.341, 0.242, 0.099], atol=5e-4)
    assert np.allclose(z.grad, p - np.eye(3)[0], rtol=0, atol=1e-15)


def test_worked_example_layer_gradients_equal_the_closed_forms():
    rng = np.random.default_rng(3)
    h = Tensor(rng.standard_normal(4), requires_grad=True)
    W = Tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = Tensor(rng.standard_normal(3), requires_grad=True)
    for logits in (W @ h + b, culpa.nn.linear(h, W, b)):
        for t in (h, W, b):
            t.zero_grad()
        culpa.cross_entropy(logits, 0).backward()
        delta = culpa.softmax(Tensor(W.data @ h.data + b.data)).data - np.eye(3)[0]  # p - y
        assert np.allclose(b.grad, delta, rtol=0, atol=1e-14)
        assert np.allclose(W.grad, np.outer(delta, h.data), rtol=0, atol=1e-14)
        assert np.allclose(h.grad, W.data.T @ delta, rtol=0, atol=1e-14)


def test_cross_entropy_backward_is_softmax_minus_onehot_over_batch():
    z = Tensor(randn(5, 4), requires_grad=True)
    target = np.array([0, 3, 1, 1, 2])
    culpa.cross_entropy(z, target).backward()
    p = np.exp(z.data) / np.exp(z.data).sum(axis=1, keepdims=True)
    assert np.allclose(z.grad, (p - np.eye(4)[target]) / 5, rtol=0, atol=1e-15)
    assert culpa.cross_entropy(z, target).op == "cross_entropy"


@pytest.mark.parametrize("layout", ["F", "strided", "int32 target"])
def test_cross_entropy_on_logits_in_any_memory_layout(layout):
    """The targets are found by flat position: logits that are not C-ordered must give the same numbers."""
    c = randn(5, 4)
    target = np.array([0, 3, 1, 1, 2])
    data = {"F": np.asfortranarray(c), "strided": np.repeat(c, 2, axis=1)[:, ::2],
            "int32 target": c}[layout]
    if layout == "int32 target":
        target = target.astype(np.int32)
    assert np.array_equal(data, c) and (layout == "int32 target" or not data.flags.c_contiguous)
    z, reference = Tensor(data, requires_grad=True), Tensor(c, requires_grad=True)
    loss, expected = culpa.cross_entropy(z, target), culpa.cross_entropy(reference, np.array([0, 3, 1, 1, 2]))
    loss.backward()
    expected.backward()
    assert loss.item() == expected.item() and np.array_equal(z.grad, reference.grad)


def test_huge_logits_do_not_overflow():
    z = Tensor([1000.0, 0.0, -1000.0], requires_grad=True)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        loss = culpa.cross_entropy(z, 0)
        loss.backward()
        assert np.isfinite(culpa.softmax(z).data).all() and np.isfinite(culpa.log_softmax(z).data).all()
    assert loss.item() == 0.0
    assert np.array_equal(z.grad, [0.0, 0.0, 0.0])
    assert culpa.cross_entropy(Tensor([1000.0, 0.0]), 1).item() == 1000.0


def test_sigmoid_is_stable_for_large_inputs():
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        s = Tensor([-1000.0, 0.0, 1000.0]).sigmoid().data
    assert np.array_equal(s, [0.0, 0.5, 1.0])


# ---- chain rule bookkeeping ----


def test_branching_sums_both_paths():
    x = Tensor(3.0, requires_grad=True)
    y = x * x + x.tanh() * 2  # two paths
    y.backward()
    assert np.isclose(x.grad, 2 * 3.0 + 2 * (1 - np.tanh(3.0) ** 2))
    w = Tensor(2.0, requires_grad=True)
    (w * w).backward()  # the same tensor on both sides of one op
    assert w.grad == 4.0


def test_gradients_accumulate_across_backward_calls_until_zeroed():
    w = Tensor([1.0, -2.0], requires_grad=True)
    (w * w).sum().backward()
    (w * w).sum().backward()
    assert np.array_equal(w.grad, [4.0, -8.0])
    w.zero_grad()
    assert w.grad is None
    (w * 3).sum().backward()
    assert np.array_equal(w.grad, [3.0, 3.0])


def test_intermediate_results_get_their_gradient_too():
    x = Tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    (h * h).sum().backward()
    assert np.array_equal(h.grad, 2 * h.data) and np.array_equal(x.grad, 6 * h.data)


def test_no_grad_records_nothing():
    w = Tensor([1.0, 2.0], requires_grad=True)
    with culpa.no_grad():
        y = (w * 2).sum()
    assert not y.requires_grad and y.grad is None and y.parents == ()
    y2 = (w * 2).sum()
    assert y2.requires_grad  # recording is back on after the block

    @culpa.no_grad()
    def evaluate():
        return w * 2

    assert not evaluate().requires_grad


def test_constants_get_no_gradient():
    w = Tensor([1.0, 2.0], requires_grad=True)
    c = Tensor([3.0, 4.0])
    (w * c).sum().backward()
    assert c.grad is None and np.array_equal(w.grad, [3.0, 4.0])


# ---- data types and operands ----


def test_dtypes_ints_become_float64_and_float32_stays():
    assert Tensor([1, 2]).dtype == np.float64
    assert Tensor(np.array([True, False])).dtype == np.float64
    assert Tensor(3).dtype == np.float64 and Tensor(3).shape == ()
    f32 = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    assert f32.dtype == np.float32
    out = (f32 * 2 + 1.5) / 3 - 1
    assert out.dtype == np.float32  # Python numbers do not upcast
    out.tanh().sum().backward()
    assert f32.grad.dtype == np.float32 and f32.grad.shape == (3,)


def test_grad_takes_the_dtype_of_data_when_dtypes_mix():
    f32 = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    (f32 * np.ones(3)).sum().backward()  # a float64 array upcasts the result, not the gradient
    assert f32.grad.dtype == np.float32


def test_numbers_and_arrays_work_on_either_side():
    x = Tensor([1.0, 2.0], requires_grad=True)
    arr = np.array([3.0, 4.0])
    cases = {
        "radd": 1 + x,
        "rsub": 1 - x,
        "rmul": 2 * x,
        "rdiv": 1 / x,
        "arr_add": arr + x,
        "arr_sub": arr - x,
        "arr_mul": arr * x,
        "arr_div": arr / x,
        "rmatmul": arr @ x,
        "npscalar": np.float64(2.0) * x,
    }
    for name, out in cases.items():
        assert isinstance(out, Tensor), name
    assert np.array_equal((1 - x).data, [0.0, -1.0])
    assert np.array_equal((arr / x).data, [3.0, 2.0])
    assert (arr @ x).item() == 11.0
    (arr @ x).backward()
    assert np.array_equal(x.grad, arr)


def test_properties_item_and_repr():
    x = Tensor([[1.0, 2.0]], requires_grad=True, name="x")
    assert x.shape == (1, 2) and x.ndim == 2 and x.op == "leaf" and x.name == "x"
    assert Tensor(2.5).item() == 2.5
    y = (x * 2).sum()
    assert y.op == "sum" and "grad=None" in repr(y)
    y.backward()
    text = repr(x)
    assert "[[1., 2.]]" in text and "grad=[[2., 2.]]" in text and "'x'" in text
    assert repr(Tensor(1.0)).startswith("Tensor(1.")


def test_op_names_are_recorded():
    x = Tensor(randn(2, 3), requires_grad=True)
    w = Tensor(randn(3, 3), requires_grad=True)
    assert (x @ w).op == "matmul" and (x + 1).op == "add" and x.tanh().op == "tanh"
    assert culpa.nn.Linear(3, 2, rng=0)(x).op == "linear"
    assert x.detach().op == "leaf" and not x.detach().requires_grad


def test_max_relative_error_is_small_in_float64_at_a_good_step():
    x = leaf(3, 4)
    assert max_relative_error(lambda t: (t * t).tanh().sum(), [x], eps=1e-5) < 1e-8


# ---- recording on and off ----


@pytest.fixture
def recording_restored():
    """Whatever a test does to the recording switch, the next test starts with recording on."""
    yield
    culpa.set_grad_enabled(True)


def test_a_recursive_no_grad_function_turns_recording_back_on(recording_restored):
    w = Tensor([1.0, 2.0], requires_grad=True)

    @culpa.no_grad()
    def depth(n):  # one decorator instance, entered again by every nested call
        assert not (w * 2).requires_grad
        return 0 if n == 0 else 1 + depth(n - 1)

    assert depth(3) == 3
    assert (w * 2).requires_grad  # recording is on again after the outermost call


def test_set_grad_enabled_works_as_a_call_a_block_and_a_decorator(recording_restored):
    w = Tensor([1.0, 2.0], requires_grad=True)
    culpa.set_grad_enabled(False)  # the torch idiom: a plain call switches recording off...
    assert not (w * 2).requires_grad
    culpa.set_grad_enabled(True)  # ...and on again
    assert (w * 2).requires_grad
    with culpa.set_grad_enabled(False):
        assert not (w * 2).requires_grad
        with culpa.set_grad_enabled(True):
            assert (w * 2).requires_grad
        assert not (w * 2).requires_grad
    assert (w * 2).requires_grad

    @culpa.set_grad_enabled(False)  # decorating switches nothing by itself
    def frozen(n):
        return (w * 2).requires_grad if n == 0 else frozen(n - 1)

    assert (w * 2).requires_grad
    assert frozen(2) is False and (w * 2).requires_grad
    block = culpa.no_grad()
    with block:
        with block:  # the same instance, nested
            pass
        assert not (w * 2).requires_grad
    assert (w * 2).requires_grad


# ---- x ** 0, and a number raised to a Tensor ----


def test_the_derivative_of_x_to_the_0_is_0_even_at_0():
    x = Tensor([0.0, 2.0, -1.5], requires_grad=True)
    (x**0).sum().backward()
    assert np.array_equal(x.grad, [0.0, 0.0, 0.0])
    scalar = Tensor(0.0, requires_grad=True)
    (scalar ** np.int64(0)).backward()
    assert scalar.grad == 0.0


@pytest.mark.parametrize("base", [2, 0.5, np.float64(3.0), np.array([2.0, 3.0, 0.5])])
def test_a_number_raised_to_a_tensor(base):
    x = leaf(3, seed=4)
    assert gradcheck(lambda t: base**t, [x], rtol=RTOL) <= RTOL
    assert np.allclose((base**x).data, np.power(base, x.data), rtol=0, atol=0)
    assert (base**x).op == "pow"


def test_zero_raised_to_a_tensor_has_the_limits_torch_uses():
    x = Tensor([0.0, 1.0, 2.0], requires_grad=True)
    (0**x).sum().backward()  # 0**x is 1 at 0 and 0 above: the slope is 0 there, not nan
    assert np.array_equal(x.grad, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"^pow: .*negative base"):
        (-2.0) ** x


# ---- one dtype rule for scalars ----

SCALARS = {
    "int": 2, "float": 2.0, "bool": True,
    "np.int8": np.int8(2), "np.int64": np.int64(2), "np.uint8": np.uint8(2), "np.bool_": np.bool_(True),
    "np.float16": np.float16(2), "np.float32": np.float32(2), "np.float64": np.float64(2),
}
SCALAR_OPS = {
    "add": lambda t, s: t + s, "radd": lambda t, s: s + t,
    "sub": lambda t, s: t - s, "rsub": lambda t, s: s - t,
    "mul": lambda t, s: t * s, "rmul": lambda t, s: s * t,
    "div": lambda t, s: t / s, "rdiv": lambda t, s: s / t,
    "pow": lambda t, s: t**s, "rpow": lambda t, s: s**t,
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scalar", SCALARS)
@pytest.mark.parametrize("op", SCALAR_OPS)
def test_a_scalar_never_changes_the_dtype_of_a_tensor(dtype, scalar, op):
    """The rule: a Python or NumPy scalar takes the Tensor's dtype; only arrays and Tensors promote."""
    t = Tensor(np.array([0.5, 1.5], dtype=dtype), requires_grad=True)
    out = SCALAR_OPS[op](t, SCALARS[scalar])
    assert out.dtype == dtype
    out.sum().backward()
    assert t.grad.dtype == dtype


def test_arrays_and_tensors_of_another_dtype_follow_numpy_promotion():
    t32 = Tensor(np.ones(2, dtype=np.float32))
    assert (t32 * np.ones(2)).dtype == np.float64
    assert (t32 * np.array(2.0)).dtype == np.float64  # a 0-d array is an array
    assert (t32 * Tensor(np.ones(2))).dtype == np.float64
    assert (t32 * np.ones(2, dtype=np.float32)).dtype == np.float32
    with pytest.raises(TypeError, match="complex"):
        t32 * np.complex128(1 + 2j)
