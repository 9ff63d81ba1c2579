"""No silent wrong numbers: stale data refused, Tensor() copies, a parameter listed twice refused, a failed
backward writes no leaf gradient."""

import threading

import numpy as np
import pytest

import culpa
from culpa import Tensor
from culpa.nn import MLP, SGD


def test_data_changed_in_place_between_forward_and_backward_is_refused_by_name():
    w = Tensor([2.0, 3.0], requires_grad=True, name="w")
    x = Tensor([1.0, 1.0], requires_grad=True)
    loss = (w * x).sum()
    w.data *= 10  # before: x.grad became [20, 30] silently
    with pytest.raises(RuntimeError, match=r"data of tensor 'w' .* changed after op 'mul' used it") as error:
        loss.backward()
    assert "Run the forward pass again" in str(error.value)
    assert x.grad is None and w.grad is None  # refused before anything was written


def test_data_rebound_between_forward_and_backward_is_refused():
    w = Tensor([2.0, 3.0], requires_grad=True)
    loss = (w * w).tanh().sum()
    w.data = np.array([5.0, 6.0])
    with pytest.raises(RuntimeError, match=r"a tensor \(a leaf, shape \(2,\)\) changed after op 'mul'"):
        loss.backward()


def test_data_changed_through_a_detached_tensor_is_refused():
    """detach() shares the array (as torch's does), so a change through it is a change of the tensor's data:
    the graph that used it is stale (torch shares the version counter too)."""
    w = Tensor([2.0, 3.0], requires_grad=True, name="w")
    x = Tensor([1.0, 1.0], requires_grad=True)
    loss = (w * x).sum()
    w.detach().detach().data *= 10  # before: x.grad became [20, 30] silently
    with pytest.raises(RuntimeError, match=r"data of tensor 'w' .* changed after op 'mul' used it"):
        loss.backward()
    assert x.grad is None


def test_an_optimizer_step_between_forward_and_backward_is_refused():
    model = MLP([2, 3, 2], rng=0)
    optimizer = SGD(model.parameters(), lr=0.1)
    X, y = np.ones((4, 2)), [0, 1, 0, 1]
    culpa.cross_entropy(model(X), y).backward()
    loss = culpa.cross_entropy(model(X), y)
    optimizer.step()  # moves the weights that `loss` was computed with
    with pytest.raises(RuntimeError, match=r"tensor 'layers\.\d\.(weight|bias)'.*optimizer step"):
        loss.backward()


def test_a_training_loop_that_steps_after_backward_runs_and_matches_numpy():
    model = MLP([2, 4, 2], rng=0)
    optimizer = SGD(model.parameters(), lr=0.5)
    X, y = np.random.default_rng(0).standard_normal((8, 2)), np.arange(8) % 2
    for _ in range(3):
        optimizer.zero_grad()
        loss = culpa.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
    assert np.isfinite(loss.item())


def test_a_retained_graph_can_run_backward_twice_until_the_data_changes():
    w = Tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    loss.backward(retain_graph=True)
    assert w.grad.tolist() == [4.0, 8.0]
    with culpa.no_grad():
        w.data -= 0.1 * w.grad
    with pytest.raises(RuntimeError, match="changed after op 'mul'"):
        loss.backward()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tensor_copies_a_float_array_as_it_copies_ints_and_lists(dtype):
    mine = np.array([1.0, 2.0], dtype=dtype)
    w = Tensor(mine, requires_grad=True)
    assert w.data is not mine and w.data.dtype == dtype
    (w * w).sum().backward()
    SGD([w], lr=0.5).step()
    assert mine.tolist() == [1.0, 2.0]  # before: the step overwrote the caller's array
    assert Tensor(w).data is not w.data  # a Tensor of a Tensor copies too


class Holder:
    """An array-like that hands NumPy its own array, as a tensor of another library can."""

    def __init__(self, values):
        self.values = np.array(values)

    def __array__(self, dtype=None, copy=None):
        return self.values


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix, on its way out of NumPy
@pytest.mark.parametrize("kind", ["masked array", "matrix", "array view", "array-like"])
def test_tensor_copies_whatever_shares_the_callers_memory(kind):
    """Not only a plain float array: a subclass, a view or an object whose __array__ gives its own array all
    share the caller's memory through np.asarray; the step must not write into any of them."""
    mine = np.array([[1.0, 2.0], [3.0, 4.0]])
    data = {"masked array": lambda: np.ma.array(mine), "matrix": lambda: np.asmatrix(mine),
            "array view": lambda: mine[:, :], "array-like": lambda: Holder(mine)}[kind]()
    if kind == "array-like":
        mine = data.values
    w = Tensor(data, requires_grad=True)
    assert not np.shares_memory(w.data, mine), kind
    (w * w).sum().backward()
    SGD([w], lr=0.5).step()
    assert mine.tolist() == [[1.0, 2.0], [3.0, 4.0]], f"{kind}: the step wrote into the caller's array"


def test_a_parameter_listed_twice_is_refused():
    w = Tensor([1.0], requires_grad=True, name="w")
    with pytest.raises(ValueError, match=r"SGD: tensor 'w' \(a leaf, shape \(1,\)\) is in the parameter list "
                                         r"more than once.*list\(dict\.fromkeys\(params\)\)"):
        SGD([w, w], lr=0.1)


def blows_up_in_backward(x):
    """x ** 0.5 at 0 in one branch: its local derivative is inf, after another branch has been served."""
    return (x * 2.0).sum() + (x**0.5).sum()


def test_a_backward_that_fails_on_a_non_finite_value_writes_no_leaf_gradient():
    x = Tensor([0.0, 4.0], requires_grad=True, name="x")
    w = Tensor([1.0, 1.0], requires_grad=True, name="w")
    loss = blows_up_in_backward(x) + (w * 3.0).sum()
    with pytest.raises(FloatingPointError, match=r"op 'pow'.*No leaf's \.grad was changed by this pass"):
        loss.backward()
    assert x.grad is None and w.grad is None  # before: w.grad was [3, 3] already


def test_no_grad_works_without_parentheses_as_in_torch():
    @culpa.no_grad
    def evaluate(t):
        return t * 2.0

    out = evaluate(Tensor([1.0], requires_grad=True))
    assert not out.requires_grad and culpa.is_grad_enabled()


def test_no_grad_on_a_generator_function_stops_recording_inside_it_only():
    @culpa.no_grad()
    def doubled(items):
        for t in items:
            assert not culpa.is_grad_enabled()
            yield t * 2.0

    w = Tensor([1.0], requires_grad=True)
    outputs = []
    for out in doubled([w, w]):
        assert culpa.is_grad_enabled()  # the caller's loop body records as usual
        outputs.append(out)
    assert [o.requires_grad for o in outputs] == [False, False]


def test_grad_mode_is_per_thread():
    w = Tensor([1.0], requires_grad=True)
    inside, evaluating, done = {}, threading.Event(), threading.Event()

    def evaluate():
        with culpa.no_grad():
            evaluating.set()
            done.wait(5)
            inside["records"] = (w * 2.0).requires_grad

    thread = threading.Thread(target=evaluate)
    thread.start()
    evaluating.wait(5)
    recorded_here = (w * 2.0).requires_grad  # another thread is inside no_grad right now
    done.set()
    thread.join()
    assert recorded_here and inside["records"] is False
