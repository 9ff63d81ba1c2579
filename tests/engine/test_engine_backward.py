"""The backward pass as a graph walk: deep chains, a second pass, no reference cycles."""

import gc
import sys

import numpy as np
import pytest

import culpa
from culpa import Tensor


def test_a_chain_of_10000_ops_needs_no_recursion():
    assert sys.getrecursionlimit() < 10_000 * 2
    x = Tensor(1.0, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    assert len(culpa.topo_order(y)) > 10_000
    y.backward()
    assert np.isclose(x.grad, 1.0001**10_000)
    del y  # freeing the chain must not recurse either


def test_topo_order_puts_parents_first_and_visits_shared_nodes_once():
    x = Tensor(2.0, requires_grad=True)
    h = x.tanh()
    out = h * h + h.exp()
    order = culpa.topo_order(out)
    position = {id(node): i for i, node in enumerate(order)}
    assert len(order) == len({id(n) for n in order})
    for node in order:
        for parent in node.parents:
            assert position[id(parent)] < position[id(node)]
    assert order[-1] is out and order[0] is x


def test_second_backward_through_a_released_graph_raises_a_clear_error():
    w = Tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()
    loss.backward()
    first = w.grad.copy()
    with pytest.raises(RuntimeError, match=r"already used by a backward pass.*retain_graph=True"):
        loss.backward()
    assert np.array_equal(w.grad, first)  # nothing was added by the refused pass


def test_second_backward_with_retain_graph_gives_the_correct_accumulated_result():
    w = Tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).tanh().sum()
    loss.backward(retain_graph=True)
    once = w.grad.copy()
    loss.backward()
    assert np.allclose(w.grad, 2 * once)


def test_a_shared_subgraph_used_twice_needs_retain_graph():
    w = Tensor([1.0, 2.0], requires_grad=True)
    h = w.exp()
    (h * 2).sum().backward()
    with pytest.raises(RuntimeError, match="'exp'"):
        (h * 3).sum().backward()


def test_backward_with_an_explicit_gradient_for_a_non_scalar():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.backward(np.array([1.0, 0.0, 2.0]))
    assert np.array_equal(x.grad, [2.0, 0.0, 12.0])


def test_backward_frees_the_activations_as_it_goes():
    x = Tensor(np.ones((4, 3)))
    model = culpa.nn.MLP([3, 5, 2], rng=0)
    loss = culpa.cross_entropy(model(x), [0, 1, 0, 1])
    loss.backward()
    assert loss.parents == ()  # the links are dropped: nothing of the step outlives it but the loss


def training_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = culpa.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu"])
def test_a_training_step_leaves_no_garbage_for_the_collector(activation):
    rng = np.random.default_rng(0)
    model = culpa.nn.MLP([4, 8, 8, 3], activation=activation, rng=0)
    optimizer = culpa.nn.SGD(model.parameters(), lr=0.1)
    x, y = rng.standard_normal((16, 4)), rng.integers(0, 3, 16)
    training_step(model, optimizer, x, y)  # warm up: first-call caches are not ours
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            training_step(model, optimizer, x, y)
            # and with the graph kept alive and exported, then dropped:
            loss = culpa.cross_entropy(model(x), y)
            loss.backward(retain_graph=True)
            culpa.graph.export(loss)
            del loss
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0, f"a training step left {found} objects in reference cycles"


def test_the_gc_test_would_notice_a_cycle():
    gc.collect()
    gc.disable()
    try:
        x = Tensor([1.0], requires_grad=True)
        y = x * 2
        y.local_backward = lambda g, y=y: (g,)  # a closure that references its own output: a cycle
        del y
        found = gc.collect()
    finally:
        gc.enable()
    assert found > 0


# ---- every tensor owns its gradient (a shared array would let `p.grad *= 0.5` scale another one) ----


def assert_no_two_grads_share_memory(tensors):
    grads = [(i, t.grad) for i, t in enumerate(tensors) if t.grad is not None]
    for n, (i, a) in enumerate(grads):
        for j, b in grads[n + 1:]:
            assert not np.shares_memory(a, b), f"tensors {i} and {j} share one gradient array"


def test_add_gives_each_input_its_own_gradient_array():
    a, b = Tensor([1.0, 2.0], requires_grad=True), Tensor([3.0, 4.0], requires_grad=True)
    s = a + b
    s.sum().backward()
    assert_no_two_grads_share_memory([a, b, s])
    a.grad *= 0.5  # how people clip a gradient
    assert np.array_equal(b.grad, [1.0, 1.0]) and np.array_equal(s.grad, [1.0, 1.0])


@pytest.mark.parametrize("view", ["reshape", "T", "sub", "add_broadcast_free", "op returning (t, t)"])
def test_views_and_pass_through_gradients_are_not_shared(view):
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = Tensor(np.ones((2, 3)), requires_grad=True)
    if view == "reshape":
        h = x.reshape(3, 2)
        out = h.reshape(6)
    elif view == "T":
        h = x.T
        out = h.T * 1.0
    elif view == "sub":
        h = x - y
        out = h * 1.0
    elif view == "add_broadcast_free":
        h = x + y
        out = h + x
    else:
        def twice(g):
            t = g * 2
            return (t, t)

        h = culpa.op_result(x.data + y.data, "twice", (x, y), twice)
        out = h * 1.0
    out.backward(np.ones(out.shape))
    tensors = [x, y, h, out]
    assert_no_two_grads_share_memory(tensors)
    before = [None if t.grad is None else t.grad.copy() for t in tensors]
    x.grad *= 0.5
    for t, grad in zip(tensors[1:], before[1:], strict=True):
        assert grad is None or np.array_equal(t.grad, grad)


def test_backward_does_not_keep_the_callers_gradient_array():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1.0
    seed = np.array([1.0, 0.0, 2.0])
    y.backward(seed)
    assert not np.shares_memory(y.grad, seed) and not np.shares_memory(x.grad, seed)
    seed[:] = 99.0  # editing the array passed to backward later must not change any .grad
    assert np.array_equal(y.grad, [1.0, 0.0, 2.0]) and np.array_equal(x.grad, [1.0, 0.0, 2.0])
    leaf = Tensor([1.0, 2.0], requires_grad=True)
    seed = np.ones(2)
    leaf.backward(seed)  # backward of a leaf: the seed is its gradient, a copy of it
    seed[0] = 5.0
    assert np.array_equal(leaf.grad, [1.0, 1.0])


def test_a_refused_backward_changes_no_gradient_and_releases_nothing():
    w = Tensor([1.0, 2.0], requires_grad=True)
    v = Tensor([3.0, 4.0], requires_grad=True)
    h = w.exp()
    (h * 2).sum().backward()  # releases h's graph
    w_grad = w.grad.copy()
    loss = (v * 2).sum() + (h * 3).sum()  # v is reached before the released h
    with pytest.raises(RuntimeError, match=r"op 'exp' was already used"):
        loss.backward()
    assert loss.grad is None and v.grad is None and np.array_equal(w.grad, w_grad)
    assert loss.parents != ()  # the refused pass did not release the new part of the graph either
    with pytest.raises(RuntimeError, match=r"op 'exp' was already used"):
        loss.backward()  # and it says so again, the same way
