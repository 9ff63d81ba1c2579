"""Page 06's checked exercises (06-inside-culpa.md, "Exercícios" / "Exercises"): each answer, and each
recognised mistake's answer, computed with culpa. The page builds an engine and then reads culpa's; the
mistakes are the ones an engine's author makes, each computed by culpa's backward pass with that mistake
put in: a share written over instead of added (`=` for `+=`: only one use of x keeps its share), a local
derivative of the power written wrong (culpa.op_result with that backward), a second backward without
zeroing .grad, an axis that unbroadcast does not sum.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="inside_culpa/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

import numpy as np

import culpa
from culpa.tensor import unbroadcast
from sitebuild.exercises import Exercise

# ---- exercise 2: the derivative of x**3 + 2x at x = 2 ----
X0 = 2.0


def cube(t, slope=None):
    """t**3 by culpa, or (slope given: a function of x) its forward with the backward g -> g * slope(x)."""
    if slope is None:
        return t**3
    return culpa.op_result(t.data**3, "pow", (t,), lambda g: (g * slope(t.data),))


def cubic(uses=("cube", "linear"), slope=None, backwards=1):
    """d(x**3 + 2x)/dx at X0 by culpa; `uses`: the uses of x that keep their share (the other one gets a
    constant copy of x: its share written over); `backwards` passes without zeroing .grad in between."""
    x = culpa.Tensor(X0, requires_grad=True)
    for _ in range(backwards):
        other = culpa.Tensor(X0)
        cubed = cube(x if "cube" in uses else other, slope)
        (cubed + 2 * (x if "linear" in uses else other)).backward()
    return float(x.grad)


power = Exercise(
    size=1, decimals=1,
    answer=cubic,
    mistakes={
        # parent.grad = ... where += belongs: the share of whichever use of x comes last is all that is left
        "overwrite-share": lambda: (cubic(uses=("cube",)), cubic(uses=("linear",))),
        # n x**n (the exponent not lowered) or x**(n - 1) (the n not brought down)
        "power-rule": lambda: (cubic(slope=lambda v: 3 * v**3), cubic(slope=lambda v: v**2)),
        "zero-grad": lambda: cubic(backwards=2),
    })


# ---- exercise 4: a gradient of shape (5, 2, 4, 3) summed back to an input of shape (2, 1, 3) ----
INCOMING, INPUT = (5, 2, 4, 3), (2, 1, 3)


def summed_back():
    """Each element of the input's gradient (all alike), by culpa's backward pass through a broadcast sum,
    for an incoming gradient of ones."""
    x = culpa.Tensor(np.zeros(INPUT), requires_grad=True)
    (x + culpa.Tensor(np.zeros(INCOMING))).backward(np.ones(INCOMING))
    return x.grad.ravel()[:1]


def summed_to(shape):
    """What culpa's unbroadcast gives an element when it sums the incoming ones down to `shape` instead."""
    return unbroadcast(np.ones(INCOMING), shape).ravel()[:1]


unbroadcast_value = Exercise(
    size=1, decimals=1, example=7,
    answer=summed_back,
    mistakes={
        # one of the two axes left unsummed: the added one (5, on the left) or the stretched one (1 -> 4)
        "broadcast-axis": lambda: (summed_to((5, *INPUT)), summed_to(INCOMING[1:])),
    })

EXERCISES = {"power": power, "unbroadcast": unbroadcast_value}
