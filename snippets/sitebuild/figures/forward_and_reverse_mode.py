"""Forward mode beside reverse mode on page 02's function of three inputs, f = tanh(x₁x₂ + x₃) · exp(x₁x₂):
three forward-mode sweeps, each carrying one input's tangent to f, against one reverse-mode sweep that
carries ∂f/∂f = 1 back to all three inputs.

Both come from the "dual" section of snippets/lessons/chain_rule.py at its point (1.5, 0.5, −0.2): the
graph and the gradients are culpa's (culpa.graph.export after one backward), the tangents are the
lesson's own Dual numbers, read off every Dual the lesson's f creates. What to notice: each forward sweep
ends with one of the three slopes at f, so three inputs need three sweeps; the single backward sweep ends
with all three at the inputs, and the numbers are the same.
"""

import functools

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from sitebuild import lessons, style

INPUTS = ["snippets/lessons/chain_rule.py"]

FORWARD_MODE = "#2e7d32"  # a tangent carried forward (no other figure draws forward mode)

# culpa's nodes of f, in its topological order: op, name in the figure, place (column, row) in a panel
NODES = [
    ("leaf", "x₁", (0, 1.0)), ("leaf", "x₂", (0, 0.0)), ("mul", "u = x₁x₂", (1, 0.5)),
    ("leaf", "x₃", (0, -1.0)), ("add", "s = u + x₃", (2, -0.5)), ("tanh", "tanh s", (3.05, -0.5)),
    ("exp", "exp u", (2.3, 1.0)), ("mul", "f", (4, 0.25)),
]

LABELS = {
    "pt": {
        "forward_title": "Modo direto: uma varredura por entrada",
        "reverse_title": "Modo reverso: uma varredura só",
        "sweep": "varredura {n}: tangente 1 em {x}",
        "back": "∂f/∂nó, a partir de ∂f/∂f = 1",
        "gives_one": "dá ∂f/∂{x}",
        "gives_all": "dá ∂f/∂x₁, ∂f/∂x₂ e ∂f/∂x₃",
        "function": "f = tanh(x₁x₂ + x₃) · exp(x₁x₂)",
    },
    "en": {
        "forward_title": "Forward mode: one sweep per input",
        "reverse_title": "Reverse mode: a single sweep",
        "sweep": "sweep {n}: tangent 1 at {x}",
        "back": "∂f/∂node, starting from ∂f/∂f = 1",
        "gives_one": "gives ∂f/∂{x}",
        "gives_all": "gives ∂f/∂x₁, ∂f/∂x₂ and ∂f/∂x₃",
        "function": "f = tanh(x₁x₂ + x₃) · exp(x₁x₂)",
    },
}

INPUT_IDS = [i for i, (op, _, _) in enumerate(NODES) if op == "leaf"]


@functools.cache  # the alt text and the build both need it
def data() -> dict:
    """culpa's graph of f with its gradients (one backward), and each forward sweep's tangent per node."""
    import culpa

    page = lessons.run("chain_rule.py", "record", "dual")
    f, point, lesson_dual = page["f"], page["point"], page["Dual"]
    tensors = [culpa.Tensor(v, requires_grad=True) for v in point]
    out = f(*tensors)
    out.backward(retain_graph=True)
    graph = culpa.graph.export(out)
    ops = [node["op"] for node in graph["nodes"]]
    if ops != [op for op, _, _ in NODES]:
        raise ValueError(f"page 02's f changed: culpa recorded the ops {ops}, the figure names "
                         f"{[op for op, _, _ in NODES]}; update NODES in {__file__}")

    created = []

    class Recorded(lesson_dual):  # the lesson's Dual, noting every number it makes, in order
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            created.append(self)

    page["Dual"] = Recorded  # the lesson's methods build their results by this global name
    tangents = []
    for i in range(len(point)):  # one forward sweep per input, as the lesson does
        created.clear()
        duals = [Recorded(v, 1.0 if j == i else 0.0) for j, v in enumerate(point)]
        f(*duals)
        made = created[len(duals):]
        inner = [node for node in graph["nodes"] if node["op"] != "leaf"]
        if len(made) != len(inner) or any(abs(m.value - n["value"]) > 1e-12 for m, n in
                                           zip(made, inner, strict=True)):
            raise ValueError("the lesson's Dual f no longer makes culpa's nodes in culpa's order")
        leaves, inner_made = iter(duals), iter(made)  # culpa's leaves are the inputs, in order
        tangents.append([next(leaves if node["op"] == "leaf" else inner_made).tangent
                         for node in graph["nodes"]])
    page["Dual"] = lesson_dual
    return {**graph, "point": point, "tangents": tangents,
            "forward_sweeps": len(tangents), "reverse_sweeps": 1}


def _show(value, lang):
    """Three decimals at most, as the page's language writes them: 1,323 in pt; 0 and 1 stay bare."""
    text = format(float(value) + 0.0, ".3f").rstrip("0").rstrip(".")
    return style.localize(text, lang)


def _alt(lang):
    d = data()
    grads = style.sequence([_show(d["nodes"][i]["grad"], lang) for i in INPUT_IDS], lang, "")
    ends = style.sequence([_show(t[-1], lang) for t in d["tangents"]], lang, "")
    point = style.sequence([_show(v, lang) for v in d["point"]], lang)
    n = d["forward_sweeps"]
    if lang == "pt":
        return style.prose(f"""O mesmo grafo, f = tanh(x₁x₂ + x₃) · exp(x₁x₂) no ponto {point},
            desenhado quatro vezes. À esquerda, o modo direto em {n} varreduras: cada uma começa com
            tangente 1 numa entrada e 0 nas outras, leva a tangente para frente nó a nó e termina em f com
            uma só inclinação ({ends}). À direita, o modo reverso numa varredura: parte
            de ∂f/∂f = 1 em f, volta nó a nó e termina nas três entradas com {grads} de
            uma vez. Repare que os números são os mesmos, e que o modo direto pede uma varredura por
            entrada, o reverso uma só.""")
    return style.prose(f"""The same graph, f = tanh(x₁x₂ + x₃) · exp(x₁x₂) at the point {point},
        drawn four times. Left, forward mode in {n} sweeps: each starts with tangent 1 at one input and 0 at
        the others, carries the tangent forward node by node and ends at f with a single slope
        ({ends}). Right, reverse mode in one sweep: it starts from ∂f/∂f = 1 at f, goes
        back node by node and ends at the three inputs with {grads} at once. Notice that
        the numbers are the same, and that forward mode needs one sweep per input, reverse mode one.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}

COLUMN, ROW_GAP, LEFT, MIDDLE = 0.78, 0.42, 0.3, 0.85  # inches, within a panel
PANEL_W, PANEL_H = 3.6, 1.75  # inches: one drawing of the graph with its title


def _panel(fig, box, d, numbers, color, backward, title, note, strong, lang):
    """One drawing of f's graph in the figure's inch box (left, bottom): a number under every node."""
    w, h = fig.get_size_inches()
    ax = fig.add_axes((box[0] / w, box[1] / h, PANEL_W / w, PANEL_H / h))
    ax.set_axis_off()
    ax.set_xlim(0, PANEL_W)  # the panel's coordinates are inches
    ax.set_ylim(0, PANEL_H)

    def at(i):
        column, row = NODES[i][2]
        return LEFT + column * COLUMN, MIDDLE + row * ROW_GAP

    for node in d["nodes"]:
        for parent in node["parents"]:
            a, b = at(parent), at(node["id"])
            start, end = (b, a) if backward else (a, b)
            ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=10, color=color,
                                         linewidth=1.2, shrinkA=11, shrinkB=11, alpha=0.8))
    for node, (_, name, _) in zip(d["nodes"], NODES, strict=True):
        x, y = at(node["id"])
        width = 0.17 + 0.062 * len(name)
        ax.add_patch(FancyBboxPatch((x - width / 2, y - 0.09), width, 0.18, boxstyle="round,pad=0.02",
                                    facecolor="white", edgecolor=style.NEUTRAL, linewidth=1.0, zorder=2))
        ax.text(x, y, name, ha="center", va="center", fontsize=9, zorder=3)
        ax.text(x, y - 0.13, _show(numbers[node["id"]], lang), ha="center", va="top", fontsize=9,
                color=color, zorder=3, fontweight="bold" if node["id"] in strong else "normal")
    ax.text(0.05, PANEL_H - 0.03, title, ha="left", va="top", fontsize=10, fontweight="bold", color=color)
    ax.text(PANEL_W - 0.05, 0.03, note, ha="right", va="bottom", fontsize=9.5, color=color,
            fontstyle="italic")


def draw(lang: str, d: dict):
    words = LABELS[lang]
    phone = style.on_phone()
    n = d["forward_sweeps"]
    gap, head = 0.1, 0.75
    if phone:
        width = PANEL_W + 0.2
        height = head + n * (PANEL_H + gap) + 0.4 + PANEL_H + 0.1
        spots = [(0.1, height - head - (i + 1) * (PANEL_H + gap)) for i in range(n)]
        reverse_spot = (0.1, 0.1)
        titles = [(0.1, height - 0.4, words["forward_title"], FORWARD_MODE),
                  (0.1, PANEL_H + 0.45, words["reverse_title"], style.BACKPROP)]
    else:
        width, height = 2 * PANEL_W + 0.5, head + n * (PANEL_H + gap)
        spots = [(0.1, height - head - (i + 1) * (PANEL_H + gap)) for i in range(n)]
        reverse_spot = (PANEL_W + 0.4, (height - head - PANEL_H) / 2)
        titles = [(0.1, height - 0.4, words["forward_title"], FORWARD_MODE),
                  (PANEL_W + 0.4, height - 0.4, words["reverse_title"], style.BACKPROP)]
    fig = Figure(figsize=(width, height))
    fig.text(0.1 / width, 1 - 0.08 / height, words["function"], ha="left", va="top", fontsize=11)
    for x, y, text, color in titles:
        fig.text(x / width, y / height, text, ha="left", va="top", fontsize=11.5, fontweight="bold",
                 color=color)
    output = d["nodes"][-1]["id"]
    for i, spot in enumerate(spots):
        name = NODES[INPUT_IDS[i]][1]
        _panel(fig, spot, d, d["tangents"][i], FORWARD_MODE, False,
               words["sweep"].format(n=i + 1, x=name), words["gives_one"].format(x=name),
               {INPUT_IDS[i], output}, lang)
    grads = [node["grad"] for node in d["nodes"]]
    _panel(fig, reverse_spot, d, grads, style.BACKPROP, True, words["back"], words["gives_all"],
           set(INPUT_IDS) | {output}, lang)
    return fig
