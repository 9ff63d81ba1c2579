"""Page 08's checked exercise (08-honest-habits.md, "Exercícios" / "Exercises"): a finite difference, and the
estimates culpa.check.finite_difference gives with a step too small for the precision or too large for the
formula.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="honest_habits/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

import numpy as np

import culpa
from sitebuild.exercises import Exercise

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

EXERCISES = {"cube-slope": cube_slope}
