"""Page 06, inside culpa: small runnable blocks that exercise the engine's real source, listing by listing.

The page shows listings included straight from snippets/culpa/tensor.py, and after each one a section of
this file that runs it. The sections are shown, in this order, on docs/pt/06-inside-culpa.md and
docs/en/06-inside-culpa.md; the tests run them in one fresh interpreter and compare what they print.
"""

# --8<-- [start:tensor]
import gc  # used further down, to count reference cycles

import numpy as np

import culpa

np.set_printoptions(precision=3, suppress=True)

w = culpa.Tensor([2.0, -1.0], requires_grad=True)  # a leaf: made by you, not by an op
y = w * 3.0  # a result: made by the op "mul"

print("w: op =", w.op, "| parents:", len(w._parents), "| grad:", w.grad)
print("y: op =", y.op, "| parents:", [p.op for p in y._parents], "| grad:", y.grad)
print("y's first parent is w:", y._parents[0] is w)
print("the second, the constant 3.0, requires grad:", y._parents[1].requires_grad)
# --8<-- [end:tensor]

# --8<-- [start:local]
g = np.array([1.0, 10.0])  # pretend this gradient arrives from downstream
print("mul hands back:", y._backward(g))  # (1)!

t = w.tanh()
print("tanh hands back:", t._backward(np.ones(2)))
print("1 - tanh(w)^2 =", 1 - np.tanh(w.data) ** 2)

constant = culpa.Tensor([2.0, -1.0]) * 3.0  # no input requires grad: nothing to record
print("ops on constants record nothing:", constant._parents, constant._backward)
# --8<-- [end:local]

# --8<-- [start:matmul]
rng = np.random.default_rng(0)
A = culpa.Tensor(rng.normal(size=(2, 3)), requires_grad=True)
B = culpa.Tensor(rng.normal(size=(3, 4)), requires_grad=True)
G = rng.normal(size=(2, 4))  # a gradient arriving at A @ B

(A @ B).backward(G)  # (1)!
print("dL/dA = G @ B.T:", np.allclose(A.grad, G @ B.data.T), A.grad.shape)
print("dL/dB = A.T @ G:", np.allclose(B.grad, A.data.T @ G), B.grad.shape)
# --8<-- [end:matmul]

# On the page, the engine's listings just above define these two; run alone, import them.
from culpa import topo_order, unbroadcast  # noqa: E402

# --8<-- [start:broadcast]
X = culpa.Tensor(np.ones((4, 3)))  # a batch of 4 rows
b = culpa.Tensor([0.1, 0.2, 0.3], requires_grad=True)  # one bias, copied onto every row
(X + b).sum().backward()
print("b.grad:", b.grad)  # (1)!

ones = np.ones((4, 3))
print("to (3,):  ", unbroadcast(ones, (3,)))
print("to (1, 3):", unbroadcast(ones, (1, 3)))
print("to (4, 1):", unbroadcast(ones, (4, 1)).ravel())
# --8<-- [end:broadcast]

# --8<-- [start:order]
x = culpa.Tensor(2.0, requires_grad=True)
L = (3 * x) * x**2  # page 05's graph: x feeds two ops
print("forward order:", [node.op for node in topo_order(L)])


def topo_order_recursive(root):  # (1)!
    order, seen = [], set()
    def visit(node):
        if node not in seen:
            seen.add(node)
            for parent in node._parents:
                visit(parent)
            order.append(node)
    visit(root)
    return order


h = x
for _ in range(5000):  # a chain of 5,000 ops, like a long unrolled recurrent network
    h = h.tanh()

print("iterative:", len(topo_order(h)), "tensors in order")
try:
    topo_order_recursive(h)
except RecursionError:
    print("recursive: RecursionError")
# --8<-- [end:order]

# --8<-- [start:backward]
x = culpa.Tensor([1.0, 2.0], requires_grad=True)
v = x * x
v.backward(np.array([1.0, 0.0]))  # (1)!
print("seeded with (1, 0):", x.grad)

x.zero_grad()
L = (x * x).sum()
L.backward(retain_graph=True)
L.backward()  # allowed once more, and it accumulates
print("two backward passes:", x.grad)
try:
    L.backward()  # the second pass released the graph
except RuntimeError:
    print("a third one: RuntimeError (graph released)")

root = culpa.Tensor([0.0, 4.0], requires_grad=True)
try:
    (root**0.5).sum().backward()  # the slope of sqrt at 0 is infinite
except FloatingPointError as err:
    print("FloatingPointError, names the op:", "'pow'" in str(err))
# --8<-- [end:backward]

# --8<-- [start:fused]
huge = culpa.Tensor([1000.0, 999.0, 0.0], requires_grad=True)
with np.errstate(all="ignore"):  # e^1000 overflows: let it, and look at the damage
    e = huge.exp()
    p_slow = e / e.sum()

print("op by op, p =", p_slow.data)

fused = culpa.cross_entropy(huge, 1)
fused.backward()
print("fused: L =", round(fused.item(), 4), "| dL/dz =", huge.grad)
# --8<-- [end:fused]

# --8<-- [start:cycles]
class Value:  # a micrograd-style node: its closure reads the output's own gradient
    def __init__(self, data, parents=()):
        self.data, self.grad, self._parents, self._backward = data, 0.0, parents, None
    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other))
        def backward():
            self.grad += other.data * out.grad  # (1)!
            other.grad += self.data * out.grad
        out._backward = backward
        return out


def left_for_the_cycle_collector(build):
    """Build a graph and drop it; count what reference counting alone could not free."""
    gc.collect()
    gc.disable()
    try:
        build()
        return gc.collect()
    finally:
        gc.enable()


def culpa_graph():
    h = culpa.Tensor(np.ones(3), requires_grad=True)
    for _ in range(100):
        h = (h * 1.5).tanh()
    h.sum().backward(retain_graph=True)  # even with the whole graph kept


def value_graph():
    h = Value(1.0)
    for _ in range(100):
        h = h * Value(1.5)


print("culpa graph, objects left:", left_for_the_cycle_collector(culpa_graph))
naive_left = left_for_the_cycle_collector(value_graph)
print("closure that holds its output, objects left > 0:", naive_left > 0)
# --8<-- [end:cycles]

# --8<-- [start:no_grad]
with culpa.no_grad():
    frozen = w * 3.0  # (1)!

print("inside no_grad:", frozen.requires_grad, frozen._parents)

net = culpa.nn.MLP([4, 8, 3], rng=0)
batch = culpa.Tensor(np.ones((2, 4)))
recorded = net(batch)  # training: every op is recorded, ready for a backward
with culpa.no_grad():
    evaluated = net(batch)  # evaluation: nothing is recorded, nothing is kept

print("tensors in the graph, recorded:", len(topo_order(recorded)))
print("tensors in the graph, under no_grad:", len(topo_order(evaluated)))
print("same numbers either way:", np.allclose(recorded.data, evaluated.data))
# --8<-- [end:no_grad]
