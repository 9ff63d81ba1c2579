"""Page 08's checked exercises (08-honest-habits.md, "Exercícios" / "Exercises"): a finite difference, and the
estimates culpa.check.finite_difference gives with a step too small for the precision or too large for the
formula; and the one gradient a network started at zero still gets (habit 2: look at every parameter's
gradient after one loss), with the blame at the output mistaken in the ways page 03 names.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="honest_habits/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

from functools import cache

import numpy as np

import culpa
from sitebuild import lessons
from sitebuild.exercises import Exercise

INPUTS = ["snippets/lessons/honest_habits.py"]

X = 1.1  # where the slope of sum(x**3) is estimated


def cube_sum(u):
    return (u * u * u).sum()


def slope():
    """The slope by a backward pass: 3 x**2."""
    x = culpa.Tensor([X], requires_grad=True)
    cube_sum(x).backward()
    return x.grad


def estimate(eps, dtype=np.float64, method="central"):
    """culpa.check.finite_difference's estimate, in `dtype`, with step `eps`."""
    (numeric,) = culpa.check.finite_difference(cube_sum, [culpa.Tensor(np.array([X], dtype=dtype))],
                                               eps=eps, method=method)
    return numeric


cube_slope = Exercise(
    size=1, decimals=3,
    answer=slope,
    mistakes={
        # float32 with the step float64 wants (1e-6) or smaller: x + eps rounds, the estimate is noise
        "fd-float32": lambda: tuple(estimate(eps, np.float32, method)
                                    for eps in (1e-6, 1e-7) for method in ("central", "forward")),
        # a step too large for the formula: the truncation error shows in the third decimal
        "fd-truncation": lambda: (estimate(1e-1), estimate(1e-1, method="forward"),
                                  estimate(1e-2, method="forward"), estimate(1e-3, method="forward")),
    })



# ---- exercise 2: MLP([2, 8, 2]) with every weight and bias zero: the output bias's gradient ----
@cache
def page_data():
    """The page's X and y (lessons/honest_habits.py, "bad_gradients" and what it needs before it)."""
    book = lessons.run("honest_habits.py", "new_op", "bad_gradients")
    return book["X"].copy(), book["y"].copy()


def zero_net():
    net = culpa.nn.MLP([2, 8, 2], activation="tanh", rng=0)
    for p in net.parameters():
        p.data[...] = 0.0
    return net


def zero_bias_grad(mean=True, one_hot=True):
    """The output bias's dL/db after one loss of the zeroed network, by culpa: of the mean loss
    (culpa.cross_entropy's) or of the sum (mean=False); one_hot=False: the blame at the logits taken as p, the
    probabilities, where p - y belongs (a backward pass from the logits with that blame, averaged)."""
    X, y = page_data()
    net = zero_net()
    logits = net(culpa.Tensor(X))
    if one_hot:
        loss = culpa.cross_entropy(logits, y)
        (loss if mean else loss * len(y)).backward()
    else:
        logits.backward(culpa.softmax(logits).data / len(y))
    return net.layers[-1].bias.grad


zero_output_bias = Exercise(
    size=2, decimals=3, example=-0.125,
    answer=zero_bias_grad,
    mistakes={
        "delta": lambda: zero_bias_grad(one_hot=False),  # p where p - y belongs
        "batch-mean": lambda: zero_bias_grad(mean=False),  # the sum of the 64 examples' gradients
        "sign": lambda: -zero_bias_grad(),
    })

EXERCISES = {"zero-output-bias": zero_output_bias, "cube-slope": cube_slope}  # in the page's order
