"""Page 05's checked exercises (05-branching.md, "Exercícios" / "Exercises"): each answer, and each
recognised mistake's answer, computed with culpa. A value used in two places gets the sum of both shares;
the mistake this page is about, a share written over instead of added (`=` for `+=`), is computed by culpa
on a graph that keeps only one of the uses.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="branching/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

import numpy as np

import culpa
from sitebuild.exercises import Exercise

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
