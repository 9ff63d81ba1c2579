"""Page 09's checked exercises (09-training.md, "Exercícios" / "Exercises"): SGD steps of the page's model on
the page's two moons (lessons/training.py), taken by culpa, right and under each recognised mistake.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="training/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

from functools import cache

import numpy as np

import culpa
from sitebuild import lessons
from sitebuild.exercises import Exercise

INPUTS = ["snippets/lessons/training.py"]
SIZES = [2, 16, 16, 2]


@cache
def moons():
    """The page's points and classes (lessons/training.py, "data")."""
    book = lessons.run("training.py", "data")
    return book["X"].copy(), book["y"].copy()


def backward(model, rows, mean=True, delta=False):
    """One backward pass of the mean loss on the points `rows`, adding to .grad; mean=False: of the sum;
    delta=True: the blame that reaches the logits is p, where p - y belongs (each example's share, 1/B)."""
    X, y = moons()
    logits = model(X[rows])
    if delta:
        e = np.exp(logits.data - logits.data.max(axis=1, keepdims=True))
        logits.backward(e / e.sum(axis=1, keepdims=True) / len(logits.data))
    else:
        loss = culpa.cross_entropy(logits, y[rows])
        (loss * len(logits.data) if not mean else loss).backward()


# ---- exercise 3: one SGD step, lr 0.1, on the batch X[::10]: the output layer's new bias ----
FIRST = slice(0, None, 10)


@cache
def stepped_bias(lr=0.1, backwards=1, **kind):
    """The output layer's bias after one step of SGD(lr) from the page's fresh model, the .grad of
    `backwards` backward passes on the batch (no zero_grad in between: the gradient added twice)."""
    model = culpa.nn.MLP(SIZES, activation="tanh", rng=0)
    for _ in range(backwards):
        backward(model, FIRST, **kind)
    culpa.nn.SGD(model.parameters(), lr=lr).step()
    return model.layers[-1].bias.data.copy()


one_step = Exercise(
    size=2, decimals=4, example=0.0125,
    answer=stepped_bias,
    mistakes={
        "ascent": lambda: stepped_bias(lr=-0.1),  # theta + lr g: up the slope
        "zero-grad": lambda: stepped_bias(backwards=2),  # backward run twice: .grad holds 2 g
        "step-batch-mean": lambda: stepped_bias(mean=False),  # the sum of 20 losses: 20 times longer
        "delta": lambda: stepped_bias(delta=True),  # p where p - y belongs
    })


# ---- exercise 4: two SGD steps with lr 3.0, on X[0::10] then X[1::10]: the loss on all 200 points ----
@cache
def losses_after_two_steps(lr=3.0, zero_grad=True, mean=True):
    """The mean loss over every point after each of two steps of SGD(lr) from the page's fresh model;
    zero_grad=False keeps the first batch's gradient in .grad for the second step."""
    X, y = moons()
    model = culpa.nn.MLP(SIZES, activation="tanh", rng=0)
    optimizer = culpa.nn.SGD(model.parameters(), lr=lr)
    found = []
    for k in range(2):
        if zero_grad:
            optimizer.zero_grad()
        backward(model, slice(k, None, 10), mean=mean)
        optimizer.step()
        with culpa.no_grad():
            found.append(culpa.cross_entropy(model(X), y).item())
    return np.array(found)


two_steps = Exercise(
    size=2, decimals=3, example=0.125,
    answer=losses_after_two_steps,
    mistakes={
        "ascent": lambda: losses_after_two_steps(lr=-3.0),
        "zero-grad": lambda: losses_after_two_steps(zero_grad=False),  # the second step takes both gradients
        "step-batch-mean": lambda: losses_after_two_steps(mean=False),
    })

EXERCISES = {"one-step": one_step, "two-steps": two_steps}


# ---- exercise 5 (code): the loop's body, one SGD step, written by the reader ----
STARTER = "def train_step(model, X, y, lr):\n    ...\n"
CODE_LR = 0.5
# the cases: a fresh model of the page, then two calls, on X[0::10] and on X[1::10], with lr 0.5
CALLS = ("train_step(model, X[0::10], y[0::10], 0.5)", "train_step(model, X[1::10], y[1::10], 0.5)")
LABELS = ((CALLS[0], "loss"), (CALLS[1], "loss"),
          ("model.layers[2].bias", "[0]"), ("model.layers[2].bias", "[1]"))


def run_train_step(namespace):
    """The two losses the reader's train_step returns, then the output layer's bias after both steps."""
    from sitebuild.exercises import CodeProblem

    reader = namespace.get("train_step")
    if not callable(reader):
        raise CodeProblem("noFunction", name="train_step")
    X, y = moons()
    model = culpa.nn.MLP(SIZES, activation="tanh", rng=0)
    found = []
    for k, call in enumerate(CALLS):
        # copies: code that changes its X or y in place must not change the page's data for what follows
        returned = reader(model, X[k::10].copy(), y[k::10].copy(), CODE_LR)
        if returned is None:  # the starter as it is, or a step without `return`
            raise CodeProblem("return", name="train_step", case=call, what="returnedNone", want="wantLoss")
        if isinstance(returned, culpa.Tensor):  # the loss itself, not its .item(): the same number
            returned = returned.data
        try:
            loss = np.asarray(returned, dtype=float)
        except (TypeError, ValueError):
            raise CodeProblem("return", name="train_step", case=call, what="returnedOther",
                              want="wantLoss") from None
        if loss.size != 1:
            raise CodeProblem("return", name="train_step", case=call, what="returnedShape",
                              want="wantLoss", shape=str(loss.shape))
        found.append(float(loss.ravel()[0]))
    return found + list(model.layers[-1].bias.data)


def code_steps(lr=CODE_LR, zero_grad=True):
    """What train_step returns and leaves, by culpa's own loop: the two losses before each step, then the
    output layer's bias; zero_grad=False keeps the first batch's gradient in .grad for the second step."""
    X, y = moons()
    model = culpa.nn.MLP(SIZES, activation="tanh", rng=0)
    optimizer = culpa.nn.SGD(model.parameters(), lr=lr)
    found = []
    for k in range(len(CALLS)):
        if zero_grad:
            optimizer.zero_grad()
        loss = culpa.cross_entropy(model(X[k::10]), y[k::10])
        loss.backward()
        optimizer.step()
        found.append(loss.item())
    return found + list(model.layers[-1].bias.data)


train_step = Exercise(
    size=4, decimals=6, example=0.6931,
    answer=code_steps,
    starter=STARTER, run=run_train_step, labels=LABELS,
    mistakes={
        "zero-grad": lambda: code_steps(zero_grad=False),  # the second step takes both batches' gradients
        "ascent": lambda: code_steps(lr=-CODE_LR),  # p.data += lr * p.grad: up the slope
    })

EXERCISES["train-step"] = train_step
