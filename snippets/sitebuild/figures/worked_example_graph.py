"""The worked example's computation graph, as culpa recorded it: forward values on the way to the loss,
gradients on the way back toward the input, and the order in which the backward pass visits the nodes
(page 03).

The graph is page 03's own (the "forward" section of snippets/lessons/worked_example.py, logits
z = (2.0, 1.0, 0.1), observed class 0), exported with culpa.graph.export after one backward pass.
What to notice: backward starts at ∂L/∂L = 1 and walks the ops in reverse, each applying only its own
local derivative; e = exp(z) feeds two ops, so its gradient is the sum of two contributions; and what
reaches the logits is p − y = (−0.341, 0.242, 0.099).
"""

import functools

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from sitebuild import lessons, style

INPUTS = ["snippets/lessons/worked_example.py"]

# The page's graph, in culpa's topological order: the op of each node and how the figure names it.
NODES = [
    ("leaf", "z"),
    ("exp", "e = exp(z)"),
    ("sum", "s = Σ e"),
    ("div", "p = e / s"),
    ("leaf", "y"),
    ("mul", "p ⊙ y"),
    ("sum", "Σ p ⊙ y = p₀"),
    ("log", "log p₀"),
    ("neg", "L = −log p₀"),
]

LABELS = {
    "pt": {
        "forward": "forward: valores",
        "node": "nó do grafo",
        "backward": "backward: ∂L/∂nó",
        "step": "passo",
        "constant": "constante:\nsem gradiente",
        "result": "= p − y",
        "sum_note": "duas contribuições somadas",
    },
    "en": {
        "forward": "forward: values",
        "node": "graph node",
        "backward": "backward: ∂L/∂node",
        "step": "step",
        "constant": "constant:\nno gradient",
        "result": "= p − y",
        "sum_note": "two contributions summed",
    },
}
@functools.cache  # the alt text and the build both need it
def data() -> dict:
    """Page 03's forward pass, one backward pass (keeping the graph), and culpa's export of it."""
    import culpa

    page = lessons.run("worked_example.py", "forward")
    loss = page["loss"]
    loss.backward(retain_graph=True)
    graph = culpa.graph.export(loss)
    ops = [node["op"] for node in graph["nodes"]]
    if ops != [op for op, _ in NODES]:
        raise ValueError(f"page 03's graph changed: culpa recorded the ops {ops}, the figure names "
                         f"{[op for op, _ in NODES]}; update NODES in {__file__}")
    return {**graph, "p": page["p"].data, "y": page["y"]}


def _show(value, lang):
    """A node's value or gradient as the page writes numbers: (0,659; 0,242; 0,099) in pt."""
    if value is None:
        return "—"
    values = np.atleast_1d(np.asarray(value, dtype=float)) + 0.0  # + 0.0 turns -0.0 into 0.0
    trimmed = [format(v, ".3f").rstrip("0") for v in values]  # 2.000 -> 2.0, 0.100 -> 0.1, 0.659 stays
    text = [style.localize(t + "0" if t.endswith(".") else t, lang) for t in trimmed]
    if np.ndim(value) == 0:
        return text[0]
    return style.sequence(text, lang)


def _alt(lang):
    d = data()
    nodes = d["nodes"]
    p, loss, grad = _show(d["p"], lang), _show(nodes[-1]["value"], lang), _show(nodes[0]["grad"], lang)
    steps = len(d["backward_order"])
    if lang == "pt":
        return style.prose(f"""O grafo de computação do exemplo resolvido, com z no topo e L embaixo: z,
            e = exp(z), s = Σ e, p = e / s, a constante y, p ⊙ y, a soma p₀, log p₀ e L = −log p₀. À esquerda
            de cada nó, o valor calculado no forward pass (p = {p}, L = {loss}); à direita, o gradiente ∂L/∂nó
            e o número do passo em que o backward pass o visita, de 1 em L até {steps} em z. Repare que o
            backward começa em ∂L/∂L = 1 e volta em direção à entrada, z, que e recebe a soma de duas
            contribuições porque alimenta dois nós, e que o gradiente que chega a z é p − y = {grad}.""")
    return style.prose(f"""The worked example's computation graph, with z at the top and L at the bottom: z,
        e = exp(z), s = Σ e, p = e / s, the constant y, p ⊙ y, the sum p₀, log p₀ and L = −log p₀. Left of
        each node, the value the forward pass computed (p = {p}, L = {loss}); right of it, the gradient
        ∂L/∂node and the step at which the backward pass visits it, from 1 at L to {steps} at z. Notice that
        backward starts at ∂L/∂L = 1 and goes back toward the input, z, that e gets the sum of two
        contributions because it feeds two nodes, and that the gradient reaching z is p − y = {grad}.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}


ROW = 0.56  # inches between rows
VALUE_RIGHT, BOX_LEFT, BOX_RIGHT, GRAD_LEFT, STEP_X = 2.45, 2.75, 4.45, 4.7, 7.05
# On a phone: the step, the node, then its value over its gradient, so the backward column stays in view.
PHONE = {"ROW": 0.8, "BOX_LEFT": 0.5, "BOX_RIGHT": 1.6, "GRAD_LEFT": 1.68, "STEP_X": 0.22, "WIDTH": 3.9}


def draw(lang: str, d: dict):
    words = LABELS[lang]
    nodes = d["nodes"]
    step = {node_id: i for i, node_id in enumerate(d["backward_order"], start=1)}
    phone = style.on_phone()
    row, box_left, box_right, grad_left, step_x, width = (
        [PHONE[k] for k in ("ROW", "BOX_LEFT", "BOX_RIGHT", "GRAD_LEFT", "STEP_X", "WIDTH")] if phone
        else (ROW, BOX_LEFT, BOX_RIGHT, GRAD_LEFT, STEP_X, 7.4))
    value_at = (grad_left, 0.12, "left", "bottom") if phone else (VALUE_RIGHT, 0, "right", "center")
    grad_dy, grad_va = (-0.02, "top") if phone else (0, "center")
    height = row * (len(nodes) + (1.3 if phone else 0.9))
    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(-height + 0.9 * row, (1.3 if phone else 0.9) * row)

    def y(node_id):
        return -row * node_id

    mid = (box_left + box_right) / 2
    heads = ((value_at[0], words["forward"], value_at[2], 0.45 * row + (0.2 if phone else 0)),
             (mid, words["node"], "center", 0.45 * row), (grad_left, words["backward"], "left", 0.45 * row),
             # on a phone the step column is narrow: its header sits a line higher, clear of the node's
             (0.02, words["step"], "left", 0.45 * row + 0.2) if phone else
             (step_x, words["step"], "center", 0.45 * row))
    for x, label, ha, top in heads:
        ax.text(x, top, label, ha=ha, va="bottom", fontsize=11.5, fontweight="bold",
                color=style.BACKPROP if "∂" in label or label == words["step"] else "black")

    # A constant leaf (y) is no step of the chain: it sits aside, at the left of its row, and feeds its
    # child by a short arrow of its own; the arrow from the node above it goes straight past it to the child.
    aside = {node["id"] for node in nodes if not node["requires_grad"] and not node["parents"]}
    aside_right = box_left + (0.42 if phone else 0.62)

    def box_span(node_id):
        return (box_left, aside_right) if node_id in aside else (box_left, box_right)

    for node in nodes:  # edges: a parent feeds its child (straight when adjacent, an arc when not)
        for parent in node["parents"]:
            start, end = y(parent), y(node["id"])
            between = set(range(parent + 1, node["id"]))
            if parent in aside:
                x0 = sum(box_span(parent)) / 2
                ax.add_patch(FancyArrowPatch((x0, start - 0.17), (mid - 0.3, end + 0.17), arrowstyle="-|>",
                                             mutation_scale=12, color=style.NEUTRAL, linewidth=1.2,
                                             shrinkA=0, shrinkB=1))
            elif between <= aside:
                ax.add_patch(FancyArrowPatch((mid, start - 0.2), (mid, end + 0.2), arrowstyle="-|>",
                                             mutation_scale=12, color=style.NEUTRAL, linewidth=1.2))
            else:
                ax.add_patch(FancyArrowPatch((box_left, start), (box_left, end), arrowstyle="-|>",
                                             connectionstyle="arc3,rad=0.45", mutation_scale=12,
                                             color=style.NEUTRAL, linewidth=1.2))
    children = {node["id"]: sum(node["id"] in other["parents"] for other in nodes) for node in nodes}

    for node, (_, name) in zip(nodes, NODES, strict=True):
        yy, constant = y(node["id"]), not node["requires_grad"]
        left, right = box_span(node["id"])
        ax.add_patch(FancyBboxPatch((left, yy - 0.17), right - left, 0.34,
                                    boxstyle="round,pad=0.02,rounding_size=0.08",
                                    facecolor="#f5f5f5" if constant else "#ede7f6",
                                    edgecolor=style.NEUTRAL if constant else style.BACKPROP,
                                    linestyle="--" if constant else "-", linewidth=1.3))
        ax.text((left + right) / 2, yy, name, ha="center", va="center", fontsize=12)
        ax.text(value_at[0], yy + value_at[1], _show(node["value"], lang), ha=value_at[2], va=value_at[3],
                fontsize=10.5)
        if constant:
            ax.text(grad_left, yy + grad_dy, words["constant"], ha="left", va=grad_va, fontsize=9.5,
                    color=style.NEUTRAL, linespacing=1.0)
            continue
        is_input = node["id"] == 0
        ax.text(grad_left, yy + grad_dy, _show(node["grad"], lang), ha="left", va=grad_va, fontsize=10.5,
                color=style.BACKPROP, fontweight="bold" if is_input else "normal")
        note = words["result"] if is_input else words["sum_note"] if children[node["id"]] > 1 else None
        if note:
            ax.text(grad_left, yy - (0.24 if phone else 0.19), note, ha="left", va="top",
                    fontsize=10 if is_input else 9.5,
                    color=style.BACKPROP if is_input else style.NEUTRAL)
        ax.scatter([step_x], [yy], s=330, color=style.BACKPROP, zorder=3)
        ax.text(step_x, yy, str(step[node["id"]]), ha="center", va="center", color="white", fontsize=11,
                fontweight="bold", zorder=4)
    # the two directions: forward from z to L along the values, backward from L to z along the gradients
    top, bottom = y(0), y(len(nodes) - 1)
    if phone:  # no room for the two long arrows: the step numbers give the direction
        return fig
    ax.add_patch(FancyArrowPatch((0.18, top), (0.18, bottom), arrowstyle="-|>", mutation_scale=18,
                                 color="black", linewidth=1.8))
    ax.add_patch(FancyArrowPatch((step_x + 0.25, bottom), (step_x + 0.25, top), arrowstyle="-|>",
                                 mutation_scale=18, color=style.BACKPROP, linewidth=1.8))
    return fig
