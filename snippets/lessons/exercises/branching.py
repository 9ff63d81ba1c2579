"""Page 05's checked exercises (05-branching.md, "Exercícios" / "Exercises"): each answer, and each
recognised mistake's answer, computed with culpa. A value used in two places gets the sum of both shares;
the mistake this page is about, a share written over instead of added (`=` for `+=`), is computed by culpa
on a graph that keeps only one of the uses.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="branching/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

import numpy as np

import culpa
from sitebuild.exercises import CodeProblem, Exercise

# ---- exercise 1: the gradient of w * w at w = 3 ----
W0 = 3.0


def w_squared(backwards=1, shares=2):
    """d(w * w)/dw by culpa; shares=1 keeps only one side's share (the other side a constant: a buffer
    written over, not added to); `backwards` backward passes without zeroing .grad in between."""
    w = culpa.Tensor(W0, requires_grad=True)
    for _ in range(backwards):
        other = w if shares == 2 else culpa.Tensor(W0)
        (w * other).backward()
    return w.grad


w_times_w = Exercise(
    size=1, decimals=1,
    answer=w_squared,
    mistakes={
        "overwrite": lambda: w_squared(shares=1),  # one share kept: = where += belongs
        "zero-grad": lambda: w_squared(backwards=2),  # backward twice, .grad not zeroed
    })


# ---- exercise 4: dL/dh of a layer z = W h + b, by hand, with a square W: h feeds both logits ----
W_SQUARE = [[2.0, 1.0], [-1.0, 3.0]]
DELTA = [0.5, -1.0]  # dL/dz, given
H = [0.3, -0.7]  # any h: dL/dh does not depend on it


def blame_h(weight, rows=(0, 1)):
    """dL/dh for z = weight h + b and dL/dz = DELTA, by culpa: L = sum of DELTA_i z_i over `rows` (the rows a
    reader's sum kept)."""
    h = culpa.Tensor(H, requires_grad=True)
    loss = culpa.Tensor(0.0)
    for i in rows:
        loss = loss + (culpa.Tensor(np.asarray(weight)[i]) * h).sum() * DELTA[i]
    loss.backward()
    return h.grad


square_layer = Exercise(
    size=2, decimals=1,
    answer=lambda: blame_h(W_SQUARE),
    mistakes={
        "transpose": lambda: blame_h(np.transpose(W_SQUARE)),  # W delta where W^T delta belongs
        # dh = ... in the loop over the logits, where dh += ... belongs: only one logit's share is left
        "overwrite": lambda: (blame_h(W_SQUARE, rows=(1,)), blame_h(W_SQUARE, rows=(0,))),
        "sign": lambda: -blame_h(W_SQUARE),
    })

EXERCISES = {"w-squared": w_times_w, "square-layer": square_layer}


# ---- exercise 5 (code): mul's local backward, in an engine that keeps each value's gradient in .grad ----
STARTER = "def mul_backward(a, b, out):\n    ...\n"


class Value:
    """A number and its gradient buffer, as micrograd keeps them: what the reader's mul_backward gets."""

    __slots__ = ("data", "grad")

    def __init__(self, data):
        self.data, self.grad = float(data), 0.0

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


# the cases the reader's mul_backward runs on, the same three culpa runs: out = a * b with dL/dout = 0.5;
# w * w (one value, both sides); L = (x * y) * x (x reaches L by two paths), walked from L back
A, B, G = 2.0, -5.0, 0.5
X, Y = 2.0, -1.0
LABELS = (("a * b", "a.grad"), ("a * b", "b.grad"), ("w * w", "w.grad"),
          ("(x * y) * x", "x.grad"), ("(x * y) * x", "y.grad"))


def run_mul_backward(namespace):
    """The five gradients the reader's mul_backward leaves in .grad on the three cases."""
    mul_backward = namespace.get("mul_backward")
    if not callable(mul_backward):
        raise CodeProblem("noFunction", name="mul_backward")
    a, b = Value(A), Value(B)
    out = Value(A * B)
    out.grad = G
    mul_backward(a, b, out)
    w = Value(W0)
    square = Value(W0 * W0)
    square.grad = 1.0
    mul_backward(w, w, square)
    x, y = Value(X), Value(Y)
    p = Value(X * Y)
    loss = Value(X * Y * X)
    loss.grad = 1.0
    mul_backward(p, x, loss)  # reverse order: the loss's op first, then p's
    mul_backward(x, y, p)
    return [a.grad, b.grad, w.grad, x.grad, y.grad]


def times(a, b):
    return a * b


def swapped(a, b):
    """a * b, whose backward gives each input its own value times g (d(ab)/da = a, the factors swapped):
    the forward of a * b, the gradient of (a² + b²)/2, by culpa."""
    wrong = (a * a + b * b) * 0.5
    return wrong + (a * b - wrong).detach()


def negated(a, b):
    """a * b, whose backward gives -b g and -a g (`-=` for `+=`, or a minus too many)."""
    return (a * b) * -1.0 + (a * b * 2.0).detach()


def mul_grads(mul=times, keep_square=True, keep_second_x=True):
    """The five gradients by culpa, with `mul` as the op; keep_square=False keeps only one share of w * w,
    keep_second_x=False drops the share of x that the loss's op (walked first) sends: the buffer written over
    (`=`) by the share that came after."""
    leaf = lambda v: culpa.Tensor(v, requires_grad=True)  # noqa: E731
    a, b = leaf(A), leaf(B)
    mul(a, b).backward(np.asarray(G))
    w = leaf(W0)
    mul(w, w if keep_square else w.detach()).backward()
    x, y = leaf(X), leaf(Y)
    mul(mul(x, y), x if keep_second_x else x.detach()).backward()
    return [a.grad, b.grad, w.grad, x.grad, y.grad]


mul_backward = Exercise(
    size=5, decimals=6, example=-2.5,
    answer=mul_grads,
    starter=STARTER, run=run_mul_backward, labels=LABELS,
    mistakes={
        # `=` for `+=` on a.grad, on b.grad, or on both: the share written first is lost
        "mul-overwrite": lambda: (mul_grads(keep_second_x=False),  # a.grad = ...
                                  mul_grads(keep_square=False),  # b.grad = ...
                                  mul_grads(keep_square=False, keep_second_x=False)),  # both
        "mul-swap": lambda: mul_grads(swapped),  # a.grad += out.grad * a.data
        "mul-sign": lambda: mul_grads(negated),  # a.grad -= ...
    })

EXERCISES["mul-backward"] = mul_backward
