"""The blame explorer (page 04): forward keeps each layer's activations, backward carries δ toward the input,
and any weight's slope is δ × the input it multiplied.

It runs page 04's own "network" section (snippets/lessons/through_a_network.py: the 4-5-4-3 sigmoid MLP,
its example x and class c) through culpa, one layer at a time as the page's figure does, and one backward
pass. Every number is culpa's: the activations a⁽ˡ⁾ are the forward values, δ⁽ˡ⁾ is the gradient culpa
leaves on z⁽ˡ⁾, the message Wᵀδ is the gradient it leaves on a⁽ˡ⁾, σ′(z⁽ˡ⁾) is the sigmoid op's local
derivative (its backward closure applied to ones), and a weight's slope is culpa's weight.grad.

Each edge shows its weight's slope as page 04's figure draws it: the colour of its sign ("sign", "neg" or
"pos"; "zero" for an exact 0) and a width that grows with its size ("width", in the drawing's units,
0.6 + 5.4 × |slope| / the largest |slope|: the figure's 0.3 + 6 ×, a little wider at the thin end so that the
faintest edge still shows its colour on a phone), both written here so that the script computes nothing.
"sides" says where the drawing puts the input and the output. Under each layer, once backward reaches it,
the size of its δ (the norm |δ⁽ˡ⁾|, as the page prints it): how much blame is left there.

The reader's numbers: the input point x (four numbers) and the activation of the hidden layers (sigmoid,
tanh or ReLU; the same weights, as MLP draws them from the same seed whatever the activation). `read(fields)`
reads them, `export(x, activation)` runs page 04's "network" section with them in place of the book's
literals (the x list, and the activation's name in the MLP's line), as the page in the reader's browser does.
"""

from __future__ import annotations

import numpy as np

from sitebuild import lessons
from sitebuild.explorers import LANGS, formula, numbers, quantity, read_number, short, slot, slot_values, text

INPUTS = ["snippets/lessons/through_a_network.py"]
KNOB = (2, 1, 3)  # the weight the page checks by hand: layer 2, row 1, column 3 (counting from 0)
ACTIVATIONS = ("sigmoid", "tanh", "relu")  # what the reader can choose; the book's is the lesson's (sigmoid)
LIMIT = 10.0  # |x| at most this: beyond it every sigmoid and tanh is flat to four decimals
# each activation's derivative, as the rule and the announcement write it
DERIVATIVE = {"sigmoid": "σ′", "tanh": "tanh′", "relu": "ReLU′"}
DERIVATIVE_TEX = {"sigmoid": r"\sigma'", "tanh": r"\tanh'", "relu": r"\operatorname{ReLU}'"}


def read(fields: dict) -> tuple[dict, list]:
    """The reader's fields ({"x0" ... "x3": text, "activation": text}) as export()'s arguments, or the
    problems (each names its field and what is wrong, for the page's words to say)."""
    problems, x = [], []
    for k in range(len(_book_x())):
        value, problem = read_number(fields.get(f"x{k}", ""), -LIMIT, LIMIT)
        if problem:
            problems.append({"field": f"x{k}", **problem})
        x.append(value)
    activation = str(fields.get("activation", "")).strip()
    if activation not in ACTIVATIONS:
        problems.append({"field": "activation", "problem": "activation", "text": activation})
    return ({} if problems else {"x": x, "activation": activation}), problems


def _book_x() -> list:
    return list(lessons.run("through_a_network.py", "network")["x"])


def four(value):
    return text(value, ".4f")


def _look(slope: float, biggest: float) -> dict:
    """How an edge draws its weight's slope: the sign's colour and a width for its size (page 04's figure)."""
    sign = "zero" if slope == 0 else "neg" if slope < 0 else "pos"
    share = abs(float(slope)) / biggest if biggest > 0 else 0.0  # every slope 0 (dead ReLUs): all thin
    return {"sign": sign, "width": round(0.6 + 5.4 * share, 2)}


def _run(x=None, activation=None):
    import culpa

    given = {**({"x": list(x)} if x is not None else {}), **({"net": activation} if activation else {})}
    page = lessons.run("through_a_network.py", "network", given=given or None)
    net, x, c = page["net"], page["x"], page["c"]
    a = culpa.Tensor(x)
    acts, zs, outs = [a], [], []
    for i, layer in enumerate(net.layers):
        z = layer(a)
        zs.append(z)
        if i < len(net.layers) - 1:
            a = getattr(z, net.activation)()
            acts.append(a)
            outs.append(a)
    loss = culpa.cross_entropy(zs[-1], c)
    loss.backward(retain_graph=True)
    return page, net, acts, zs, loss


def _rule(l: int, activation: str) -> dict:
    """δ⁽ˡ⁾ = (W⁽ˡ⁺¹⁾)ᵀ δ⁽ˡ⁺¹⁾ ⊙ f′(z⁽ˡ⁾), for the activation f."""
    sup = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    here, above = str(l).translate(sup), str(l + 1).translate(sup)
    return formula(rf"\delta^{{({l})}} = \left(W^{{({l + 1})}}\right)^{{\top}}"
                   rf"\delta^{{({l + 1})}} \odot {DERIVATIVE_TEX[activation]}\!\left(z^{{({l})}}\right)",
                   f"δ⁽{here}⁾ = (W⁽{above}⁾)ᵀ δ⁽{above}⁾ ⊙ {DERIVATIVE[activation]}(z⁽{here}⁾)")


def export(x=None, activation=None) -> dict:
    """Everything the explorer shows, for the book's input and activation or the reader's."""
    import culpa

    page, net, acts, zs, loss = _run(x, activation)
    activation = net.activation
    depth = len(net.layers)
    p = culpa.softmax(zs[-1].detach()).data
    y = np.eye(page["sizes"][-1])[page["c"]]
    layers = []
    for l in range(depth + 1):  # l = 0 (the input) ... depth (the output)
        entry = {"size": page["sizes"][l]}
        if l == 0:
            entry["a"] = [four(v) for v in acts[0].data]
        elif l < depth:
            entry["a"] = [four(v) for v in acts[l].data]
        else:
            entry["a"] = [four(v) for v in p]  # the output layer shows p = softmax(z)
        if l >= 1:
            entry["delta"] = [four(v) for v in zs[l - 1].grad]
            entry["delta_all"] = numbers(zs[l - 1].grad, four)
            entry["delta_size"] = four(np.linalg.norm(zs[l - 1].grad))  # |δ⁽ˡ⁾|: the blame left here
        if 1 <= l < depth:
            sigmoid = acts[l]
            local = sigmoid.local_backward(np.ones_like(sigmoid.data))[0]
            entry["message"] = numbers(sigmoid.grad, four)  # Wᵀδ from the layer above: dL/da
            entry["slope"] = numbers(local, four)  # f′(z): σ′ = a (1 − a), tanh′ = 1 − a², ReLU′ = 0 or 1
        layers.append(entry)
    weights = {}
    biggest = max(float(np.max(np.abs(layer.weight.grad))) for layer in net.layers)
    looks = {}
    for l, layer in enumerate(net.layers, start=1):
        grad = layer.weight.grad
        weights[str(l)] = [[four(grad[i, j]) for j in range(grad.shape[1])] for i in range(grad.shape[0])]
        looks[str(l)] = [[_look(grad[i, j], biggest) for j in range(grad.shape[1])]
                         for i in range(grad.shape[0])]
    sup = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    layer_names = ["x"] + [f"a⁽{str(l).translate(sup)}⁾" for l in range(1, depth)] + ["p"]
    tex_names = ["x"] + [f"a^{{({l})}}" for l in range(1, depth)] + ["p"]
    values = [acts[0].data] + [acts[l].data for l in range(1, depth)] + [p]
    steps = []
    for l in range(depth + 1):
        column, slots = quantity("a", values[l], four)
        head = tex_names[l] + (rf" = \operatorname{{softmax}}(z^{{({depth})}})" if l == depth else "")
        steps.append({"phase": "forward", "layer": l, "math": formula(
            f"{head} = {column}",
            {lang: f"{layer_names[l]} = {numbers(values[l], four)[lang]}" for lang in LANGS}, slots)})
    write_y = lambda v: text(v, ".0f")  # noqa: E731
    p_tex, p_slots = quantity("p", p, four)
    y_tex, y_slots = quantity("y", y, write_y)
    loss_tex, loss_slots = quantity("loss", loss.item(), four)
    steps.append({"phase": "loss", "loss": four(loss.item()), "p": numbers(p, four), "y": numbers(y, write_y),
                  "math": formula(rf"p = {p_tex},\quad y = {y_tex}",
                                  {lang: f"p = {numbers(p, four)[lang]}{'; ' if lang == 'pt' else ', '}"
                                         f"y = {numbers(y, write_y)[lang]}" for lang in LANGS},
                                  p_slots, y_slots),
                  "loss_math": formula(rf"L = -\log p_c = {loss_tex}",
                                       {lang: f"L = −log p_c = {four(loss.item())[lang]}" for lang in LANGS},
                                       loss_slots)})
    for l in range(depth, 0, -1):
        delta = zs[l - 1].grad
        d_tex, d_slots = quantity("delta", delta, four)
        sup_l = str(l).translate(sup)
        if l == depth:
            steps.append({"phase": "backward", "layer": l, "math": formula(
                rf"\delta^{{({l})}} = p - y = {d_tex}",
                {lang: f"δ⁽{sup_l}⁾ = p − y = {numbers(delta, four)[lang]}" for lang in LANGS}, d_slots)})
            continue
        sigmoid = acts[l]
        local = sigmoid.local_backward(np.ones_like(sigmoid.data))[0]
        m_tex, m_slots = quantity("message", sigmoid.grad, four)
        s_tex, s_slots = quantity("slope", local, four)
        steps.append({"phase": "backward", "layer": l, "rule": _rule(l, activation),
                      "math": formula(rf"= {m_tex} \odot {s_tex} = {d_tex}",
                                      {lang: f"δ⁽{sup_l}⁾ = {numbers(sigmoid.grad, four)[lang]} ⊙ "
                                             f"{numbers(local, four)[lang]} = {numbers(delta, four)[lang]}"
                                       for lang in LANGS}, m_slots, s_slots, d_slots)})
    for i, step in enumerate(steps, start=1):
        step["n"], step["total"] = str(i), str(len(steps))
    names = {str(l): [[f"W⁽{str(l).translate(sup)}⁾[{i}, {j}]" for j in range(len(row))]
                      for i, row in enumerate(rows)] for l, rows in weights.items()}
    # a picked weight's slope: the script puts the indices and the three numbers (from "layers" and
    # "weights") in the slots of its layer's formula
    picks = {str(l): formula(
        rf"\frac{{\partial L}}{{\partial W^{{({l})}}_{{{slot('_i')},{slot('_j')}}}}} = "
        rf"\delta^{{({l})}}_{{{slot('_i')}}}\, {tex_names[l - 1]}_{{{slot('_j')}}} = "
        rf"{slot('delta')} \times {slot('input')} = {slot('slope')}",
        "∂L/∂{weight} = δ × {layer} = {delta} × {input} = {slope}",
        fills=("_i", "_j", "delta", "input", "slope")) for l in range(1, depth + 1)}
    return {
        "explorer": "blame",
        # what the reader's fields show: the input culpa ran with, and the activation
        "inputs": {"x": [short(v) for v in acts[0].data], "activation": activation},
        "activations": list(ACTIVATIONS),
        "derivative": DERIVATIVE[activation],
        # the rule of every hidden layer under every activation: the build typesets them all, so that the
        # reader's choice of activation finds its formula typeset (in_page.explore)
        "rules": {name: [_rule(l, name) for l in range(1, depth)] for name in ACTIVATIONS},
        "picks": picks,
        "layer_names": layer_names,
        "z_names": [None] + [f"z⁽{str(l).translate(sup)}⁾" for l in range(1, depth + 1)],
        "weight_names": names,
        "sizes": page["sizes"],
        "layers": layers,
        "weights": weights,
        "edges": looks,
        "sides": {"input": "left", "output": "right"},
        "knob": list(KNOB),
        "steps": steps,
    }


def check(data: dict) -> list[str]:
    """Every δ, activation, message and slope against the page's own NumPy recursion (the lesson's backward
    and slopes sections, which the page checks against culpa to 1e-12); one line per problem."""
    page = lessons.run("through_a_network.py", "network", "forward", "output_delta", "backward", "slopes")
    delta, a, grad_W, depth = page["delta"], page["a"], page["grad_W"], page["depth"]
    problems = []

    def same(where, shown, expected):
        if shown != expected:
            problems.append(f"blame, {where}: shows {shown}, culpa computes {expected}")

    def slotted(entry, name):
        return {lang: slot_values(entry, name, lang) for lang in LANGS}

    for step in data["steps"]:
        where = f"step {step['n']} ({step['phase']})"
        if step["phase"] == "loss":
            same(where + " loss", step["loss"], four(page["loss"]))
            same(where + " formula, loss", slotted(step["loss_math"], "loss"), four(page["loss"]))
            same(where + " formula, p", slotted(step["math"], "p"), step["p"])
            same(where + " formula, y", slotted(step["math"], "y"), step["y"])
            same(where + " p", step["p"], numbers(a[depth], four))
            same(where + " y", step["y"], numbers(np.eye(len(a[depth]))[page["c"]], lambda v: text(v, ".0f")))
            continue
        l = step["layer"]
        layer = data["layers"][l]
        same(where + f" a{l}", layer["a"], [four(v) for v in a[l]])
        if step["phase"] == "forward":
            same(where + f" formula, a{l}", slotted(step["math"], "a"), numbers(a[l], four))
        if step["phase"] == "backward":
            same(where + f" δ{l}", layer["delta"], [four(v) for v in delta[l]])
            same(where + f" formula, δ{l}", slotted(step["math"], "delta"), numbers(delta[l], four))
            if l < depth:
                message = numbers(page["W"][l + 1].T @ delta[l + 1], four)
                same(where + f" Wᵀδ into layer {l}", layer["message"], message)
                same(where + f" σ′(z{l})", layer["slope"], numbers(a[l] * (1 - a[l]), four))
                same(where + f" formula, Wᵀδ into layer {l}", slotted(step["math"], "message"), message)
                same(where + f" formula, σ′(z{l})", slotted(step["math"], "slope"),
                     numbers(a[l] * (1 - a[l]), four))
            biggest = max(float(np.max(np.abs(g))) for g in grad_W.values())
            for i, row in enumerate(data["weights"][str(l)]):
                for j, shown in enumerate(row):
                    same(where + f" ∂L/∂W{l}[{i},{j}]", shown, four(grad_W[l][i, j]))
                    look = data["edges"][str(l)][i][j]
                    want = _look(grad_W[l][i, j], biggest)
                    if look["sign"] != want["sign"] or abs(look["width"] - want["width"]) > 0.02:
                        problems.append(f"blame, {where} edge W{l}[{i},{j}]: drawn {look}, "
                                        f"its slope is {want}")
    return problems
