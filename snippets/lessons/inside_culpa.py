"""Page 06, inside culpa: first a scalar engine the reader writes, then small runnable blocks that
exercise the engine's real source, listing by listing.

The page shows listings included straight from snippets/culpa/tensor.py, and after each one a section of
this file that runs it. The sections are shown, in this order, on docs/pt/06-inside-culpa.md and
docs/en/06-inside-culpa.md; the tests run them in one fresh interpreter and compare what they print.
"""

# --8<-- [start:scalar_engine]
import math


class Value:  # (1)!
    def __init__(self, data, parents=(), slopes=()):
        self.data = float(data)
        self.grad = 0.0
        self.parents = parents  # (2)!
        self.slopes = slopes  # (3)!
    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))
    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other),
                     (other.data, self.data))
    __radd__, __rmul__ = __add__, __mul__
    def exp(self):
        e = math.exp(self.data)
        return Value(e, (self,), (e,))
    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))
    def tanh(self):
        t = math.tanh(self.data)
        return Value(t, (self,), (1 - t * t,))
    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:  # (4)!
            node, parents_placed = stack.pop()
            if parents_placed:
                order.append(node)
            elif node not in seen:
                seen.add(node)
                stack.append((node, True))
                stack += [(parent, False) for parent in node.parents]
        self.grad = 1.0  # (5)!
        for node in reversed(order):  # (6)!
            for parent, slope in zip(node.parents, node.slopes, strict=True):
                parent.grad += node.grad * slope  # (7)!
# --8<-- [end:scalar_engine]

# --8<-- [start:scalar_check]
z = [Value(2.0), Value(1.0), Value(0.1)]  # (1)!
total = z[0].exp() + z[1].exp() + z[2].exp()
yours = total.log() + (-1.0) * z[0]  # (2)!
yours.backward()
print("yours.data =", round(yours.data, 4), "  z.grad =",
      [round(v.grad, 3) for v in z])

import numpy as np

import culpa

logits = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)
loss = culpa.cross_entropy(logits, 0)
loss.backward()
print("loss.item() =", round(loss.item(), 4), "  logits.grad =",
      [round(float(g), 3) for g in logits.grad])
print("allclose(yours, culpa):",
      np.allclose([v.grad for v in z], logits.grad))

s = Value(3.0)
q = s * s + s.tanh()  # (3)!
q.backward()
print("s.grad =", round(s.grad, 6),
      "  2s + 1 - tanh(s)^2 =", round(2 * 3.0 + 1 - math.tanh(3.0) ** 2, 6))
# --8<-- [end:scalar_check]

# --8<-- [start:tensor]
np.set_printoptions(precision=3, suppress=True)

w = culpa.Tensor([2.0, -1.0], requires_grad=True)  # (1)!
y = w * 3.0  # (2)!

print("w.op =", w.op, "  len(w.parents) =", len(w.parents),
      "  w.grad =", w.grad)
print("y.op =", y.op, "  y.parents:", [p.op for p in y.parents],
      "  y.grad =", y.grad)
print("y.parents[0] is w:", y.parents[0] is w)
print("y.parents[1].requires_grad:", y.parents[1].requires_grad)
# --8<-- [end:tensor]

# --8<-- [start:local]
g = np.array([1.0, 10.0])  # (1)!
print("y.local_backward(g):", y.local_backward(g))  # (2)!

t = w.tanh()
print("t.local_backward(ones):", t.local_backward(np.ones(2)))
print("1 - tanh(w)^2 =", 1 - np.tanh(w.data) ** 2)

constant = culpa.Tensor([2.0, -1.0]) * 3.0  # (3)!
print("constant.parents, constant.local_backward:", constant.parents,
      constant.local_backward)
# --8<-- [end:local]

# --8<-- [start:matmul]
rng = np.random.default_rng(0)
A = culpa.Tensor(rng.normal(size=(2, 3)), requires_grad=True)
B = culpa.Tensor(rng.normal(size=(3, 4)), requires_grad=True)
G = rng.normal(size=(2, 4))  # (1)!

(A @ B).backward(G)  # (2)!
print("dL/dA = G @ B.T:", np.allclose(A.grad, G @ B.data.T), A.grad.shape)
print("dL/dB = A.T @ G:", np.allclose(B.grad, A.data.T @ G), B.grad.shape)
# --8<-- [end:matmul]

# On the page, the engine's listings just above define these two; run alone, import them.
from culpa import topo_order, unbroadcast

# --8<-- [start:broadcast]
X = culpa.Tensor(np.ones((4, 3)))
b = culpa.Tensor([0.1, 0.2, 0.3], requires_grad=True)  # (1)!
(X + b).sum().backward()
print("b.grad =", b.grad)  # (2)!

ones = np.ones((4, 3))
print("(3,)  ", unbroadcast(ones, (3,)))
print("(1, 3)", unbroadcast(ones, (1, 3)))
print("(4, 1)", unbroadcast(ones, (4, 1)).ravel())
# --8<-- [end:broadcast]

# --8<-- [start:order]
x = culpa.Tensor(2.0, requires_grad=True)
L = (3 * x) * x**2  # (1)!
print("topo_order(L):", [node.op for node in topo_order(L)])
# --8<-- [end:order]

# --8<-- [start:recursion]
def topo_order_recursive(root):  # (1)!
    order, seen = [], set()
    def visit(node):
        if node not in seen:
            seen.add(node)
            for parent in node.parents:
                visit(parent)
            order.append(node)
    visit(root)
    return order


h = x
for _ in range(5000):  # (2)!
    h = h.tanh()

print("len(topo_order(h)):", len(topo_order(h)))
try:
    topo_order_recursive(h)
except RecursionError:
    print("topo_order_recursive(h): RecursionError")
# --8<-- [end:recursion]

# --8<-- [start:backward]
import textwrap


def show(err):  # (1)!
    print(textwrap.fill(f"{type(err).__name__}: {err}", width=72,
                        subsequent_indent="  "))


x = culpa.Tensor([1.0, 2.0], requires_grad=True)
v = x * x
v.backward(np.array([1.0, 0.0]))  # (2)!
print("x.grad =", x.grad)

x.zero_grad()
L = (x * x).sum()
L.backward(retain_graph=True)
L.backward()  # (3)!
print("x.grad =", x.grad)
try:
    L.backward()  # (4)!
except RuntimeError as err:
    show(err)

w = culpa.Tensor([2.0, 3.0], requires_grad=True, name="w")
loss = (w * x).sum()
w.data *= 10  # (5)!
try:
    loss.backward()
except RuntimeError as err:
    show(err)

root = culpa.Tensor([0.0, 4.0], requires_grad=True)
try:
    (root**0.5).sum().backward()  # (6)!
except FloatingPointError as err:
    show(err)

print("root.grad =", root.grad)
# --8<-- [end:backward]

# --8<-- [start:fused]
huge = culpa.Tensor([1000.0, 999.0, 0.0], requires_grad=True)
with np.errstate(all="ignore"):  # (1)!
    e = huge.exp()
    p_slow = e / e.sum()

print("p_slow =", p_slow.data)

fused = culpa.cross_entropy(huge, 1)
fused.backward()
print("fused.item() =", round(fused.item(), 4), "  huge.grad =", huge.grad)
# --8<-- [end:fused]

# --8<-- [start:cycles]
import gc


class ClosureNode:  # (1)!
    def __init__(self, data, parents=()):
        self.data, self.grad = data, 0.0
        self._parents, self._backward = parents, None
    def __mul__(self, other):
        out = ClosureNode(self.data * other.data, (self, other))
        def backward():
            self.grad += other.data * out.grad  # (2)!
            other.grad += self.data * out.grad
        out._backward = backward
        return out


def left_for_the_cycle_collector(build):  # (3)!
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
    h.sum().backward(retain_graph=True)  # (4)!


def closure_graph():
    h = ClosureNode(1.0)
    for _ in range(100):
        h = h * ClosureNode(1.5)


def value_graph():  # (5)!
    h = Value(1.0)
    for _ in range(100):
        h = (h * 1.5).tanh()
    h.backward()


print("culpa_graph:", left_for_the_cycle_collector(culpa_graph))
print("value_graph:", left_for_the_cycle_collector(value_graph))
naive_left = left_for_the_cycle_collector(closure_graph)
print("closure_graph > 0:", naive_left > 0)
# --8<-- [end:cycles]

# --8<-- [start:no_grad]
with culpa.no_grad():
    frozen = w * 3.0  # (1)!

print("frozen.requires_grad, frozen.parents:", frozen.requires_grad,
      frozen.parents)

net = culpa.nn.MLP([4, 8, 3], rng=0)
batch = culpa.Tensor(np.ones((2, 4)))
recorded = net(batch)  # (2)!
with culpa.no_grad():
    evaluated = net(batch)  # (3)!

print("len(topo_order(recorded)):", len(topo_order(recorded)))
print("len(topo_order(evaluated)):", len(topo_order(evaluated)))
print("allclose(recorded, evaluated):",
      np.allclose(recorded.data, evaluated.data))
# --8<-- [end:no_grad]
