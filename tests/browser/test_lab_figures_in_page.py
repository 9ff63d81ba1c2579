"""The labs' cells that the pages ask a reader to run, run in the page (both languages, in Chromium):

- measure-the-cost's race, run after changing `widths`, prints a row for each new width (its N as culpa
  counts it in CPython), with times that are not 0 (the browser's coarse clock, timed over repetitions);
- each lab's figure cell, run after the cells above it, shows a drawing (an <img> of an SVG made by the
  page's stand-in for matplotlib): its axes, its series and their points, its axis labels (the memory
  lab's sweeps edited to shallow nets first, as a reader might);
- a matplotlib call the stand-in does not draw says so, naming it, in the page's language (in the memory
  lab's page, once its figures are drawn);
- a page that never names matplotlib loads nothing of the stand-in.
Screenshots of each figure drawn in the page, 1280 and 390 wide, go to tests/screenshots/. One session drives
every page in turn (in the background, beside the other browser tests: support/background.py); each test
reads its step's results, or fails with what that step raised.
"""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET

import pytest
from visiting import NO_CHROMIUM, find_chromium, in_ci, open_local, press_run, wait_until

import culpa
from support.background import outcome, record_steps, session_fixture
from support.pages import ROOT
from support.served import LANGS

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

LOAD_MS = 300_000  # a cold Pyodide, then a lab's earlier cells, on a busy 2-core machine
DONE = "(el) => el.dataset.state && el.dataset.state !== 'running'"
NS = {"s": "http://www.w3.org/2000/svg"}
SHOTS = ROOT / "tests" / "screenshots"
PREFIX = {"pt": "", "en": "en/"}


def lab_url(served_site, lang, lab):
    return f"{served_site.base}{PREFIX[lang]}labs/{lab}/"


def blocks_of(tab) -> list[str]:
    return tab.evaluate(
        "() => JSON.parse(document.getElementById('run-config').textContent).blocks.map((b) => b.code)"
    )


def run(tab, k: int, code: str | None = None) -> dict:
    box = tab.locator(f'[data-run-block="{k}"] pre')
    if code is not None:
        box.scroll_into_view_if_needed()  # a block becomes editable once drawn (assets/run/run.js)
        wait_until(
            tab, f"() => document.querySelector('[data-run-block=\"{k}\"] pre').isContentEditable",
            timeout=30_000)
        box.click()
        tab.keyboard.press("ControlOrMeta+a")
        tab.keyboard.press("Delete")
        tab.keyboard.insert_text(code)
    press_run(tab, k, LOAD_MS)
    tab.wait_for_timeout(50)
    output = tab.locator(f'[data-run-output="{k}"]')
    wait_until(tab, DONE, arg=output.element_handle(), timeout=LOAD_MS)
    return output.evaluate("""(el) => ({
      state: el.dataset.state,
      stdout: [...el.querySelectorAll('[data-stream="stdout"]')].map((s) => s.textContent).join(""),
      stderr: [...el.querySelectorAll('[data-stream="stderr"]')].map((s) => s.textContent).join(""),
      images: [...el.querySelectorAll("img.run-figure")].map((i) => ({src: i.src, alt: i.alt,
               phone: i.parentElement.querySelector("source")?.srcset,
               width: i.getBoundingClientRect().width, loaded: i.complete && i.naturalWidth > 0})),
    })""")


def run_cells(tab, codes: list[str], last: int, edits: dict[int, str] | None = None) -> list[dict]:
    """Cells 0..last run in order, as a reader clicks Run down the lab (a cell uses what the cells above
    made); edits: a cell's code as the reader changed it. Every cell before `last` must end ok."""
    results = []
    for k in range(last + 1):
        results.append(run(tab, k, (edits or {}).get(k)))
        if k < last:
            assert results[-1]["state"] == "ok", (k, results[-1]["stderr"][-800:])
    return results


def svg_of(image: dict, key: str = "src") -> ET.Element:
    assert image[key].startswith("data:image/svg+xml;base64,"), (key, image[key])
    return ET.fromstring(base64.b64decode(image[key].split(",", 1)[1]))


def words(node) -> str:
    return " ".join("".join(node.itertext()).split())


def axes_facts(svg: ET.Element) -> list[dict]:
    facts = []
    for ax in svg.findall("s:g[@class='axes']", NS):
        # a line's group is class "series", a scatter's "series scatter"
        series = [g for g in ax.iter(f"{{{NS['s']}}}g") if "series" in g.get("class", "").split()]
        facts.append(
            {
                "series": [
                    len(g.findall("s:circle", NS)) + len(g.findall("s:rect", NS))
                    for g in series
                ],
                "lines": sum(len(g.findall("s:path", NS)) for g in series),
                "xlabel": [words(t) for t in ax.findall("s:text[@class='xlabel']", NS)],
                "ylabel": [words(t) for t in ax.findall("s:text[@class='ylabel']", NS)],
                "legend": [words(t) for t in ax.findall(".//s:text[@class='legendlabel']", NS)],
                "field": ax.find(".//s:image[@class='field']", NS) is not None,
                "contour": ax.find(".//s:path[@class='contour']", NS) is not None,
            }
        )
    return facts


def figure_cells(codes: list[str]) -> list[int]:
    return [k for k, code in enumerate(codes) if "plt.show()" in code]


def screenshot(tab, lang, lab, k) -> None:
    """The figure the page drew under cell k, at 1280 and at 390 wide (the same page, resized)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 900), (390, 844)):
        tab.set_viewport_size({"width": width, "height": height})
        img = tab.locator(f'[data-run-output="{k}"] img.run-figure').first
        img.scroll_into_view_if_needed()
        tab.wait_for_timeout(200)
        img.screenshot(path=str(SHOTS / f"lab-figure-{lang}-{lab}-cell{k + 1}-{width}.png"))


def parameters(width: int) -> int:
    return sum(p.data.size for p in culpa.nn.MLP([8, width, width, 3], activation="tanh", rng=0).parameters())


def race(browser, served_site, lang):
    """measure-the-cost, its race edited to widths 3, 5 and 7, run down to its last cell."""
    url = lab_url(served_site, lang, "measure-the-cost")
    context, tab = open_local(browser, url)
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    try:
        codes = blocks_of(tab)
        race = next(k for k, code in enumerate(codes) if "widths = [" in code)
        edited = re.sub(r"widths = \[[^\]]*\]", "widths = [3, 5, 7]", codes[race])
        [figure] = figure_cells(codes)
        assert race < figure < len(codes) - 1
        results = run_cells(tab, codes, len(codes) - 1, {race: edited})
        screenshot(tab, lang, "measure-the-cost", figure)
    finally:
        context.close()
    return results[race], results[figure], results[-1], requests


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_race_runs_with_new_widths_and_its_figure_draws_them(runs, lang):
    raced, drawn, last, requests = outcome(runs, ("race", lang))
    assert raced["state"] == "ok", raced["stderr"][-800:]
    rows = [line.split() for line in raced["stdout"].splitlines()[1:]]
    assert [int(row[0]) for row in rows] == [parameters(w) for w in (3, 5, 7)], raced["stdout"]
    assert all(float(row[1]) > 0 and float(row[2]) > 0 for row in rows), raced["stdout"]
    assert drawn["state"] == "ok", drawn["stderr"][-800:]
    [image] = drawn["images"]
    assert image["loaded"] and image["width"] > 300
    facts = axes_facts(svg_of(image))
    assert axes_facts(svg_of(image, "phone")) == facts  # a narrow screen's drawing: the same axes, stacked
    assert [f["series"] for f in facts] == [[3, 3], [3, 0]]  # 3 widths: 3 points on each series with markers
    assert [f["lines"] for f in facts] == [2, 2]
    assert [f["xlabel"] for f in facts] == [["N"], ["N"]] and facts[0]["ylabel"] == ["s"]
    assert facts[0]["legend"] == ["2N × forward", "forward + backward"]
    assert "N" in image["alt"] and "forward + backward" in image["alt"]
    assert last["state"] == "ok" and "t_forward" in last["stdout"], last
    assert any("/assets/run/matplotlib/pyplot.py" in r for r in requests)


# The memory lab's two sweeps, edited as a reader might before running them in the page: shallow nets instead
# of 4 to 32 layers, seven segment counts of 8 layers instead of 32. Each figure still gets its four and
# seven points a series; the lab's cells as written run in the page once, in test_run_in_page.py (its deep
# sweeps took most of this test's minute, in each language).
MEMORY_LAB_EDITS = {
    r"depths = \[[^\]]*\]": "depths = [2, 3, 4, 5]",
    r"make_model\(depth=32\)\nchoices = \[[^\]]*\]": "make_model(depth=8)\nchoices = [1, 2, 3, 4, 5, 6, 8]",
}


def reader_edits(lab: str, codes: list[str]) -> dict[int, str]:
    if lab != "memory-for-compute":
        return {}
    edits = {}
    for pattern, replacement in MEMORY_LAB_EDITS.items():
        [k] = [k for k, code in enumerate(codes) if re.search(pattern, code)]
        edits[k] = re.sub(pattern, replacement, codes[k])
    return edits


def figures_drawn(browser, served_site, lang, lab):
    """A lab's cells run down to its last figure cell (the reader's edits first): the figure cells, and what
    each one showed."""
    url = lab_url(served_site, lang, lab)
    context, tab = open_local(browser, url)
    kept = False
    try:
        codes = blocks_of(tab)
        figures = figure_cells(codes)
        results = run_cells(tab, codes, figures[-1], reader_edits(lab, codes))
        drawn = [results[k] for k in figures]
        for k in figures:
            screenshot(tab, lang, lab, k)
        kept = lab == STAND_IN_LAB  # calls_not_drawn runs next in this page, its Python already loaded
    finally:
        if kept:
            KEPT[lang] = context, tab
        else:
            context.close()
    return figures, drawn


# Each lab with figure cells, and what each figure's axes must show (the session runs these labs).
FIGURES = [
    (
        "memory-for-compute",
        [
            [
                {"series": [4, 4], "xlabel": ["n"], "ylabel": ["MiB"]},
                {"series": [4, 4], "xlabel": ["n"], "ylabel": ["ms"]},
            ],
            [{"series": [7], "xlabel": ["segments"], "ylabel": ["MiB"]}],
        ],
    ),
    (
        "build-check-train",
        [
            [
                {"series": [0, 0], "xlabel": ["epoch"], "ylabel": ["loss"]},
                {"series": [None], "xlabel": ["x1"], "ylabel": ["x2"], "field": True, "contour": True},
            ]
        ],
    ),
]


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("lab, expected", FIGURES)
def test_each_figure_cell_draws_in_the_page(runs, lang, lab, expected):
    figures, drawn = outcome(runs, ("figures", lab, lang))
    assert len(figures) == len(expected)
    for k, result, want in zip(figures, drawn, expected, strict=True):
        assert result["state"] == "ok", result["stderr"][-800:]
        [image] = result["images"]
        assert image["loaded"]
        facts = axes_facts(svg_of(image))
        assert axes_facts(svg_of(image, "phone")) == facts
        assert len(facts) == len(want)
        for got, axes in zip(facts, want, strict=True):
            for key, value in axes.items():
                if key == "series" and None in value:  # a scatter: as many points as the data has
                    assert len(got["series"]) == 1 and got["series"][0] >= 100, got
                else:
                    assert got[key] == value, (lab, k, key, got)


STAND_IN_LAB = "memory-for-compute"
KEPT: dict[str, tuple] = {}  # lang -> (context, tab) of the memory lab, its figures just drawn


def calls_not_drawn(browser, served_site, lang):
    """The memory lab's first cell, run with a call the stand-in does not draw (plt.hist, then ax.bar): in
    the page where figures_drawn has just drawn the lab's figures (one Python start fewer), or, if that
    step did not finish, in a page of its own."""
    context, tab = KEPT.pop(lang, None) or open_local(browser, lab_url(served_site, lang, STAND_IN_LAB))
    try:
        s = tab.evaluate("() => JSON.parse(document.getElementById('run-config').textContent).strings")
        hist = run(tab, 0, "import matplotlib.pyplot as plt\nplt.hist([1, 2])\n")
        bar = run(tab, 0, "fig, ax = plt.subplots()\nax.bar([1], [2])\n")
    finally:
        context.close()
    return s, hist, bar


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_call_the_stand_in_does_not_draw_says_so_and_names_it(runs, lang):
    s, hist, bar = outcome(runs, ("stand-in", lang))
    assert not hist["images"]  # bar's cell made a figure before failing: shown at its end, as Jupyter does
    for result, call in ((hist, "plt.hist"), (bar, "ax.bar")):
        assert result["state"] == "error", result
        assert s["plotSubset"].format(call=call) in result["stderr"], result["stderr"][-800:]


def never_plots(browser, served_site):
    """Page 03's first block run: what it printed, and what the page asked for."""
    context, tab = open_local(browser, served_site.base + "03-worked-example/")
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    try:
        result = run(tab, 0)
    finally:
        context.close()
    return result, requests


def test_a_page_that_never_plots_loads_nothing_of_the_stand_in(runs):
    result, requests = outcome(runs, "never plots")
    assert result["state"] == "ok"
    assert any("pyodide.asm.wasm" in r for r in requests)  # Python did load
    assert not [r for r in requests if "/assets/run/matplotlib/" in r]


# --- one session drives every page above, in the background (support/background.py) -------------------

def drive_runs(browser, served_site) -> dict:
    """Every page this module's tests read, driven in turn: what each step gave, or the error it raised
    (handed to that step's test only, which fails with it)."""
    steps = {("race", lang): lambda b, lang=lang: race(b, served_site, lang) for lang in LANGS}
    steps |= {("figures", lab, lang): lambda b, lab=lab, lang=lang: figures_drawn(b, served_site, lang, lab)
              for lab, _ in FIGURES for lang in LANGS}
    steps |= {("stand-in", lang): lambda b, lang=lang: calls_not_drawn(b, served_site, lang)
              for lang in LANGS}
    steps["never plots"] = lambda b: never_plots(b, served_site)
    return record_steps(browser, steps)


runs = session_fixture(drive_runs)
