"""The blame flowing back through page 04's network: each layer's δ, the activations the forward pass
stored, and every weight's slope as blame times input (page 04).

The network, its weights and the example are page 04's own (snippets/lessons/through_a_network.py);
the values come from culpa, layer by layer, so that every z⁽ˡ⁾ keeps its gradient δ⁽ˡ⁾ = ∂L/∂z⁽ˡ⁾.
What to notice: δ starts as p − y at the output and shrinks about tenfold at each sigmoid layer on its
way back; each edge's slope is the δ of the unit it enters times the stored activation of the unit it
leaves, so the edges into layer 1 carry almost no blame.
"""

import functools
import textwrap

import numpy as np
from matplotlib.colors import LinearSegmentedColormap, TwoSlopeNorm

import culpa
from sitebuild import lessons, style

INPUTS = ["snippets/lessons/through_a_network.py"]
KNOB = (2, 1, 3)  # the weight the page checks by hand: layer 2, row 1, column 3 (counting from 0)

LABELS = {
    "pt": {
        "input": "entrada",
        "layer": "camada {l}",
        "output": "saída p",
        "back": "backward pass: o δ volta da saída para a entrada",
        "key": "círculo: ativação guardada no forward pass\n"
               "caixa: δ, a culpa de cada unidade (azul < 0 < laranja; cor normalizada em cada camada)\n"
               "aresta: inclinação ∂L/∂W = δ × a (azul < 0 < laranja; espessura = tamanho)\n"
               "tracejada: o peso W⁽²⁾[1, 3] conferido no texto: {delta} × {a} = {slope}",
    },
    "en": {
        "input": "input",
        "layer": "layer {l}",
        "output": "output p",
        "back": "backward pass: δ travels back from the output to the input",
        "key": "circle: activation stored by the forward pass\n"
               "box: δ, each unit's blame (blue < 0 < orange; color scaled within each layer)\n"
               "edge: slope ∂L/∂W = δ × a (blue < 0 < orange; width = size)\n"
               "dashed: the weight W⁽²⁾[1, 3] checked in the text: {delta} × {a} = {slope}",
    },
}
@functools.cache  # the alt text and the build both need it
def data() -> dict:
    page = lessons.run("through_a_network.py", "network")
    net, x, c = page["net"], page["x"], page["c"]
    a, stored, zs = culpa.Tensor(x), [], []
    for i, layer in enumerate(net.layers):
        stored.append(a.data)
        z = layer(a)
        zs.append(z)
        a = getattr(z, net.activation)() if i < len(net.layers) - 1 else z
    loss = culpa.cross_entropy(zs[-1], c)
    loss.backward()
    return {
        "sizes": page["sizes"],
        "activations": stored,  # a⁽⁰⁾ = x, a⁽¹⁾, a⁽²⁾: what each layer's weights multiply
        "p": culpa.softmax(zs[-1].detach()).data,
        "y": np.eye(page["sizes"][-1])[c],
        "deltas": [z.grad for z in zs],  # δ⁽ˡ⁾ = ∂L/∂z⁽ˡ⁾, l = 1, 2, 3
        "weight_grads": [layer.weight.grad for layer in net.layers],
        "loss": loss.item(),
        "activation": net.activation,
    }


def _alt(lang):
    d = data()
    sizes = "-".join(str(n) for n in d["sizes"])
    act = {"pt": {"sigmoid": "sigmoide"}, "en": {}}[lang].get(d["activation"], d["activation"])
    shrink = style.number(np.linalg.norm(d["deltas"][-1]) / np.linalg.norm(d["deltas"][0]), ".0f", lang)
    if lang == "pt":
        return style.prose(f"""Diagrama da rede {sizes} ({act}) de Passo a passo por uma rede: cada unidade
            mostra a ativação guardada no forward pass e, numa caixa colorida, seu δ; cada aresta tem a
            cor do sinal e a espessura do tamanho da sua inclinação, δ vezes a ativação de entrada;
            embaixo de cada camada, o tamanho do seu δ; uma seta da direita para a esquerda marca o
            backward pass. Repare que o δ começa como p − y na saída e encolhe a cada camada {act} (o da
            saída é {shrink} vezes o da primeira camada), e que a inclinação de um peso é só o δ da
            unidade onde ele chega vezes a ativação de onde ele sai.""")
    return style.prose(f"""Diagram of the {sizes} {act} network of Step by step through a network: each unit
        shows the activation stored by the forward pass and, in a colored box, its δ; each edge has the
        color of the sign and the width of the size of its slope, δ times the incoming activation; under
        each layer, the size of its δ; an arrow from right to left marks the backward pass. Notice that δ
        starts as p − y at the output and shrinks at each {act} layer (the output's is {shrink} times the
        first layer's), and that a weight's slope is just the δ of the unit it enters times the activation
        of the unit it leaves.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}


BLAME = LinearSegmentedColormap.from_list("blame", [style.PUSH_UP, "#ffffff", style.PUSH_DOWN])


def _ys(n):
    return (np.arange(n) - (n - 1) / 2)[::-1]


def draw(lang: str, d: dict):
    words = LABELS[lang]
    sizes = d["sizes"]
    values = [np.asarray(a) for a in d["activations"]] + [np.asarray(d["p"])]
    deltas = [None] + [np.asarray(g) for g in d["deltas"]]
    grads = [np.asarray(g) for g in d["weight_grads"]]
    biggest = max(np.abs(g).max() for g in grads)

    phone = style.on_phone()  # on a phone the layers are rows, from the input at the top to the output

    def at(layer, u):  # where unit u (as _ys places it) of a layer is drawn
        return (-0.8 * u, -1.6 * layer) if phone else (layer, u)

    fig, ax = style.new_figure(6.6 if phone else 5.9, width=3.7 if phone else 7.4)
    if phone:
        fig.set_size_inches(3.7, 8.4)
    ax.set_axis_off()
    ax.set_xlim(*((-2.1, 2.1) if phone else (-0.45, len(sizes) - 0.35)))
    ax.set_ylim(*((-1.6 * (len(sizes) - 1) - 4.9, 0.95) if phone else (-5.75, 3.4)))
    for layer, grad in enumerate(grads, start=1):  # edges first, under the units
        for i, yi in enumerate(_ys(grad.shape[0])):
            for j, yj in enumerate(_ys(grad.shape[1])):
                g = grad[i, j]
                knob = (layer, i, j) == KNOB
                (x0, y0), (x1, y1) = at(layer - 1, yj), at(layer, yi)
                ax.plot([x0, x1], [y0, y1], color=style.PUSH_UP if g < 0 else style.PUSH_DOWN,
                        linewidth=0.3 + 6 * abs(g) / biggest, alpha=0.85, zorder=1,
                        solid_capstyle="butt")
                if knob:
                    ax.plot([x0, x1], [y0, y1], color="black", linewidth=1.5, linestyle=(0, (3, 2)),
                            zorder=1.5)
    for layer, n in enumerate(sizes):
        for i, yi in enumerate(_ys(n)):
            x, y = at(layer, yi)
            ax.scatter([x], [y], s=1150, color="#ede7f6" if layer < len(sizes) - 1 else "#d1c4e9",
                       edgecolor=style.BACKPROP, linewidth=1.4, zorder=2)
            ax.text(x, y, style.number(values[layer][i], ".2f", lang), ha="center", va="center",
                    fontsize=10, zorder=3)
            if deltas[layer] is not None:
                delta = deltas[layer][i]
                scale = np.abs(deltas[layer]).max()
                fill = BLAME(TwoSlopeNorm(0, -scale, scale)(delta))
                ink = "white" if 0.3 * fill[0] + 0.6 * fill[1] + 0.1 * fill[2] < 0.5 else "black"
                ax.text(*((x, y - 0.52) if phone else (x + 0.19, y - 0.36)), style.number(delta, ".4f", lang),
                        ha="center" if phone else "left", va="center", fontsize=8 if phone else 9.5, zorder=4,
                        color=ink, bbox=dict(boxstyle="round,pad=0.25", facecolor=fill,
                                             edgecolor=style.NEUTRAL, linewidth=0.6))
        title = words["input"] if layer == 0 else words["output"] if layer == len(sizes) - 1 else \
            words["layer"].format(l=layer)
        row = -1.6 * layer + 0.42
        ax.text(*((-2.05, row) if phone else (layer, 3.1)), title, ha="left" if phone else "center",
                va="bottom", fontsize=11.5 if phone else 12.5, fontweight="bold")
        if deltas[layer] is not None:
            size = style.number(np.linalg.norm(deltas[layer]), ".4f", lang)
            ax.text(*((2.05, row) if phone else (layer, -3.05)), f"‖δ$^{{({layer})}}$‖ = {size}",
                    ha="right" if phone else "center", va="bottom" if phone else "top",
                    fontsize=10.5 if phone else 11.5, color=style.BACKPROP)
    bottom = -1.6 * (len(sizes) - 1) - 0.85
    if not phone:  # on a phone the rows themselves read from the output back up
        ax.annotate("", xy=(0, -3.85), xytext=(len(sizes) - 1, -3.85),
                    arrowprops=dict(arrowstyle="-|>", color=style.BACKPROP, linewidth=2.2, mutation_scale=22))
    ax.text(*((0, bottom) if phone else ((len(sizes) - 1) / 2, -3.98)), words["back"], ha="center", va="top",
            fontsize=10 if phone else 11.5, color=style.BACKPROP, wrap=phone)
    layer, i, j = KNOB
    factors = {"delta": deltas[layer][i], "a": values[layer - 1][j], "slope": grads[layer - 1][i, j]}
    knob = {name: style.number(value, ".4f", lang) for name, value in factors.items()}
    key = words["key"].format(**knob)
    if phone:  # one item a line, each wrapped on its own
        # as fit_to_phone wraps
        key = "\n".join(textwrap.fill(item, style.PHONE_NOTE) for item in key.split("\n"))
    ax.text(*((-2.05, bottom - 0.75) if phone else (-0.4, -5.7)), key, ha="left",
            va="top" if phone else "bottom",
            fontsize=8.5 if phone else 9.5, color=style.NEUTRAL, linespacing=1.4)
    return fig
