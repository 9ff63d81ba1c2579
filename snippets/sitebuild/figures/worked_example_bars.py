"""The worked example's p, y and p − y for the three classes, as bars (page 03).

What to notice: p − y, the gradient of the loss with respect to the logits, is an instruction. Only the
observed class gets a negative bar (gradient descent raises its logit); each wrong class gets a positive
bar as tall as the probability it took, so the most confidently wrong class is pushed down hardest.
"""

import numpy as np
from matplotlib.legend_handler import HandlerTuple

import culpa
from sitebuild import style

LOGITS = [2.0, 1.0, 0.1]
OBSERVED = 0

LABELS = {
    "pt": {
        "title": "O que a loss pede a cada logit",
        "p": "p = softmax(z)",
        "y": "y (one-hot da classe observada)",
        "grad": "p − y = ∂L/∂z",
        "class": "classe {i}",
        "observed": "classe {i}\n(observada)",
        "up": "logit sobe",
        "down": "logit desce",
    },
    "en": {
        "title": "What the loss asks of each logit",
        "p": "p = softmax(z)",
        "y": "y (one-hot of the observed class)",
        "grad": "p − y = ∂L/∂z",
        "class": "class {i}",
        "observed": "class {i}\n(observed)",
        "up": "logit goes up",
        "down": "logit goes down",
    },
}


def data() -> dict:
    """p from culpa's softmax, and ∂L/∂z from culpa's backward through cross-entropy."""
    z = culpa.Tensor(LOGITS, requires_grad=True)
    loss = culpa.cross_entropy(z, OBSERVED)
    loss.backward()
    p = culpa.softmax(culpa.Tensor(LOGITS)).data
    y = np.eye(len(LOGITS))[OBSERVED]
    return {"z": LOGITS, "p": p, "y": y, "grad": z.grad, "loss": loss.item()}


def _alt(lang: str) -> str:
    d = data()

    def vec(values, spec=".3f"):
        return style.sequence([style.number(v, spec, lang) for v in values], lang)

    p, y, grad = vec(d["p"]), vec(d["y"], ".0f"), vec(d["grad"])
    if lang == "pt":
        return style.prose(f"""Gráfico de barras das três classes do exemplo resolvido: p = {p}, o alvo
            one-hot y = {y} e a diferença p − y = {grad}. Repare que só a classe observada recebe gradiente
            negativo (seu logit sobe) e que cada classe errada é empurrada para baixo na proporção da
            probabilidade que levou.""")
    return style.prose(f"""Bar chart of the worked example's three classes: p = {p}, the one-hot target
        y = {y} and their difference p − y = {grad}. Notice that only the observed class gets a negative
        gradient (its logit goes up) and that each wrong class is pushed down in proportion to the
        probability it took.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}


def draw(lang: str, d: dict):
    words = LABELS[lang]
    p, y, grad = (np.asarray(d[k]) for k in ("p", "y", "grad"))
    fig, ax = style.new_figure(4.4)
    x = np.arange(len(p))
    width = 0.26
    signs = [style.PUSH_UP if g < 0 else style.PUSH_DOWN for g in grad]
    bars = [
        (x - width, p, words["p"], dict(color=style.BACKPROP)),
        (x, y, words["y"], dict(color="white", edgecolor=style.NEUTRAL, hatch="///", linewidth=1.2)),
        (x + width, grad, words["grad"], dict(color=signs)),
    ]
    handles = []
    for xs, values, label, look in bars:
        drawn = ax.bar(xs, values, width, label=label, **look)
        handles.append(tuple(drawn.patches[:2]) if label == words["grad"] else drawn)
        for xi, v in zip(xs, values, strict=True):
            text = style.number(v, ".3f" if v % 1 else ".0f", lang)
            ax.annotate(text, (xi, v), xytext=(0, 4 if v >= 0 else -4), textcoords="offset points",
                        ha="center", va="bottom" if v >= 0 else "top", fontsize=10.5)
    last = len(grad) - 1
    for n, (xi, g) in enumerate(zip(x + width, grad, strict=True)):
        # on a phone the last label goes under its bar, below the axis, ending at the bar: in the figure,
        # and clear of its neighbour's
        at_edge = style.on_phone() and n == last
        ax.annotate(words["up"] if g < 0 else words["down"], (xi, 0 if at_edge else g),
                    xytext=(8, -6) if at_edge else (0, -22 if g < 0 else 22), textcoords="offset points",
                    ha="right" if at_edge else "center", va="top" if g < 0 or at_edge else "bottom",
                    fontsize=10.5, color=style.PUSH_UP if g < 0 else style.PUSH_DOWN, fontweight="bold")
    ax.axhline(0, color="black", linewidth=0.9)
    ax.set_xticks(x, [words["observed" if i == OBSERVED else "class"].format(i=i) for i in x])
    ax.set_ylim(-0.75, 1.3)
    ax.set_xlim(-0.55, len(p) - 0.3)
    ax.spines["bottom"].set_visible(False)
    ax.tick_params(axis="x", length=0)
    ax.set_title(words["title"])
    ax.legend(handles, [words[k] for k in ("p", "y", "grad")], loc="upper right",
              handler_map={tuple: HandlerTuple(ndivide=None, pad=0)})
    style.localize_axes(ax, lang)
    return fig
