"""The graph of a reader's own code, as the page draws it (sitebuild/explorers/code_graph.py), in CPython:
the same module the page's Python runs (tests/browser/test_graph_in_page.py shows it drawn in Chromium).

Names by assignment and lines of code, the numbers in each language (culpa's, written with a decimal comma
in pt), the backward steps with their shares and sums, grouping past LIMIT nodes, and a released graph.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import culpa
from sitebuild import strings
from sitebuild.explorers import code_graph

FILE = {"pt": "<bloco 1>", "en": "<block 1>"}
CODE = """\
import culpa
knob = culpa.Tensor([0.5, -1.5], requires_grad=True)
scale = culpa.Tensor(2.0, requires_grad=True)
h = (knob * scale).tanh()
loss = (h * h + h).sum()
loss.backward()
"""


def drawn(code: str, name: str, lang: str, file: str | None = None) -> dict:
    file = file or FILE[lang]
    recorder = culpa.graph.Recorder()
    namespace = {"__name__": "__main__"}
    with recorder.recording(file, code):
        exec(compile(code, file, "exec"), namespace)
    recorder.keep(file, code, namespace)
    return json.loads(code_graph.answer(recorder, file, name, lang)) | {"namespace": namespace}


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_nodes_carry_their_op_their_line_and_the_name_they_were_assigned(lang):
    answer = drawn(CODE, "loss", lang)
    graph = answer["graph"]
    words = strings.of(lang)["graph"]
    nodes = [(n["label"], n["op"], n["where"]["line"], n["where"]["code"]) for n in graph["nodes"]]
    assert nodes == [
        ("knob", "leaf", 2, "knob = culpa.Tensor([0.5, -1.5], requires_grad=True)"),
        ("scale", "leaf", 3, "scale = culpa.Tensor(2.0, requires_grad=True)"),
        ("mul₁", "mul", 4, "h = (knob * scale).tanh()"),
        ("h", "tanh", 4, "h = (knob * scale).tanh()"),
        ("mul₂", "mul", 5, "loss = (h * h + h).sum()"),
        ("add", "add", 5, "loss = (h * h + h).sum()"),
        ("loss", "sum", 5, "loss = (h * h + h).sum()"),
    ]
    assert graph["nodes"][3]["sub"] == "tanh · " + words["line"].format(line=4)
    assert graph["nodes"][3]["parents"] == [2] and graph["nodes"][4]["parents"] == [3]  # h * h: one edge
    assert [c["name"] for c in graph["candidates"]] == ["knob", "scale", "h", "loss"]


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_every_number_is_culpas_written_the_pages_way(lang):
    answer = drawn(CODE, "loss", lang)
    ns, graph = answer["namespace"], answer["graph"]
    knob, loss = ns["knob"], ns["loss"]

    def written(x):
        text = format(float(x), ".4g")
        return text.replace(".", ",") if lang == "pt" else text

    nodes = {n["label"]: n for n in graph["nodes"]}
    assert nodes["loss"]["value"]["brief"] == written(loss.item())
    pair = [written(v).replace("-", "−") for v in knob.grad]
    assert nodes["knob"]["grad"]["wide"] == "(" + ("; " if lang == "pt" else ", ").join(pair) + ")"
    assert nodes["scale"]["grad"]["brief"] == written(ns["scale"].grad.item())
    if lang == "pt":  # a decimal comma, a true minus, and nowhere a decimal point
        assert "," in nodes["knob"]["grad"]["wide"] and "−" in nodes["knob"]["grad"]["wide"]
        shown = [n["value"]["wide"] + (n["grad"] or {"wide": ""})["wide"] for n in graph["nodes"]]
        assert not any("." in text for text in shown)


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_steps_forward_then_backward_with_the_rule_and_the_sum_of_a_node_used_three_times(lang):
    graph = drawn(CODE, "loss", lang)["graph"]
    words = strings.of(lang)["graph"]
    steps = graph["steps"]
    forward = [s for s in steps if s["phase"] == "forward"]
    backward = [s for s in steps if s["phase"] == "backward"]
    assert [s["node"] for s in forward] == list(range(7))
    assert [s["node"] for s in backward] == [6, 5, 4, 3, 2, 1, 0]  # loss, add, mul₂, h, mul₁, scale, knob
    assert [graph["nodes"][s["node"]]["order"] for s in backward] == list(range(1, 8))
    h = backward[3]
    terms = [p for p in h["panel"] if p["kind"] == "term"]
    assert len(terms) == 3 and sorted(h["terms"]) == [4, 4, 5]  # from mul₂ twice, from add once
    notes = [p["text"] for p in h["panel"] if p["kind"] == "note"]
    assert words["sumNote"].format(node="h", count=3) in notes
    total = [p["text"] for p in h["panel"] if p["kind"] == "total"][0]
    assert total.count("+") == 2 and total.startswith("∂loss/∂h = ")
    # an elementwise op writes its local derivative's numbers: tanh's, at mul₁
    mul1 = backward[4]
    calc = [p["calc"] for p in mul1["panel"] if p["kind"] == "term"][0]
    assert calc.count("·") == 1 and calc.count("=") == 1
    assert h["say"].startswith(words["stepBackward"].format(n=4, total=7))


def test_the_default_is_the_last_scalar_and_a_vector_gets_only_its_forward():
    code = "import culpa\nx = culpa.Tensor([1.0, 2.0], requires_grad=True)\ny = x * x\n"
    answer = drawn(code, "y", "en")
    graph = answer["graph"]
    assert all(s["phase"] == "forward" for s in graph["steps"])
    assert strings.of("en")["graph"]["notScalar"].format(name="y", size=2) in graph["notes"]


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_released_graph_is_drawn_from_the_record_and_says_so(lang):
    graph = drawn(CODE, "loss", lang)["graph"]
    assert strings.of(lang)["graph"]["released"] in graph["notes"]
    kept = drawn(CODE.replace("loss.backward()", "loss.backward(retain_graph=True)"), "loss", lang)["graph"]
    assert strings.of(lang)["graph"]["released"] not in kept["notes"]
    assert [n["grad"] for n in kept["nodes"]] == [n["grad"] for n in graph["nodes"]]


def test_a_released_graph_nobody_recorded_tells_how_to_keep_it():
    recorder = culpa.graph.Recorder()
    loss = (culpa.Tensor([1.0, 2.0], requires_grad=True) * 3).sum()  # made while nothing recorded
    loss.backward()
    recorder.kept["<block 1>"] = {"loss": loss}
    answer = json.loads(code_graph.answer(recorder, "<block 1>", "loss", "en"))
    assert not answer["ok"] and "retain_graph=True" in answer["problem"]
    missing = json.loads(code_graph.answer(recorder, "<block 1>", "nothing", "pt"))
    assert missing["problem"] == strings.of("pt")["graph"]["problemName"].format(name="nothing")


def test_past_the_limit_nodes_are_grouped_by_line_and_op_with_a_note():
    code = """\
import culpa
x = culpa.Tensor([0.1, 0.2], requires_grad=True)
w = culpa.Tensor(0.9, requires_grad=True)
for _ in range(60):
    x = (x * w).tanh()
loss = x.sum()
"""
    answer = drawn(code, "loss", "pt")
    graph = answer["graph"]
    assert graph["grouped"] and graph["size"] > code_graph.LIMIT
    labels = [n["label"] for n in graph["nodes"]]
    assert labels == ["x₁", "w", "mul × 60", "tanh × 60", "loss"]  # x₁: the first of 61 x
    assert graph["notes"][0] == strings.of("pt")["graph"]["grouped"].format(count=graph["size"], groups=5)
    tanh = graph["nodes"][3]
    assert tanh["parents"] == [2]
    assert sorted(graph["nodes"][2]["parents"]) == [0, 1, 3]  # the loop: from tanh back to mul
    # a group shows its last node's numbers: the tanh that loss sums
    last = answer["namespace"]["loss"].parents[0]
    assert tanh["value"]["brief"] == "[2]" and tanh["value"]["wide"] == code_graph.wide(last.data, "pt")


def test_up_to_the_limit_every_node_is_drawn():
    code = "import culpa\nx = culpa.Tensor(0.5, requires_grad=True)\nfor _ in range(49):\n    x = x * 1.01\n"
    graph = drawn(code, "x", "en")["graph"]
    assert graph["size"] == 99 and not graph["grouped"] and len(graph["nodes"]) == 99


def test_numbers_in_either_language():
    assert code_graph.number(-0.000024577, "pt") == "−2,458 × 10⁻⁵"
    assert code_graph.number(1234.5, "en") == "1234" or code_graph.number(1234.5, "en") == "1235"
    assert code_graph.number(-0.0, "pt") == "0" and code_graph.number(1e-30, "en") != "0"
    assert code_graph.written(np.arange(8.0).reshape(2, 4), "pt") == "2×4: (0; 1; 2; 3; 4; 5; …)"
    assert code_graph.brief(np.zeros((64, 10)), "en") == "[64×10]"


def test_a_lines_annotation_marker_is_not_shown_as_its_code():
    """A page's block may end a line with Material's `# (1)!` (drawn as a button on the page): the graph
    shows the line's code without it (a new reader's session read "v = x**2  # (1)!" in a step)."""
    code = CODE.replace("h = (knob * scale).tanh()", "h = (knob * scale).tanh()  # (1)!")
    nodes = drawn(code, "loss", "en")["graph"]["nodes"]
    assert [n["where"]["code"] for n in nodes if n["label"] == "h"] == ["h = (knob * scale).tanh()"]
