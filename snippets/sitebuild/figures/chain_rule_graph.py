"""The running example of page 02 as culpa recorded it: x → a = tanh(x) → b = eᵃ → L = b², each node's
forward value, its gradient ∂L/∂node, and the local derivative (the "lens") on each edge.

The graph is page 02's own (the "record" section of snippets/lessons/chain_rule.py, x = 0.5), exported
with culpa.graph.export after one backward pass; the local derivatives are read off culpa's gradients
(∂L/∂parent ÷ ∂L/∂child), not typed. What to notice: the forward pass goes down the values, the backward
pass comes up the gradients from ∂L/∂L = 1, and each gradient is the one below it times the lens between
them, so the gradient at x is the product of the three lenses.
"""

import functools

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from sitebuild import lessons, style

INPUTS = ["snippets/lessons/chain_rule.py"]

# The page's chain, in culpa's topological order: the op of each node and how the figure names it.
NODES = [("leaf", "x"), ("tanh", "a = tanh(x)"), ("exp", "b = eᵃ"), ("pow", "L = b²")]
# The local derivative of each op, as the page writes it.
LENSES = {"tanh": "1 − a²", "exp": "eᵃ = b", "pow": "2b"}

LABELS = {
    "pt": {
        "forward": "forward: valores",
        "node": "nó do grafo",
        "backward": "backward: ∂L/∂nó",
        "step": "passo",
        "lens": "× derivada local",
        "start": "= ∂L/∂L",
        "product": "= produto das lentes",
    },
    "en": {
        "forward": "forward: values",
        "node": "graph node",
        "backward": "backward: ∂L/∂node",
        "step": "step",
        "lens": "× local derivative",
        "start": "= ∂L/∂L",
        "product": "= product of the lenses",
    },
}


@functools.cache  # the alt text and the build both need it
def data() -> dict:
    """Page 02's chain, one backward pass (keeping the graph), culpa's export, and each edge's lens."""
    import culpa

    page = lessons.run("chain_rule.py", "record")
    loss = page["L"]
    loss.backward(retain_graph=True)
    graph = culpa.graph.export(loss)
    ops = [node["op"] for node in graph["nodes"]]
    if ops != [op for op, _ in NODES]:
        raise ValueError(f"page 02's chain changed: culpa recorded the ops {ops}, the figure names "
                         f"{[op for op, _ in NODES]}; update NODES in {__file__}")
    nodes = graph["nodes"]
    # the lens of the edge parent -> child: how much of the child's gradient reaches the parent
    lenses = [nodes[i - 1]["grad"] / nodes[i]["grad"] for i in range(1, len(nodes))]
    return {**graph, "lenses": lenses}


def _show(value, lang):
    """4 decimals as the page writes them (3,9636 in pt), 1 for exactly one."""
    return "1" if value == 1.0 else style.number(float(value), ".4f", lang)


def _alt(lang):
    d = data()
    v = [_show(node["value"], lang) for node in d["nodes"]]
    g = [_show(node["grad"], lang) for node in d["nodes"]]
    lenses = style.conjunction([_show(x, lang) for x in reversed(d["lenses"])], lang)
    if lang == "pt":
        return style.prose(f"""O grafo registrado da cadeia desta página, de cima para baixo: x, a = tanh(x),
            b = eᵃ e L = b². À esquerda de cada nó, o valor do forward pass (x = {v[0]}, a = {v[1]},
            b = {v[2]}, L = {v[3]}); à direita, o gradiente ∂L/∂nó que o backward pass deixou, subindo de
            ∂L/∂L = 1 para {g[2]}, {g[1]} e {g[0]} em x, com a derivada local de cada operação entre um nó e
            outro: {lenses}. Repare que cada gradiente é o de baixo vezes a lente entre os dois, e que o de x
            é o produto das três lentes.""")
    return style.prose(f"""The recorded graph of this page's chain, top to bottom: x, a = tanh(x), b = eᵃ
        and L = b². Left of each node, the value of the forward pass (x = {v[0]}, a = {v[1]}, b = {v[2]},
        L = {v[3]}); right of it, the gradient ∂L/∂node the backward pass left there, climbing from
        ∂L/∂L = 1 to {g[2]}, {g[1]} and {g[0]} at x, with each op's local derivative between one node and
        the next: {lenses}. Notice that each gradient is the one below it times the lens between them, and
        that x's is the product of the three lenses.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}

ROW = 0.95  # inches between rows
# desktop: value | node | gradient and lens | step
DESKTOP = {"ROW": ROW, "VALUE_RIGHT": 1.75, "BOX_LEFT": 2.0, "BOX_RIGHT": 3.5, "GRAD_LEFT": 3.8,
           "STEP_X": 6.8, "WIDTH": 7.2}
# phone: step | node | value over gradient, the lens between the rows
PHONE = {"ROW": 1.05, "BOX_LEFT": 0.5, "BOX_RIGHT": 1.75, "GRAD_LEFT": 1.9, "STEP_X": 0.22, "WIDTH": 3.9}


def draw(lang: str, d: dict):
    words = LABELS[lang]
    nodes = d["nodes"]
    step = {node_id: i for i, node_id in enumerate(d["backward_order"], start=1)}
    phone = style.on_phone()
    k = PHONE if phone else DESKTOP
    row, box_left, box_right, grad_left, step_x, width = (
        k["ROW"], k["BOX_LEFT"], k["BOX_RIGHT"], k["GRAD_LEFT"], k["STEP_X"], k["WIDTH"])
    value_at = (grad_left, 0.1, "left", "bottom") if phone else (k["VALUE_RIGHT"], 0, "right", "center")
    grad_dy, grad_va = (-0.04, "top") if phone else (0, "center")
    top_room = 0.95 if phone else 0.75
    height = row * (len(nodes) - 1) + top_room + 0.45
    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(-row * (len(nodes) - 1) - 0.45, top_room)

    def y(node_id):
        return -row * node_id

    mid = (box_left + box_right) / 2
    head = 0.42
    heads = ((value_at[0], words["forward"], value_at[2], head + (0.22 if phone else 0)),
             (mid, words["node"], "center", head), (grad_left, words["backward"], "left", head),
             (0.02, words["step"], "left", head + 0.22) if phone else (step_x, words["step"], "center", head))
    for x, label, ha, top in heads:
        ax.text(x, top, label, ha=ha, va="bottom", fontsize=11.5, fontweight="bold",
                color=style.BACKPROP if "∂" in label or label == words["step"] else "black")

    for node in nodes[1:]:  # the chain's edges, each with its lens (the op's local derivative)
        start, end = y(node["id"] - 1), y(node["id"])
        ax.add_patch(FancyArrowPatch((mid, start - 0.2), (mid, end + 0.2), arrowstyle="-|>",
                                     mutation_scale=12, color=style.NEUTRAL, linewidth=1.2))
        lens = d["lenses"][node["id"] - 1]
        text = f"× {_show(lens, lang)}"
        if not phone:
            text = f"{words['lens']} {LENSES[node['op']]} = {_show(lens, lang)}"
        ax.text(mid + 0.12, (start + end) / 2, text, ha="left", va="center",
                fontsize=9.5, color=style.BACKPROP, fontstyle="italic")

    for node, (_, name) in zip(nodes, NODES, strict=True):
        yy = y(node["id"])
        ax.add_patch(FancyBboxPatch((box_left, yy - 0.17), box_right - box_left, 0.34,
                                    boxstyle="round,pad=0.02,rounding_size=0.08", facecolor="#ede7f6",
                                    edgecolor=style.BACKPROP, linewidth=1.3))
        ax.text(mid, yy, name, ha="center", va="center", fontsize=12)
        ax.text(value_at[0], yy + value_at[1], _show(node["value"], lang), ha=value_at[2], va=value_at[3],
                fontsize=10.5)
        is_input, is_loss = node["id"] == 0, node["id"] == len(nodes) - 1
        grad = _show(node["grad"], lang)
        if not phone and (is_input or is_loss):
            grad += " " + (words["start"] if is_loss else words["product"])
        ax.text(grad_left, yy + grad_dy, grad, ha="left", va=grad_va, fontsize=10.5, color=style.BACKPROP,
                fontweight="bold" if is_input or is_loss else "normal")
        ax.scatter([step_x], [yy], s=330, color=style.BACKPROP, zorder=3)
        ax.text(step_x, yy, str(step[node["id"]]), ha="center", va="center", color="white", fontsize=11,
                fontweight="bold", zorder=4)
    if phone:  # no room for the two long arrows: the step numbers give the direction
        return fig
    top, bottom = y(0), y(len(nodes) - 1)
    ax.add_patch(FancyArrowPatch((0.18, top), (0.18, bottom), arrowstyle="-|>", mutation_scale=18,
                                 color="black", linewidth=1.8))
    ax.add_patch(FancyArrowPatch((step_x + 0.3, bottom), (step_x + 0.3, top), arrowstyle="-|>",
                                 mutation_scale=18, color=style.BACKPROP, linewidth=1.8))
    return fig

