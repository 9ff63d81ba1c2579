"""Page 02, the chain rule on a recorded graph: what culpa records, and the backward sweep done by hand.

The sections are shown, in this order, on docs/pt/02-chain-rule.md and docs/en/02-chain-rule.md;
the tests run them in one fresh interpreter and compare what they print with what the pages show.
Costs are counted (ops, multiply-adds), never timed, so the output is the same on every machine.
"""

# --8<-- [start:record]
import numpy as np

import culpa

x = culpa.Tensor(0.5, requires_grad=True, name="x")
a = x.tanh()  # a = tanh(x)
b = a.exp()  # b = e^a
L = b**2  # L = b^2
a.name, b.name, L.name = "a", "b", "L"

graph = culpa.graph.export(L)  # (1)!
for node in graph["nodes"]:
    op, parents = node["op"], node["parents"]
    made_of = f"{op}(node {parents[0]})" if parents else "leaf"
    print(f"node {node['id']}  {node['name']}  {made_of:<12}", end="  ")
    print(f"value {node['value']:.4f}")

print("backward_order:", graph["backward_order"])
# --8<-- [end:record]

# --8<-- [start:by_hand]
L.backward()  # (1)!

g = 1.0  # (2)!
for op, local, node in [
    ("pow", 2 * b.data, b),  # d(b^2)/db = 2b
    ("exp", b.data, a),  # d(e^a)/da = e^a = b
    ("tanh", 1 - a.data**2, x),  # d tanh(x)/dx = 1 - tanh(x)^2 = 1 - a^2
]:
    g = g * local  # (3)!
    print(f"{op:<4}  local {local:.4f}  ->  dL/d{node.name} = {g:.4f}", end="")
    print(f"   {node.name}.grad = {node.grad:.4f}")
# --8<-- [end:by_hand]

# --8<-- [start:closed_form]
on_paper = 2 * (1 - np.tanh(0.5) ** 2) * np.exp(2 * np.tanh(0.5))  # (1)!
factors = 2 * b.data * b.data * (1 - a.data**2)
print(f"on_paper = {on_paper:.4f}   factors = {factors:.4f}")
# --8<-- [end:closed_form]

# --8<-- [start:local]
def through_tanh(rest):  # (1)!
    u = culpa.Tensor(0.5, requires_grad=True)
    t = u.tanh()
    rest(t).backward()
    return t.grad, u.grad


downstream = {
    "(e^t)^2": lambda t: t.exp() ** 2,
    "(3t - 1)^2": lambda t: (t * 3 - 1) ** 2,
    "sigmoid(t)": lambda t: t.sigmoid(),
}
for name, rest in downstream.items():
    received, passed = through_tanh(rest)
    print(f"{name:<11} t.grad {received:+.4f}   u.grad {passed:+.4f}", end="")
    print(f"   u.grad / t.grad {passed / received:.4f}")

print(f"1 - tanh(0.5)^2 = {1 - np.tanh(0.5) ** 2:.4f}")
# --8<-- [end:local]

# --8<-- [start:two_paths]
x = culpa.Tensor(2.0, requires_grad=True)
u = 3 * x  # (1)!
v = x**2
L = u * v
L.backward()

via_u = u.grad * 3  # (2)!
via_v = v.grad * 2 * x.data
print(f"dL/du * du/dx = {u.grad} * 3 = {via_u}")
print(f"dL/dv * dv/dx = {v.grad} * {2 * x.data} = {via_v}")
print(f"sum = {via_u + via_v}   x.grad = {x.grad}")
# --8<-- [end:two_paths]

# --8<-- [start:dual]
class Dual:
    def __init__(self, value, tangent=0.0):
        self.value, self.tangent = value, tangent
    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.value + other.value, self.tangent + other.tangent)
    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.value * other.value,  # (1)!
                    self.tangent * other.value + self.value * other.tangent)
    __radd__, __rmul__ = __add__, __mul__
    def tanh(self):
        t = np.tanh(self.value)
        return Dual(t, (1 - t**2) * self.tangent)  # (2)!
    def exp(self):
        e = np.exp(self.value)
        return Dual(e, e * self.tangent)


def f(x1, x2, x3):  # (3)!
    u = x1 * x2
    return (u + x3).tanh() * u.exp()


point = [1.5, 0.5, -0.2]
by_forward_mode = []
for i in range(3):  # (4)!
    duals = [Dual(v, 1.0 if j == i else 0.0) for j, v in enumerate(point)]
    by_forward_mode.append(f(*duals).tangent)

tensors = [culpa.Tensor(v, requires_grad=True) for v in point]
f(*tensors).backward()  # (5)!
by_reverse_mode = [t.grad.item() for t in tensors]

def value(xs):
    return f(*[Dual(v) for v in xs]).value


h = 1e-5  # (6)!
by_differences = []
for i in range(3):
    up = [v + h * (j == i) for j, v in enumerate(point)]
    down = [v - h * (j == i) for j, v in enumerate(point)]
    by_differences.append((value(up) - value(down)) / (2 * h))

print("    by_forward_mode   by_reverse_mode")
for i in range(3):
    print(f"x{i + 1}  {by_forward_mode[i]:+.12f}", end="   ")
    print(f"{by_reverse_mode[i]:+.12f}")

modes = zip(by_forward_mode, by_reverse_mode, strict=True)
print("|forward - reverse| < 1e-15:",
      all(abs(a - b) < 1e-15 for a, b in modes))
fd = zip(by_differences, by_reverse_mode, strict=True)
fd_gap = max(abs(a - b) for a, b in fd)
print("fd_gap = max|central - reverse| < 1e-10:",
      fd_gap < 1e-10)
# --8<-- [end:dual]

# --8<-- [start:many_outputs]
scales = [1.0, 2.0, 3.0, 4.0]


def g(t):
    return [(t * k).tanh() for k in scales]


outputs = g(Dual(0.3, 1.0))  # (1)!
forward_sweep = [y.tangent for y in outputs]

t = culpa.Tensor(0.3, requires_grad=True)
reverse_sweeps = []
for y in g(t):  # (2)!
    t.zero_grad()
    y.backward()
    reverse_sweeps.append(t.grad.item())

print("forward_sweep: ", np.round(forward_sweep, 4))
print("reverse_sweeps:", np.round(reverse_sweeps, 4))
# --8<-- [end:many_outputs]

# --8<-- [start:one_sweep]
def multiply_adds(graph):
    nodes = graph["nodes"]
    forward = backward = 0
    for node in nodes:
        if node["op"] in ("linear", "matmul"):
            x, w = (nodes[i] for i in node["parents"][:2])
            work = int(np.prod(node["shape"])) * x["shape"][-1]  # (1)!
            forward += work
            backward += work * (x["requires_grad"] + w["requires_grad"])  # (2)!
    return forward, backward


rng = np.random.default_rng(0)
X = rng.normal(size=(32, 2))
labels = (X[:, 0] * X[:, 1] > 0).astype(int)

print("width  params  ops    forward   backward  back/fwd  two-sided/backprop")
rows = {}
for width in [4, 16, 64, 256]:
    model = culpa.nn.MLP([2, width, width, 2], rng=0)
    loss = culpa.cross_entropy(model(X), labels)
    recorded = culpa.graph.export(loss)
    n = sum(p.data.size for p in model.parameters())
    ops = sum(node["op"] != "leaf" for node in recorded["nodes"])
    forward, backward = multiply_adds(recorded)
    finite_differences = 2 * n * forward  # (3)!
    versus = finite_differences / (forward + backward)
    rows[width] = (n, ops, forward, backward, versus)
    row = f"{width:>5} {n:>7_} {ops:>4} {forward:>10_} {backward:>10_}"
    print(row, f"{backward / forward:>8.2f} {versus:>19_.0f}")

loss.backward()  # (4)!
filled = sum(p.grad.size for p in model.parameters())
print(f"n = {n:_}   filled = {filled:_}")
# --8<-- [end:one_sweep]
