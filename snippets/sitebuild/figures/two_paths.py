"""A value used twice, on page 02: x = 2 reaches L = u · v along two paths, u = 3x and v = x², and the
backward pass brings one share along each path back to x, where they add up.

The numbers are the "two_paths" section of snippets/lessons/chain_rule.py, run as the page runs it: the
values and the gradients culpa left on x, u and v, and the lesson's two shares (downstream gradient times
local derivative, along one path each). What to notice: each path's share is the usual rule on a single
path, and x.grad is their sum, 12 + 24 = 36 (page 05 builds the engine's side of this on the same example).
"""

import functools

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch

from sitebuild import lessons, style

INPUTS = ["snippets/lessons/chain_rule.py"]

LABELS = {
    "pt": {
        "value": "{node} = {value}",
        "grad": "∂L/∂{node} = {grad}",
        "share": "por {node}: {down} × {local} = {share}",
        "total": "x.grad = {a} + {b} = {total}",
        "forward": "forward: valores",
        "backward": "backward: uma parcela por caminho",
    },
    "en": {
        "value": "{node} = {value}",
        "grad": "∂L/∂{node} = {grad}",
        "share": "via {node}: {down} × {local} = {share}",
        "total": "x.grad = {a} + {b} = {total}",
        "forward": "forward: values",
        "backward": "backward: one share per path",
    },
}

NAMES = {"x": "x", "u": "u = 3x", "v": "v = x²", "L": "L = u · v"}


@functools.cache  # the alt text and the build both need it
def data() -> dict:
    """Page 02's two-paths example, after its backward: values, gradients and each path's share."""
    page = lessons.run("chain_rule.py", "record", "two_paths")
    nodes = {name: page[name] for name in ("x", "u", "v", "L")}
    values = {name: float(t.data) for name, t in nodes.items()}
    grads = {name: float(nodes[name].grad) for name in ("x", "u", "v")} | {"L": 1.0}
    shares = {"u": float(page["via_u"]), "v": float(page["via_v"])}
    # each path's local derivative, read off the lesson's share: share = ∂L/∂node × ∂node/∂x
    local = {node: shares[node] / grads[node] for node in shares}
    return {"values": values, "grads": grads, "shares": shares, "local": local}


def _n(value, lang):
    return style.number(float(value), "g", lang)


def _alt(lang):
    d = data()
    v, g, s = ({k: _n(x, lang) for k, x in d[key].items()} for key in ("values", "grads", "shares"))
    if lang == "pt":
        return style.prose(f"""O grafo de L = u · v com u = 3x e v = x², em x = {v['x']}: x alimenta dois
            caminhos, u = {v['u']} e v = {v['v']}, que se juntam em L = {v['L']}. Ao lado de cada nó, o seu
            gradiente; setas roxas voltam de u e de v até x com a parcela de cada caminho, {s['u']} por u e
            {s['v']} por v. Repare que cada parcela é gradiente de jusante vezes derivada local ao longo de
            um caminho só, e que x.grad é a soma das duas, {g['x']}.""")
    return style.prose(f"""The graph of L = u · v with u = 3x and v = x², at x = {v['x']}: x feeds two paths,
        u = {v['u']} and v = {v['v']}, which meet in L = {v['L']}. Beside each node, its gradient; purple
        arrows go back from u and from v to x with each path's share, {s['u']} through u and {s['v']} through
        v. Notice that each share is downstream gradient times local derivative along a single path, and
        that x.grad is their sum, {g['x']}.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}

PLACES = {"x": (0.0, 0.0), "u": (1.0, 0.62), "v": (1.0, -0.62), "L": (2.0, 0.0)}


def draw(lang: str, d: dict):
    words = LABELS[lang]
    phone = style.on_phone()
    width, height = (3.9, 3.9) if phone else (6.6, 3.3)
    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(-0.42, 2.42)
    ax.set_ylim(-1.45 if phone else -1.3, 1.3 if phone else 1.2)
    size = 10.5 if phone else 12
    v, g = ({k: _n(x, lang) for k, x in d[key].items()} for key in ("values", "grads"))
    for node, (px, py) in PLACES.items():
        name = NAMES[node] if node == "x" else NAMES[node].split(" = ", 1)[1]
        label = words["value"].format(node=node if node == "x" else f"{node} = {name}", value=v[node])
        ax.text(px, py, label, ha="center", va="center", fontsize=size, zorder=3,
                bbox=dict(boxstyle="round,pad=0.35", facecolor="#ede7f6", edgecolor=style.BACKPROP,
                          linewidth=1.3))
        ax.text(px, py - 0.2, words["grad"].format(node=node, grad=g[node]), ha="center", va="top",
                fontsize=size - 1.5, color=style.BACKPROP, fontweight="bold" if node == "x" else "normal")
    for a, b in (("x", "u"), ("x", "v"), ("u", "L"), ("v", "L")):
        (x0, y0), (x1, y1) = PLACES[a], PLACES[b]
        ax.add_patch(FancyArrowPatch((x0 + 0.25, y0 + 0.12 * (y1 - y0)), (x1 - 0.3, y1 - 0.12 * (y1 - y0)),
                                     arrowstyle="-|>", mutation_scale=12, color=style.NEUTRAL, linewidth=1.2))
    for node, side in (("u", 1), ("v", -1)):  # the way back: each path hands its share to x
        end = (-0.05, 0.2) if side > 0 else (0.0, -0.5)  # below x's gradient, on the lower path
        ax.add_patch(FancyArrowPatch((0.72, 0.78 * side), end, arrowstyle="-|>",
                                     connectionstyle=f"arc3,rad={0.25 * side}", mutation_scale=15,
                                     color=style.BACKPROP, linewidth=2.0))
        share = words["share"].format(node=node, down=_n(d["grads"][node], lang),
                                      local=_n(d["local"][node], lang), share=_n(d["shares"][node], lang))
        ax.text(-0.38, 1.0 if side > 0 else -1.1, share, ha="left", va="center", fontsize=size - 1.5,
                color=style.BACKPROP)
    total = words["total"].format(a=_n(d["shares"]["u"], lang), b=_n(d["shares"]["v"], lang), total=g["x"])
    ax.text(2.38, -1.2 if not phone else -1.35, total, ha="right", va="center", fontsize=size,
            color=style.BACKPROP, fontweight="bold")
    return fig
