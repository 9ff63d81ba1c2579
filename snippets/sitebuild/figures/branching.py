"""Branching: a value used twice gets the sum of both contributions, and the buffer that sums them keeps
summing until someone zeroes it (page 05).

Page 05's own example: x = 2 reaches L = u · v by two paths, u = 3x and v = x²; culpa records the graph
and backward runs it. What to notice: the gradient arriving at x is 12 (through u) plus 24 (through v),
exactly the multivariate chain rule; and because .grad accumulates, a second backward without zeroing gives
72, not 36: only the training loop knows where a batch ends, so it must zero the gradients there.
"""

import numpy as np
from matplotlib.patches import FancyArrowPatch

import culpa
from sitebuild import style

X0 = 2.0
SCALE = 3.0
STEPS = 3

LABELS = {
    "pt": {
        "graph_title": "Um valor usado duas vezes",
        "buffer_title": "O que x.grad guarda",
        "via": "via {node}: {value}",
        "total": "∂L/∂x = {a} + {b} = {total}",
        "forward": "forward",
        "backward": "backward",
        "call": "{n}º",
        "calls": "chamada de backward",
        "zeroed": "zerando antes de cada batch",
        "kept": "sem zerar",
    },
    "en": {
        "graph_title": "One value used twice",
        "buffer_title": "What x.grad holds",
        "via": "via {node}: {value}",
        "total": "∂L/∂x = {a} + {b} = {total}",
        "forward": "forward",
        "backward": "backward",
        "call": "{n}",
        "calls": "backward call",
        "zeroed": "zeroed before each batch",
        "kept": "never zeroed",
    },
}


def forward(x):
    u = x * SCALE  # first path
    v = x**2  # second path: the same x, used a second time
    return u * v, u, v


def data() -> dict:
    """The graph of L = u · v (u = 3x, v = x²), its backward, each path's share, and .grad over calls."""
    x = culpa.Tensor(X0, requires_grad=True, name="x")
    loss, u, v = forward(x)
    loss.backward(retain_graph=True)
    graph = culpa.graph.export(loss)

    shares = {}
    for path in ("u", "v"):  # one path at a time: the other use of x is cut off with detach()
        x_path = culpa.Tensor(X0, requires_grad=True)
        u_path = (x_path if path == "u" else x_path.detach()) * SCALE
        v_path = (x_path if path == "v" else x_path.detach()) ** 2
        (u_path * v_path).backward()
        shares[path] = x_path.grad

    buffers = {}
    for zero in (True, False):
        x_loop, seen = culpa.Tensor(X0, requires_grad=True), []
        for _ in range(STEPS):
            if zero:
                x_loop.zero_grad()
            forward(x_loop)[0].backward()
            seen.append(x_loop.grad)
        buffers["zeroed" if zero else "kept"] = seen
    return {"graph": graph, "x": X0, "u": u.data, "v": v.data, "loss": loss.data, "grad": x.grad,
            "shares": shares, "buffers": buffers}


def _n(value, lang):
    return style.number(float(value), "g", lang)


def _alt(lang):
    d = data()
    numbers = {"u": _n(d["shares"]["u"], lang), "v": _n(d["shares"]["v"], lang), "g": _n(d["grad"], lang)}
    kept = style.sequence([_n(v, lang) for v in d["buffers"]["kept"]], lang)
    if lang == "pt":
        return style.prose(f"""À esquerda, o grafo de L = u · v com u = 3x e v = x², em x = 2: x alimenta
            dois caminhos, e o backward pass traz {numbers['u']} por u e {numbers['v']} por v, que se somam em
            ∂L/∂x = {numbers['g']}. À direita, x.grad após três backward: sempre {numbers['g']} quando o
            buffer é zerado antes de cada batch, e {kept} quando não é. Repare que somar as contribuições é
            a regra da cadeia multivariada, e que o mesmo acúmulo estraga o gradiente se ninguém zerar o
            buffer.""")
    return style.prose(f"""Left, the graph of L = u · v with u = 3x and v = x², at x = 2: x feeds two paths,
        and the backward pass brings {numbers['u']} through u and {numbers['v']} through v, which add up to
        ∂L/∂x = {numbers['g']}. Right, x.grad after three backward calls: always {numbers['g']} when the
        buffer is zeroed before each batch, and {kept} when it is not. Notice that summing the contributions
        is the multivariate chain rule, and that the same accumulation spoils the gradient if nobody zeroes
        the buffer.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}

POSITIONS = {"x": (0.0, 0.0), "u": (1.0, 0.62), "v": (1.0, -0.62), "L": (2.0, 0.0)}


def draw(lang: str, d: dict):
    words = LABELS[lang]
    fig, (left, right) = style.new_figure(3.9, width=7.6, ncols=2, width_ratios=[1.75, 1])
    left.set_axis_off()
    left.set_xlim(-0.45, 2.4)
    left.set_ylim(-1.25, 1.05)
    shares = {k: _n(v, lang) for k, v in d["shares"].items()}
    texts = {"x": f"x = {_n(d['x'], lang)}", "u": f"u = 3x = {_n(d['u'], lang)}",
             "v": f"v = x² = {_n(d['v'], lang)}", "L": f"L = u · v\n= {_n(d['loss'], lang)}"}
    for node, (px, py) in POSITIONS.items():
        left.text(px, py, texts[node], ha="center", va="center", fontsize=12, zorder=3,
                  bbox=dict(boxstyle="round,pad=0.4", facecolor="#ede7f6", edgecolor=style.BACKPROP,
                            linewidth=1.4))
    forward_edges = {("x", "u"): ((0.2, 0.1), (0.66, 0.5)), ("x", "v"): ((0.2, -0.1), (0.66, -0.5)),
                     ("u", "L"): ((1.34, 0.5), (1.72, 0.16)), ("v", "L"): ((1.34, -0.5), (1.72, -0.16))}
    for start, end in forward_edges.values():
        left.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, color=style.NEUTRAL,
                                       linewidth=1.3, zorder=1))
    for node, side in (("u", 1), ("v", -1)):  # backward: each path's share flows back into x
        left.add_patch(FancyArrowPatch((0.8, 0.4 * side), (0.24, 0.0), arrowstyle="-|>",
                                       connectionstyle=f"arc3,rad={0.3 * side}", mutation_scale=16,
                                       color=style.BACKPROP, linewidth=2.2, zorder=2))
        left.text(0.62, 0.1 * side, words["via"].format(node=node, value=shares[node]), ha="left",
                  va="center", fontsize=11.5, color=style.BACKPROP, fontweight="bold")
    total = words["total"].format(a=shares["u"], b=shares["v"], total=_n(d["grad"], lang))
    left.text(-0.4, -1.0, total, ha="left", va="top", fontsize=13, color=style.BACKPROP,
              fontweight="bold")
    left.set_title(words["graph_title"])

    calls = np.arange(1, STEPS + 1)
    width = 0.38
    right.bar(calls - width / 2, d["buffers"]["zeroed"], width, color=style.BACKPROP, label=words["zeroed"])
    right.bar(calls + width / 2, d["buffers"]["kept"], width, color=style.PUSH_DOWN, label=words["kept"])
    top = max(d["buffers"]["kept"])
    for series, offset in (("zeroed", -width / 2), ("kept", width / 2)):
        for c, v in zip(calls, d["buffers"][series], strict=True):
            right.text(c + offset, v + 0.012 * top, _n(v, lang), ha="center", va="bottom", fontsize=10.5)
    right.set_xticks(calls, [words["call"].format(n=n) for n in calls])
    right.set_xlabel(words["calls"])
    right.set_ylim(0, max(d["buffers"]["kept"]) * 1.45)
    right.set_title(words["buffer_title"])
    right.legend(loc="upper left", fontsize=10.5)
    style.localize_axes(right, lang)
    return fig
