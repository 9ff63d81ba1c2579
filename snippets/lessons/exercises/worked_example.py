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


# ---- exercise 3 (code): dL/dz = p - y written out with NumPy, safe for large logits ----
STARTER = "def logits_grad(z, c):\n    ...\n"
# the cases the reader's logits_grad runs on: the page's logits with its class, with exercise 1's class, and
# the page's large logits (the fused op's `big`: the same logits plus 998), where e^z overflows a float64
CASES = (("logits_grad(z, 0)", (2.0, 1.0, 0.1), 0), ("logits_grad(z, 2)", (2.0, 1.0, 0.1), 2),
         ("logits_grad(big, 0)", (1000.0, 999.0, 998.1), 0))
LABELS = tuple((case, f"[{i}]") for case, _, _ in CASES for i in range(3))


def run_logits_grad(namespace):
    """The nine numbers the reader's logits_grad returns on the three cases (each a fresh float64 array)."""
    from sitebuild.exercises import CodeProblem

    reader = namespace.get("logits_grad")
    if not callable(reader):
        raise CodeProblem("noFunction", name="logits_grad")
    found = []
    for case, logits, c in CASES:
        with np.errstate(all="ignore"):  # e^1000 overflows: what it gives is judged below, not warned about
            returned = reader(np.array(logits), c)
        if returned is None:  # the starter as it is, or a function without `return`
            raise CodeProblem("return", name="logits_grad", case=case, what="returnedNone",
                              want="wantLogitsGrad")
        try:
            got = np.asarray(returned, dtype=float)
        except (TypeError, ValueError):
            raise CodeProblem("return", name="logits_grad", case=case, what="returnedOther",
                              want="wantLogitsGrad") from None
        if got.shape != (3,):
            raise CodeProblem("return", name="logits_grad", case=case, what="returnedShape",
                              want="wantLogitsGrad", shape=str(got.shape))
        if not np.all(np.isfinite(got)):
            raise CodeProblem("overflow", name="logits_grad", case=case)
        found += list(got)
    return found


def case_grads(classes=None):
    """dL/dz by culpa's cross_entropy for each case; `classes` replaces each case's observed class."""
    found = []
    for k, (_, logits, c) in enumerate(CASES):
        z = culpa.Tensor(list(logits), requires_grad=True)
        culpa.cross_entropy(z, c if classes is None else classes[k]).backward()
        found += list(z.grad)
    return found


def case_probabilities():
    """p for each case, by culpa's softmax: what a reader who leaves y out returns."""
    return [v for _, logits, _ in CASES for v in culpa.softmax(culpa.Tensor(list(logits))).data]


logits_grad_code = Exercise(
    size=9, decimals=6, example=-0.341,
    answer=case_grads,
    starter=STARTER, run=run_logits_grad, labels=LABELS,
    mistakes={
        "delta": case_probabilities,  # p where p - y belongs
        "sign": lambda: [-v for v in case_grads()],  # y - p
        "class-fixed": lambda: case_grads(classes=(0, 0, 0)),  # y[0] = 1 whatever c is: the page's class
    })

EXERCISES["logits-grad"] = logits_grad_code
