"""Gradient checkpointing (C12): identical gradients, and a much lower memory peak."""

import tracemalloc

import numpy as np
import pytest

import culpa
from culpa import Tensor
from culpa.checkpoint import checkpoint, checkpoint_sequential

DEPTH, WIDTH, BATCH = 32, 64, 256


def deep_mlp():
    return culpa.nn.MLP([WIDTH] * (DEPTH + 1) + [10], activation="tanh", rng=0)


def batch():
    rng = np.random.default_rng(1)
    return rng.standard_normal((BATCH, WIDTH)), rng.integers(0, 10, BATCH)


def gradients_and_peak(model, forward):
    X, y = batch()
    model.zero_grad()
    tracemalloc.start()
    try:
        loss = culpa.cross_entropy(forward(Tensor(X)), y)
        loss.backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return loss.item(), [p.grad.copy() for p in model.parameters()], peak


def test_checkpointing_gives_identical_gradients_with_a_much_lower_peak():
    model = deep_mlp()
    assert len(model.layers) >= 32
    plain_loss, plain_grads, plain_peak = gradients_and_peak(model, model)
    segments = int(np.sqrt(len(model.layers)))
    ckpt_loss, ckpt_grads, ckpt_peak = gradients_and_peak(
        model, lambda x: checkpoint_sequential(model, segments, x)
    )
    assert ckpt_loss == plain_loss
    for plain, ckpt in zip(plain_grads, ckpt_grads, strict=True):
        assert np.array_equal(plain, ckpt)
    assert plain_peak >= 2 * ckpt_peak, f"peak {plain_peak / 1e6:.1f} MB plain vs {ckpt_peak / 1e6:.1f} MB"


def test_checkpoint_finds_the_parameters_fn_closes_over():
    layer = culpa.nn.Linear(3, 2, rng=0)
    x = Tensor(np.random.default_rng(0).standard_normal((4, 3)))  # a constant input: no grad needed
    out = checkpoint(lambda h: layer(h).tanh(), x)
    assert out.op == "checkpoint" and out.requires_grad
    out.sum().backward()
    grad_w, grad_b = layer.weight.grad.copy(), layer.bias.grad.copy()
    layer.zero_grad()
    layer(x).tanh().sum().backward()
    assert np.array_equal(grad_w, layer.weight.grad) and np.array_equal(grad_b, layer.bias.grad)


def test_checkpoint_passes_gradients_to_its_inputs():
    a = Tensor(np.array([0.5, -1.0]), requires_grad=True)
    b = Tensor(np.array([2.0, 3.0]), requires_grad=True)
    (checkpoint(lambda p, q: (p * q).exp(), a, b) * 2).sum().backward()
    assert np.allclose(a.grad, 2 * b.data * np.exp(a.data * b.data))
    assert np.allclose(b.grad, 2 * a.data * np.exp(a.data * b.data))


def test_checkpoint_sequential_takes_a_list_of_functions():
    layers = [culpa.nn.Linear(4, 4, rng=i) for i in range(4)]
    functions = [f for layer in layers for f in (layer, Tensor.tanh)]
    x = Tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    checkpoint_sequential(functions, 3, x).sum().backward()
    grads = [x.grad.copy()] + [layer.weight.grad.copy() for layer in layers]
    x.zero_grad()
    for layer in layers:
        layer.zero_grad()
    h = x
    for f in functions:
        h = f(h)
    h.sum().backward()
    assert all(
        np.allclose(g, h2)
        for g, h2 in zip(grads, [x.grad] + [lay.weight.grad for lay in layers], strict=True)
    )
    with pytest.raises(ValueError, match="segments"):
        checkpoint_sequential(functions, 0, x)


def closing_over_a_shared_non_leaf(use_checkpoint):
    """A segment that closes over h, a non-leaf tensor that the rest of the graph also uses."""
    rng = np.random.default_rng(5)
    w = Tensor(rng.standard_normal(3), requires_grad=True)
    x = Tensor(rng.standard_normal(3), requires_grad=True)
    h = w.tanh()

    def segment(t):
        return (t * h).exp()

    inside = checkpoint(segment, x) if use_checkpoint else segment(x)
    loss = inside.sum() + (h * h).sum()
    loss.backward()
    return loss.item(), w.grad, x.grad


def test_a_segment_closing_over_a_non_leaf_used_elsewhere_backpropagates_as_the_plain_run():
    plain = closing_over_a_shared_non_leaf(False)
    ckpt = closing_over_a_shared_non_leaf(True)
    assert plain[0] == ckpt[0]
    assert np.array_equal(plain[1], ckpt[1]) and np.array_equal(plain[2], ckpt[2])


def overflowing(use_checkpoint):
    x = Tensor([1000.0, 0.0], requires_grad=True)
    with np.errstate(over="ignore"):  # the caller allows exp(1000) to overflow to inf
        y = checkpoint(Tensor.exp, x) if use_checkpoint else x.exp()
    y.sum().backward()  # d exp = exp: the plain run hands back inf, as NumPy computed it
    return y.data, x.grad


def test_a_segment_recomputes_under_the_floating_point_state_of_its_forward_pass():
    plain_y, plain_grad = overflowing(False)
    ckpt_y, ckpt_grad = overflowing(True)
    assert np.array_equal(plain_y, [np.inf, 1.0]) and np.array_equal(ckpt_y, plain_y)
    assert np.array_equal(plain_grad, [np.inf, 1.0]) and np.array_equal(ckpt_grad, plain_grad)


def test_a_parameter_used_inside_and_outside_a_segment_gets_both_shares():
    layer = culpa.nn.Linear(3, 3, rng=2)
    x = Tensor(np.random.default_rng(6).standard_normal((2, 3)), requires_grad=True)

    def run(use_checkpoint):
        layer.zero_grad()
        x.zero_grad()
        inner = checkpoint(lambda t: layer(t).tanh(), x) if use_checkpoint else layer(x).tanh()
        (layer(inner) * 0.5).sum().backward()
        return [layer.weight.grad.copy(), layer.bias.grad.copy(), x.grad.copy()]

    plain, ckpt = run(False), run(True)
    assert all(np.allclose(p, c, rtol=1e-15, atol=1e-15) for p, c in zip(plain, ckpt, strict=True))
    assert layer.weight.parents == () and layer.weight.grad is not None  # the leaf is a leaf again
