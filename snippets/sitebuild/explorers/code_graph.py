"""The graph of a reader's own code, as the page draws it: culpa's graph and backward pass, in pt or en.

Run in the page (assets/run/worker.js) runs every block under a culpa.graph.Recorder, which notes the line
and the variable that made each tensor; after a run it keeps the tensors the block assigned. "Show the graph"
(assets/run/graph.js) asks this module, in the page's Python, for one of them:

    answer(recorder, file, name, lang)  # -> a JSON text: {"ok": true, "graph": ...} or {"ok": false, ...}

The graph holds every number the page shows, already written for the page's language (pt 0,6590 and a
true minus), and every sentence the page says: the script only lays it out and reveals it step by step.
Forward: one step per node, parents first (culpa's topological order). Backward: culpa.graph.sweep runs
the chain rule from ∂L/∂L = 1 with each op's own backward closure; a step per node it reaches, in the
order backward visits them, with, for each op that used the node, the downstream gradient, the local rule
and the share it hands back (and for an elementwise op, the local derivative's numbers: the closure run on
ones), and their sum. Past LIMIT nodes, the nodes are grouped by the line and op that made them (by op
alone if that still leaves too many), and a note says so.

Needs neither matplotlib nor MkDocs: it runs in Pyodide, and in CPython in tests/test_code_graph.py.
"""

from __future__ import annotations

import functools
import json
import re

import numpy as np

from culpa import Tensor
from culpa.graph import origin, recorded, sweep
from sitebuild import numbers as style
from sitebuild import strings
from sitebuild.explorers import to_json

LIMIT = 100  # nodes drawn one by one; past it, grouped
SHOWN = 6  # values a panel writes out of an array before "…"
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

# What an op computes, with its inputs' labels ({a}, {b}, {c}) and what it keeps ({p}: pow's exponent).
FORWARD = {
    "add": "{a} + {b}", "sub": "{a} − {b}", "mul": "{a} · {b}", "div": "{a} / {b}", "neg": "−{a}",
    "pow": "{a}^{p}", "exp": "exp({a})", "log": "log({a})", "tanh": "tanh({a})", "sigmoid": "σ({a})",
    "relu": "relu({a})", "sum": "Σ {a}", "mean": "mean({a})", "matmul": "{a} @ {b}",
    "linear": "{a} @ {b}ᵀ + {c}", "reshape": "reshape({a})", "transpose": "{a}ᵀ", "softmax": "softmax({a})",
    "log_softmax": "log_softmax({a})", "cross_entropy": "cross_entropy({a})", "checkpoint": "checkpoint({a})",
}
# The share an op hands input number k, written with {g}, the downstream gradient ∂L/∂(the op's result),
# its inputs' labels and its result's ({out}): the local rule each op's backward closure applies.
RULE = {
    ("add", 0): "{g}", ("add", 1): "{g}", ("sub", 0): "{g}", ("sub", 1): "−{g}",
    ("mul", 0): "{g} · {b}", ("mul", 1): "{g} · {a}", ("div", 0): "{g} · 1/{b}",
    ("div", 1): "{g} · (−{a}/{b}²)", ("neg", 0): "−{g}", ("pow", 0): "{g} · {p}·{a}^({p}−1)",
    ("exp", 0): "{g} · exp({a})", ("log", 0): "{g} · 1/{a}", ("tanh", 0): "{g} · (1 − {out}²)",
    ("sigmoid", 0): "{g} · {out}·(1 − {out})", ("relu", 0): "{g} · [{a} > 0]", ("sum", 0): "{g} · 1",
    ("mean", 0): "{g} / n", ("matmul", 0): "{g} @ {b}ᵀ", ("matmul", 1): "{a}ᵀ @ {g}",
    ("linear", 0): "{g} @ {b}", ("linear", 1): "{g}ᵀ @ {a}", ("linear", 2): "Σ {g}",
    ("reshape", 0): "reshape({g})", ("transpose", 0): "{g}ᵀ",
    ("softmax", 0): "{out} · ({g} − Σ {g} · {out})", ("log_softmax", 0): "{g} − exp({out}) · Σ {g}",
    ("cross_entropy", 0): "(softmax({a}) − y) · {g} / n",
}
# Ops whose local derivative is elementwise: its numbers are the closure run on ones (same shapes only).
ELEMENTWISE = {"add", "sub", "mul", "div", "neg", "pow", "exp", "log", "tanh", "sigmoid", "relu"}


# ---- numbers, as the page's language writes them ----
def number(value, lang: str) -> str:
    """Four significant digits: 0,659 in pt, 0.659 in en (a value that rounds to zero has no sign)."""
    return _number(float(value) + 0.0, lang)


@functools.lru_cache(maxsize=4096)  # a graph writes the same gradients in several steps
def _number(value: float, lang: str) -> str:
    text = format(value, ".4g")
    if float(text) == 0:
        return "0"
    mantissa, _, exponent = text.partition("e")
    written = style.localize(mantissa, lang)
    if exponent:  # 2.458e-05: 2,458 × 10⁻⁵
        written += " × 10" + str(int(exponent)).translate(SUPERSCRIPTS)
    return written


def shape_of(array) -> str:
    return "×".join(str(n) for n in np.shape(array)) or "1"


def brief(array, lang: str) -> str:
    """What a node's row shows: the number, or the shape of an array ([3], [64×10])."""
    array = np.asarray(array)
    return number(array.item(), lang) if array.size == 1 else f"[{shape_of(array)}]"


def wide(array, lang: str) -> str:
    """The same with room: a vector of up to three values written out."""
    array = np.asarray(array)
    if array.size <= 3:
        return written(array, lang)
    return brief(array, lang)


_written: dict = {}  # id(array) -> (array, lang, text): a graph writes each gradient in several steps


def written(array, lang: str, limit: int = SHOWN) -> str:
    """Every value (up to `limit`, then …), as a list in the page's language; an array of more than one
    dimension says its shape first: 2×3: (1; 2; 3; 4; 5; 6)."""
    if limit == SHOWN and type(array) is np.ndarray:
        found = _written.get(id(array))
        if found is not None and found[0] is array and found[1] == lang:
            return found[2]
        text = _written_now(array, lang, limit)
        _written[id(array)] = (array, lang, text)
        return text
    return _written_now(array, lang, limit)


def _written_now(array, lang: str, limit: int) -> str:
    array = np.asarray(array)
    if array.size == 1:
        return number(array.item(), lang)
    items = [_number(v + 0.0, lang) for v in array.ravel()[:limit].astype(float).tolist()]
    if array.size > limit:
        items.append("…")
    listed = style.sequence(items, lang)
    return listed if array.ndim <= 1 and array.size <= limit else f"{shape_of(array)}: {listed}"


# A page's block may end a line with Material's annotation marker, `# (1)!`: the page shows it as a button.
ANNOTATION = re.compile(r"\s*#\s*\(\d+\)!?\s*$")


# ---- the answer ----
def answer(recorder, file: str, name: str, lang: str) -> str:
    """JSON: the graph of the tensor that the last run of `file` assigned to `name`, or why there is none."""
    words = strings.of(lang)["graph"]
    kept = recorder.kept.get(file, {})
    if name not in kept:
        return to_json({"ok": False, "problem": words["problemName"].format(name=name), "words": words})
    try:
        graph = build(kept[name], name, file, lang, words, recorder)
    except LookupError:  # released by backward before the recorder saw it
        return to_json({"ok": False, "problem": words["problemReleased"], "words": words})
    finally:
        _written.clear()  # keeps no array alive
    graph["candidates"] = [{"name": n, "scalar": t.data.size == 1} for n, t in kept.items()]
    # unsorted: a hundred nodes' steps are most of the answer, and sorting their keys is time the reader waits
    return json.dumps({"ok": True, "graph": graph, "words": words}, ensure_ascii=False, separators=(",", ":"))


def build(root: Tensor, root_name: str, file: str, lang: str, words: dict, recorder=None) -> dict:
    """The graph's data (see the module's docstring); `recorder` gives each node's line of code."""
    _written.clear()  # arrays of an earlier graph may be gone, and their ids reused
    swept = sweep(root)
    order, grads = swept["order"], swept["grads"]
    labels = node_labels(order, root, root_name, lang)
    sources = recorder.sources if recorder is not None else {}

    places = {}

    def where(node) -> dict:
        if node not in places:
            places[node] = place_of(node)
        return places[node]

    def place_of(node) -> dict:
        made = origin(node)
        if made is None:
            return {"file": None, "line": None, "code": "", "text": words["nowhere"]}
        code = sources.get(made.file, [])
        line = code[made.line - 1].strip() if 0 < made.line <= len(code) else ""
        line = ANNOTATION.sub("", line)  # Material's code annotation marker is no part of the reader's code
        text = words["line"] if made.file == file else words["lineIn"]
        block = re.search(r"\d+", made.file)
        return {"file": made.file, "line": made.line, "code": line,
                "text": text.format(line=made.line, block=block.group(0) if block else made.file)}

    notes = []
    if len(order) > LIMIT:
        return grouped(order, grads, swept, labels, where, root, root_name, lang, words)
    ids = {node: i for i, node in enumerate(order)}
    backward = [node for node in reversed(order) if node in grads]
    step_of = {node: k + 1 for k, node in enumerate(backward)}
    gsym = {node: words["dL"].format(root=root_name, node=labels[node]) for node in order}
    nodes = []
    for node in order:
        parents = recorded(node)[0]
        place = where(node)
        nodes.append({
            "id": ids[node], "label": labels[node], "op": node.op, "where": place,
            "sub": f"{node.op} · {place['text']}" if place["line"] else node.op,
            "parents": list(dict.fromkeys(ids[p] for p in parents)),
            "value": {"brief": brief(node.data, lang), "wide": wide(node.data, lang)},
            "grad": ({"brief": brief(grads[node], lang), "wide": wide(grads[node], lang)}
                     if node in grads else None),
            "order": step_of.get(node), "constant": not node.requires_grad, "count": 1,
        })
    steps = []
    for k, node in enumerate(order):
        steps.append(forward_step(node, k, len(order), labels, where, lang, words))
    by_parent = {}
    for parent, child, position, share in swept["shares"]:
        by_parent.setdefault(parent, []).append((child, position, share))
    for k, node in enumerate(backward):
        steps.append(backward_step(node, k, len(backward), root, by_parent.get(node, []), grads, labels,
                                   gsym, where, lang, words))
    for step in steps:
        step["node"] = ids[step.pop("tensor")]
        step["terms"] = [ids[child] for child in step.get("terms", [])]
    notes += graph_notes(order, grads, swept, root, root_name, lang, words)
    return {"name": root_name, "nodes": nodes, "steps": steps, "notes": notes, "grouped": False,
            "root": ids[root], "size": len(order)}


def node_labels(order, root, root_name, lang) -> dict:
    """How the drawing names each node: the variable the code assigned it to, else culpa's name, else a
    one-value constant's value, else its op; a label that several nodes share gets a subscript (x₁, x₂)."""
    labels = {}
    for node in order:
        made = origin(node)
        if node is root:
            labels[node] = root_name
        elif made is not None and made.name:
            labels[node] = made.name
        elif node.name:
            labels[node] = node.name
        elif node.op == "leaf" and node.data.size == 1 and not node.requires_grad:
            labels[node] = number(node.data.item(), lang)
        else:
            labels[node] = node.op
    counts = {}
    for label in labels.values():
        counts[label] = counts.get(label, 0) + 1
    seen = {}
    for node in order:
        label = labels[node]
        if counts[label] > 1 and node is not root and not re.fullmatch(r"[−\d.,e+-]+", label):
            seen[label] = seen.get(label, 0) + 1
            labels[node] = label + str(seen[label]).translate(SUBSCRIPTS)
    return labels


def formula(node, labels) -> str:
    """What the node computes, with its inputs' labels: h = tanh(mul)."""
    if node.op == "leaf":
        return labels[node]
    parents, local_backward = recorded(node)
    names = dict(zip("abc", (labels[p] for p in parents), strict=False))
    names["p"] = captured(local_backward, "p")
    template = FORWARD.get(node.op, node.op + "(" + ", ".join(labels[p] for p in parents) + ")")
    return f"{labels[node]} = " + template.format(**{k: names.get(k, "?") for k in "abcp"})


def captured(function, name: str) -> str:
    """A number an op's backward closure keeps (pow's exponent), as Python writes it, or "p"."""
    code = getattr(function, "__code__", None)
    if code is None or name not in code.co_freevars:
        return name
    value = function.__closure__[code.co_freevars.index(name)].cell_contents
    return format(value, "g") if isinstance(value, int | float) else name


def forward_step(node, k, total, labels, where, lang, words) -> dict:
    place = where(node)
    counter = words["stepForward"].format(n=k + 1, total=total)
    what = formula(node, labels)
    value = written(node.data, lang)
    title = "forwardTitle" if node.op != "leaf" else "leafTitle"
    panel = [{"kind": "title", "text": words[title].format(node=labels[node])}]
    if place["code"]:
        panel.append({"kind": "code", "text": place["code"], "where": place["text"]})
    else:
        panel.append({"kind": "note", "text": place["text"]})
    if node.op == "leaf":
        panel.append({"kind": "note", "text": words["leaf" if node.requires_grad else "constant"]})
    if what != value:  # a constant 2 is labelled 2
        panel.append({"kind": "math", "text": f"{what} = {value}"})
    say = words["sayForward"].format(counter=counter, formula=what, value=value, where=place["text"])
    return {"phase": "forward", "tensor": node, "counter": counter, "panel": panel, "say": say}


def backward_step(node, k, total, root, handed, grads, labels, gsym, where, lang, words) -> dict:
    counter = words["stepBackward"].format(n=k + 1, total=total)
    grad = written(grads[node], lang)
    if node is root:
        panel = [{"kind": "title", "text": words["seedTitle"]},
                 {"kind": "total", "text": f"{gsym[node]} = {grad}"}]
        return {"phase": "backward", "tensor": node, "counter": counter, "panel": panel, "terms": [],
                "say": words["saySeed"].format(counter=counter, dL=gsym[node], grad=grad)}
    panel = [{"kind": "title", "text": words["backwardAt"].format(node=labels[node])}]
    terms, said = [], []
    for child, position, share in handed:
        parents, local_backward = recorded(child)
        names = {k: "?" for k in "abc"} | dict(zip("abc", (labels[p] for p in parents), strict=False))
        names.update(g=gsym[child], out=labels[child], p=captured(local_backward, "p"), op=child.op)
        rule = RULE.get((child.op, position), "{op}.backward({g})").format(**names)
        downstream = written(grads[child], lang)
        shown = written(share, lang)
        local = None
        if child.op in ELEMENTWISE and parents[position].data.shape == child.data.shape:
            with np.errstate(all="ignore"):
                local = written(local_backward(np.ones_like(child.data))[position], lang)
        calc = f"{downstream} · {local} = {shown}" if local is not None else f"= {shown}"
        place = where(child)
        terms.append({"child": child, "head": words["from"].format(child=labels[child], op=child.op,
                                                                  where=place["text"]),
                      "rule": f"{gsym[node]} ← {rule}", "given": f"{gsym[child]} = {downstream}",
                      "calc": calc})
        said.append(words["sayTerm"].format(child=labels[child], share=shown))
    for term in terms:
        panel.append({"kind": "term", "head": term["head"], "rule": term["rule"], "given": term["given"],
                      "calc": term["calc"]})
    total_text = written(grads[node], lang)
    if len(handed) > 1:
        panel.append({"kind": "note", "text": words["sumNote"].format(node=labels[node], count=len(handed))})
        shares = " + ".join(written(share, lang) for _, _, share in handed)
        panel.append({"kind": "total", "text": f"{gsym[node]} = {shares} = {total_text}"})
    else:
        panel.append({"kind": "total", "text": f"{gsym[node]} = {total_text}"})
    if node.grad is not None and not np.array_equal(node.grad, grads[node]):
        panel.append({"kind": "note", "text": words["gradDiffers"].format(grad=written(node.grad, lang))})
    say = words["sayBackward"].format(counter=counter, dL=gsym[node], grad=grad,
                                      terms=words["and"].join(said))
    return {"phase": "backward", "tensor": node, "counter": counter, "panel": panel,
            "terms": [term["child"] for term in terms], "say": say}


def graph_notes(order, grads, swept, root, root_name, lang, words) -> list[str]:
    notes = []
    if not root.requires_grad:
        notes.append(words["noGrad"].format(name=root_name))
    elif not swept["seeded"]:
        notes.append(words["notScalar"].format(name=root_name, size=root.data.size))
    if swept["released"]:
        notes.append(words["released"])
    if any(parent.version > node.version for node in order for parent in recorded(node)[0]):
        notes.append(words["stale"])
    return notes


def grouped(order, grads, swept, labels, where, root, root_name, lang, words) -> dict:
    """More than LIMIT nodes: one drawn node per line of code and op (per op if that is still too many),
    showing its last node's numbers; the steps go group by group."""
    def key_of(by_line):
        def key(node):
            made = origin(node)
            return (made.file, made.line, node.op) if by_line and made is not None else (None, None, node.op)
        return key

    key = key_of(True)
    if len({key(node) for node in order}) > LIMIT:
        key = key_of(False)
    members = {}
    for node in order:
        members.setdefault(key(node), []).append(node)
    keys = list(members)
    index = {k: i for i, k in enumerate(keys)}
    nodes, steps = [], []
    backward = [k for k in reversed(keys) if any(n in grads for n in members[k])]
    step_of = {k: i + 1 for i, k in enumerate(backward)}
    for i, k in enumerate(keys):
        group = members[k]
        last = group[-1]
        place = where(last) if k[1] is not None else {"file": None, "line": None, "code": "",
                                                        "text": words["nowhere"]}
        label = (words["group"].format(op=last.op, count=len(group)) if len(group) > 1 else labels[last])
        parents = {index[key(p)] for n in group for p in recorded(n)[0]} - {i}
        reached = [n for n in group if n in grads]
        nodes.append({
            "id": i, "label": label, "op": last.op, "where": place,
            "sub": f"{last.op} · {place['text']}" if place["line"] else last.op,
            "parents": sorted(parents),
            "value": {"brief": brief(last.data, lang), "wide": wide(last.data, lang)},
            "grad": ({"brief": brief(grads[reached[-1]], lang), "wide": wide(grads[reached[-1]], lang)}
                     if reached else None),
            "order": step_of.get(k), "constant": not last.requires_grad, "count": len(group),
        })
    for i, k in enumerate(keys):
        group, node = members[k], nodes[i]
        counter = words["stepForward"].format(n=i + 1, total=len(keys))
        value = written(group[-1].data, lang)
        panel = [{"kind": "title", "text": words["groupTitle"].format(label=node["label"], count=len(group))}]
        if node["where"]["code"]:
            panel.append({"kind": "code", "text": node["where"]["code"], "where": node["where"]["text"]})
        panel.append({"kind": "math", "text": f"{labels[group[-1]]} = {value}"})
        steps.append({"phase": "forward", "node": i, "counter": counter, "panel": panel, "terms": [],
                      "say": words["sayGroupForward"].format(counter=counter, label=node["label"],
                                                             where=node["where"]["text"], value=value)})
    for j, k in enumerate(backward):
        group = [n for n in members[k] if n in grads]
        counter = words["stepBackward"].format(n=j + 1, total=len(backward))
        grad = written(grads[group[-1]], lang)
        dL = words["dL"].format(root=root_name, node=labels[group[-1]])
        panel = [{"kind": "title", "text": words["groupTitle"].format(label=nodes[index[k]]["label"],
                                                                      count=len(members[k]))},
                 {"kind": "total", "text": f"{dL} = {grad}"}]
        steps.append({"phase": "backward", "node": index[k], "counter": counter, "panel": panel, "terms": [],
                      "say": words["sayGroupBackward"].format(counter=counter, dL=dL, grad=grad)})
    notes = [words["grouped"].format(count=len(order), groups=len(keys))]
    notes += graph_notes(order, grads, swept, root, root_name, lang, words)
    return {"name": root_name, "nodes": nodes, "steps": steps, "notes": notes, "grouped": True,
            "root": index[key(root)], "size": len(order)}
