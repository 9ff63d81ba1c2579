"""The worked-example explorer (page 03): the graph culpa records for page 03's loss, stepped through.

It runs page 03's own "forward" section (snippets/lessons/worked_example.py: z = (2.0, 1.0, 0.1), observed
class 0), one backward pass that keeps the graph, and exports culpa.graph.export of it, plus, for every
backward step, the rule with its numbers: for each op that consumed the node, downstream gradient × local
derivative = contribution, and their sum, the node's gradient. The local derivative is culpa's: the op's own
backward closure applied to one-hot seeds (a column of its Jacobian), and the contribution is that closure
applied to the real downstream gradient, as backward runs it. Each rule names the op's code in culpa and the
line that holds its local derivative.

Steps: forward, one node at a time in culpa's topological order (each value appears), then backward in
culpa's own backward order, from ∂L/∂L = 1 to the logits, where the gradient is p − y. Each phase counts its
own steps ("phase_n" of "phase_total"): the backward steps are numbered 1 to 8 as page 03's figure numbers
them, and each node carries its backward step's number ("order"). "sides" says where the graph puts a node's
value and its gradient (the figure's sides), and "caption" the numbers the explorer's caption names.
"""

from __future__ import annotations

import numpy as np

from sitebuild import lessons
from sitebuild.explorers import formula, numbers, op_code, quantity, read_number, short, slot_values

INPUTS = ["snippets/lessons/worked_example.py"]

# How the explorer names each node of page 03's graph, in culpa's topological order (as the figure does).
NODES = [
    ("leaf", "z"),
    ("exp", "e"),
    ("sum", "s"),
    ("div", "p"),
    ("leaf", "y"),
    ("mul", "p ⊙ y"),
    ("sum", "p₀"),
    ("log", "log p₀"),
    ("neg", "L"),
]
FORMULAS = {  # what each node computes, written with the names above
    "z": "z", "e": "e = exp(z)", "s": "s = Σ e", "p": "p = e / s", "y": "y", "p ⊙ y": "p ⊙ y",
    "p₀": "p₀ = Σ p ⊙ y", "log p₀": "log p₀", "L": "L = −log p₀",
}
# The same, in TeX (typeset at build time): each node's name, and what it computes.
TEX = {"z": "z", "e": "e", "s": "s", "p": "p", "y": "y", "p ⊙ y": r"(p \odot y)", "p₀": "p_0",
       "log p₀": r"(\log p_0)", "L": "L"}
FORMULAS_TEX = {"z": "z", "e": r"e = \exp(z)", "s": r"s = \textstyle\sum e", "p": "p = e / s", "y": "y",
                "p ⊙ y": r"p \odot y", "p₀": r"p_0 = \textstyle\sum p \odot y", "log p₀": r"\log p_0",
                "L": r"L = -\log p_0"}
LOCAL_TEX = {
    ("neg", 0): lambda a, b, out: "-1",
    ("log", 0): lambda a, b, out: rf"\frac{{1}}{{{a}}}",
    ("sum", 0): lambda a, b, out: "1",
    ("exp", 0): lambda a, b, out: rf"\exp({a}) = {out}",
    ("mul", 0): lambda a, b, out: b,
    ("mul", 1): lambda a, b, out: a,
    ("div", 0): lambda a, b, out: rf"\frac{{1}}{{{b}}}",
    ("div", 1): lambda a, b, out: rf"-\frac{{{a}}}{{{b}^2}}",
}
COMBINE_TEX = {"×": r"\times", "⊙": r"\odot", "Σ⊙": r"\odot"}
# The local derivative of each op with respect to its input number k, written with the nodes' names.
LOCAL = {
    ("neg", 0): "−1",
    ("log", 0): "1/{a}",
    ("sum", 0): "1",
    ("exp", 0): "exp({a}) = {out}",
    ("mul", 0): "{b}",
    ("mul", 1): "{a}",
    ("div", 0): "1/{b}",
    ("div", 1): "−{a}/{b}²",
}


def _method(op: str):
    import culpa

    names = {"neg": "__neg__", "log": "log", "sum": "sum", "exp": "exp", "mul": "__mul__",
             "div": "__truediv__"}
    return getattr(culpa.Tensor, names[op])


def _jacobian(closure, out_shape, k: int, parent_shape) -> np.ndarray:
    """d out / d input k, row i = culpa's backward closure applied to the one-hot seed i."""
    size = int(np.prod(out_shape))
    rows = []
    for i in range(size):
        seed = np.zeros(size)
        seed[i] = 1.0
        rows.append(np.asarray(closure(seed.reshape(out_shape))[k], dtype=float).reshape(-1))
    return np.array(rows).reshape(size, int(np.prod(parent_shape)))


# The reader's numbers (docs/assets/explorers/worked-example.js): three logits and the observed class, run
# through page 03's own code in place of the book's z and y (in the page, by culpa in Pyodide).
CLASSES = 3
LIMIT = 20.0  # |z| at most this: exp(20) is about 4.9e8, written in full by the explorer


def given(z=None, observed=None) -> dict:
    """What replaces the book's literals: the logits z and the one-hot y of the observed class."""
    chosen = {}
    if z is not None:
        chosen["z"] = [float(v) for v in z]
    if observed is not None:
        chosen["y"] = [1.0 if k == observed else 0.0 for k in range(CLASSES)]
    return chosen


def read(fields: dict) -> tuple[dict, list[dict]]:
    """The reader's fields ({"z0", "z1", "z2": text, "observed": text}) as export()'s arguments, or the
    problems (each names its field and what is wrong, for the page's words to say)."""
    problems, z = [], []
    for k in range(CLASSES):
        value, problem = read_number(fields.get(f"z{k}", ""), -LIMIT, LIMIT)
        if problem:
            problems.append({"field": f"z{k}", **problem})
        z.append(value)
    observed = str(fields.get("observed", "")).strip()
    if observed not in [str(k) for k in range(CLASSES)]:
        problems.append({"field": "observed", "problem": "class", "text": observed,
                         "last": str(CLASSES - 1)})
    return ({} if problems else {"z": z, "observed": int(observed)}), problems


def _recorded(z=None, observed=None):
    """Page 03's graph after one backward pass that keeps it: (tensors in topological order, export, page)."""
    import culpa
    from culpa.tensor import topo_order

    page = lessons.run("worked_example.py", "forward", given=given(z, observed))
    loss = page["loss"]
    loss.backward(retain_graph=True)
    graph = culpa.graph.export(loss)
    ops = [node["op"] for node in graph["nodes"]]
    if ops != [op for op, _ in NODES]:
        raise ValueError(f"page 03's graph changed: culpa recorded the ops {ops}, the explorer names "
                         f"{[op for op, _ in NODES]}; update NODES in {__file__}")
    return topo_order(loss), graph, page


def _term(tensors, graph, child: int, parent: int) -> tuple[dict, np.ndarray]:
    """The rule for one edge: downstream gradient of `child` × its local derivative = contribution (the
    exported rule, and the contribution as culpa's backward computed it)."""
    node, tensor = graph["nodes"][child], tensors[child]
    k = node["parents"].index(parent)
    out_shape, parent_shape = tensor.data.shape, tensors[parent].data.shape
    downstream = np.asarray(node["grad"], dtype=float)
    contribution = np.asarray(tensor.local_backward(np.asarray(node["grad"]))[k], dtype=float)
    jac = _jacobian(tensor.local_backward, out_shape, k, parent_shape)
    m, n = jac.shape
    if m == n and np.array_equal(jac, np.diag(np.diag(jac))):
        local, combine = np.diag(jac).reshape(parent_shape), "×" if m == 1 else "⊙"
        product = downstream * local
    elif m == 1:  # a scalar output of a vector input (a sum): the same downstream number for every element
        local, combine = jac[0].reshape(parent_shape), "×"
        product = downstream * local
    elif n == 1:  # a scalar input that reached every output element (broadcast): its shares add up
        local, combine = jac[:, 0].reshape(out_shape), "Σ⊙"
        product = np.sum(downstream * local)
    else:
        raise ValueError(f"op {node['op']} of node {child}: a full Jacobian is not drawn by this explorer")
    if not np.allclose(product, contribution, rtol=1e-12, atol=1e-15):
        raise ValueError(f"op {node['op']}: downstream × local derivative {product} differs from what "
                         f"culpa's backward computed, {contribution}")
    names = {"out": NODES[child][1], "a": NODES[node["parents"][0]][1],
             "b": NODES[node["parents"][-1]][1]}
    local_symbol = LOCAL[node["op"], k].format(**names)
    return {
        "child": child,
        "op": node["op"],
        "downstream": numbers(downstream),
        "local_symbol": local_symbol,
        "local": numbers(local),
        "combine": combine,
        "product": numbers(contribution),
        "code": op_code(_method(node["op"]), k),
        "rule": _rule_tex(names, NODES[parent][1], node["op"], k, combine, local_symbol),
        "math": _numbers_tex(downstream, local, contribution, combine),
    }, contribution


def _said(name: str) -> str:
    """A node's name after ∂ when read as text: ∂(p ⊙ y), ∂(log p₀)."""
    return f"({name})" if " " in name else name


def _bare(name: str) -> str:
    return TEX[name].removeprefix("(").removesuffix(")")


def _rule_tex(names: dict, n: str, op: str, k: int, combine: str, local_symbol: str) -> dict:
    """∂L/∂child ⊙ ∂child/∂node, and the op's local derivative (names: the child "out", its inputs a, b)."""
    c = names["out"]
    local = LOCAL_TEX[op, k](_bare(names["a"]), _bare(names["b"]), _bare(c))
    dc = rf"\frac{{\partial {TEX[c]}}}{{\partial {TEX[n]}}}"
    chain = rf"\frac{{\partial L}}{{\partial {TEX[c]}}} {COMBINE_TEX[combine]} {dc}"
    if combine == "Σ⊙":
        chain = r"\textstyle\sum " + chain
    dc_said = f"∂{_said(c)}/∂{_said(n)}"
    chain_said = ("Σ " if combine == "Σ⊙" else "") + f"∂L/∂{_said(c)} {combine.removeprefix('Σ')} {dc_said}"
    say = {lang: chain_said + ("; " if lang == "pt" else ", ") + f"{dc_said} = {local_symbol}"
           for lang in ("pt", "en")}
    return formula(chain + r",\quad " + dc + " = " + local, say)


def _numbers_tex(downstream, local, contribution, combine: str) -> dict:
    """downstream gradient ⊙ local derivative = contribution, with culpa's numbers in slots."""
    d, d_slots = quantity("downstream", downstream)
    g, g_slots = quantity("local", local)
    p, p_slots = quantity("product", contribution)
    op = COMBINE_TEX[combine]
    tex = rf"{d} {op} {g} = {p}"
    if combine == "Σ⊙":
        tex = rf"\textstyle\sum \left( {d} {op} {g} \right) = {p}"
    say = {lang: ("Σ " if combine == "Σ⊙" else "")
           + f"{numbers(downstream)[lang]} {combine.removeprefix('Σ')} {numbers(local)[lang]} = "
           + numbers(contribution)[lang] for lang in ("pt", "en")}
    return formula(tex, say, d_slots, g_slots, p_slots)


def export(z=None, observed=None) -> dict:
    """Everything the explorer shows, for the book's numbers or the reader's (z, observed)."""
    tensors, graph, page = _recorded(z, observed)
    nodes = graph["nodes"]
    consumers = {n["id"]: [c["id"] for c in nodes if n["id"] in c["parents"]] for n in nodes}
    steps = []
    for node in nodes:
        name = NODES[node["id"]][1]
        value, slots = quantity("value", node["value"])
        steps.append({"phase": "forward", "node": node["id"], "value": numbers(node["value"]),
                      "math": formula(f"{FORMULAS_TEX[name]} = {value}",
                                      {lang: f"{FORMULAS[name]} = {numbers(node['value'])[lang]}"
                                       for lang in ("pt", "en")}, slots)})
    root = graph["backward_order"][0]
    for node_id in graph["backward_order"]:
        node = nodes[node_id]
        rules = [_term(tensors, graph, child, node_id) for child in consumers[node_id]
                 if nodes[child]["requires_grad"]]
        steps.append({"phase": "backward", "node": node_id, "seed": node_id == root,
                      "terms": [term for term, _ in rules], "grad": numbers(node["grad"]),
                      "math": _total_tex(node_id, [c for _, c in rules], node["grad"])})
    total = len(steps)
    for i, step in enumerate(steps, start=1):
        step["n"], step["total"] = str(i), str(total)
    for phase in ("forward", "backward"):
        mine = [step for step in steps if step["phase"] == phase]
        for i, step in enumerate(mine, start=1):
            step["phase_n"], step["phase_total"] = str(i), str(len(mine))
    order = {node_id: i for i, node_id in enumerate(graph["backward_order"], start=1)}
    twice = [step["phase_n"] for step in steps if step["phase"] == "backward" and len(step["terms"]) > 1]
    p_minus_y = np.asarray(page["p"].data) - page["y"]
    result, result_slots = quantity("result", p_minus_y)
    result_say = {lang: f"p − y = {numbers(p_minus_y)[lang]}" for lang in ("pt", "en")}
    observed_class = int(np.argmax(page["y"]))
    return {
        "explorer": "worked-example",
        # what the reader's fields show: the logits culpa ran with, in each language, and the observed class
        "inputs": {"z": [short(v) for v in np.asarray(page["z"].data)], "observed": str(observed_class)},
        "nodes": [{"id": n["id"], "op": n["op"], "name": NODES[n["id"]][1],
                   "formula": FORMULAS[NODES[n["id"]][1]],
                   "parents": n["parents"], "constant": not n["requires_grad"],
                   "value": numbers(n["value"]),
                   "grad": None if n["grad"] is None else numbers(n["grad"]),
                   "order": str(order[n["id"]]) if n["id"] in order else None} for n in nodes],
        "sides": {"value": "left", "grad": "right"},
        "caption": {"count": str(len(order)), "twice": ", ".join(twice)},
        "backward_order": graph["backward_order"],
        "steps": steps,
        "p_minus_y": numbers(p_minus_y),
        "result": formula(rf"p - y = {result}", result_say, result_slots),
    }


def _total_tex(node_id: int, contributions: list, grad) -> dict:
    """∂L/∂node = its gradient; for a node used twice, the sum of the two contributions first."""
    name = NODES[node_id][1]
    g, slots = quantity("grad", grad)
    summed = contributions if len(contributions) > 1 else []
    parts = []
    for i, contribution in enumerate(summed):
        tex, found = quantity(f"term{i}", contribution)
        parts.append(tex)
        slots.update(found)
    head = rf"\frac{{\partial L}}{{\partial {TEX[name]}}} = "
    tex = head + (" + ".join(parts) + " = " if parts else "") + g
    say = {lang: f"∂L/∂{_said(name)} = "
           + (" + ".join(numbers(c)[lang] for c in summed) + " = " if summed else "") + numbers(grad)[lang]
           for lang in ("pt", "en")}
    return formula(tex, say, slots)


def check(data: dict, z=None, observed=None) -> list[str]:
    """Every number of `data` against culpa, recomputed here from page 03's graph (with the reader's z and
    observed class, if given); one line per problem, naming the explorer and the step."""
    tensors, graph, page = _recorded(z, observed)
    problems = []

    def slotted(entry, name):
        return {lang: slot_values(entry, name, lang) for lang in ("pt", "en")}

    def same(where, shown, expected):
        want = numbers(expected)
        if shown != want:
            problems.append(f"worked-example, {where}: shows {shown}, culpa computes {want}")

    by_id = {t: tensors[t] for t in range(len(tensors))}
    for step in data["steps"]:
        node = by_id[step["node"]]
        where = f"step {step['n']} ({step['phase']}, node {NODES[step['node']][1]})"
        if step["phase"] == "forward":
            same(where + " value", step["value"], node.data)
            same(where + " formula, value", slotted(step["math"], "value"), node.data)
            continue
        same(where + " gradient", step["grad"], node.grad)
        same(where + " formula, gradient", slotted(step["math"], "grad"), node.grad)
        total = None
        for i, term in enumerate(step["terms"]):
            child = by_id[term["child"]]
            k = [id(p) for p in child.parents].index(id(node))
            contribution = child.local_backward(child.grad)[k]
            source = NODES[term['child']][1]
            same(where + f" downstream from {source}", term["downstream"], child.grad)
            same(where + f" contribution from {source}", term["product"], contribution)
            shown = {key: slotted(term["math"], key) for key in ("downstream", "product", "local")}
            same(where + f" formula, downstream from {source}", shown["downstream"], child.grad)
            same(where + f" formula, contribution from {source}", shown["product"], contribution)
            if term["local"] != shown["local"]:
                problems.append(f"worked-example, {where} formula, local derivative from {source}: shows "
                                f"{shown['local']}, the step has {term['local']}")
            if len(step["terms"]) > 1:
                summed = slotted(step["math"], f"term{i}")
                same(where + f" sum, contribution from {source}", summed, contribution)
            total = contribution if total is None else total + contribution
        if total is not None:
            same(where + " sum of contributions", step["grad"], total)
    order = [s["node"] for s in data["steps"] if s["phase"] == "backward"]
    numbered = {n["id"]: int(n["order"]) for n in data["nodes"] if n["order"] is not None}
    if numbered != {node_id: i for i, node_id in enumerate(graph["backward_order"], start=1)}:
        problems.append(f"worked-example: the nodes are numbered {numbered}, culpa visits "
                        f"{graph['backward_order']}")
    if order != graph["backward_order"]:
        problems.append(f"worked-example: backward order {order}, culpa visits {graph['backward_order']}")
    last = data["steps"][-1]
    if last["grad"] != numbers(np.asarray(page["p"].data) - page["y"]):
        problems.append(f"worked-example, step {last['n']}: the last gradient {last['grad']} is not p − y")
    if slotted(data["result"], "result") != numbers(np.asarray(page["p"].data) - page["y"]):
        problems.append(f"worked-example, step {last['n']}: the formula p − y shows "
                        f"{slotted(data['result'], 'result')}")
    return problems
