"""Differential fuzzing against torch.autograd: seeded random graphs, every value and gradient compared.

Each case draws a random graph from its seed: leaves of 0 to 4 dimensions in float64 or float32, laid out
C-ordered, Fortran-ordered, strided or transposed; elementwise ops with every broadcasting pattern (new
leaves of broadcast-compatible shapes, or values already in the graph, so subexpressions are shared);
matmul from 1-D to 4-D; reductions, reshapes, transposes, softmax over any axis; Python and NumPy scalars
on either side; then a weighted sum or a cross-entropy. Mixed dtypes (float32 meeting float64) and values
reused by several ops occur in most cases (checked below). culpa and torch run the same graph; the loss, the
dtype and gradient of every value (leaves and intermediate results), and the dtype rule are compared, and
no two culpa gradients may share memory.

The default run draws 300 cases; `pytest tests/engine/test_engine_fuzz.py --fuzz-cases 5000` draws more.
A failure names its seed: `-k "case[17]"` replays it. Without torch the test skips, except under
CULPA_REQUIRE_TORCH=1 (.ci/run's oracle step), where a missing torch stops the run (tests/conftest.py).
"""

import numpy as np
import pytest

import culpa
from culpa import Tensor

try:
    import torch
except ImportError:
    pytest.skip("PyTorch is not installed (pip install -e '.[torch]'): no oracle", allow_module_level=True)


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", range(metafunc.config.getoption("--fuzz-cases")))


TORCH_DTYPE = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64}
SCALARS = [2, 0.5, -1.5, True, np.int64(3), np.float64(0.25), np.float32(1.5), np.int8(-2)]


class Graph:
    """One random graph, built in culpa and in torch side by side: `values` holds (culpa, torch) pairs."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.values, self.leaves = [], []
        self.float32 = False

    # ---- leaves ----
    def draw_shape(self, ndim=None):
        ndim = int(self.rng.integers(0, 4)) if ndim is None else ndim
        return tuple(int(n) for n in self.rng.integers(1, 4, ndim))

    def leaf(self, shape):
        dtype = np.float32 if self.rng.random() < 0.2 else np.float64
        self.float32 |= dtype is np.float32
        values = self.rng.standard_normal(shape).astype(dtype)
        layout = self.rng.choice(["C", "F", "strided", "transposed"]) if shape else "C"
        if layout == "F":
            data = np.asfortranarray(values)
        elif layout == "strided":
            data = np.repeat(values, 2, axis=-1)[..., ::2]
        elif layout == "transposed":
            data = np.ascontiguousarray(values.T).T
        else:
            data = values.copy()
        assert np.array_equal(data, values)
        leaf = Tensor(values, requires_grad=True)  # a copy, as torch.tensor makes...
        leaf.data = data  # ...then the odd layout itself, rebound before any op uses it
        pair = (leaf, torch.tensor(values, requires_grad=True))
        self.leaves.append(pair)
        self.values.append(pair)
        return pair

    def pick(self):
        return self.values[int(self.rng.integers(len(self.values)))]

    def broadcast_partner(self, shape):
        """A shape that broadcasts with `shape`: dims dropped from the left, set to 1, or added."""
        dims = list(shape[int(self.rng.integers(0, len(shape) + 1)):])
        dims = [1 if self.rng.random() < 0.3 else n for n in dims]
        if len(dims) == len(shape) and self.rng.random() < 0.2:  # a leading dimension of its own
            dims = [int(self.rng.integers(1, 3))] + dims
        if len(dims) > 4:
            dims = dims[-4:]
        return tuple(dims)

    def partner(self, shape):
        """An existing value whose shape broadcasts with `shape` (a shared subexpression), or a new leaf."""
        if self.rng.random() < 0.5:
            fits = [v for v in self.values if _broadcasts(v[0].shape, shape)]
            if fits:
                return fits[int(self.rng.integers(len(fits)))]
        return self.leaf(self.broadcast_partner(shape))

    # ---- ops ----
    def step(self):
        c, t = self.pick()
        kind = self.rng.choice(["unary", "binary", "scalar", "matmul", "reduce", "reshape", "softmax"],
                               p=[0.2, 0.25, 0.15, 0.12, 0.1, 0.1, 0.08])
        result = getattr(self, kind)(c, t)
        if result is not None:
            if result[1].requires_grad and not result[1].is_leaf:
                result[1].retain_grad()
            self.values.append(result)

    def unary(self, c, t):
        name = self.rng.choice(["tanh", "sigmoid", "relu", "exp", "log", "neg", "pow", "pow_fraction",
                                "pow_zero"])
        if name in ("tanh", "sigmoid", "relu"):
            return getattr(c, name)(), getattr(torch, name)(t)
        if name == "exp":
            return c.tanh().exp(), t.tanh().exp()
        if name == "log":
            return (c * c + 1).log(), (t * t + 1).log()
        if name == "neg":
            return -c, -t
        if name == "pow":
            p = int(self.rng.choice([2, 3, -1]))
            if p < 0:
                return (c * c + 1) ** p, (t * t + 1) ** p
            return c.tanh() ** p, t.tanh() ** p
        if name == "pow_fraction":
            return (c * c + 0.5) ** 1.5, (t * t + 0.5) ** 1.5
        return c ** np.int64(0), t**0

    def binary(self, c, t):
        c2, t2 = self.partner(c.shape)
        if self.rng.random() < 0.5:
            (c, t), (c2, t2) = (c2, t2), (c, t)
        t, t2 = _promoted(c, t, c2, t2)
        name = self.rng.choice(["add", "sub", "mul", "div"])
        if name == "add":
            return c + c2, t + t2
        if name == "sub":
            return c - c2, t - t2
        if name == "mul":
            return c * c2, t * t2
        return c / (c2 * c2 + 1), t / (t2 * t2 + 1)

    def scalar(self, c, t):
        s = SCALARS[int(self.rng.integers(len(SCALARS)))]
        w = float(s)  # torch gets the same number as a Python scalar: weak, it keeps the tensor's dtype
        name = self.rng.choice(["add", "rsub", "mul", "rmul", "div", "rdiv", "rpow"])
        if name == "add":
            return c + s, t + w
        if name == "rsub":
            return s - c, w - t
        if name == "mul":
            return c * s, t * w
        if name == "rmul":
            return s * c, w * t
        if name == "div":
            return c / (s if w else 2), t / (w if w else 2.0)
        if name == "rdiv":
            return s / (c * c + 1), w / (t * t + 1)
        base = abs(w) or 2.0
        return base ** c.tanh(), base ** t.tanh()

    def matmul(self, c, t):
        if c.ndim == 0:
            return None
        batch = self.broadcast_partner(c.shape[:-2]) if c.ndim > 2 and self.rng.random() < 0.7 else ()
        if self.rng.random() < 0.5:  # the value on the left, a new leaf on the right
            n = c.shape[-1]
            right = (n,) if self.rng.random() < 0.3 else (*batch, n, int(self.rng.integers(1, 4)))
            c2, t2 = self.leaf(right[-4:])
            t, t2 = _promoted(c, t, c2, t2)
            return c @ c2, t @ t2
        m = c.shape[-2] if c.ndim >= 2 else c.shape[0]
        left = (m,) if self.rng.random() < 0.3 else (*batch, int(self.rng.integers(1, 4)), m)
        c2, t2 = self.leaf(left[-4:])
        t, t2 = _promoted(c, t, c2, t2)
        return c2 @ c, t2 @ t

    def reduce(self, c, t):
        keepdims = bool(self.rng.random() < 0.5)
        name = self.rng.choice(["sum", "mean"])
        if c.ndim == 0 or self.rng.random() < 0.2:
            axis = None
        elif self.rng.random() < 0.3 and c.ndim >= 2:
            axis = tuple(sorted(int(a) for a in self.rng.choice(c.ndim, 2, replace=False)))
        else:
            axis = int(self.rng.integers(-c.ndim, c.ndim))
        dims = tuple(range(c.ndim)) if axis is None else axis
        out_c = getattr(c, name)(axis=axis, keepdims=keepdims)
        out_t = getattr(t, name)(dim=dims, keepdim=keepdims) if c.ndim else getattr(t, name)()
        return out_c, out_t

    def reshape(self, c, t):
        if self.rng.random() < 0.5 or c.ndim == 0:
            shape = tuple(int(n) for n in self.rng.permutation(c.shape)) if c.ndim else (1,)
            return c.reshape(*shape), t.reshape(shape)
        return c.T, t.permute(*reversed(range(t.ndim)))

    def softmax(self, c, t):
        if c.ndim == 0:
            return None
        axis = int(self.rng.integers(-c.ndim, c.ndim))
        if self.rng.random() < 0.5:
            return culpa.softmax(c, axis=axis), torch.softmax(t, dim=axis)
        return culpa.log_softmax(c, axis=axis), torch.log_softmax(t, dim=axis)

    def loss(self):
        c, t = self.values[-1]
        if c.ndim == 2 and c.shape[1] > 1 and self.rng.random() < 0.3:
            target = self.rng.integers(0, c.shape[1], c.shape[0])
            return culpa.cross_entropy(c, target), torch.nn.functional.cross_entropy(t, torch.tensor(target))
        weights = self.rng.standard_normal(c.shape)
        return (c * weights).sum(), (t * torch.tensor(weights)).sum()


def _promoted(c, t, c2, t2):
    """The torch operands cast to NumPy's result dtype, culpa's rule for two arrays (torch lets a
    dimensioned float32 tensor win over a 0-d float64 one, and its matmul wants one dtype)."""
    dtype = TORCH_DTYPE[np.result_type(c.dtype, c2.dtype)]
    return t.to(dtype), t2.to(dtype)


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def build(seed):
    graph = Graph(seed)
    graph.leaf(graph.draw_shape())
    graph.leaf(graph.draw_shape())
    for _ in range(int(graph.rng.integers(1, 9))):
        graph.step()
    return graph


def test_random_graphs_match_torch_autograd(case):
    graph = build(case)
    ours, theirs = graph.loss()
    assert ours.requires_grad
    theirs.retain_grad()
    ours.backward()
    theirs.backward()
    rtol, atol = (1e-4, 1e-5) if graph.float32 else (1e-10, 1e-12)
    scale = max(1.0, abs(theirs.item()))
    assert abs(ours.item() - theirs.item()) <= rtol * scale, f"seed {case}: loss"
    pairs = graph.values + [(ours, theirs)]
    for i, (c, t) in enumerate(pairs):
        assert TORCH_DTYPE[c.dtype] == t.dtype, f"seed {case}: value {i} ({c.op}) is {c.dtype}, not {t.dtype}"
        assert np.allclose(c.data, t.detach().numpy(), rtol=rtol, atol=atol * scale), f"seed {case}: {i}"
        if t.grad is None:
            assert c.grad is None or not c.grad.any(), f"seed {case}: value {i} ({c.op}) got a gradient"
            continue
        assert c.grad is not None, f"seed {case}: value {i} ({c.op}) got no gradient"
        expected = t.grad.numpy()
        assert c.grad.shape == c.shape and c.grad.dtype == c.dtype, f"seed {case}: value {i} ({c.op})"
        tolerance = atol * max(1.0, float(np.abs(expected).max(initial=0.0)))
        assert np.allclose(c.grad, expected, rtol=rtol, atol=tolerance), f"seed {case}: value {i} ({c.op})"
    grads = [c.grad for c, _ in pairs if c.grad is not None]
    for i, a in enumerate(grads):
        assert not any(np.shares_memory(a, b) for b in grads[i + 1:]), f"seed {case}: shared gradients"


def test_the_fuzzer_draws_every_kind_of_case():
    """The generator really covers what the docstring claims (over the first 300 seeds)."""
    ops, layouts, matmul_dims, dtypes = set(), set(), set(), set()
    mixed_dtype_ops = reused_nodes = 0
    for seed in range(300):
        graph = build(seed)
        consumers = {}
        for c, _ in graph.values:
            ops.add(c.op)
            dtypes.add(c.dtype)
            mixed_dtype_ops += len({p.dtype for p in c.parents}) > 1  # float32 meets float64
            for p in set(map(id, c.parents)):
                consumers[p] = consumers.get(p, 0) + 1
            if c.op == "leaf" and c.ndim >= 2:
                flags = c.data.flags
                layouts.add("C" if flags.c_contiguous else "F" if flags.f_contiguous else "other")
            if c.op == "matmul":
                matmul_dims.update(p.ndim for p in c.parents)
        reused_nodes += sum(n > 1 for n in consumers.values())  # a value two ops use: its shares add up
    assert {"add", "sub", "mul", "div", "pow", "matmul", "sum", "mean", "tanh", "sigmoid", "relu", "exp",
            "log", "neg", "reshape", "transpose", "softmax", "log_softmax"} <= ops
    assert layouts == {"C", "F", "other"} and matmul_dims == {1, 2, 3, 4}
    assert dtypes == {np.dtype(np.float32), np.dtype(np.float64)}
    assert mixed_dtype_ops >= 100 and reused_nodes >= 300
