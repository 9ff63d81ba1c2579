"""Page 01's checked exercises (01-a-billion-knobs.md, "Exercícios" / "Exercises"): each answer, and each
recognised mistake's answer, computed with culpa on the page's own model (lessons/a_billion_knobs.py). The
page measures slopes by nudging knobs and counts what that costs in forward passes; so do these checkers: a
slope by culpa's backward pass, a cost by counting the forward passes culpa.check.finite_difference asks for.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="a_billion_knobs/NAME"` is
EXERCISES[NAME].
"""

from __future__ import annotations

from functools import cache

import numpy as np

import culpa
from sitebuild import lessons
from sitebuild.exercises import Exercise

INPUTS = ["snippets/lessons/a_billion_knobs.py"]
EPS = 1e-4  # the step the exercise asks for


@cache
def page():
    """The page's model and batch (lessons/a_billion_knobs.py, "model"): the model, X and labels."""
    book = lessons.run("a_billion_knobs.py", "model")
    return book["model"], book["X"], book["labels"]


def loss_of(model, X, labels):
    with culpa.no_grad():
        return culpa.cross_entropy(model(X), labels).item()


# ---- exercise 4: the slopes of the hidden layer's four biases ----
def bias_slopes():
    """The exact slopes, by one backward pass: what the two-sided estimate measures, to its O(eps^2)."""
    model, X, labels = page()
    for p in model.parameters():
        p.zero_grad()
    culpa.cross_entropy(model(X), labels).backward()
    return model.layers[0].bias.grad.copy()


def estimated(divisor=2 * EPS, up=+EPS, down=-EPS):
    """The hidden biases' slopes as a reader's two-sided loop measures them on culpa's model:
    (L(b + up) - L(b + down)) / divisor, one bias at a time."""
    model, X, labels = page()
    bias = model.layers[0].bias
    slopes = np.zeros(bias.shape)
    for i in range(bias.data.size):
        old = bias.data[i]
        bias.data[i] = old + up
        first = loss_of(model, X, labels)
        bias.data[i] = old + down
        slopes[i] = (first - loss_of(model, X, labels)) / divisor
        bias.data[i] = old
    return slopes


hidden_biases = Exercise(
    size=4, decimals=4, example=-0.0125,
    answer=bias_slopes,
    mistakes={
        "two-epsilon": lambda: estimated(divisor=EPS),  # divided by eps, where 2 eps belongs
        "fd-sign": lambda: estimated(up=-EPS, down=+EPS),  # L(b - eps) - L(b + eps): the difference reversed
    })


# ---- exercise 5: the cost of a gradient of MLP([2, 8, 2]), in forward passes ----
WIDER = [2, 8, 2]


def passes(method, weights_only=False):
    """How many times culpa.check.finite_difference runs the model for a gradient of the wider MLP by
    `method` ("forward": one-sided, "central": two-sided); weights_only: only the weight matrices nudged."""
    _, X, labels = page()
    model = culpa.nn.MLP(WIDER, rng=0)
    knobs = [layer.weight for layer in model.layers] if weights_only else model.parameters()
    count = 0

    def run(*_):
        nonlocal count
        count += 1
        return culpa.cross_entropy(model(X), labels)

    culpa.check.finite_difference(run, knobs, method=method)
    return count


wider_passes = Exercise(
    size=2, decimals=1, example=25,
    answer=lambda: [passes("forward"), passes("central")],
    mistakes={
        "biases": lambda: [passes("forward", True), passes("central", True)],  # N counted without biases
        "sides-swapped": lambda: [passes("central"), passes("forward")],  # 2N for one side, N + 1 for two
    })

EXERCISES = {"hidden-biases": hidden_biases, "wider-passes": wider_passes}
