"""Page 08's checked exercises (08-honest-habits.md, "Exercícios" / "Exercises"): a finite difference, and the
estimates culpa.check.finite_difference gives with a step too small for the precision or too large for the
formula; and the one gradient a network started at zero still gets (habit 2: look at every parameter's
gradient after one loss), with the blame at the output mistaken in the ways page 03 names.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="honest_habits/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from functools import cache

import numpy as np

import culpa
from sitebuild import lessons
from sitebuild.exercises import Exercise, close

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


# ---- exercise 3 (cube-slope): which side of the U a wrong estimate comes from ----
# The steps a reader may choose, 1e-16 to 0.5, and every estimate culpa makes with them, in float64 and
# float32, two-sided and one-sided (culpa refuses a step that does not change x: float32 below about 1e-8).
STEPS = tuple(m * 10.0**k for k in range(-16, 0) for m in (1, 2, 3, 5))
KINDS = tuple((dtype, method) for dtype in (np.float64, np.float32) for method in ("central", "forward"))


@cache
def estimates() -> dict:
    """{(dtype name, method, eps): culpa's estimate}, for every step culpa accepts."""
    found = {}
    for dtype, method in KINDS:
        for eps in STEPS:
            with contextlib.suppress(ValueError):  # the step is lost in x + eps
                found[np.dtype(dtype).name, method, eps] = float(np.ravel(estimate(eps, dtype, method))[0])
    return found


def formula(eps, dtype, method) -> float:
    """The formula's own estimate, with no rounding at all (x and eps as `dtype` holds them, the sums in
    exact fractions): the slope plus the truncation error alone."""
    x, h = Fraction(float(np.array(X, dtype=dtype))), Fraction(float(np.array(eps, dtype=dtype)))
    low = x - h if method == "central" else x
    return float(((x + h) ** 3 - low**3) / (x + h - low))


@cache
def sides() -> tuple[tuple[float, ...], tuple[float, ...]]:
    """culpa's estimates with a step too small for the precision and with a step too large for the formula:
    (too small, too large). An estimate is too small where its rounding error (culpa's estimate minus the
    formula's without rounding) is larger than its truncation error (the formula's minus the slope): the
    left arm of the U, where the error grows as the step shrinks; too large where truncation is larger."""
    exact = float(slope()[0])
    small, large = [], []
    for (dtype, method, eps), v in estimates().items():
        clean = formula(eps, np.dtype(dtype), method)
        (small if abs(v - clean) > abs(clean - exact) else large).append(v)
    return tuple(small), tuple(large)


def fd_diagnosis(got) -> list[str]:
    """The side of the U a wrong estimate comes from, by comparing it with culpa's estimates on each side:
    too small for the precision (rounding), too large for the formula (truncation), or, where culpa gets this
    estimate both ways, either (the number alone cannot tell); none when it is neither."""
    small, large = (any(close(got, np.array([v]), cube_slope.atol) for v in side) for side in sides())
    if small and large:
        return ["fd-step"]
    return ["fd-rounding"] if small else ["fd-truncation"] if large else []


def planted(name: str) -> tuple[float, ...]:
    """The estimates a test plants for a diagnosis: culpa's, with a step on that side, that a reader's
    rounding to three decimals cannot move to another diagnosis or to the right answer (the tests also check
    that no two answers of an exercise can be taken for one another)."""
    exact, atol = float(slope()[0]), cube_slope.atol
    small, large = sides()

    def near(v, side, by):
        return any(abs(v - w) <= by for w in side)

    wrong = [v for v in small + large if abs(v - exact) > 3 * atol]
    if name == "fd-step":  # a rounding estimate that is also, to a tenth of the tolerance, a truncation one
        return tuple(sorted({v for v in small if v in wrong and near(v, large, atol / 6)}))
    mine, other = (small, large) if name == "fd-rounding" else (large, small)
    return tuple(sorted({v for v in mine if v in wrong and not near(v, other, 4 * atol)}))


cube_slope = Exercise(
    size=1, decimals=3,
    answer=slope,
    mistakes={  # the estimates the tests plant; what names a reader's estimate is fd_diagnosis
        "fd-rounding": lambda: planted("fd-rounding"),
        "fd-truncation": lambda: planted("fd-truncation"),
        "fd-step": lambda: planted("fd-step"),
    },
    diagnose=fd_diagnosis)


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
