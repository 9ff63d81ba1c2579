"""The interactive explorers, used in Chromium as a reader would, against culpa's own export.

Each explorer (`worked-example` on page 03 and on the home page, `nudge` on page 08, `blame` on page 04)
is driven with the keyboard only, in both languages: every step (every slider stop for `nudge`, on its smooth
knob and on its knob at a kink) is visited,
and every number the explorer shows, and every number it announces in its aria-live region, is compared
with what sitebuild/explorers/ exports from culpa in this test process, in the page's number format. A
planted change in the served data (one gradient altered) must make that comparison fail, naming the
explorer and the step. Then: without JavaScript the static figure shows; under prefers-reduced-motion
nothing animates and play never starts; axe finds no serious or critical violation in either palette with
the explorer running; on a 390 px phone nothing makes the page scroll sideways; every control is at least
44 × 44 px; an explorer loads nothing until it scrolls into view; screenshots of each explorer at a middle
step, desktop and phone, both languages, land in tests/screenshots/.
"""

from __future__ import annotations

import json
import re

import pytest
from test_explorers_data import amount  # the number an explorer shows, read back from its text
from visiting import (
    ADOPT_CSS,
    DESKTOP,
    NO_CHROMIUM,
    PHONE,
    SCREENSHOTS,
    axe_source,
    find_chromium,
    in_ci,
    is_sitemap_prefetch,
    kept_tab,
    wait_until,
)

from support.served import LANGS, ROOT

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

from sitebuild import explorers, strings  # noqa: E402
from sitebuild.steps.explorers import typeset  # noqa: E402

PAGES = {"worked-example": "03-worked-example/", "nudge": "08-honest-habits/",
         "blame": "04-through-a-network/"}
HOME = ""
CASES = [(name, lang) for name in PAGES for lang in LANGS]
IDS = [f"{name}-{lang}" for name, lang in CASES]


@pytest.fixture(scope="module")
def exported():
    """What culpa exports for each explorer, computed here (not read from the site)."""
    return {name: explorers.module(name).export() for name in explorers.NAMES}


def url(site, lang, path):
    return site.base + (path if lang == "pt" else f"{lang}/{path}")


def listen(tab):
    """Collect in tab.errors what goes wrong in the page: uncaught errors, console errors, HTTP errors."""
    tab.errors = []
    tab.on("pageerror", lambda err: tab.errors.append(str(err)))
    # a failed request is judged by its address (Material's sitemap.xml prefetches are known, see visiting.py)
    tab.on("console", lambda m: tab.errors.append(m.text)
           if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
    tab.on("response", lambda r: tab.errors.append(f"{r.url}: HTTP {r.status}")
           if r.status >= 400 and not is_sitemap_prefetch(r.url) else None)


def open_page(browser, site, lang, path, size=DESKTOP, **options):
    """The page in a tab the module's browser keeps (visiting.kept_tab: loaded afresh, storage cleared);
    `close()` on what comes first hands the tab back."""
    return kept_tab(browser, url(site, lang, path), viewport=size, on_new_tab=listen, **options)


def open_fresh(browser, site, lang, path):
    """The page in a context of its own, as on a first visit (visiting.open_local), for a test that watches
    what a first visit fetches or that changes what the server sends (a route)."""
    context = browser.new_context(viewport=DESKTOP)
    tab = context.new_page()
    listen(tab)  # before the load: what goes wrong while it loads counts
    tab.goto(url(site, lang, path), wait_until="load")
    return context, tab


def start(tab, name):
    """The explorer, built: scrolled into view, and, for the home page's preview, which waits for the reader's
    first touch, clicked on its static figure (as a reader does: assets/explorers/start.js)."""
    root = tab.locator(f'[data-explorer="{name}"]').first
    root.scroll_into_view_if_needed()
    if root.get_attribute("data-compact") is not None and not root.get_attribute("data-xp-state"):
        root.locator("figure img").first.click()
    wait_until(
        tab, "(name) => document.querySelector(`[data-explorer='${name}']`).dataset.xpState === 'ready'",
        arg=name, timeout=10_000)
    return root


SHOWN_JS = """(root) => ({
  numbers: [...root.querySelectorAll('[data-num]')]
    .filter((e) => e.textContent.trim() && e.getClientRects().length)
    .map((e) => e.textContent.trim()),
  said: (root.querySelector('[aria-live="polite"]') || {}).textContent || '',
  step: root.dataset.step || '',
})"""


def multiset_problems(where, shown, expected):
    shown, expected = sorted(shown), sorted(expected)
    if shown == expected:
        return []
    missing = [x for x in set(expected) if expected.count(x) > shown.count(x)]
    extra = [x for x in set(shown) if shown.count(x) > expected.count(x)]
    return [f"{where}: shows {extra or 'nothing extra'}, culpa exports {missing or 'nothing more'}"]


NUMBER = re.compile(r"−?\d+(?:[.,]\d+)*")


def said_problems(where, said, numbers):
    """The announcement says every number of the step, and no number culpa did not export for it."""
    absent = [x for x in numbers if x not in said]
    stray = [x for x in NUMBER.findall(said) if not any(x in n for n in numbers)]
    problems = [f"{where}: the announcement {said!r} lacks {absent}"] if absent else []
    return problems + ([f"{where}: the announcement {said!r} says {stray}, not culpa's"] if stray else [])


# --- what each explorer must show, from the export ----------------------------------------------------


def items(number):
    """The numbers a formula shows for one exported number: a vector (0,659; 0,242) is a column of two."""
    if number.startswith("(") and number.endswith(")"):
        return number[1:-1].split("; " if ";" in number else ", ")
    return [number]



def worked_example_expected(data, index, lang):
    steps, nodes = data["steps"], data["nodes"]
    step = steps[index]
    shown, said = [], [step["phase_n"], step["phase_total"]]  # each phase counts its own steps
    for node in nodes:
        if any(s["phase"] == "forward" and s["node"] == node["id"] for s in steps[: index + 1]):
            shown.append(node["value"][lang])
        if any(s["phase"] == "backward" and s["node"] == node["id"] for s in steps[: index + 1]):
            shown.append(node["grad"][lang])
    if step["phase"] == "forward":
        shown += items(step["value"][lang])
        said.append(step["value"][lang])
    else:
        for term in step["terms"]:
            for key in ("downstream", "local", "product"):
                shown += items(term[key][lang])
                said.append(term[key][lang])
        if len(step["terms"]) > 1:
            shown += [x for term in step["terms"] for x in items(term["product"][lang])]
        shown += items(step["grad"][lang])
        said.append(step["grad"][lang])
        if index == len(steps) - 1:
            shown += items(data["p_minus_y"][lang])
    return shown, said


def blame_expected(data, index, lang, weight):
    steps, layers = data["steps"], data["layers"]
    step, depth = steps[index], len(layers) - 1
    forward = [s["layer"] for s in steps[: index + 1] if s["phase"] == "forward"]
    reached = [s["layer"] for s in steps[: index + 1] if s["phase"] == "backward"]
    shown, said = [], [step["n"], step["total"]]
    for l, layer in enumerate(layers):
        if l in forward:
            shown += [v[lang] for v in layer["a"]]
        if l in reached:
            shown += [v[lang] for v in layer["delta"]] + [layer["delta_size"][lang]]  # |δ| under the layer
    if step["phase"] == "forward":
        values = [v[lang] for v in layers[step["layer"]]["a"]]
        shown += values
        said += values
    elif step["phase"] == "loss":
        shown += items(step["p"][lang]) + items(step["y"][lang]) + [step["loss"][lang]]
        said += [step["loss"][lang], step["p"][lang], step["y"][lang]]
    else:
        layer = layers[step["layer"]]
        if step["layer"] < depth:
            shown += items(layer["message"][lang]) + items(layer["slope"][lang])
            said += [layer["message"][lang], layer["slope"][lang]]
        shown += items(layer["delta_all"][lang])
        said += [layer["delta_all"][lang], layer["delta_size"][lang]]
    l, i, j = weight
    if l in reached:
        shown += [layers[l]["delta"][i][lang], layers[l - 1]["a"][j][lang],
                  data["weights"][str(l)][i][j][lang]]
    return shown, said


def nudge_expected(data, knob, eps, lang, precision="float64"):
    knobs = data["knobs"] if precision == data["precisions"][0] else data[f"knobs_{precision}"]
    k, cell = knobs[knob], knobs[knob]["cells"][eps]
    values = [k["loss"][lang], k["exact"][lang], cell["forward"][lang], cell["central"][lang],
              cell["error_forward"][lang], cell["error_central"][lang]]
    shown = [f"θ = {k['theta'][lang]}", f"ε = {data['epsilons'][eps][lang]}", *values]
    said = [precision, k["theta"][lang], data["epsilons"][eps][lang], k["loss"][lang], k["exact"][lang]]
    if cell["secant"] is not None:  # a step that vanished in this precision: no estimate to announce
        said += values[2:]
    return shown, said


# --- driving each explorer with the keyboard ----------------------------------------------------------


def drive_stepper(tab, root, name, data, lang):
    """Every step of worked-example or blame, by keyboard: Home, then ArrowRight to the end, End, Home,
    ArrowLeft; the problems found, one line each, naming the explorer and the step."""
    problems = []
    steps = data["steps"]
    root.locator(".xp-stage").focus()
    tab.keyboard.press("Home")
    weight = data["knob"] if name == "blame" else None
    for index in range(len(steps)):
        got = root.evaluate(SHOWN_JS)
        where = f"{name} ({lang}), step {steps[index]['n']}"
        if got["step"] != steps[index]["n"]:
            problems.append(f"{where}: the explorer is at step {got['step']}")
        if name == "worked-example":
            shown, said = worked_example_expected(data, index, lang)
        else:
            shown, said = blame_expected(data, index, lang, weight)
        problems += multiset_problems(where, got["numbers"], shown)
        if index:  # the first step is reached by Home from the first step: nothing new to announce
            problems += said_problems(where, got["said"], said)
        tab.keyboard.press("ArrowRight")
    tab.keyboard.press("Home")
    tab.keyboard.press("End")
    if root.evaluate(SHOWN_JS)["step"] != steps[-1]["n"]:
        problems.append(f"{name} ({lang}): End does not reach the last step")
    tab.keyboard.press("ArrowLeft")
    if root.evaluate(SHOWN_JS)["step"] != steps[-2]["n"]:
        problems.append(f"{name} ({lang}): ArrowLeft does not step back")
    tab.keyboard.press("Home")
    if root.evaluate(SHOWN_JS)["step"] != steps[0]["n"]:
        problems.append(f"{name} ({lang}): Home does not go back to the first step")
    return problems


SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789−")
SLIDERS_JS = """(root) => [...root.querySelectorAll('input[type=range]')].map((input) => ({
  valuetext: input.getAttribute('aria-valuetext'),
  shown: root.querySelector(`output[for="${input.id}"]`).textContent,
}))"""


def valuetext_problems(root, where, lang, knob_value="knobValue"):
    """Each slider's aria-valuetext says the value its <output> shows, in the page's words (strings'
    [explorer-nudge]): "peso θ = −0,649" for "θ = −0,649", "ε = 3,2 vezes 10 elevado a −7" for
    "ε = 3,2 × 10⁻⁷"; a screen reader then never hears the slider's bare index."""
    from sitebuild import strings

    t = strings.of(lang)["explorer-nudge"]
    knob, eps = root.evaluate(SLIDERS_JS)
    theta = knob["shown"].removeprefix("θ = ")
    mantissa, _, ten = eps["shown"].removeprefix("ε = ").rpartition(" × ")
    exponent = ten.removeprefix("10").translate(SUPERSCRIPTS)
    expected = [t[knob_value].format(theta=theta),
                t["epsValueTimes"].format(mantissa=mantissa, exponent=exponent) if mantissa
                else t["epsValue"].format(exponent=exponent)]
    problems = []
    for slider, want in zip((knob, eps), expected, strict=True):
        if slider["valuetext"] != want:
            problems.append(f"{where}: the slider showing {slider['shown']!r} says {slider['valuetext']!r}, "
                            f"not {want!r}")
    return problems


def drive_nudge(tab, root, data, lang):
    problems = []
    knob, eps = root.locator("input[type=range]").nth(0), root.locator("input[type=range]").nth(1)

    def look(k, e, where, precision="float64", kind="smooth"):
        got = root.evaluate(SHOWN_JS)
        view = data if kind == "smooth" else {**data, **data[kind]}
        shown, said = nudge_expected(view, k, e, lang, precision)
        return (multiset_problems(where, got["numbers"], shown) + said_problems(where, got["said"], said)
                + valuetext_problems(root, where, lang, "knobValue" if kind == "smooth" else "knobValueKink"))

    knob.focus()
    tab.keyboard.press("Home")
    field = root.locator(".xp-inputs input")
    for k in range(len(data["knobs"])):
        problems += look(k, data["default_eps"], f"nudge ({lang}), knob step {k + 1}")
        # the θ field says the θ the slider points at (culpa's number, as the slider's output shows it)
        if field.input_value() != data["knobs"][k]["theta"][lang]:
            problems.append(f"nudge ({lang}), knob step {k + 1}: the θ field says {field.input_value()!r}, "
                            f"the slider {data['knobs'][k]['theta'][lang]!r}")
        tab.keyboard.press("ArrowRight")
    tab.keyboard.press("Home")
    for _ in range(data["default_knob"]):
        tab.keyboard.press("ArrowRight")
    eps.focus()
    tab.keyboard.press("Home")
    for e in range(len(data["epsilons"])):
        problems += look(data["default_knob"], e, f"nudge ({lang}), ε step {e + 1}")
        tab.keyboard.press("ArrowRight")
    # float32, chosen with the keyboard: Tab from the ε slider to its button, Enter
    chooser = root.locator(".xp-choice").nth(1)
    chooser.focus()
    tab.keyboard.press("Enter")
    if root.get_attribute("data-precision") != "float32":
        problems.append(f"nudge ({lang}): Enter on float32 does not switch the precision")
    eps.focus()
    tab.keyboard.press("Home")
    for e in range(len(data["epsilons"])):
        problems += look(data["default_knob"], e, f"nudge ({lang}), float32, ε step {e + 1}", "float32")
        tab.keyboard.press("ArrowRight")
    # the knob at the kink, chosen with the keyboard: every ε at the kink itself (still float32), then every
    # knob position in float64 at the default ε
    root.locator(".xp-kind").nth(1).focus()
    tab.keyboard.press("Enter")
    if root.get_attribute("data-kind") != "kink":
        problems.append(f"nudge ({lang}): Enter on the kink's button does not switch the knob")
    kink = data["kink"]
    eps.focus()
    tab.keyboard.press("End")
    for e in reversed(range(len(data["epsilons"]))):
        problems += look(kink["default_knob"], e, f"nudge ({lang}), kink, float32, ε step {e + 1}", "float32",
                         "kink")
        tab.keyboard.press("ArrowLeft")
    root.locator(".xp-choice").nth(0).focus()
    tab.keyboard.press("Enter")
    eps.focus()
    for _ in range(data["default_eps"]):
        tab.keyboard.press("ArrowRight")
    knob.focus()
    tab.keyboard.press("Home")
    for k in range(len(kink["knobs"])):
        problems += look(k, data["default_eps"], f"nudge ({lang}), kink, knob step {k + 1}", kind="kink")
        tab.keyboard.press("ArrowRight")
    return problems


def drive(tab, root, name, data, lang):
    if name == "nudge":
        return drive_nudge(tab, root, data, lang)
    return drive_stepper(tab, root, name, data, lang)


# --- the tests ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, lang", CASES, ids=IDS)
def test_every_step_shows_and_announces_culpas_numbers(browser, served_site, exported, name, lang):
    context, tab = open_page(browser, served_site, lang, PAGES[name])
    try:
        root = start(tab, name)
        problems = drive(tab, root, name, exported[name], lang)
    finally:
        context.close()
    assert not problems, "\n".join(problems[:20])
    assert not tab.errors, f"{name} ({lang}): errors in the page: {tab.errors}"


@pytest.mark.parametrize("lang", LANGS)
def test_the_home_page_previews_the_worked_example_on_its_first_screen(browser, served_site, exported, lang):
    for size in (DESKTOP, PHONE):
        context, tab = open_page(browser, served_site, lang, HOME, size=size)
        try:
            root = tab.locator('[data-explorer="worked-example"]').first
            box = root.bounding_box()
            assert box and box["y"] < size["height"] - 120, (
                f"home ({lang}) at {size['width']} px: the explorer starts at y = {box and box['y']}, "
                "below the first screen")
            root = start(tab, "worked-example")
            problems = drive(tab, root, "worked-example", exported["worked-example"], lang)
            assert not problems, "\n".join(problems[:20])
        finally:
            context.close()


def test_worked_example_ends_at_p_minus_y(browser, served_site, exported):
    data = exported["worked-example"]
    for lang in LANGS:
        context, tab = open_page(browser, served_site, lang, PAGES["worked-example"])
        try:
            root = start(tab, "worked-example")
            root.locator(".xp-stage").focus()
            tab.keyboard.press("End")
            result = root.locator(".xp-result")
            label = result.get_attribute("aria-label")
            shown = result.locator("[data-num]").all_inner_texts()
        finally:
            context.close()
        assert "p − y" in label and data["p_minus_y"][lang] in label, label
        assert shown == items(data["p_minus_y"][lang]), shown
        assert data["steps"][-1]["grad"] == data["p_minus_y"], "the last gradient is not p − y"


def test_nudge_central_difference_is_close_and_forward_visibly_worse(browser, served_site, exported):
    data = exported["nudge"]
    knob = data["knobs"][data["default_knob"]]
    cell = knob["cells"][data["default_eps"]]
    assert data["eps_raw"][data["default_eps"]] == pytest.approx(1e-5)
    assert abs(amount(cell["central"]) - knob["raw_exact"]) < 1e-6
    assert amount(cell["error_forward"]) > 100 * amount(cell["error_central"])
    for lang in LANGS:
        context, tab = open_page(browser, served_site, lang, PAGES["nudge"])
        try:
            root = start(tab, "nudge")
            cells = {key: root.locator(f'td[data-num="{key}"]').inner_text()
                     for key in ("exact", "forward", "central")}
        finally:
            context.close()
        assert cells["central"] == cells["exact"] == knob["exact"][lang], cells  # equal to all 10 decimals
        assert cells["forward"] != cells["exact"] and cells["forward"] == cell["forward"][lang], cells


PLANTS = {  # a change to an explorer's JSON -> (the explorer, the change, the step the failure must name)
    "worked-example": ("worked-example", lambda d: d["steps"][12]["math"]["slots"]["grad.0"].update(
        pt="9,999", en="9.999"), "step 13"),
    # a gradient only the announcement says
    "worked-example-said": ("worked-example", lambda d: d["steps"][12]["grad"].update(pt="9,999", en="9.999"),
                            "step 13"),
    # a number in a typeset formula: the contribution p ⊙ y sends back to p, in its column's first slot
    "worked-example-formula": ("worked-example", lambda d: d["steps"][13]["terms"][0]["math"]["slots"]
                               ["product.0"].update(pt="9,999", en="9.999"), "step 14"),
    "blame": ("blame", lambda d: d["layers"][2]["delta"][1].update(pt="9,9999", en="9.9999"), "step 7"),
    "blame-formula": ("blame", lambda d: d["steps"][6]["math"]["slots"]["message.2"].update(
        pt="9,9999", en="9.9999"), "step 7"),
    "nudge": ("nudge", lambda d: d["knobs"][6]["cells"][14]["central"].update(pt="9,9", en="9.9"),
              "ε step 15"),
}


@pytest.mark.parametrize("plant_name", list(PLANTS))
def test_a_planted_change_in_the_data_is_caught(browser, served_site, exported, plant_name):
    name, plant, step = PLANTS[plant_name]
    served = json.loads((served_site.dir / "assets" / "explorers" / "data" / f"{name}.json").read_text())
    planted = json.loads(json.dumps(served))
    plant(planted)
    context, tab = open_fresh(browser, served_site, "en", PAGES[name])
    context.route(f"**/assets/explorers/data/{name}.json",
                  lambda route: route.fulfill(status=200, content_type="application/json",
                                              body=json.dumps(planted)))
    try:
        root = start(tab, name)
        problems = drive(tab, root, name, exported[name], "en")
    finally:
        context.close()
    assert problems, f"{name}: a gradient altered in the served data went unnoticed"
    assert all(p.startswith(name) for p in problems) and any(step in p for p in problems), problems


TYPESET_JS = """(root) => {
  const formulas = [...root.querySelectorAll('.xp-math')];
  return {
    count: formulas.length,
    untypeset: formulas.filter((f) => !f.querySelector('.katex .katex-html')).length,
    unlabelled: formulas.filter((f) => !(f.getAttribute('aria-label') || '').trim()).length,
    empty: [...root.querySelectorAll('.xp-math [data-slot]')]
      .filter((s) => !s.dataset.slot.startsWith('_') && !s.querySelector('.xp-num'))
      .map((s) => s.dataset.slot),
    katex: typeof window.katex,
  };
}"""


@pytest.mark.parametrize("name", list(PAGES))
def test_formulas_are_typeset_at_build_time_with_culpas_numbers_in_their_slots(browser, served_site, name):
    context, tab = open_page(browser, served_site, "en", PAGES[name])
    try:
        root = start(tab, name)
        if name != "nudge":
            root.locator(".xp-stage").focus()
            tab.keyboard.press("End")
        got = root.evaluate(TYPESET_JS)
    finally:
        context.close()
    assert got["count"] >= 2, f"{name}: {got['count']} typeset formulas at its last step"
    assert got["untypeset"] == 0 and got["unlabelled"] == 0, f"{name}: {got}"
    assert got["empty"] == [], f"{name}: formula slots left without culpa's number: {got['empty']}"
    assert got["katex"] == "undefined", f"{name}: a math script runs in the page"


@pytest.mark.parametrize("name", list(PAGES))
def test_the_served_data_is_culpas_export(served_site, exported, name):
    served = json.loads((served_site.dir / "assets" / "explorers" / "data" / f"{name}.json").read_text())
    served.pop("key")
    typeset_now = typeset(name, json.loads(explorers.to_json(exported[name])))
    assert served == json.loads(explorers.to_json(typeset_now)), f"{name}: the site serves stale data"


@pytest.mark.parametrize("name, lang", CASES, ids=IDS)
def test_without_javascript_the_static_figure_shows(browser, served_site, name, lang):
    context, tab = open_page(browser, served_site, lang, PAGES[name], java_script_enabled=False)
    try:
        image = tab.locator(f'[data-explorer="{name}"] figure img').first
        image.scroll_into_view_if_needed()
        visible = image.is_visible()
        box = image.bounding_box()
        loaded = image.evaluate("(img) => img.complete && img.naturalWidth > 0")
    finally:
        context.close()
    assert visible and box and box["width"] > 200 and loaded, f"{name} ({lang}): no static figure without JS"


@pytest.mark.parametrize("name", list(PAGES))
def test_reduced_motion_nothing_moves_and_play_never_starts(browser, served_site, name):
    context, tab = open_page(browser, served_site, "en", PAGES[name], reduced_motion="reduce")
    try:
        root = start(tab, name)
        root.locator("input, .xp-stage").first.focus()
        tab.keyboard.press("ArrowRight")
        tab.keyboard.press("ArrowRight")
        moving = root.evaluate("""(root) => [...root.querySelectorAll('*')].filter((e) => {
            const s = getComputedStyle(e);
            const long = (v) => v.split(',').some((t) => parseFloat(t) > 0);
            return long(s.transitionDuration) || (s.animationName !== 'none' && long(s.animationDuration));
          }).map((e) => e.tagName + '.' + e.getAttribute('class'))""")
        # the explorer's own (Material's annotation markers pulse in a nearby code block: not the explorer's)
        animations = root.evaluate("(r) => document.getAnimations().filter((a) => a.playState === 'running'"
                                   " && a.effect && r.contains(a.effect.target)).length")
        plays = root.locator('.xp-bar button[aria-pressed]')
        play_visible = plays.count() and plays.first.is_visible()
        step = root.evaluate("(r) => r.dataset.step || r.dataset.eps")
        tab.wait_for_timeout(2500)
        later = root.evaluate("(r) => r.dataset.step || r.dataset.eps")
    finally:
        context.close()
    assert not moving, f"{name}: transitions or animations under reduced motion: {moving[:5]}"
    assert animations == 0, f"{name}: {animations} running animations under reduced motion"
    assert not play_visible, f"{name}: the play button is offered under reduced motion"
    assert step == later, f"{name}: the explorer advanced on its own under reduced motion"


@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_accessibility_violation_in_either_palette(browser, served_site, name):
    found = []
    for lang in LANGS:
        context, tab = open_page(browser, served_site, lang, PAGES[name])
        try:
            root = start(tab, name)
            root.locator("input, .xp-stage").first.focus()
            for _ in range(5):
                tab.keyboard.press("ArrowRight")
            tab.evaluate(axe_source())  # as DevTools does: the page's policy refuses an inline script
            tab.evaluate(ADOPT_CSS, "*, *::before, *::after { transition: none !important; }")
            for palette in ("default", "slate"):
                tab.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", palette)
                tab.wait_for_timeout(50)
                # the dark palette changes colours only: its run checks contrast (as the page visits do)
                only = {"runOnly": ["color-contrast"]} if palette == "slate" else {}
                result = tab.evaluate(
                    "([sel, only]) => axe.run(document.querySelector(sel),"
                    " {resultTypes: ['violations'], ...only})",
                    [f'[data-explorer="{name}"]', only])
                found += [f"{lang}/{palette}: {v['id']} ({v['impact']}): {v['help']} at "
                          f"{[n['target'] for n in v['nodes']][:3]}"
                          for v in result["violations"] if v["impact"] in ("serious", "critical")]
        finally:
            context.close()
    assert not found, f"{name}: axe-core finds serious or critical violations:\n" + "\n".join(found)


@pytest.mark.parametrize("name, lang", CASES, ids=IDS)
def test_phone_no_sideways_scroll_and_big_touch_targets(browser, served_site, name, lang):
    context, tab = open_page(browser, served_site, lang, PAGES[name], size=PHONE)
    try:
        root = start(tab, name)
        width = tab.evaluate("document.documentElement.scrollWidth")
        box = root.bounding_box()
        small = root.evaluate("""(root) => [...root.querySelectorAll('button, input, select')]
            .filter((e) => e.getClientRects().length)
            .map((e) => [e.tagName, e.getBoundingClientRect().width, e.getBoundingClientRect().height])
            .filter(([, w, h]) => w < 44 || h < 44)""")
    finally:
        context.close()
    assert width <= PHONE["width"], f"{name} ({lang}): the page is {width} px wide on a 390 px phone"
    inside = box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1
    assert inside, f"{name} ({lang}): the explorer sticks out of the screen: {box}"
    assert not small, f"{name} ({lang}): controls smaller than 44 × 44 px: {small}"


@pytest.mark.parametrize("name", list(PAGES))
def test_an_explorer_loads_nothing_until_it_scrolls_into_view(browser, served_site, name):
    context = browser.new_context(viewport=DESKTOP)
    tab = context.new_page()
    fetched = []
    tab.on("request", lambda r: fetched.append(r.url) if "/explorers/data/" in r.url else None)
    try:
        tab.goto(url(served_site, "en", PAGES[name]), wait_until="load")
        tab.wait_for_timeout(300)
        before = tab.evaluate(f"document.querySelector('[data-explorer=\"{name}\"]').dataset.xpState || ''")
        early = list(fetched)
        start(tab, name)
    finally:
        context.close()
    assert before == "" and not early, f"{name}: started before it was in view ({before!r}, {early})"
    assert len(fetched) == 1, f"{name}: fetched {fetched} when it came into view"


@pytest.mark.parametrize("lang", LANGS)
def test_the_home_preview_waits_for_the_readers_first_touch(browser, served_site, lang):
    """On the home page the explorer's static figure is the preview, on the first screen: nothing of the
    explorer is fetched or built at load, nor once in view (that work was most of the home page's main
    thread at load on a phone); a click on the figure builds it with focus on its first control, and Tab
    from the stop before it does too."""
    seen = {}
    for way in ("click", "tab"):
        context = browser.new_context(viewport=PHONE)
        tab = context.new_page()
        fetched = []
        tab.on("request", lambda r, into=fetched: into.append(r.url) if "/explorers/data/" in r.url else None)
        try:
            tab.goto(url(served_site, lang, HOME), wait_until="load")
            root = tab.locator('[data-explorer="worked-example"]').first
            root.scroll_into_view_if_needed()
            tab.wait_for_timeout(500)
            held = root.evaluate(WHERE_JS)
            shown = root.locator("figure img").first.is_visible()
            before = list(fetched)
            if way == "click":
                root.locator("figure img").first.click()
            else:
                root.evaluate(BEFORE_JS)
                tab.locator("[data-just-before]").focus()
                tab.keyboard.press("Tab")
            wait_until(tab, "(r) => r.dataset.xpState === 'ready' && r.contains(document.activeElement)"
                            " && document.activeElement !== r", arg=root.element_handle(), timeout=10_000)
            first = root.locator("button, input, select").first.evaluate(
                "(e) => e === document.activeElement")
            seen[way] = (held["state"], shown, before, len(fetched), first, tab.evaluate(FOCUS_SHOWN_JS))
        finally:
            context.close()
    for way, (state, shown, before, count, first, where) in seen.items():
        assert state == "" and shown and not before, (
            f"home ({lang}): the preview started before the reader touched it ({state!r}, {before})")
        assert count == 1 and first, (
            f"home ({lang}), {way}: fetched {count} files; focus on its first control: {first}")
        assert where["header"] <= where["top"] and where["bottom"] <= where["height"], (
            f"home ({lang}), {way}: the focused control is not on screen below the header: {where}")


# where the focused element is on the screen, and where Material's sticky header ends
FOCUS_SHOWN_JS = """() => { const box = document.activeElement.getBoundingClientRect();
  return { top: box.top, bottom: box.bottom, height: innerHeight,
           header: document.querySelector('.md-header').getBoundingClientRect().bottom }; }"""


BEFORE_JS = """(r) => {
  const stops = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
    .filter((e) => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length && e !== r && !r.contains(e));
  const before = stops.filter((e) => e.compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
  before.setAttribute('data-just-before', '');
}"""
WHERE_JS = """(r) => ({state: r.dataset.xpState || '', tabindex: r.getAttribute('tabindex'),
  role: r.getAttribute('role'), name: r.getAttribute('aria-label'),
  inside: document.activeElement !== r && r.contains(document.activeElement),
  on: document.activeElement === r})"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", list(PAGES))
def test_tab_never_passes_an_explorer_that_is_not_built_yet(browser, served_site, name, lang):
    """An explorer is built once it scrolls near; a reader tabbing faster than that would pass it, its
    controls not there yet. Until it is built, its root is a Tab stop named as the explorer; Tab from the stop
    before it lands on it (or, built already, in it), and once built, focus is on its first control."""
    context = browser.new_context(viewport=DESKTOP)
    tab = context.new_page()
    try:
        tab.goto(url(served_site, lang, PAGES[name]), wait_until="load")
        root = tab.locator(f'[data-explorer="{name}"]').first
        held = root.evaluate(WHERE_JS)
        root.evaluate(BEFORE_JS)
        tab.locator("[data-just-before]").focus()
        tab.keyboard.press("Tab")  # at once: the explorer is not built yet
        landed = root.evaluate(WHERE_JS)
        wait_until(tab, "(r) => r.dataset.xpState === 'ready' && r.contains(document.activeElement)"
                        " && document.activeElement !== r", arg=root.element_handle(), timeout=10_000)
        built = root.evaluate(WHERE_JS)
    finally:
        context.close()
    words = strings.of(lang)[f"explorer-{name}"]
    assert held == {"state": "", "tabindex": "0", "role": "group", "name": words["name"], "inside": False,
                    "on": False}, held
    assert landed["on"] or landed["inside"], f"{name} {lang}: Tab passed the explorer: {landed}"
    assert built["tabindex"] is None and built["role"] is None and built["name"] is None, built


MIDDLE = {"worked-example": 14, "blame": 6, "nudge": 0}


@pytest.mark.parametrize("name, lang", CASES, ids=IDS)
def test_screenshots_at_a_middle_step(browser, served_site, name, lang):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    written = []
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        context, tab = open_page(browser, served_site, lang, PAGES[name], size=size)
        try:
            root = start(tab, name)
            root.locator("input, .xp-stage").first.focus()
            for _ in range(MIDDLE[name]):
                tab.keyboard.press("ArrowRight")
            if name == "nudge":
                root.locator("input[type=range]").nth(1).focus()
                tab.keyboard.press("ArrowLeft")
                tab.keyboard.press("ArrowLeft")
            tab.evaluate("document.activeElement.blur()")
            # the site's sticky header would cover the explorer's top in an element's screenshot
            tab.evaluate(ADOPT_CSS, ".md-header { visibility: hidden; }")
            path = SCREENSHOTS / f"explorer-{name}-{lang}-{label}.png"
            root.screenshot(path=str(path))
            written.append(path)
        finally:
            context.close()
    assert all(p.is_file() and p.stat().st_size > 5000 for p in written), written


@pytest.mark.parametrize("name", ["worked-example", "blame"])
def test_play_advances_on_its_own_only_when_asked(browser, served_site, name):
    context, tab = open_page(browser, served_site, "en", PAGES[name])
    try:
        root = start(tab, name)
        tab.wait_for_timeout(2000)
        idle = root.evaluate("(r) => r.dataset.step")
        # Next (a chevron) and Play (a solid triangle) must not look alike: their drawn icons differ
        glyphs = root.evaluate("""(r) => [r.querySelectorAll('.xp-bar .xp-button')[2],
            r.querySelector('.xp-bar button[aria-pressed]')].map((b) => b.textContent.trim() + ' '
            + [...b.querySelectorAll('svg path, svg polygon, svg use')].map((e) => e.outerHTML).join(''))""")
        root.locator(".xp-bar button[aria-pressed]").focus()
        tab.keyboard.press("Enter")
        tab.wait_for_timeout(2200)
        playing = root.evaluate("(r) => r.dataset.step")
        pressed = root.locator(".xp-bar button[aria-pressed]").get_attribute("aria-pressed")
    finally:
        context.close()
    assert glyphs[0].strip() and glyphs[0] != glyphs[1], f"{name}: Next and Play show the same icon: {glyphs}"
    assert idle == "1", f"{name}: advanced to step {idle} before play was pressed"
    assert int(playing) > 1 and pressed == "true", f"{name}: play did not advance ({playing}, {pressed})"


FIGURE_PAGES = sorted({p.parent.name + "/" + p.stem + "/" for p in (ROOT / "docs").glob("*/0*.md")
                       if "figures/" in p.read_text(encoding="utf-8")} | {"en/index/", "pt/index/"})


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_static_figures_read_on_a_phone_without_sideways_scrolling(browser, served_site, page):
    lang, path = page.split("/", 1)
    path = "" if path == "index/" else path
    context, tab = open_page(browser, served_site, lang, path, size=PHONE, java_script_enabled=False)
    try:
        figures = tab.evaluate("""async () => {
            const images = [...document.querySelectorAll('article figure img[src*="figures/"]')];
            images.forEach((img) => { img.loading = 'eager'; });
            await Promise.all(images.map((img) => img.decode().catch(() => null)));
            return images.map((img) => ({
              src: img.currentSrc, width: img.getBoundingClientRect().width,
              right: img.getBoundingClientRect().right,
              scrolls: img.closest('figure').scrollWidth > img.closest('figure').clientWidth + 1,
            }));
        }""")
        width = tab.evaluate("document.documentElement.scrollWidth")
    finally:
        context.close()
    assert figures, f"{page}: no figure found"
    for figure in figures:
        assert figure["src"].endswith(".phone.svg"), f"{page}: the phone is served {figure['src']}"
        assert figure["right"] <= PHONE["width"] and not figure["scrolls"], f"{page}: {figure}"
    assert width <= PHONE["width"], f"{page}: {width} px wide on a {PHONE['width']} px phone"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["worked-example", "blame"])
def test_the_focus_stays_on_next_and_last_at_the_end(browser, served_site, name, lang):
    """Pressing Next (or Last) with the keyboard until the last step: the button cannot act any more, and
    the focus stays on it (it used to fall to the page's <body> when the button disabled itself)."""
    context, tab = open_page(browser, served_site, lang, PAGES[name])
    try:
        root = start(tab, name)
        buttons = root.locator(".xp-bar .xp-button")
        next_button, last_button = buttons.nth(2), buttons.nth(3)
        total = None
        next_button.focus()
        for _ in range(60):
            tab.keyboard.press("Enter")
            if next_button.get_attribute("aria-disabled") == "true":
                total = root.get_attribute("data-step")
                break
        focus_after_next = next_button.evaluate("(b) => document.activeElement === b")
        buttons.nth(0).click()  # back to the start
        last_button.focus()
        tab.keyboard.press("Enter")
        focus_after_last = last_button.evaluate("(b) => document.activeElement === b")
        step_after_last = root.get_attribute("data-step")
        tab.keyboard.press("Enter")  # again, at the end: nothing moves
        still = root.get_attribute("data-step")
    finally:
        context.close()
    assert total, f"{name} ({lang}): Next never reached the last step"
    assert focus_after_next, f"{name} ({lang}): the focus left Next at the last step"
    assert focus_after_last and step_after_last == total == still, (
        f"{name} ({lang}): Last went to step {step_after_last} of {total}, then {still}; "
        f"focus stayed: {focus_after_last}"
    )


@pytest.mark.parametrize("lang", LANGS)
def test_print_shows_the_static_figures_and_no_controls(browser, served_site, lang):
    """On paper an explorer is its static figure (it would print at step 1, an empty graph), and no Run bar,
    button or output prints."""
    context, tab = open_page(browser, served_site, lang, PAGES["worked-example"])
    try:
        root = start(tab, "worked-example")
        screen = root.evaluate("(r) => ({ui: !!r.querySelector('.xp-ui')?.getClientRects().length, "
                               "img: !!r.querySelector('figure img')?.getClientRects().length})")
        tab.emulate_media(media="print")
        printed = root.evaluate("(r) => ({ui: !!r.querySelector('.xp-ui')?.getClientRects().length, "
                                "img: !!r.querySelector('figure img')?.getClientRects().length})")
        controls = tab.evaluate("""() => [...document.querySelectorAll(
            '.run-bar, .run-output, .xp-bar, .md-typeset button, .md-typeset .md-button, .page-code')]
            .filter((e) => e.getClientRects().length).map((e) => e.className || e.tagName)""")
    finally:
        context.close()
    assert screen == {"ui": True, "img": False}, f"on screen: {screen}"
    assert printed == {"ui": False, "img": True}, f"in print: {printed}"
    assert not controls, f"printed controls: {controls[:10]}"


CAPTION_JS = """(root) => {
  const shows = (e) => !!e && e.getClientRects().length > 0 && getComputedStyle(e).display !== 'none';
  return {live: shows(root.querySelector('figcaption .xp-caption-live')),
          still: shows(root.querySelector('figcaption .xp-caption-static')),
          text: (root.querySelector('figcaption .xp-caption-live') || {}).textContent || '',
          captions: root.querySelectorAll('figcaption').length};
}"""


@pytest.mark.parametrize("name, lang", CASES, ids=IDS)
def test_each_explorer_shows_its_own_caption_and_print_keeps_the_figures(browser, served_site, exported,
                                                                          name, lang):
    """On screen the explorer's caption (strings [explorer-NAME] caption, its slots filled from the data);
    in print the static figure's, with the figure. One <figcaption> either way."""
    from sitebuild import strings

    context, tab = open_page(browser, served_site, lang, PAGES[name])
    try:
        root = start(tab, name)
        screen = root.evaluate(CAPTION_JS)
        tab.emulate_media(media="print")
        printed = root.evaluate(CAPTION_JS)
    finally:
        context.close()
    data = exported[name]
    values = {**data.get("caption", {}), "knob": data.get("knob_name", "")}
    want = strings.of(lang)[f"explorer-{name}"]["caption"].format(**values)
    assert screen["live"] and not screen["still"] and screen["captions"] == 1, f"{name} ({lang}): {screen}"
    assert screen["text"] == want, f"{name} ({lang}): the caption shows {screen['text']!r}"
    assert printed["still"] and not printed["live"], f"{name} ({lang}) in print: {printed}"


VISIBLE_JS = """(root) => ({
  badges: [...root.querySelectorAll('.xp-badge')].map((b) => b.textContent),
  marks: [...root.querySelectorAll('.xp-code mark')].map((m) => {
    const r = m.getBoundingClientRect(), box = m.closest('pre').getBoundingClientRect();
    return {cut: m.scrollWidth > m.clientWidth + 1 || r.right > box.right + 1, text: m.textContent};
  }),
  edges: [...root.querySelectorAll('.xp-wire')]
    .filter((w) => !/is-(neg|pos|zero)/.test(w.getAttribute('class'))).length,
  collisions: (() => {
    const circles = [...root.querySelectorAll('.xp-unit')].map((c) => c.getBoundingClientRect());
    return [...root.querySelectorAll('.xp-delta')].filter((d) => d.textContent).filter((d) => {
      const t = d.getBoundingClientRect();
      return circles.some((c) => t.bottom > c.top + 0.5 && t.top < c.bottom - 0.5
                                 && t.right > c.left && t.left < c.right);
    }).map((d) => d.textContent);
  })(),
})"""


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_explorers_show_what_the_text_says(browser, served_site, exported, size):
    """03: the nodes carry the backward steps' numbers 1-8, and culpa's highlighted line is never cut off;
    04: at the last step every edge shows its weight's slope, and no δ label touches a circle."""
    found = []
    for lang in LANGS:
        context, tab = open_page(browser, served_site, lang, PAGES["worked-example"], size=size)
        try:
            root = start(tab, "worked-example")
            root.locator(".xp-stage").focus()
            seen = []
            for _ in range(len(exported["worked-example"]["steps"])):
                seen.append(root.evaluate(VISIBLE_JS))
                tab.keyboard.press("ArrowRight")
        finally:
            context.close()
        orders = sorted(n["order"] for n in exported["worked-example"]["nodes"] if n["order"])
        if sorted(seen[0]["badges"]) != orders:
            found.append(f"worked-example ({lang}): the nodes carry {seen[0]['badges']}, not {orders}")
        found += [f"worked-example ({lang}, {size['width']} px): the highlighted line {m['text']!r} is cut"
                  for look in seen for m in look["marks"] if m["cut"]]
        context, tab = open_page(browser, served_site, lang, PAGES["blame"], size=size)
        try:
            root = start(tab, "blame")
            root.locator(".xp-stage").focus()
            tab.keyboard.press("End")
            look = root.evaluate(VISIBLE_JS)
        finally:
            context.close()
        if look["edges"]:
            found.append(f"blame ({lang}): {look['edges']} edges show no slope at the last step")
        if look["collisions"]:
            found.append(f"blame ({lang}, {size['width']} px): δ labels touch circles: {look['collisions']}")
    assert not found, "\n".join(found)


PHONE_CASES = [(name, path, lang) for name, path in [*PAGES.items(), ("worked-example", HOME)]
               for lang in LANGS]
PHONE_IDS = [f"{name}-{'home' if path == HOME else 'page'}-{lang}" for name, path, lang in PHONE_CASES]
# what changes with a step, and must share the phone's screen with the controls that change it
EXPLANATION = {"worked-example": (".xp-say", ".xp-rule"), "blame": (".xp-say", ".xp-rule"),
               "nudge": (".xp-readout", ".xp-say")}
ON_SCREEN_JS = """([name, parts]) => {
  const root = document.querySelector(`[data-explorer='${name}']`);
  const controls = root.querySelector('.xp-bar, .xp-sliders');
  const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
  window.scrollTo(0, controls.getBoundingClientRect().top + window.scrollY - header - 8);
  const box = controls.getBoundingClientRect();
  return { header, height: window.innerHeight, controls: [box.top, box.bottom],
           parts: parts.map((sel) => [sel, root.querySelector(sel).getBoundingClientRect().top]) };
}"""


@pytest.mark.parametrize("name, path, lang", PHONE_CASES, ids=PHONE_IDS)
def test_on_a_phone_the_controls_and_what_they_change_share_a_screen(
        browser, served_site, exported, name, path, lang):
    """At 390 × 844, with the controls scrolled up under the header, the explanation that a step changes
    (the sentence, and the rule or the readout) starts on the same screen, at every step (every ε stop),
    driven with the keyboard."""
    context, tab = open_page(browser, served_site, lang, path, size=PHONE)
    problems = []
    try:
        root = start(tab, name)
        if name == "nudge":
            root.locator("input[type=range]").nth(1).focus()
            stops, key = len(exported[name]["epsilons"]), "ArrowLeft"
        else:
            root.locator(".xp-stage").focus()
            stops, key = len(exported[name]["steps"]), "ArrowRight"
        tab.keyboard.press("End" if name == "nudge" else "Home")
        for stop in range(stops):
            if stop:
                tab.keyboard.press(key)
            got = tab.evaluate(ON_SCREEN_JS, [name, list(EXPLANATION[name])])
            where = f"{name} ({lang}{', home' if path == HOME else ''}), {key} × {stop}"
            if got["controls"][0] < got["header"] or got["controls"][1] > got["height"]:
                problems.append(f"{where}: the controls are not on screen: {got['controls']}")
            problems += [f"{where}: {sel} starts at y = {top:.0f}, below the {got['height']} px screen"
                         for sel, top in got["parts"] if not got["header"] <= top < got["height"] - 24]
    finally:
        context.close()
    assert not problems, "\n".join(problems[:20])
