"""Training for real: the loss curve and the decision boundary of page 09's MLP on two moons.

The model, the data and the training loop are page 09's own (snippets/lessons/training.py, run here).
What to notice: the loss sits on a plateau before it drops, as gradient descent follows the gradients
backprop computes; the boundary the trained network draws is curved and runs between the two interleaved
moons, which no straight line could separate.
"""

import functools

import numpy as np
from matplotlib.colors import ListedColormap

import culpa
from sitebuild import lessons, style

INPUTS = ["snippets/lessons/training.py"]
GRID = 121  # the boundary is drawn from the model's output on a GRID x GRID lattice

LABELS = {
    "pt": {
        "loss_title": "Loss durante o treino",
        "epoch": "época",
        "loss": "loss média da época",
        "boundary_title": "Fronteira de decisão",
        "class": "classe {c}",
        "accuracy": "acurácia nos {n} pontos: {acc}%",
    },
    "en": {
        "loss_title": "Loss during training",
        "epoch": "epoch",
        "loss": "mean loss of the epoch",
        "boundary_title": "Decision boundary",
        "class": "class {c}",
        "accuracy": "accuracy on the {n} points: {acc}%",
    },
}
@functools.cache  # the alt text and the build both need it
def data() -> dict:
    page = lessons.run("training.py", "data", "model", "loop")
    model, X, y = page["model"], page["X"], page["y"]
    xs = np.linspace(X[:, 0].min() - 0.4, X[:, 0].max() + 0.4, GRID)
    ys = np.linspace(X[:, 1].min() - 0.4, X[:, 1].max() + 0.4, GRID)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    with culpa.no_grad():
        logits = model(culpa.Tensor(grid)).data
    return {
        "history": page["history"],  # the mean loss of every epoch
        "X": X, "y": y,
        "grid_x": xs, "grid_y": ys,
        "margin": (logits[:, 1] - logits[:, 0]).reshape(GRID, GRID),  # > 0 where the model says class 1
        "accuracy": float(page["accuracy"](model, X, y)),
        "sizes": model.sizes, "activation": model.activation,
    }


def _alt(lang):
    d = data()
    sizes, act = style.conjunction(d["sizes"], lang), d["activation"]
    epochs, points = len(d["history"]), len(d["y"])
    if lang == "pt":
        return style.prose(f"""Dois gráficos. À esquerda, a loss média de cada uma das {epochs} épocas da
            MLP da página 9 ({sizes} neurônios, {act}) treinada com SGD: um platô no começo, depois a
            queda. À direita, os {points} pontos das duas luas, uma cor e um marcador por classe, sobre as
            regiões que a rede treinada atribui a cada classe. Repare que a fronteira aprendida é curva e
            passa entre as luas entrelaçadas, que nenhuma reta separaria.""")
    return style.prose(f"""Two plots. On the left, the mean loss of each of the {epochs} epochs of page 9's
        MLP ({sizes} neurons, {act}) trained with SGD: a plateau at first, then the drop. On the right, the
        {points} points of the two moons, one color and one marker per class, over the regions the trained
        network assigns to each class. Notice that the learned boundary is curved and runs between the
        interleaved moons, which no straight line could separate.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}


CLASS_COLORS = (style.BACKPROP, style.PUSH_DOWN)


def draw(lang: str, d: dict):
    words = LABELS[lang]
    fig, (left, right) = style.new_figure(3.8, width=7.6, ncols=2)

    history = np.asarray(d["history"])
    left.plot(np.arange(1, len(history) + 1), history, color=style.BACKPROP)
    left.set_ylim(0, history.max() * 1.08)
    left.set_xlim(0, len(history))
    left.set_xlabel(words["epoch"])
    left.set_ylabel(words["loss"])
    left.set_title(words["loss_title"])
    style.localize_axes(left, lang)

    X, y, margin = np.asarray(d["X"]), np.asarray(d["y"]), np.asarray(d["margin"])
    regions = ListedColormap(["#ede7f6", "#ffe0b2"])
    right.contourf(d["grid_x"], d["grid_y"], margin, levels=[margin.min(), 0, margin.max()], cmap=regions)
    right.contour(d["grid_x"], d["grid_y"], margin, levels=[0], colors=style.NEUTRAL, linewidths=1.5)
    for c, (color, marker) in enumerate(zip(CLASS_COLORS, "o^", strict=True)):
        right.scatter(*X[y == c].T, s=24, color=color, marker=marker, edgecolor="white", linewidth=0.5,
                      label=words["class"].format(c=c))
    right.set_aspect("equal")
    right.set_title(words["boundary_title"])
    right.set_xticks([])
    right.set_yticks([])
    accuracy = style.number(100 * d["accuracy"], ".1f", lang)
    right.set_xlabel(words["accuracy"].format(n=len(X), acc=accuracy))
    right.legend(loc="upper right", handletextpad=0.2, borderaxespad=0.2, markerscale=1.4)
    return fig
