"""Page 03's checked exercises (03-worked-example.md, "Exercícios" / "Exercises"): each answer, and each
recognised mistake's answer, computed with culpa from the page's own numbers.

sitebuild/exercises.py reads EXERCISES (its docstring says what an Exercise is); the page's exercise
`data-exercise="worked_example/NAME"` is checked by EXERCISES[NAME].
"""

from __future__ import annotations

from functools import cache

import numpy as np

import culpa
from sitebuild import lessons
from sitebuild.exercises import Exercise

INPUTS = ["snippets/lessons/worked_example.py"]


@cache
def page():
    """The page's logits and class, from its own code (lessons/worked_example.py, "forward")."""
    book = lessons.run("worked_example.py", "forward")
    return book["z"].data.copy(), int(np.argmax(book["y"].data))


def logits_grad(*classes, batch=1, mean=True):
    """dL/dz for the page's logits: one backward per class in `classes`, on the same tensor, without
    zeroing its .grad in between (as a reader who forgets zero_grad gets); a batch of `batch` copies,
    averaged (mean=True, as culpa.cross_entropy does) or summed; the first row."""
    z = culpa.Tensor(np.tile(page()[0], (batch, 1)), requires_grad=True)
    for observed in classes:
        loss = culpa.cross_entropy(z, np.full(batch, observed))
        (loss if mean else loss * batch).backward()
    return z.grad[0]


def probabilities():
    z = culpa.Tensor(page()[0])
    e = z.exp()
    return (e / e.sum()).data


# ---- exercise 1: dL/dz when the observed class is the third (index 2) ----
CLASS = 2
class_two = Exercise(
    size=3, decimals=3,
    answer=lambda: logits_grad(CLASS),
    mistakes={
        "delta": probabilities,  # p where p - y belongs
        "sign": lambda: -logits_grad(CLASS),  # y - p
        "zero-grad": lambda: logits_grad(page()[1], CLASS),  # on top of the page's own z.grad
        "class": lambda: logits_grad(page()[1]),  # the page's class, not the exercise's
    })


# ---- exercise 2: a batch of two copies, both of class 0: the first row of the gradient ----
batch_row = Exercise(
    size=3, decimals=3,
    answer=lambda: logits_grad(page()[1], batch=2),
    mistakes={
        "batch-mean": lambda: logits_grad(page()[1], batch=2, mean=False),  # p - y: the 1/2 left out
        "sign": lambda: -logits_grad(page()[1], batch=2),
        "delta": lambda: probabilities() / 2,  # p/2: p where p - y belongs
    })


EXERCISES = {"class-two": class_two, "batch-row": batch_row}
