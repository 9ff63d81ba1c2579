"""The explorers' data (sitebuild/explorers/): culpa's numbers, written for both languages, within budget.

- every exported number agrees with culpa, recomputed from the page's own lesson code (each exporter's
  `check`), and a planted change (one gradient altered) is caught, naming the explorer and the step;
- every number is written for pt and for en, and the two differ only by the language's separators;
- the worked example ends at p − y, and the nudge at its default knob and ε = 1e-5 shows the central
  difference within 1e-6 of the exact slope and the forward difference visibly worse;
- each page with explorers ships at most 60 KB of explorer JavaScript and data, gzip-compressed;
- each explorer's root wraps its static figure, in both languages;
- the build step writes each explorer's words (snippets/sitebuild/strings/, [explorer-NAME]) on its root in
  the page's language and adds its script to the pages that have one, and fails naming a page that asks for an
  unknown explorer;
- the worked example numbers its backward steps 1 to 8 as page 03's figure does, the blame explorer draws each
  edge with its weight's slope, and the nudge explorer computes float64 and float32 (a planted change in
  either is caught).
"""

from __future__ import annotations

import copy
import gzip
import re
from types import SimpleNamespace

import pytest

from sitebuild import explorers
from sitebuild.project import Project
from sitebuild.steps import explorers as step
from support.pages import ROOT

LANGS = ("pt", "en")
BUDGET = 60 * 1024  # bytes, gzip-compressed, per page
ROOT_DIV = re.compile(r'<div\b[^>]*\bdata-explorer="([^"]+)"(.*?)>', re.S)


@pytest.fixture(scope="module")
def data():
    return {name: explorers.module(name).export() for name in explorers.NAMES}


@pytest.mark.parametrize("name", explorers.NAMES)
def test_every_exported_number_is_culpas(data, name):
    problems = explorers.module(name).check(data[name])
    assert not problems, "\n".join(problems[:20])


PLANTS = {  # explorer -> (a planted change, what the failure must name)
    "worked-example": (lambda d: d["steps"][13]["grad"].update(pt="(9,0; 0,0; 0,0)", en="(9.0, 0.0, 0.0)"),
                       "worked-example, step 14"),
    "nudge": (lambda d: d["knobs"][3]["cells"][14]["forward"].update(pt="0,1", en="0.1"),
              "nudge, knob step 4, ε step 15"),
    "nudge-float32": (lambda d: d["knobs_float32"][6]["cells"][20]["central"].update(pt="0,1", en="0.1"),
                      "nudge, float32, knob step 7, ε step 21"),
    "blame-edge": (lambda d: d["edges"]["3"][0][2].update(
        sign="neg" if d["edges"]["3"][0][2]["sign"] == "pos" else "pos"),
                   "blame, step 6 (backward) edge W3[0,2]"),
    "worked-example-order": (lambda d: d["nodes"][8].update(order="9"),
                             "worked-example: the nodes are numbered"),
    "blame": (lambda d: d["weights"]["2"][1][3].update(pt="0,0500", en="0.0500"), "blame, step 7"),
    "nudge-kink": (lambda d: d["kink"]["knobs"][7]["cells"][14]["central"].update(pt="0,1", en="0.1"),
                   "nudge, kink, knob step 8, ε step 15"),
}


@pytest.mark.parametrize("plant_name", list(PLANTS))
def test_a_planted_change_is_caught_naming_the_explorer_and_step(data, plant_name):
    name = next(n for n in explorers.NAMES if plant_name.startswith(n))
    plant, where = PLANTS[plant_name]
    planted = copy.deepcopy(data[name])
    plant(planted)
    problems = explorers.module(name).check(planted)
    assert problems and any(p.startswith(where) for p in problems), problems


def _pairs(value, path=""):
    """Every {pt, en} pair of strings in the export, with where it is."""
    if isinstance(value, dict):
        if set(value) == set(LANGS):
            yield path, value
        else:
            for key, item in value.items():
                yield from _pairs(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _pairs(item, f"{path}[{i}]")


@pytest.mark.parametrize("name", explorers.NAMES)
def test_numbers_are_written_for_each_language(data, name):
    swap = str.maketrans({",": ".", ".": ","})
    pairs = list(_pairs(data[name]))
    assert len(pairs) > 20, f"{name}: only {len(pairs)} numbers exported"
    for where, pair in pairs:
        pt, en = pair["pt"], pair["en"]
        # en (0.659, 0.242) is pt (0,659; 0,242): separators swapped, list items split by "; "
        assert en.translate(swap).replace(". ", "; ") == pt, f"{name}{where}: pt {pt!r} vs en {en!r}"
        assert not re.search(r"\d\.\d", pt), f"{name}{where}: pt writes a decimal point: {pt!r}"
        assert "-" not in pt + en, f"{name}{where}: a hyphen for a minus sign in {pt!r} / {en!r}"


def test_worked_example_ends_at_p_minus_y(data):
    import numpy as np

    from sitebuild import lessons

    page = lessons.run("worked_example.py", "forward", "backward")
    expected = explorers.numbers(np.asarray(page["p"].data) - page["y"])
    assert data["worked-example"]["steps"][-1]["grad"] == expected == data["worked-example"]["p_minus_y"]
    assert data["worked-example"]["steps"][-1]["grad"] == explorers.numbers(page["z"].grad)
    twice = [s for s in data["worked-example"]["steps"] if s["phase"] == "backward" and len(s["terms"]) == 2]
    assert [s["node"] for s in twice] == [1], "e = exp(z), used twice, shows two contributions"
    backward = [s for s in data["worked-example"]["steps"] if s["phase"] == "backward"]
    assert [s["phase_n"] for s in backward] == [str(i) for i in range(1, 9)], "the figure's numbers 1 to 8"
    order = {n["name"]: n["order"] for n in data["worked-example"]["nodes"]}
    assert order["L"] == "1" and order["z"] == "8" and order["y"] is None, order


SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def amount(shown: dict) -> float | None:
    """The number an explorer shows, read back from its English text: "−0.0452506557", "7.4 × 10⁻⁷", "10⁰";
    None for a cell with nothing to show ("—")."""
    text = shown["en"].replace("−", "-").replace(",", "")
    if text == "—":
        return None
    mantissa, _, ten = text.rpartition("10")
    if ten and all(c in "⁰¹²³⁴⁵⁶⁷⁸⁹⁻" for c in ten):
        return float(mantissa.removesuffix(" × ") or 1) * 10.0 ** int(ten.translate(SUPERSCRIPT))
    return float(text)


def test_amount_reads_what_the_explorer_shows():
    assert amount({"en": "−0.0452506557"}) == -0.0452506557 and amount({"en": "—"}) is None
    assert amount({"en": "7.4 × 10⁻⁷"}) == pytest.approx(7.4e-7) and amount({"en": "10⁰"}) == 1.0
    assert amount({"en": "0"}) == 0.0


def test_nudge_float32_bottoms_out_higher_and_at_a_larger_step(data):
    """What the caption says of float32: the bottom of the U sits much higher, at a much larger ε."""
    nudge = data["nudge"]
    assert nudge["precisions"] == ["float64", "float32"]

    def bottom(knobs):
        knob = knobs[nudge["default_knob"]]
        errors = [(amount(c["error_central"]), e) for e, c in enumerate(knob["cells"])
                  if amount(c["error_central"]) is not None]
        return min(errors)

    (low64, at64), (low32, at32) = bottom(nudge["knobs"]), bottom(nudge["knobs_float32"])
    assert low32 > 1000 * low64, (low64, low32)
    assert nudge["eps_raw"][at32] > 100 * nudge["eps_raw"][at64], (at64, at32)
    vanished = [c for c in nudge["knobs_float32"][0]["cells"] if c["secant"] is None]
    assert vanished and all(c["forward"] == {"pt": "—", "en": "—"} for c in vanished)


def test_nudge_default_shows_central_close_and_forward_worse(data):
    nudge = data["nudge"]
    knob = nudge["knobs"][nudge["default_knob"]]
    cell = knob["cells"][nudge["default_eps"]]
    assert nudge["eps_raw"][nudge["default_eps"]] == pytest.approx(1e-5)
    assert abs(amount(cell["central"]) - knob["raw_exact"]) < 1e-6
    assert amount(cell["error_forward"]) > 100 * amount(cell["error_central"])
    assert nudge["eps_raw"][0] == pytest.approx(1e-12) and nudge["eps_raw"][-1] == pytest.approx(1.0)


def test_nudge_at_the_kink_no_step_helps_and_beside_it_only_a_shorter_one(data):
    """What page 08 says of the knob at the ReLU's kink: at θ = 0 every ε leaves the central difference
    off by a half (culpa's slope there is 0, the estimates straddle the kink); at θ = 0.05 a step shorter
    than 0.05 gets the slope, a longer one crosses the kink and misses it."""
    kink = data["nudge"]["kink"]
    eps = data["nudge"]["eps_raw"]
    at = kink["knobs"][kink["default_knob"]]
    assert at["theta"]["en"] == "0.000" and at["raw_exact"] == 0.0
    assert all(amount(c["error_central"]) >= 0.49 for c in at["cells"] if c["secant"] is not None)
    beside = kink["knobs"][kink["default_knob"] + 1]
    assert beside["theta"]["en"] == "0.050" and beside["raw_exact"] == 1.0
    for e, cell in enumerate(beside["cells"]):
        error = amount(cell["error_central"])
        assert (error < 1e-4) if eps[e] < 0.04 else (error > 0.1) if eps[e] > 0.06 else True, (eps[e], error)


def _pages_with_explorers():
    for lang in LANGS:
        for path in sorted((ROOT / "docs" / lang).glob("*.md")):
            names = ROOT_DIV.findall(path.read_text(encoding="utf-8"))
            if names:
                yield path, [name for name, _ in names]


def test_each_page_ships_at_most_60_kb_of_explorer_code_and_data(data, hook):
    """The data as served: with its formulas' KaTeX HTML (sitebuild/steps/explorers.py typeset)."""
    assets = ROOT / "docs" / "assets" / "explorers"
    pages = list(_pages_with_explorers())
    assert len(pages) == 8, [str(p) for p, _ in pages]  # pages 03, 04, 08 and home, both languages
    served = {name: explorers.to_json(step.typeset(name, copy.deepcopy(data[name]))).encode()
              for name in explorers.NAMES}
    for path, names in pages:
        shipped = (assets / "start.js").read_bytes() + b"".join(
            (assets / f"{name}.js").read_bytes() + served[name] for name in set(names))
        size = len(gzip.compress(shipped + (assets / "explorers.css").read_bytes(), compresslevel=6))
        assert size <= BUDGET, f"{path.relative_to(ROOT)}: {size} bytes of explorers gzipped, over {BUDGET}"


def test_each_root_wraps_its_figure_in_both_languages():
    for lang_path, _ in _pages_with_explorers():
        if lang_path.parent.name != "pt":
            continue
        roots = {}
        for lang in LANGS:
            text = (ROOT / "docs" / lang / lang_path.name).read_text(encoding="utf-8")
            for found in ROOT_DIV.finditer(text):
                rest = text[found.end():]
                figure, close = rest.find("<figure"), rest.find("</div>")
                assert 0 <= figure < close and rest.find("</figure>") < close, (
                    f"docs/{lang}/{lang_path.name}: the {found.group(1)} explorer does not wrap a figure")
                assert 'markdown="block"' in found.group(0), f"docs/{lang}/{lang_path.name}: markdown=block"
            roots[lang] = [m.group(1) for m in ROOT_DIV.finditer(text)]
        assert roots["pt"] == roots["en"], lang_path.name


def test_the_hook_writes_the_explorers_words_in_the_pages_language(hook):
    from sitebuild import strings

    html = ('<html><head></head><body><div class="explorer" data-explorer="worked-example" data-compact>'
            '</div></body></html>')
    for lang in LANGS:
        out = hook.load_scripts(html, _page("03-worked-example/", f"{lang}/03-worked-example.md"), WHEEL)
        words = strings.of(lang)["explorer-worked-example"]
        root = re.search(r'<div class="explorer"[^>]*>', out).group(0)
        assert "data-compact" in root and 'data-t-step-backward="' in root, root[:200]
        assert f'data-wheel="{WHEEL}"' in root, root[:200]
        found = dict(re.findall(r'data-t-([\w-]+)="([^"]*)"', root))
        assert len(found) == len(words) and found["step-backward"] == words["stepBackward"], found


WHEEL = "culpa/culpa-0.1.0-py3-none-any.whl"


@pytest.fixture(scope="module")
def hook():
    return step.Explorers(Project(ROOT))


def _page(url, src):
    return SimpleNamespace(url=url, file=SimpleNamespace(src_uri=src))


def test_the_hook_adds_each_explorer_script_to_its_page_only(hook):
    html = '<html><head></head><body><div class="explorer" data-explorer="blame"></div></body></html>'
    out = hook.load_scripts(html, _page("en/04-through-a-network/", "en/04-through-a-network.md"), WHEEL)
    assert ('<script defer src="../../assets/explorers/start.js"></script>'
            '<script defer src="../../assets/explorers/blame.js"></script></head>') in out
    plain = "<html><head></head><body><p>no explorer</p></body></html>"
    assert hook.load_scripts(plain, _page("01-a-billion-knobs/", "pt/01-a-billion-knobs.md"), WHEEL) == plain


def test_the_hook_fails_naming_the_page_that_asks_for_an_unknown_explorer(hook):
    from mkdocs.exceptions import PluginError

    html = '<html><head></head><body><div data-explorer="nudgee"></div></body></html>'
    with pytest.raises(PluginError, match=r"pt/08-honest-habits\.md.*nudgee"):
        hook.load_scripts(html, _page("08-honest-habits/", "pt/08-honest-habits.md"), WHEEL)


def test_the_cache_key_follows_the_lesson_each_explorer_runs():
    for name in explorers.NAMES:
        script = explorers.HERE / f"{name.replace('-', '_')}.py"
        inputs = explorers.declared_inputs(script)
        assert inputs and all((ROOT / path).is_file() for path in inputs), f"{name}: INPUTS {inputs}"
        assert len(explorers.cache_key(name)) == 20


def test_a_raising_exporter_fails_the_build_naming_the_explorer(tmp_path, monkeypatch):
    from mkdocs.exceptions import PluginError

    def broken():
        raise ValueError("planted")

    monkeypatch.setattr(explorers.module("blame"), "export", broken)
    monkeypatch.setattr(explorers, "cache_key", lambda name: "never-cached-" + name)
    with pytest.raises(PluginError, match=r"'blame'.*snippets/sitebuild/explorers/blame\.py"):
        step.Explorers(Project(tmp_path)).export()



@pytest.mark.parametrize("name", explorers.NAMES)
def test_every_formula_is_typeset_with_a_slot_for_each_of_its_numbers(data, hook, name):
    typeset = step.typeset(name, copy.deepcopy(data[name]))
    formulas = list(explorers.formulas(typeset))
    assert len(formulas) >= 4 and typeset["typeset"], f"{name}: {len(formulas)} formulas"
    for entry in formulas:
        html = typeset["typeset"][entry["typeset"]]
        assert html.startswith('<span class="katex">') and "katex-mathml" not in html, entry["tex"]
        slots = set(re.findall(r'data-slot="([^"]*)"', html))
        assert slots == set(entry["slots"]) | set(entry.get("fills", ())), entry["tex"]


def test_a_formula_with_a_slot_nothing_fills_or_a_number_no_slot_shows_fails_the_build(data, hook):
    from mkdocs.exceptions import PluginError

    unfilled = copy.deepcopy(data["blame"])
    unfilled["steps"][6]["math"]["slots"].pop("message.2")
    with pytest.raises(PluginError, match=r"'blame'.*slots \['message\.2'\] that nothing fills"):
        step.typeset("blame", unfilled)
    unused = copy.deepcopy(data["worked-example"])
    unused["result"]["slots"]["stray"] = {"pt": "1", "en": "1"}
    with pytest.raises(PluginError, match=r"'worked-example'.*numbers \['stray'\] that no slot shows"):
        step.typeset("worked-example", unused)
    broken = copy.deepcopy(data["nudge"])
    broken["row_math"]["exact"]["tex"] = r"\frac{\partial L"
    with pytest.raises(PluginError, match=r"'nudge'.*does not typeset"):
        step.typeset("nudge", broken)
