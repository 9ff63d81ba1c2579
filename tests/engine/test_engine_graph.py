"""culpa.graph.export: the recorded graph as plain, JSON-ready data."""

import json

import numpy as np
import pytest

import culpa
from culpa import Tensor


def worked_example_graph():
    z = Tensor([2.0, 1.0, 0.1], requires_grad=True, name="z")
    scale = Tensor(2.0, name="scale")
    loss = culpa.cross_entropy(z * scale, 0)
    return z, loss


def test_export_after_backward_has_values_grads_and_the_backward_order():
    z, loss = worked_example_graph()
    loss.backward(retain_graph=True)
    data = culpa.graph.export(loss)
    json.dumps(data)  # plain data
    nodes = {node["id"]: node for node in data["nodes"]}
    by_op = {node["op"]: node for node in data["nodes"] if node["op"] != "leaf"}
    assert set(by_op) == {"mul", "cross_entropy"}
    leaves = [node for node in data["nodes"] if node["op"] == "leaf"]
    assert {leaf["name"] for leaf in leaves} == {"z", "scale"}
    z_node = next(leaf for leaf in leaves if leaf["name"] == "z")
    assert z_node["value"] == [2.0, 1.0, 0.1] and z_node["shape"] == [3]
    assert np.allclose(z_node["grad"], z.grad) and z_node["requires_grad"]
    assert next(leaf for leaf in leaves if leaf["name"] == "scale")["grad"] is None
    ce = by_op["cross_entropy"]
    assert ce["shape"] == [] and ce["grad"] == 1.0 and ce["parents"] == [by_op["mul"]["id"]]
    assert sorted(nodes[i]["name"] for i in by_op["mul"]["parents"]) == ["scale", "z"]
    assert data["backward_order"] == [ce["id"], by_op["mul"]["id"], z_node["id"]]
    for node in data["nodes"]:  # parents come first
        assert all(data["nodes"].index(nodes[p]) < data["nodes"].index(node) for p in node["parents"])


def test_export_before_backward_has_no_grads():
    _, loss = worked_example_graph()
    data = culpa.graph.export(loss)
    assert all(node["grad"] is None for node in data["nodes"])


def test_export_of_a_released_graph_says_to_retain_it():
    _, loss = worked_example_graph()
    loss.backward()
    with pytest.raises(RuntimeError, match=r"retain_graph=True"):
        culpa.graph.export(loss)


# ---- where code made each tensor (culpa.graph.Recorder), and the backward pass step by step (sweep) ----
CODE = """\
import culpa
knob = culpa.Tensor([2.0, -1.0], requires_grad=True)
w = culpa.Tensor(3.0, requires_grad=True)
h = (knob * w).tanh()
both = h * h + h
for _ in range(2):
    both = both * 2
loss = both.sum()
"""


def run_recorded(code, file="<block 1>", namespace=None):
    recorder = culpa.graph.Recorder()
    namespace = {"__name__": "__main__"} if namespace is None else namespace
    with recorder.recording(file, code):
        exec(compile(code, file, "exec"), namespace)
    names = recorder.keep(file, code, namespace)
    return recorder, namespace, names


def made(t):
    o = culpa.graph.origin(t)
    return (o.line, o.name) if o is not None else None


def test_the_recorder_notes_each_tensors_line_and_the_name_it_was_assigned():
    _, ns, names = run_recorded(CODE)
    order = culpa.topo_order(ns["loss"])
    seen = [(t.op, *made(t)) for t in order]
    assert seen == [
        ("leaf", 2, "knob"), ("leaf", 3, "w"), ("mul", 4, None), ("tanh", 4, "h"), ("mul", 5, None),
        ("add", 5, "both"), ("leaf", 7, None), ("mul", 7, "both"), ("leaf", 7, None), ("mul", 7, "both"),
        ("sum", 8, "loss"),
    ]  # every run of the loop's line names its own result; the lifted 2s and the inner products stay unnamed
    assert names == [{"name": "knob", "scalar": False}, {"name": "w", "scalar": True},
                     {"name": "h", "scalar": False}, {"name": "both", "scalar": False},
                     {"name": "loss", "scalar": True}]


def test_the_recorder_names_only_what_a_statement_assigns():
    code = """\
import culpa
def double(t):
    inner = t * 2
    return inner + 1
model = culpa.nn.MLP([2, 3, 1], rng=0)
x = culpa.Tensor([[1.0, 2.0]], requires_grad=True)
y = double(x * 3) + model(x)
"""
    _, ns, names = run_recorded(code)
    weight = ns["model"].layers[0].weight
    assert made(weight) == (5, None) and weight.name == "layers.0.weight"  # not "model"
    y = ns["y"]
    assert made(y) == (7, "y")
    left, right = y.parents
    assert made(left) == (4, None)  # made inside double(), by its return line
    assert made(left.parents[0]) == (3, "inner") and made(left.parents[0].parents[0]) == (7, None)
    assert made(right) == (7, None)  # model(x): culpa's linear, on the line that called it
    assert [n["name"] for n in names] == ["x", "y"]  # model is no tensor


def test_nothing_is_recorded_outside_a_recording():
    recorder, _, _ = run_recorded("import culpa\na = culpa.Tensor(1.0)\n")
    t = Tensor([1.0], requires_grad=True) * 2
    assert culpa.graph.origin(t) is None and not culpa.tensor.watchers
    with pytest.raises(AttributeError):
        _ = t.origin  # the slot stays unset: the engine wrote nothing
    assert recorder.kept["<block 1>"]["a"].data == 1.0


def test_a_function_from_an_earlier_block_reports_its_own_block():
    recorder = culpa.graph.Recorder()
    ns = {"__name__": "__main__"}
    first = "import culpa\ndef square(t):\n    return t * t\n"
    second = "w = culpa.Tensor(2.0, requires_grad=True)\nloss = square(w)\n"
    for file, code in (("<block 1>", first), ("<block 2>", second)):
        with recorder.recording(file, code):
            exec(compile(code, file, "exec"), ns)
        recorder.keep(file, code, ns)
    o = culpa.graph.origin(ns["loss"])
    assert (o.file, o.line, o.name) == ("<block 1>", 3, "loss")
    assert recorder.sources["<block 1>"][2] == "    return t * t"


def random_graph(seed):
    rng = np.random.default_rng(seed)
    x = Tensor(rng.standard_normal(3), requires_grad=True)
    w = Tensor(rng.standard_normal((3, 3)), requires_grad=True)
    h = (w @ x).tanh()
    out = (h * x + h.sigmoid() * 2 - x / (h * h + 1)).exp().mean()
    return out, [x, w]


@pytest.mark.parametrize("seed", range(5))
def test_sweep_gives_what_backward_gives_bit_for_bit(seed):
    loss, leaves = random_graph(seed)
    swept = culpa.graph.sweep(loss)
    loss.backward()
    for leaf in leaves:
        assert np.array_equal(swept["grads"][leaf], leaf.grad)
    # every node's gradient is the sum of the shares handed to it, in the order they were handed
    for node in swept["order"]:
        shares = [share for parent, _, _, share in swept["shares"] if parent is node]
        if shares:
            total = shares[0]
            for share in shares[1:]:
                total = total + share
            assert np.array_equal(total, swept["grads"][node])


def test_sweep_draws_a_released_graph_from_what_the_recorder_kept():
    _, ns, _ = run_recorded(CODE + "loss.backward()\n")
    loss = ns["loss"]
    assert culpa.internals.is_released(loss)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        culpa.graph.export(loss)
    swept = culpa.graph.sweep(loss)
    assert swept["released"] and len(swept["order"]) == 11
    assert np.array_equal(swept["grads"][ns["knob"]], ns["knob"].grad)
    # h is used three times (twice by h * h, once by + h): three shares
    assert sum(1 for parent, _, _, _ in swept["shares"] if parent is ns["h"]) == 3


def test_sweep_of_a_released_graph_nobody_recorded_says_how_to_keep_it():
    loss = (Tensor([1.0, 2.0], requires_grad=True) * 3).sum()
    loss.backward()
    with pytest.raises(LookupError, match=r"retain_graph=True"):
        culpa.graph.sweep(loss)


@pytest.mark.parametrize("size, kept", [(10, True), (culpa.graph.KEEP + 1, False)])
def test_the_recorder_keeps_a_released_graph_only_when_it_is_small(size, kept):
    """What backward frees goes, recorded or not, unless it is small (a page measuring memory, as page 07
    does, sees the same numbers): a big graph is then drawn from nothing, and the reader is told why."""
    code = ("import weakref\nimport numpy as np\nimport culpa\n"
            f"x = culpa.Tensor(np.ones({size}), requires_grad=True)\n"
            "h = x * 2\nprobe = weakref.ref(h.data)\nloss = h.sum()\ndel h\nloss.backward()\n")
    _, ns, _ = run_recorded(code)
    assert (ns["probe"]() is not None) is kept
    if kept:
        assert len(culpa.graph.sweep(ns["loss"])["order"]) == 4  # x, 2, h, loss
    else:
        with pytest.raises(LookupError, match=r"retain_graph=True"):
            culpa.graph.sweep(ns["loss"])
