"""Page 04's checked exercises (04-through-a-network.md, "Exercícios" / "Exercises"): each answer, and each
recognised mistake's answer, computed with culpa on the page's own network (lessons/through_a_network.py).

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="through_a_network/NAME"` is
EXERCISES[NAME].
"""

from __future__ import annotations

from functools import cache

import numpy as np

import culpa
from sitebuild import lessons
from sitebuild.exercises import Exercise

INPUTS = ["snippets/lessons/through_a_network.py"]


@cache
def page():
    """The page's sizes, example and class (lessons/through_a_network.py, "network")."""
    book = lessons.run("through_a_network.py", "network")
    return book["sizes"], book["x"].copy(), int(book["c"])


# ---- exercise 1: the tanh network's delta of layer 2, dL/dz2 ----
@cache
def tanh_pass():
    """The page's network with tanh (rng=0: the same weights), layer by layer, so that culpa keeps the
    gradient of every intermediate: (z2, a2, a2's slope dL/da2, the output layer's logits)."""
    sizes, x, c = page()
    net = culpa.nn.MLP(sizes, activation="tanh", rng=0)
    first, second, last = net.layers
    z1 = first(culpa.Tensor(x))
    z2 = second(z1.tanh())
    a2 = z2.tanh()
    logits = last(a2)
    culpa.cross_entropy(logits, c).backward()
    return z2, a2, logits, net


def tanh_delta():
    return tanh_pass()[0].grad


def tanh_delta_from(output_blame):
    """dL/dz2 when the blame that arrives at the logits is `output_blame` (a reader's delta3)."""
    sizes, x, c = page()
    net = tanh_pass()[3]
    z2 = net.layers[1](net.layers[0](culpa.Tensor(x)).tanh())
    net.layers[2](z2.tanh()).backward(np.asarray(output_blame))
    return z2.grad


def tanh_probabilities():
    logits = tanh_pass()[2].data
    e = np.exp(logits - logits.max())
    return e / e.sum()


tanh_delta2 = Exercise(
    size=4, decimals=4, example=-0.0125,
    answer=tanh_delta,
    mistakes={
        "sigma-prime": lambda: tanh_pass()[1].grad,  # W3^T delta3: the activation's slope left out
        # the sigmoid's a(1 - a), kept from the page, with the tanh's a
        "sigmoid-slope": lambda: tanh_pass()[1].grad * tanh_pass()[1].data * (1 - tanh_pass()[1].data),
        "sign": lambda: -tanh_delta(),
        "delta": lambda: tanh_delta_from(tanh_probabilities()),  # delta3 = p, where p - y belongs
    })


# ---- exercise 2: a batch of 8: dL/db of the output layer ----
def batch():
    rng = np.random.default_rng(2)  # the batch of the exercise's solution
    X = rng.normal(size=(8, 4))
    return X, rng.integers(0, 3, size=8)


def bias_grad(backwards=1, mean=True):
    """The output layer's dL/db for the batch, by culpa: after `backwards` backward passes without zero_grad
    in between, of the mean loss (culpa.cross_entropy's) or of the sum (mean=False)."""
    X, classes = batch()
    net = culpa.nn.MLP(page()[0], activation="sigmoid", rng=0)
    for _ in range(backwards):
        loss = culpa.cross_entropy(net(culpa.Tensor(X)), classes)
        (loss if mean else loss * len(X)).backward()
    return net.layers[-1].bias.grad


batch_bias = Exercise(
    size=3, decimals=4, example=-0.0125,
    answer=bias_grad,
    mistakes={
        "batch-mean": lambda: bias_grad(mean=False),  # the sum of the 8 losses' gradients: 8 times too big
        "zero-grad": lambda: bias_grad(backwards=2),  # a second backward, .grad not zeroed: doubled
        "sign": lambda: -bias_grad(),
    })

EXERCISES = {"tanh-delta": tanh_delta2, "batch-bias": batch_bias}
