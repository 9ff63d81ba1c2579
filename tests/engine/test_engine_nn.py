"""culpa.nn: Linear (z = W h + b), MLP, SGD, reproducible initialisation."""

import numpy as np
import pytest

import culpa
from culpa import Tensor
from culpa.nn import MLP, SGD, Linear


def test_linear_shapes_and_both_ways_of_writing_it():
    layer = Linear(4, 3, rng=0)
    assert layer.weight.shape == (3, 4) and layer.bias.shape == (3,)
    h = np.arange(4.0)
    assert np.allclose(layer(h).data, layer.weight.data @ h + layer.bias.data)  # W h + b
    X = np.random.default_rng(0).standard_normal((5, 4))
    assert np.allclose(layer(X).data, X @ layer.weight.data.T + layer.bias.data)  # rows of a batch
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    assert layer.parameters() == [layer.weight, layer.bias]
    assert repr(layer) == "Linear(in_features=4, out_features=3)"


def test_initialisation_is_reproducible_from_a_seed_or_a_generator():
    assert np.array_equal(Linear(4, 3, rng=7).weight.data, Linear(4, 3, rng=7).weight.data)
    assert not np.array_equal(Linear(4, 3, rng=7).weight.data, Linear(4, 3, rng=8).weight.data)
    a = MLP([2, 3, 2], rng=np.random.default_rng(5))
    b = MLP([2, 3, 2], rng=np.random.default_rng(5))
    assert all(np.array_equal(p.data, q.data) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert not np.array_equal(a.layers[0].weight.data[:2, :2], a.layers[1].weight.data[:2, :2])


def test_mlp_layers_names_and_dtype():
    model = MLP([2, 8, 4, 3], activation="relu", rng=0, dtype=np.float32)
    assert [(layer.weight.shape, layer.bias.shape) for layer in model.layers] == [
        ((8, 2), (8,)),
        ((4, 8), (4,)),
        ((3, 4), (3,)),
    ]
    names = [name for name, _ in model.named_parameters()]
    assert names == [
        "layers.0.weight",
        "layers.0.bias",
        "layers.1.weight",
        "layers.1.bias",
        "layers.2.weight",
        "layers.2.bias",
    ]
    assert [p.name for p in model.parameters()] == names
    assert all(p.dtype == np.float32 for p in model.parameters())
    assert model(np.ones((5, 2), dtype=np.float32)).dtype == np.float32
    assert len(model.blocks()) == 3


@pytest.mark.parametrize(
    "activation, fn",
    [("tanh", np.tanh), ("sigmoid", lambda z: 1 / (1 + np.exp(-z))), ("relu", lambda z: np.maximum(z, 0))],
)
def test_mlp_forward_is_layers_with_the_activation_between(activation, fn):
    model = MLP([3, 4, 2], activation=activation, rng=0)
    x = np.random.default_rng(0).standard_normal((5, 3))
    (W1, b1), (W2, b2) = [(layer.weight.data, layer.bias.data) for layer in model.layers]
    assert np.allclose(model(x).data, fn(x @ W1.T + b1) @ W2.T + b2)


def test_sgd_step_and_zero_grad():
    w = Tensor([1.0, 2.0], requires_grad=True)
    untouched = Tensor([5.0], requires_grad=True)
    optimizer = SGD([w, untouched], lr=0.5)
    (w * w).sum().backward()
    optimizer.step()
    assert np.array_equal(w.data, [0.0, 0.0]) and np.array_equal(untouched.data, [5.0])
    optimizer.zero_grad()
    assert w.grad is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_sgd_updates_big_parameters_in_slices_with_the_same_numbers(dtype, layout):
    """Above SGD_SLICE elements step() works slice by slice (cache-sized temporaries): same bits, in place."""
    rng = np.random.default_rng(0)
    rows = culpa.fast_paths.SGD_SLICE // 100 + 7  # more than SGD_SLICE values, not a whole number of slices
    base = rng.standard_normal((rows, 200)).astype(dtype)
    data = {"C": base, "F": np.asfortranarray(base), "strided": base[:, :120]}[layout]  # (no flat view)
    w = Tensor(data, requires_grad=True)
    w.data = data  # Tensor() copies (C order): the layout under test is rebound
    (w * w).sum().backward()  # grad = 2 w
    expected = data - np.asarray(0.1, dtype=dtype) * (2 * data)
    SGD([w], lr=0.1).step()
    assert data.size > culpa.fast_paths.SGD_SLICE and w.data is data and np.array_equal(w.data, expected)


def test_training_lowers_the_loss():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    model = MLP([2, 16, 2], rng=0)
    optimizer = SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(200):
        optimizer.zero_grad()
        loss = culpa.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
