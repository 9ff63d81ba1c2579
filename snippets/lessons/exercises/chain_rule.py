"""Page 02's checked exercises (02-chain-rule.md, "Exercícios" / "Exercises"): each answer, and each
recognised mistake's answer, computed with culpa. The page's lesson is a chain of lenses, each op's local
derivative taken at the value the forward pass stored; a mistake is culpa's backward pass through the same
chain with one lens replaced by a mistaken one (culpa.op_result: the op's own forward, another backward):
a lens left out (its factor taken as 1), or every lens's slope taken at the chain's input.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="chain_rule/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

import culpa
from sitebuild.exercises import Exercise


def local_slope(op: str, value: float) -> float:
    """The op's local derivative at `value`, by culpa."""
    t = culpa.Tensor(value, requires_grad=True)
    getattr(t, op)().backward()
    return float(t.grad)


def lens(t, op: str, slope=None):
    """The op applied to t: culpa's own, or (slope given) its forward with the backward g -> g * slope."""
    if slope is None:
        return getattr(t, op)()
    with culpa.no_grad():
        out = getattr(culpa.Tensor(t.data), op)().data
    return culpa.op_result(out, op, (t,), lambda g: (g * slope,))


def chain(ops, start, left_out=None, all_at_start=False):
    """dL/dx for L = the ops applied in turn to x = start, by culpa's backward pass; left_out: the index of
    a lens whose factor is taken as 1; all_at_start: every lens's slope taken at `start`, not at the value
    that enters it."""
    x = culpa.Tensor(start, requires_grad=True)
    t = x
    for k, op in enumerate(ops):
        slope = 1.0 if k == left_out else local_slope(op, start) if all_at_start else None
        t = lens(t, op, slope)
    t.backward()
    return float(x.grad)


# ---- exercise 1: L = ln sigmoid(x) at x = 0 ----
LOG_SIGMOID = ["sigmoid", "log"]

log_sigmoid = Exercise(
    size=1, decimals=2,
    answer=lambda: chain(LOG_SIGMOID, 0.0),
    mistakes={
        "chain-link": lambda: tuple(chain(LOG_SIGMOID, 0.0, left_out=k) for k in range(2)),
    })


# ---- exercise 2: x = 1 through ten tanh ----
TEN_TANH = ["tanh"] * 10

ten_tanh = Exercise(
    size=1, decimals=4, example=-0.0125,
    answer=lambda: chain(TEN_TANH, 1.0),
    mistakes={
        "chain-link": lambda: tuple(chain(TEN_TANH, 1.0, left_out=k) for k in range(10)),
        "wrong-point": lambda: chain(TEN_TANH, 1.0, all_at_start=True),  # 1 - tanh(1)^2, ten times
    })

EXERCISES = {"log-sigmoid": log_sigmoid, "ten-tanh": ten_tanh}
