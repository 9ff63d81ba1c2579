"""The reader's numbers in an explorer, computed by culpa (sitebuild/explorers/in_page.py), in CPython.

The page runs the same code in Pyodide (tests/browser/test_explorer_reader_in_browser.py shows that what
it shows is what this computes). Here:
- for 20 seeded random inputs, typed as a pt or an en reader types them, the worked example's data agrees with
  culpa recomputed from page 03's own code with those numbers (its `check`), and is not the book's;
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

from sitebuild import explorers
from sitebuild.explorers import in_page
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


def ask(fields: dict, typeset: dict) -> dict:
    """What the page's Python answers for the reader's fields."""
    return json.loads(in_page.explore("worked-example", json.dumps(fields), json.dumps(typeset)))


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
