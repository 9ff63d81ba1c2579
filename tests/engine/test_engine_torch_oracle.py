"""PyTorch as an oracle: random compositions of ops and whole MLP losses match torch.autograd to 1e-10.

Torch is optional (the `torch` extra); without it these tests skip and say why.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import culpa
from culpa import Tensor

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install -e '.[torch]'): no oracle")

TOL = 1e-10

UNARY = [
    "tanh",
    "sigmoid",
    "relu",
    "exp_small",
    "log_pos",
    "square",
    "neg",
    "sum_rows",
    "mean_cols",
    "softmax",
    "log_softmax",
    "reshape_T",
    "scale",
]
BINARY = ["add", "sub", "mul", "div", "matmul_square", "add_row"]


def apply(name, x, lib):
    """One op, on a culpa Tensor (lib=None) or a torch tensor (lib=torch)."""
    is_torch = lib is not None
    if name == "exp_small":
        return (x * 0.1).exp()
    if name == "log_pos":
        return (x * x + 1).log()
    if name == "square":
        return x**2
    if name == "neg":
        return -x
    if name == "sum_rows":  # every value keeps shape (3, 3), so that any two can be combined
        return x - (x.sum(axis=1, keepdims=True) if not is_torch else x.sum(dim=1, keepdim=True))
    if name == "mean_cols":
        return x * (x.mean(axis=0, keepdims=True) if not is_torch else x.mean(dim=0, keepdim=True))
    if name == "softmax":
        return culpa.softmax(x) if not is_torch else torch.softmax(x, dim=-1)
    if name == "log_softmax":
        return culpa.log_softmax(x) if not is_torch else torch.log_softmax(x, dim=-1)
    if name == "reshape_T":
        return x.reshape(x.shape[1], x.shape[0]).T
    if name == "scale":
        return 0.5 * x - 1.0
    return getattr(x, name)()


def combine(name, a, b, lib):
    if name == "add":
        return a + b
    if name == "sub":
        return a - b
    if name == "mul":
        return a * b
    if name == "div":
        return a / (b * b + 1)
    if name == "matmul_square":
        return a @ b.T * 0.3
    if name == "add_row":
        return a + (b.sum(dim=0) if lib else b.sum(axis=0))  # a (3,) row broadcast over a (3, 3)
    raise AssertionError(name)


def run(program, arrays, lib):
    values = [
        torch.tensor(a, requires_grad=True) if lib else Tensor(a.copy(), requires_grad=True) for a in arrays
    ]
    leaves = list(values)
    for kind, name, i, j in program:
        values.append(
            apply(name, values[i], lib) if kind == "unary" else combine(name, values[i], values[j], lib)
        )
    out = values[-1]
    weights = np.random.default_rng(len(program)).standard_normal(tuple(out.shape))
    loss = (out * (torch.tensor(weights) if lib else weights)).sum()
    loss.backward()
    return loss.item(), [leaf.grad.numpy() if lib and leaf.grad is not None else leaf.grad for leaf in leaves]


@st.composite
def programs(draw):
    program, count = [], 2
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            program.append(("unary", draw(st.sampled_from(UNARY)), draw(st.integers(0, count - 1)), None))
        else:
            i, j = draw(st.integers(0, count - 1)), draw(st.integers(0, count - 1))
            program.append(("binary", draw(st.sampled_from(BINARY)), i, j))
        count += 1
    return program


@settings(max_examples=60, deadline=None)
@given(program=programs(), seed=st.integers(0, 10_000))
def test_random_compositions_match_torch_autograd(program, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((3, 3)), rng.standard_normal((3, 3))]
    ours_loss, ours = run(program, arrays, None)
    torch_loss, theirs = run(program, arrays, torch)
    assert abs(ours_loss - torch_loss) <= TOL * max(1.0, abs(torch_loss))
    for g, t in zip(ours, theirs, strict=True):
        if g is None:  # a leaf the program never used
            assert t is None or not np.any(t)
        else:
            assert np.allclose(g, t, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu"])
@pytest.mark.parametrize("sizes", [[4, 8, 3], [5, 16, 16, 4], [3, 2]])
def test_mlp_loss_and_gradients_match_torch(sizes, activation):
    rng = np.random.default_rng(sum(sizes))
    model = culpa.nn.MLP(sizes, activation=activation, rng=1)
    X, y = rng.standard_normal((10, sizes[0])), rng.integers(0, sizes[-1], 10)
    loss = culpa.cross_entropy(model(X), y)
    loss.backward()

    layers = []
    for i, layer in enumerate(model.layers):
        linear = torch.nn.Linear(*reversed(layer.weight.shape), dtype=torch.float64)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(layer.weight.data))
            linear.bias.copy_(torch.from_numpy(layer.bias.data))
        layers.append(linear)
        if i < len(model.layers) - 1:
            layers.append(
                {"tanh": torch.nn.Tanh, "sigmoid": torch.nn.Sigmoid, "relu": torch.nn.ReLU}[activation]()
            )
    net = torch.nn.Sequential(*layers)
    torch_loss = torch.nn.functional.cross_entropy(net(torch.from_numpy(X)), torch.from_numpy(y))
    torch_loss.backward()
    assert abs(loss.item() - torch_loss.item()) <= TOL
    theirs = [p.grad.numpy() for p in net.parameters()]
    for (name, p), t in zip(model.named_parameters(), theirs, strict=True):
        assert np.allclose(p.grad, t, rtol=TOL, atol=TOL), name


def test_single_vector_cross_entropy_matches_torch():
    z = Tensor([2.0, 1.0, 0.1], requires_grad=True)
    culpa.cross_entropy(z, 0).backward()
    zt = torch.tensor([2.0, 1.0, 0.1], dtype=torch.float64, requires_grad=True)
    torch.nn.functional.cross_entropy(zt, torch.tensor(0)).backward()
    assert np.allclose(z.grad, zt.grad.numpy(), rtol=0, atol=1e-15)
