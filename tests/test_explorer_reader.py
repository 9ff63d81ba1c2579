"""The reader's numbers in an explorer, computed by culpa (sitebuild/explorers/in_page.py), in CPython.

The page runs the same code in Pyodide (tests/browser/test_explorer_reader_in_browser.py shows that what
it shows is what this computes). Here:
- for 20 seeded random inputs, typed as a pt or an en reader types them, the worked example's data agrees with
  culpa recomputed from page 03's own code with those numbers (its `check`), and is not the book's;
- for 20 seeded random inputs x and activations, the blame explorer's data (page 04) agrees with culpa
  computed here, directly (the network's layers, the activation, cross-entropy and one backward pass,
  written in this test, not by the exporter): every activation, δ, |δ|, Wᵀδ, f′(z), weight slope and the loss;
- for 20 seeded random values θ of either knob (page 01's weight, or page 08's element at a ReLU's kink), the
  nudge explorer's data (page 08) agrees with culpa computed here, directly, in float64 and float32: the loss,
  the exact slope of one backward pass, and at every ε both finite differences (culpa.check) and their errors;
- every field culpa cannot read is named with what is wrong (empty, not a number, out of range, no such
  class), and nothing is computed;
- the files the build serves for the page's Python (assets/explorers/py/) are all it needs: a fresh
  interpreter with only those files and culpa, where importing matplotlib or mkdocs fails, computes the same
  data;
- a formula whose TeX the build did not typeset is an error that names it, never a formula without its HTML.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from sitebuild import explorers, lessons
from sitebuild.explorers import blame, in_page, nudge, power, text
from sitebuild.explorers import worked_example as we
from sitebuild.project import Project
from sitebuild.steps import explorers as step
from support.pages import ROOT

CASES = 20


def typeset_index(data: dict) -> dict:
    """TeX -> an index, as the page sends it (the build's typeset HTML is not needed here)."""
    index = {}
    for entry in explorers.formulas(data):
        index.setdefault(entry["tex"], len(index))
    return index


def ask(fields: dict, typeset: dict, name: str = "worked-example") -> dict:
    """What the page's Python answers for the reader's fields."""
    return json.loads(in_page.explore(name, json.dumps(fields), json.dumps(typeset)))


@pytest.fixture(scope="module")
def book():
    return we.export()


def typed(value: float, lang: str, rng: random.Random) -> str:
    """How a reader of `lang` types a number: a decimal comma in pt, a hyphen or a true minus."""
    text = f"{value:.{rng.choice([0, 1, 2, 3])}f}"
    if lang == "pt":
        text = text.replace(".", ",")
    return text.replace("-", rng.choice(["-", "\u2212"]))


def reader_cases():
    rng = random.Random(26)
    for case in range(CASES):
        lang = ("pt", "en")[case % 2]
        fields = {f"z{k}": typed(rng.uniform(-we.LIMIT, we.LIMIT) / rng.choice([1, 4, 10]), lang, rng)
                  for k in range(we.CLASSES)}
        fields["observed"] = str(rng.randrange(we.CLASSES))
        yield case, fields


@pytest.mark.parametrize(("case", "fields"), list(reader_cases()), ids=[f"case{k}" for k in range(CASES)])
def test_the_readers_numbers_give_what_culpa_computes_with_them(book, case, fields):
    answer = ask(fields, typeset_index(book))
    assert answer["ok"], answer
    data = answer["data"]
    z = [float(fields[f"z{k}"].replace(",", ".").replace("\u2212", "-")) for k in range(we.CLASSES)]
    observed = int(fields["observed"])
    assert we.check(data, z, observed) == [], f"case {case}, fields {fields}"
    page = we._recorded(z, observed)[2]
    assert np.allclose(page["z"].data, z) and int(np.argmax(page["y"])) == observed
    assert data["inputs"]["observed"] == fields["observed"]
    assert data["steps"] != book["steps"], f"case {case}: the book's numbers came back for {fields}"
    # the reader's data points every formula at the book's typeset HTML: no TeX the build did not typeset
    index = typeset_index(book)
    assert all(entry["typeset"] == index[entry["tex"]] for entry in explorers.formulas(data))


def test_a_check_with_other_numbers_than_the_datas_fails(book):
    """The check above can fail: the book's data checked against other logits is caught, step by step."""
    problems = we.check(book, [0.5, 2.5, -1.0], 1)
    assert problems and any("worked-example, step" in p for p in problems), problems


@pytest.mark.parametrize(("fields", "expected"), [
    ({"z0": "", "z1": "1", "z2": "0", "observed": "0"}, [("z0", "empty")]),
    ({"z0": "abc", "z1": "1", "z2": "0", "observed": "0"}, [("z0", "number")]),
    ({"z0": "1,000.5", "z1": "1", "z2": "0", "observed": "0"}, [("z0", "number")]),
    ({"z0": "2", "z1": "20,5", "z2": "0", "observed": "0"}, [("z1", "range")]),
    ({"z0": "2", "z1": "1", "z2": "-99", "observed": "0"}, [("z2", "range")]),
    ({"z0": "2", "z1": "1", "z2": "0", "observed": "3"}, [("observed", "class")]),
    ({"z0": "x", "z1": "", "z2": "0", "observed": "-1"},
     [("z0", "number"), ("z1", "empty"), ("observed", "class")]),
])
def test_a_field_culpa_cannot_read_is_named_and_nothing_is_computed(book, fields, expected):
    answer = ask(fields, typeset_index(book))
    assert answer == {"ok": False, "problems": answer["problems"]}, answer
    assert [(p["field"], p["problem"]) for p in answer["problems"]] == expected
    for problem in answer["problems"]:
        assert problem["text"] == fields[problem["field"]].strip()
        if problem["problem"] in ("range", "number", "empty"):  # the limits, written for each language
            assert problem["low"] == {"pt": "\u221220,0", "en": "\u221220.0"}, problem


def test_a_formula_the_build_did_not_typeset_is_named(book):
    index = typeset_index(book)
    missing = next(iter(index))
    del index[missing]
    fields = {"z0": "1", "z1": "2", "z2": "3", "observed": "2"}
    with pytest.raises(ValueError, match="was not typeset at build time"):
        in_page.explore("worked-example", json.dumps(fields), json.dumps(index))


def test_the_served_files_are_all_the_pages_python_needs(tmp_path, book):
    """What assets/explorers/py/ holds, alone, with culpa: the same data, and no matplotlib nor MkDocs."""
    served = step.in_page_sources(Project(ROOT))
    for path, source in served.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(source)
    fields = {"z0": "0,5", "z1": "2.5", "z2": "\u22121", "observed": "1"}
    (tmp_path / "culpa").symlink_to(ROOT / "snippets" / "culpa")  # culpa, as its wheel installs it
    script = textwrap.dedent(f"""
        import json, sys
        sys.path[:0] = [{str(tmp_path)!r}]  # -I: the served files and culpa first, then numpy's site-packages
        sys.modules["matplotlib"] = None  # not in the page's Python: importing it fails
        sys.modules["mkdocs"] = None
        from sitebuild.explorers.in_page import explore
        import sitebuild
        assert sitebuild.__file__.startswith({str(tmp_path)!r}), sitebuild.__file__
        fields, typeset = {json.dumps(json.dumps(fields))}, {json.dumps(json.dumps(typeset_index(book)))}
        print(explore("worked-example", fields, typeset))
    """)
    ran = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert json.loads(ran.stdout) == ask(fields, typeset_index(book))


# ---- blame (page 04): the input x and the activation ----
@pytest.fixture(scope="module")
def blame_book():
    return blame.export()


def blame_cases():
    rng = random.Random("blame-26")
    for case in range(CASES):
        lang = ("pt", "en")[case % 2]
        fields = {f"x{k}": typed(rng.uniform(-blame.LIMIT, blame.LIMIT) / rng.choice([1, 4, 10]), lang, rng)
                  for k in range(4)}
        fields["activation"] = rng.choice(blame.ACTIVATIONS)
        yield case, fields


def culpa_directly(x, activation):
    """Page 04's network computed here with culpa, layer by layer: the activations a, the gradients on each
    z (δ) and on each a (Wᵀδ), each weight's slope and the loss."""
    import culpa

    page = lessons.run("through_a_network.py", "network")  # the lesson's sizes, seed and class
    net = culpa.nn.MLP(page["sizes"], activation=activation, rng=0)
    a = culpa.Tensor(np.asarray(x, dtype=float))
    acts, zs = [a], []
    for i, layer in enumerate(net.layers):
        z = a @ layer.weight.T + layer.bias
        zs.append(z)
        if i < len(net.layers) - 1:
            a = {"sigmoid": z.sigmoid, "tanh": z.tanh, "relu": z.relu}[activation]()
            acts.append(a)
    loss = culpa.cross_entropy(zs[-1], page["c"])
    loss.backward()
    derivative = {"sigmoid": lambda a, z: a * (1 - a), "tanh": lambda a, z: 1 - a * a,
                  "relu": lambda a, z: (z > 0).astype(float)}[activation]
    logits = zs[-1].data
    p = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    return {"a": [t.data for t in acts] + [p], "delta": [None] + [z.grad for z in zs],
            "message": [None] + [t.grad for t in acts[1:]],
            "slope": [None] + [derivative(t.data, z.data) for t, z in zip(acts[1:], zs, strict=False)],
            "weights": [None] + [layer.weight.grad for layer in net.layers], "loss": loss.item()}


def four(value):
    return text(value, ".4f")


def blame_problems(data, x, activation):
    want, problems = culpa_directly(x, activation), []

    def same(where, shown, expected):
        if shown != expected:
            problems.append(f"{where}: shows {shown}, culpa computes {expected}")

    depth = len(data["layers"]) - 1
    for l, layer in enumerate(data["layers"]):
        same(f"a{l}", layer["a"], [four(v) for v in want["a"][l]])
        if l >= 1:
            same(f"δ{l}", layer["delta"], [four(v) for v in want["delta"][l]])
            same(f"|δ{l}|", layer["delta_size"], four(np.sqrt(np.sum(want["delta"][l] ** 2))))
            same(f"W{l} slopes", data["weights"][str(l)],
                 [[four(v) for v in row] for row in want["weights"][l]])
        if 1 <= l < depth:
            same(f"Wᵀδ into {l}", layer["message"], explorers.numbers(want["message"][l], four))
            same(f"f′(z{l})", layer["slope"], explorers.numbers(want["slope"][l], four))
    loss = [s for s in data["steps"] if s["phase"] == "loss"][0]
    same("loss", loss["loss"], four(want["loss"]))
    return problems


@pytest.mark.parametrize(("case", "fields"), list(blame_cases()), ids=[f"case{k}" for k in range(CASES)])
def test_blame_shows_what_culpa_computes_with_the_readers_input_and_activation(blame_book, case, fields):
    answer = ask(fields, typeset_index(blame_book), "blame")
    assert answer["ok"], answer
    data = answer["data"]
    x = [float(fields[f"x{k}"].replace(",", ".").replace("\u2212", "-")) for k in range(4)]
    assert blame_problems(data, x, fields["activation"]) == [], f"case {case}, fields {fields}"
    assert data["inputs"]["activation"] == fields["activation"]
    assert data["steps"] != blame_book["steps"], f"case {case}: the book's numbers came back for {fields}"
    index = typeset_index(blame_book)
    assert all(entry["typeset"] == index[entry["tex"]] for entry in explorers.formulas(data))


def test_blame_the_comparison_can_fail(blame_book):
    """The book's data (sigmoid, the lesson's x) against culpa with tanh, or with another x: caught."""
    assert blame_problems(blame_book, [0.5, -1.2, 0.8, 2.0], "sigmoid") == []
    assert any(p.startswith("δ1") for p in blame_problems(blame_book, [0.5, -1.2, 0.8, 2.0], "tanh"))
    assert any(p.startswith("a0") for p in blame_problems(blame_book, [0.5, -1.2, 0.8, 2.5], "sigmoid"))


@pytest.mark.parametrize(("fields", "expected"), [
    ({"x0": "", "x1": "1", "x2": "0", "x3": "2", "activation": "tanh"}, [("x0", "empty")]),
    ({"x0": "1", "x1": "um", "x2": "0", "x3": "2", "activation": "tanh"}, [("x1", "number")]),
    ({"x0": "1", "x1": "1", "x2": "10,5", "x3": "2", "activation": "relu"}, [("x2", "range")]),
    ({"x0": "1", "x1": "1", "x2": "0", "x3": "2", "activation": "elu"}, [("activation", "activation")]),
    ({"x0": "a", "x1": "1", "x2": "0", "x3": "-11", "activation": ""},
     [("x0", "number"), ("x3", "range"), ("activation", "activation")]),
])
def test_blame_a_field_culpa_cannot_read_is_named_and_nothing_is_computed(blame_book, fields, expected):
    answer = ask(fields, typeset_index(blame_book), "blame")
    assert answer == {"ok": False, "problems": answer["problems"]}, answer
    assert [(p["field"], p["problem"]) for p in answer["problems"]] == expected
    for problem in answer["problems"]:
        assert problem["text"] == fields[problem["field"]].strip()


# ---- nudge (page 08): the knob's value θ, on the smooth knob or the one at a ReLU's kink ----
@pytest.fixture(scope="module")
def nudge_book():
    return nudge.export()


def nudge_cases():
    rng = random.Random("nudge-26")
    for case in range(CASES):
        lang = ("pt", "en")[case % 2]
        kind = rng.choice(nudge.KINDS)
        value = rng.uniform(-nudge.LIMIT, nudge.LIMIT) / rng.choice([1, 10, 100, 1000])
        yield case, {"theta": typed(value, lang, rng) if rng.random() < 0.8 else typed(0.0, lang, rng),
                     "kind": kind}


def knob_directly(kind: str, precision: str):
    """The knob as culpa computes it here: (the tensor, the element that is θ, the loss of the tensor)."""
    import culpa

    dtype = np.dtype(precision)
    if kind == "kink":
        page = lessons.run("honest_habits.py", "new_op", "kink")  # the lesson's near_kink
        x = culpa.Tensor(np.asarray(page["near_kink"].data, dtype=dtype), requires_grad=True)
        return x, (1,), [x], lambda: x.relu().sum()
    page = lessons.run("a_billion_knobs.py", "model")  # page 01's model, its points and labels
    model = culpa.nn.MLP(page["model"].sizes, activation=page["model"].activation, dtype=dtype.type)
    for mine, theirs in zip(model.parameters(), page["model"].parameters(), strict=True):
        mine.data[...] = theirs.data
    inputs = np.asarray(page["X"], dtype=dtype)
    weight = model.layers[0].weight
    return weight, (1, 0), model.parameters(), lambda: culpa.cross_entropy(model(inputs), page["labels"])


def nudge_problems(data, theta, kind):
    import culpa

    problems = []

    def same(where, shown, expected):
        if shown != expected:
            problems.append(f"{where}: shows {shown}, culpa computes {expected}")

    for precision in nudge.PRECISIONS:
        tensor, index, parameters, loss = knob_directly(kind, precision)
        tensor.data[index] = theta
        loss_value = loss()
        loss_value.backward()
        exact = float(tensor.grad[index])
        [knob] = data["knobs"] if precision == "float64" else data[f"knobs_{precision}"]
        same(f"{precision} θ", knob["theta"], text(theta, ".3f"))
        same(f"{precision} L", knob["loss"], text(loss_value.item(), ".6f"))
        same(f"{precision} exact slope", knob["exact"], text(exact, ".10f"))

        def of(t, tensor=tensor, index=index, loss=loss):
            tensor.data[index] = t.data[0]
            return loss()

        for e, eps in enumerate(data["eps_raw"]):
            cell, found = knob["cells"][e], {}
            for method in ("forward", "central"):
                try:
                    start = culpa.Tensor(np.array([theta], dtype=np.dtype(precision)))
                    (slope,) = culpa.check.finite_difference(of, [start], eps=eps, method=method)
                    found[method] = float(slope[0])
                except ValueError:  # the step vanished in this precision
                    found[method] = None
            if None in found.values():
                same(f"{precision} ε {eps:g} empty", (cell["forward"], cell["central"]),
                     ({"pt": "—", "en": "—"},) * 2)
                continue
            for method, value in found.items():
                same(f"{precision} ε {eps:g} {method}", cell[method], text(value, ".10f"))
                same(f"{precision} ε {eps:g} {method} error", cell[f"error_{method}"],
                     power(abs(value - exact)))
    return problems


@pytest.mark.parametrize(("case", "fields"), list(nudge_cases()), ids=[f"case{k}" for k in range(CASES)])
def test_nudge_shows_what_culpa_computes_at_the_readers_theta(nudge_book, case, fields):
    answer = ask(fields, typeset_index(nudge_book), "nudge")
    assert answer["ok"], answer
    data = answer["data"]
    theta = float(fields["theta"].replace(",", ".").replace("\u2212", "-"))
    assert data["kind"] == fields["kind"] and data["kinds"] == [fields["kind"]]
    assert nudge_problems(data, theta, fields["kind"]) == [], f"case {case}, fields {fields}"
    index = typeset_index(nudge_book)
    assert all(entry["typeset"] == index[entry["tex"]] for entry in explorers.formulas(data))


def test_nudge_the_comparison_can_fail(nudge_book):
    """The book's middle knob checked as the reader's: right at its θ, wrong at another θ or knob."""
    for kind, view in (("smooth", nudge_book), ("kink", nudge_book["kink"])):
        middle = {**nudge_book, **view, "knobs": [view["knobs"][view["default_knob"]]],
                  "knobs_float32": [view["knobs_float32"][view["default_knob"]]]}
        theta = float(view["knobs"][view["default_knob"]]["theta"]["en"].replace("\u2212", "-"))
        if kind == "smooth":
            theta = float(lessons.run("a_billion_knobs.py", "model", "nudge")["knob"].data[1, 0])
        assert nudge_problems(middle, theta, kind) == [], kind
        assert nudge_problems(middle, theta + 0.25, kind), kind
    assert nudge_problems({**nudge_book, "knobs": [nudge_book["kink"]["knobs"][6]],
                           "knobs_float32": [nudge_book["kink"]["knobs_float32"][6]]}, 0.0, "smooth")


@pytest.mark.parametrize(("fields", "expected"), [
    ({"theta": "", "kind": "smooth"}, [("theta", "empty")]),
    ({"theta": "zero", "kind": "kink"}, [("theta", "number")]),
    ({"theta": "5,5", "kind": "kink"}, [("theta", "range")]),
    ({"theta": "0.1", "kind": "bumpy"}, [("kind", "kind")]),
    ({"theta": "1.2.3", "kind": ""}, [("theta", "number"), ("kind", "kind")]),
])
def test_nudge_a_field_culpa_cannot_read_is_named_and_nothing_is_computed(nudge_book, fields, expected):
    answer = ask(fields, typeset_index(nudge_book), "nudge")
    assert answer == {"ok": False, "problems": answer["problems"]}, answer
    assert [(p["field"], p["problem"]) for p in answer["problems"]] == expected


def test_nudge_a_readers_theta_shows_the_same_whatever_came_before(monkeypatch):
    """The reader's knobs keep their losses from one θ to the next (nudge._reader_knobs): the answer for a θ
    is the one fresh knobs give, after other θs on either knob, and after the kept losses were let go."""
    sequence = [("smooth", 0.7), ("smooth", -1.0), ("kink", 0.3), ("smooth", 0.65), ("kink", -2.2),
                ("smooth", 0.7), ("kink", 0.3)]
    nudge._kept_knobs.cache_clear()
    kept = [explorers.to_json(nudge.export(theta=theta, kind=kind)) for kind, theta in sequence]
    monkeypatch.setattr(nudge, "KEPT_LOSSES", 150)  # fewer than one θ's: the memo is cleared midway
    nudge._kept_knobs.cache_clear()
    cleared = [explorers.to_json(nudge.export(theta=theta, kind=kind)) for kind, theta in sequence]
    knobs = [knob for kind in nudge.KINDS for knob in nudge._reader_knobs(kind).values()]
    assert all(len(knob._losses) <= 150 for knob in knobs)
    fresh = []
    for kind, theta in sequence:
        nudge._kept_knobs.cache_clear()
        fresh.append(explorers.to_json(nudge.export(theta=theta, kind=kind)))
    assert kept == fresh
    assert cleared == fresh
    # the curve of θ and of a nearby θ share their points: what the kept losses are for
    near, far = nudge._curve("smooth", 0.7), nudge._curve("smooth", 0.65)
    assert len(set(near) & set(far)) == len(near) - 1
    assert abs((near[0] + near[-1]) / 2 - 0.7) <= (near[1] - near[0]) / 2 + 1e-12
