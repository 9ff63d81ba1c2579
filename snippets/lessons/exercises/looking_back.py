"""Page 10's checked exercises (10-looking-back.md, "Exercícios" / "Exercises"): the recap's network and batch
(lessons/looking_back.py, "recap"), a step of SGD after its backward pass and the blame of its hidden layer,
computed by culpa, right and under each recognised mistake.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="looking_back/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

from functools import cache

import numpy as np

import culpa
from sitebuild import lessons
from sitebuild.exercises import Exercise

INPUTS = ["snippets/lessons/looking_back.py"]
SIZES = [3, 4, 3]
LR = 0.5


@cache
def recap():
    """The recap's batch (lessons/looking_back.py, "recap")."""
    book = lessons.run("looking_back.py", "recap")
    return book["X"].copy(), book["y"].copy()


def slopeless_tanh(z):
    """tanh forward, and a backward that hands the blame on unchanged: sigma' forgotten."""
    return culpa.op_result(np.tanh(z.data), "tanh", (z,), lambda g: (g,))


@cache
def backward_pass(backwards=1, mean=True, sigma_prime=True, delta=False):
    """The recap's fresh model and its hidden layer's z1 after `backwards` backward passes of the mean loss
    (mean=False: of the sum) with nothing zeroed in between; sigma_prime=False: the tanh's slope left out;
    delta=True: the blame that reaches the logits is p, where p - y belongs."""
    X, y = recap()
    model = culpa.nn.MLP(SIZES, activation="tanh", rng=0)
    first, last = model.layers
    for _ in range(backwards):
        z1 = first(culpa.Tensor(X))
        logits = last(z1.tanh() if sigma_prime else slopeless_tanh(z1))
        if delta:
            e = np.exp(logits.data - logits.data.max(axis=1, keepdims=True))
            logits.backward(e / e.sum(axis=1, keepdims=True) / len(X))
        else:
            loss = culpa.cross_entropy(logits, y)
            (loss if mean else loss * len(X)).backward()
    return model, z1


# ---- exercise 1: the loss after one SGD step with lr 0.5 ----
@cache
def loss_after_step(lr=LR, **kind):
    X, y = recap()
    model = backward_pass(**kind)[0]
    stepped = culpa.nn.MLP(SIZES, activation="tanh", rng=0)  # a copy to step: the cached model stays as it is
    for p, q in zip(stepped.parameters(), model.parameters(), strict=True):
        p.grad = q.grad.copy()
    culpa.nn.SGD(stepped.parameters(), lr=lr).step()
    with culpa.no_grad():
        return culpa.cross_entropy(stepped(X), y).item()


one_step = Exercise(
    size=1, decimals=3, example=0.125,
    answer=loss_after_step,
    mistakes={
        "ascent": lambda: loss_after_step(lr=-LR),
        "zero-grad": lambda: loss_after_step(backwards=2),  # a second backward before the step: 2 g
        "step-batch-mean": lambda: loss_after_step(mean=False),  # the sum of the 8 losses' gradients
        "sigma-prime": lambda: loss_after_step(sigma_prime=False),
        "delta": lambda: loss_after_step(delta=True),
    })


# ---- exercise 3: the hidden layer's blame, delta1 = dL/dz1, for the first example of the batch ----
def first_delta(**kind):
    return backward_pass(**kind)[1].grad[0]


hidden_delta = Exercise(
    size=4, decimals=4, example=-0.0125,
    answer=first_delta,
    mistakes={
        "sigma-prime": lambda: first_delta(sigma_prime=False),  # W2^T delta2: the message that reaches a1
        "batch-mean": lambda: first_delta(mean=False),  # delta2 = p - y, the 1/8 of the mean left out
        "delta": lambda: first_delta(delta=True),  # p where p - y belongs
        "sign": lambda: -first_delta(),
    })

EXERCISES = {"one-step": one_step, "hidden-delta": hidden_delta}
