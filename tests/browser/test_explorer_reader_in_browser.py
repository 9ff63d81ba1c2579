"""The reader's numbers in the explorers, in Chromium, against CPython culpa.

In each language, with the keyboard, as a reader: nothing of Python is fetched before the reader asks; then
for 20 seeded random inputs (typed as that language writes numbers) the worked-example explorer (page 03), at
its last step, shows exactly the numbers that sitebuild/explorers/worked_example.py computes in this test
process for the same inputs; a field culpa cannot read is named in the page's language, marked invalid, and
changes nothing; "Back to the book's numbers" brings the build's numbers back; every request stays on the
site; the focus never falls to the page's <body>. A planted difference (one expected gradient altered) is
caught. Then, with the last case's numbers, every step by the keyboard: each step's numbers and what it
announces are culpa's for those numbers. The same for 20 inputs of the blame explorer (page 04: the input
x and the activation; every step of the last one) and of the nudge explorer (page 08: the knob's value, on
the smooth knob or the kink, in both precisions, with what each announces), with one Python for all three:
their roots, as the build wrote them on their own pages (the page's words, culpa's wheel), and their scripts
are brought onto page 03 once the worked example is done, so that they ask the Python it started (a page's
explorers share one; starting another costs seconds per page). tests/browser/test_explorers.py drives each
explorer on its own page.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from test_explorers import (
    SHOWN_JS,
    blame_expected,
    drive_stepper,
    multiset_problems,
    nudge_expected,
    open_fresh,
    said_problems,
    start,
    url,
    worked_example_expected,
)
from test_explorers_data import amount  # the number an explorer shows, read back from its text
from visiting import TO_BOTTOM_EDGE_JS, find_chromium, in_ci, requested, wait_until

from sitebuild import strings
from sitebuild.explorers import blame, nudge
from sitebuild.explorers import worked_example as we
from support.background import session_fixture
from support.served import LANGS

if find_chromium() is None and not in_ci():
    pytest.skip("browser tests skipped: no Chromium", allow_module_level=True)

CASES = 20  # each explorer's inputs per language: each costs a recompute, not a Python
PAGE = "03-worked-example/"
PYODIDE = "/assets/vendor/pyodide/"
COMPUTE_MS = 180_000  # the first answer loads Python in the page (a busy machine: tens of seconds)


def cases(lang: str):
    """The reader's inputs: (the fields as typed, z, observed class)."""
    rng = random.Random(f"reader-{lang}")
    for _ in range(CASES):
        z = [round(rng.uniform(-8, 8), rng.choice([0, 1, 2])) for _ in range(we.CLASSES)]
        typed = [f"{v}".replace("-", rng.choice(["-", "\u2212"])) for v in z]
        if lang == "pt":
            typed = [t.replace(".", ",") for t in typed]
        yield typed, z, rng.randrange(we.CLASSES)


def type_numbers(tab, root, typed, observed):
    """Fill the fields with the keyboard and press Enter in the last logit (the form's submit)."""
    fields = root.locator(".xp-inputs input")
    for k, text in enumerate(typed):
        fields.nth(k).fill(text)
    select = root.locator(".xp-inputs select")
    if select.input_value() != str(observed):
        select.select_option(str(observed))  # a change of class computes at once
        wait_answer(tab)
    fields.nth(len(typed) - 1).press("Enter")
    wait_answer(tab)


def wait_answer(tab, name="worked-example"):
    wait_until(tab, "(n) => { const r = document.querySelector(`[data-explorer='${n}']`);"
                    " return r && !r.dataset.computing; }", arg=name, timeout=COMPUTE_MS)


def shown_at_last_step(tab, root):
    root.locator(".xp-stage").focus()
    tab.keyboard.press("End")
    return root.evaluate(SHOWN_JS)


def drive_sessions(browser, served_site):
    """Each language's page, driven through every case; what it showed, and what it asked the network for."""
    found = {}
    for lang in LANGS:
        # a first visit in a context of its own: what the page fetches before the reader acts is checked
        context, tab = open_fresh(browser, served_site, lang, PAGE)
        requests = []
        tab.on("request", lambda r, into=requests: into.append(r.url))
        root = start(tab, "worked-example")
        before = [u for u in requests if PYODIDE in u]
        book = shown_at_last_step(tab, root)
        # a field focused (Tab passing by) loads nothing; the first keystroke in it starts Python, before
        # Compute is pressed (type_numbers then writes the case over it)
        first = root.locator(".xp-inputs input").first
        first.focus()
        tab.wait_for_timeout(500)
        focused = [u for u in requests if PYODIDE in u]
        first.press("End")
        first.press("0")
        keystroke_loads = requested(tab, requests, PYODIDE, seconds=20)
        runs = []
        for typed, z, observed in cases(lang):
            type_numbers(tab, root, typed, observed)
            status, numbers = root.locator(".xp-status").text_content(), root.get_attribute("data-numbers")
            runs.append((typed, z, observed, root.evaluate(SHOWN_JS), status, numbers))
        # every step of the last case, by the keyboard: its numbers and what each step announces
        stepped = drive_stepper(tab, root, "worked-example", we.export(z, observed), lang)
        # Enter in a field that Tab left at the screen's bottom edge: the answer's status comes into view
        last_field = root.locator(".xp-inputs input").last
        last_field.evaluate(TO_BOTTOM_EDGE_JS)
        last_field.press("Enter")
        wait_answer(tab)
        status_seen = root.locator(".xp-status").evaluate(
            "(s) => { const r = s.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }")
        # a field culpa cannot read: named, marked, nothing changes
        shown = root.evaluate(SHOWN_JS)
        first = root.locator(".xp-inputs input").first
        first.fill("abc")
        first.press("Enter")
        wait_answer(tab)
        invalid = {"status": root.locator(".xp-status").text_content(), "shown": root.evaluate(SHOWN_JS),
                   "before": shown, "marked": first.get_attribute("aria-invalid"),
                   "focus": tab.evaluate("document.activeElement.getAttribute('name')")}
        # back to the book's numbers, from the keyboard
        back = root.locator(".xp-book")
        back.focus()
        tab.keyboard.press("Enter")
        restored = {"shown": shown_at_last_step(tab, root), "numbers": root.get_attribute("data-numbers"),
                    "fields": [f.input_value() for f in root.locator(".xp-inputs input").all()]}
        found[lang] = {"before": before, "focused": focused, "keystroke_loads": keystroke_loads, "book": book,
                       "runs": runs, "stepped": stepped, "status_seen": status_seen, "invalid": invalid,
                       "restored": restored,
                       "requests": list(requests), "errors": list(tab.errors), "site": served_site.base}
        # the blame explorer (page 04) and the nudge explorer (page 08), brought here: the same Python
        bring(tab, url(served_site, lang, "04-through-a-network/"), "blame")
        found[lang]["blame"] = drive_blame(tab, lang)
        bring(tab, url(served_site, lang, "08-honest-habits/"), "nudge")
        found[lang]["nudge"] = drive_nudge(tab, lang)
        found[lang]["requests"] = list(requests)
        found[lang]["errors"] = list(tab.errors)
        context.close()
    return found


sessions = session_fixture(drive_sessions)


BRING_JS = """async ([address, name]) => {
  const page = new DOMParser().parseFromString(await (await fetch(address)).text(), 'text/html');
  const root = document.importNode(page.querySelector(`[data-explorer="${name}"]`), true);
  for (const [attribute, many] of [['src', false], ['srcset', true], ['href', false]]) {
    root.querySelectorAll(`[${attribute}]`).forEach((el) => {  // its figure's files, as from its own page
      const value = el.getAttribute(attribute);
      el.setAttribute(attribute, many ? value.split(',').map((part) => {
        const [where, ...size] = part.trim().split(/\\s+/);
        return [new URL(where, address).href, ...size].join(' ');
      }).join(', ') : new URL(value, address).href);
    });
  }
  document.querySelector('article').append(root);
  const script = document.createElement('script');
  const starter = document.querySelector('script[src*="explorers/start.js"]');
  script.src = starter.src.replace('start.js', `${name}.js`);
  await new Promise((done, failed) => {
    script.onload = done;
    script.onerror = failed;
    document.head.append(script);
  });
}"""


def bring(tab, address, name):
    """The explorer `name` of the page at `address`, its root and its script, onto the page open in `tab`."""
    tab.evaluate(BRING_JS, [address, name])


def blame_cases(lang: str):
    """The reader's inputs for page 04: (the fields as typed, x, activation)."""
    rng = random.Random(f"blame-{lang}")
    for _ in range(CASES):
        x = [round(rng.uniform(-4, 4), rng.choice([0, 1, 2])) for _ in range(4)]
        typed = [f"{v}".replace("-", rng.choice(["-", "\u2212"])) for v in x]
        if lang == "pt":
            typed = [t.replace(".", ",") for t in typed]
        yield typed, x, rng.choice(blame.ACTIVATIONS)


def drive_blame(tab, lang):
    """Each input typed (a new activation computes as it is chosen, else Enter), the network at its last
    step; then a letter in x₀; then Back to the book's numbers, from the keyboard."""
    root = start(tab, "blame")
    fields, select = root.locator(".xp-inputs input"), root.locator(".xp-inputs select")
    book = shown_at_last_step(tab, root)
    runs = []
    for typed, x, activation in blame_cases(lang):
        for k, text in enumerate(typed):
            fields.nth(k).fill(text)
        if select.input_value() != activation:
            select.select_option(activation)
        else:
            fields.nth(len(typed) - 1).press("Enter")
        wait_answer(tab, "blame")
        status, numbers = root.locator(".xp-status").text_content(), root.get_attribute("data-numbers")
        runs.append((typed, x, activation, shown_at_last_step(tab, root), status, numbers))
    stepped = drive_stepper(tab, root, "blame", blame.export(x, activation), lang)  # the last case's steps
    shown = root.evaluate(SHOWN_JS)
    fields.first.fill("abc")
    fields.first.press("Enter")
    wait_answer(tab, "blame")
    invalid = {"status": root.locator(".xp-status").text_content(), "shown": root.evaluate(SHOWN_JS),
               "before": shown, "marked": fields.first.get_attribute("aria-invalid"),
               "focus": tab.evaluate("document.activeElement.getAttribute('name')")}
    root.locator(".xp-book").focus()
    tab.keyboard.press("Enter")
    restored = {"shown": shown_at_last_step(tab, root), "numbers": root.get_attribute("data-numbers"),
                "fields": [f.input_value() for f in fields.all()], "activation": select.input_value()}
    return {"book": book, "runs": runs, "stepped": stepped, "invalid": invalid, "restored": restored}


@pytest.mark.parametrize("lang", LANGS)
def test_python_loads_at_the_first_keystroke_never_before(sessions, lang):
    assert sessions[lang]["before"] == [], sessions[lang]["before"][:3]
    assert sessions[lang]["focused"] == [], f"focusing a field loaded Python: {sessions[lang]['focused'][:3]}"
    assert sessions[lang]["keystroke_loads"], "typing in a field did not start loading Python before Compute"
    assert any(PYODIDE in u for u in sessions[lang]["requests"]), "the reader's numbers never loaded Python"


def last_step_problems(name, lang, runs, export, expected):
    """Each run (typed, first, second, shown, status, numbers) of a stepping explorer: at its last step the
    page shows what export(first, second) computes here, and says culpa computed the reader's numbers."""
    problems = []
    for k, (typed, first, second, shown, status, numbers) in enumerate(runs):
        data = export(first, second)
        want, _ = expected(data, len(data["steps"]) - 1, lang)
        where = f"{name}, {lang}, case {k} ({typed}, {second})"
        problems += multiset_problems(where, shown["numbers"], want)
        if numbers != "reader" or status != strings.of(lang)[f"explorer-{name}"]["computed"]:
            problems.append(f"{where}: data-numbers={numbers!r}, status {status!r}")
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_shows_what_cpython_culpa_computes_for_the_readers_numbers(sessions, lang):
    problems = last_step_problems("worked-example", lang, sessions[lang]["runs"], we.export,
                                  worked_example_expected)
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("lang", LANGS)
def test_enter_in_a_field_at_the_screens_edge_brings_the_answer_into_view(sessions, lang):
    assert sessions[lang]["status_seen"], "Enter in a field at the screen's edge: the status stays off screen"


@pytest.mark.parametrize("lang", LANGS)
def test_every_step_with_the_readers_numbers_shows_and_announces_culpas(sessions, lang):
    """The last case's numbers, stepped through from the first step to the last and back by the keyboard:
    every step's numbers, and what it announces, are what culpa computes here for those numbers."""
    problems = sessions[lang]["stepped"] + sessions[lang]["blame"]["stepped"]
    assert not problems, "\n".join(problems[:10])


def test_a_planted_difference_is_caught(sessions):
    typed, z, observed, shown, _, _ = sessions["en"]["runs"][0]
    data = we.export(z, observed)
    data["nodes"][0]["grad"] = {"pt": "(9,999; 0,0; 0,0)", "en": "(9.999, 0.0, 0.0)"}
    expected, _ = worked_example_expected(data, len(data["steps"]) - 1, "en")
    assert multiset_problems("planted", shown["numbers"], expected)


def check_unread(name, lang, invalid, label, field):
    """A letter typed in `field` (labelled `label`): culpa's message in the page's words, the field marked
    and focused, and every number as it was."""
    words = strings.of(lang)[f"explorer-{name}"]
    said = words["problemNumber"].replace("{field}", label).replace("{text}", "abc")
    assert invalid["status"] == said + " " + words["unchanged"], invalid["status"]
    assert invalid["shown"]["numbers"] == invalid["before"]["numbers"]
    assert invalid["marked"] == "true" and invalid["focus"] == field, invalid


@pytest.mark.parametrize("lang", LANGS)
def test_a_field_culpa_cannot_read_is_named_and_changes_nothing(sessions, lang):
    check_unread("worked-example", lang, sessions[lang]["invalid"], "z₀", "z0")


@pytest.mark.parametrize("lang", LANGS)
def test_the_books_numbers_come_back(sessions, lang):
    restored, book = sessions[lang]["restored"], sessions[lang]["book"]
    assert restored["numbers"] == "book"
    assert restored["shown"]["numbers"] == book["numbers"]
    data = we.export()
    assert restored["fields"] == [v[lang] for v in data["inputs"]["z"]]


@pytest.mark.parametrize("lang", LANGS)
def test_every_request_stays_on_the_site_and_nothing_fails(sessions, lang):
    site = sessions[lang]["site"]
    elsewhere = [u for u in sessions[lang]["requests"] if not u.startswith(site) and not u.startswith("blob:")
                 and not u.startswith("data:")]
    assert elsewhere == [], elsewhere[:5]
    assert sessions[lang]["errors"] == [], sessions[lang]["errors"][:5]


def nudge_cases(lang: str):
    """The reader's θ for page 08, on each knob in turn: (θ as typed, θ, the knob)."""
    rng = random.Random(f"nudge-{lang}")
    for k in range(CASES):
        theta = round(rng.uniform(-2, 2) / rng.choice([1, 10, 100]), rng.choice([2, 3, 4]))
        typed = f"{theta}".replace("-", rng.choice(["-", "\u2212"]))
        yield (typed.replace(".", ",") if lang == "pt" else typed), theta, nudge.KINDS[k % 2]


READOUT_JS = """(root) => Object.fromEntries([...root.querySelectorAll('td[data-num]')]
  .map((td) => [td.dataset.num, td.textContent.trim()]))"""


def drive_nudge(tab, lang):
    """Each θ typed on its knob (the knob's button pressed first: with the reader's θ shown, that computes
    too), read at the default ε in float64 and in float32; then a letter; then Back to the book's numbers."""
    root = start(tab, "nudge")
    field = root.locator(".xp-inputs input")
    precisions = root.locator(".xp-choice")
    runs, sliders = [], []
    for typed, theta, kind in nudge_cases(lang):
        if root.get_attribute("data-kind") != kind:
            root.locator(f'.xp-kind[data-kind="{kind}"]').focus()
            tab.keyboard.press("Enter")
            wait_answer(tab, "nudge")
        field.fill(typed)
        field.press("Enter")
        wait_answer(tab, "nudge")
        status, numbers = root.locator(".xp-status").text_content(), root.get_attribute("data-numbers")
        shown = {}
        for k, precision in enumerate(nudge.PRECISIONS):
            precisions.nth(k).focus()
            tab.keyboard.press("Enter")
            shown[precision] = {**root.evaluate(SHOWN_JS), "cells": root.evaluate(READOUT_JS)}
        precisions.first.focus()
        tab.keyboard.press("Enter")
        runs.append((typed, theta, kind, shown, status, numbers, root.get_attribute("data-kind")))
        # one θ, nothing to slide: no slider thumb standing at a position that means another θ
        sliders.append(root.locator("input[type=range]").first.is_visible())
    before = root.evaluate(SHOWN_JS)
    field.fill("abc")
    field.press("Enter")
    wait_answer(tab, "nudge")
    invalid = {"status": root.locator(".xp-status").text_content(), "shown": root.evaluate(SHOWN_JS),
               "before": before, "marked": field.get_attribute("aria-invalid"),
               "focus": tab.evaluate("document.activeElement.getAttribute('name')"),
               "kind": root.get_attribute("data-kind")}
    # the other knob, asked for with that letter still there: the same message, and still nothing changes
    other = next(k for k in nudge.KINDS if k != invalid["kind"])
    root.locator(f'.xp-kind[data-kind="{other}"]').focus()
    tab.keyboard.press("Enter")
    wait_answer(tab, "nudge")
    invalid["other"] = {"status": root.locator(".xp-status").text_content(), "shown": root.evaluate(SHOWN_JS),
                        "kind": root.get_attribute("data-kind")}
    root.locator(".xp-book").focus()
    tab.keyboard.press("Enter")
    restored = {"shown": root.evaluate(SHOWN_JS), "numbers": root.get_attribute("data-numbers"),
                "field": field.input_value(), "kind": root.get_attribute("data-kind"),
                "slider": root.locator("input[type=range]").first.is_enabled(),
                "slider_shown": root.locator("input[type=range]").first.is_visible()}
    return {"runs": runs, "invalid": invalid, "restored": restored, "sliders": sliders}


# ---- blame (page 04) ----
@pytest.mark.parametrize("lang", LANGS)
def test_blame_shows_what_cpython_culpa_computes_for_the_readers_input_and_activation(sessions, lang):
    problems = last_step_problems("blame", lang, sessions[lang]["blame"]["runs"], blame.export,
                                  lambda data, last, lang: blame_expected(data, last, lang, data["knob"]))
    assert not problems, "\n".join(problems[:10])


def test_blame_a_planted_difference_is_caught(sessions):
    typed, x, activation, shown, _, _ = sessions["en"]["blame"]["runs"][0]
    data = blame.export(x, activation)
    data["layers"][1]["delta_size"] = {"pt": "9,9999", "en": "9.9999"}
    expected, _ = blame_expected(data, len(data["steps"]) - 1, "en", data["knob"])
    assert multiset_problems("planted", shown["numbers"], expected)


@pytest.mark.parametrize("lang", LANGS)
def test_blame_a_field_culpa_cannot_read_is_named_and_changes_nothing(sessions, lang):
    check_unread("blame", lang, sessions[lang]["blame"]["invalid"], "x₀", "x0")


@pytest.mark.parametrize("lang", LANGS)
def test_blame_the_books_numbers_come_back(sessions, lang):
    restored, book = sessions[lang]["blame"]["restored"], sessions[lang]["blame"]["book"]
    assert restored["numbers"] == "book"
    assert restored["shown"]["numbers"] == book["numbers"]
    data = blame.export()
    assert restored["fields"] == [v[lang] for v in data["inputs"]["x"]]
    assert restored["activation"] == "sigmoid"


# ---- nudge (page 08) ----
def nudge_view(data, kind):
    """The exported data as the explorer shows it with `kind` picked."""
    return data if data["kind"] == kind else {**data, **data[kind]}


@pytest.mark.parametrize("lang", LANGS)
def test_nudge_shows_what_cpython_culpa_computes_at_the_readers_theta(sessions, lang):
    problems = []
    for k, (typed, theta, kind, shown, status, numbers, picked) in enumerate(sessions[lang]["nudge"]["runs"]):
        data = nudge.export(theta, kind)
        where = f"nudge, {lang}, case {k} (θ = {typed}, {kind})"
        for precision in nudge.PRECISIONS:
            problems += rounding_problems(f"{where}, {precision}", shown[precision], data, lang, precision)
        if numbers != "reader" or picked != kind or status != strings.of(lang)["explorer-nudge"]["computed"]:
            problems.append(f"{where}: data-numbers={numbers!r}, knob {picked!r}, status {status!r}")
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("lang", LANGS)
def test_nudge_announces_the_numbers_it_shows_at_the_readers_theta(sessions, lang):
    """What the explorer says when a precision is chosen at the reader's θ: the precision, θ, ε, the loss,
    the exact slope and (where the step did not vanish) each estimate and its error, as the readout shows
    them (the readout is culpa's: the test above), and no other number."""
    problems = []
    for k, (typed, theta, kind, shown, *_rest) in enumerate(sessions[lang]["nudge"]["runs"]):
        data = nudge.export(theta, kind)
        for precision in nudge.PRECISIONS:
            knob = data["knobs" if precision == "float64" else f"knobs_{precision}"][0]
            cells = shown[precision]["cells"]
            numbers = [precision, knob["theta"][lang], data["epsilons"][data["default_eps"]][lang],
                       cells["loss"], cells["exact"]]
            if knob["cells"][data["default_eps"]]["secant"] is not None:
                numbers += [cells[key] for key in ("forward", "central", "error_forward", "error_central")]
            problems += said_problems(f"nudge, {lang}, case {k} (θ = {typed}, {kind}), {precision}",
                                      shown[precision]["said"], numbers)
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("lang", LANGS)
def test_nudge_hides_the_knob_slider_while_the_readers_theta_is_shown(sessions, lang):
    """With the reader's θ there is one position: a thumb at the track's end would mean another θ. Back to
    the book's numbers, the slider is there and works again."""
    found = sessions[lang]["nudge"]
    assert found["sliders"] and not any(found["sliders"]), found["sliders"]
    assert found["restored"]["slider"] and found["restored"]["slider_shown"], found["restored"]


def rounding_problems(where, shown, data, lang, precision):
    """The nudge's readout against CPython's, to the precision's rounding. The page's NumPy (WebAssembly, its
    own libm) rounds a network's sums, exp and tanh differently from this process's (SIMD kernels, BLAS), by
    an ulp here and there; a finite difference divides those ulps by ε, so its last digits are rounding noise
    on any machine. So each number must be CPython's exactly, or differ by no more than that noise: the loss
    by a few ulps, the exact slope by a few ulps of the gradient, each estimate by the rounding error of its
    two losses (8 u |L| / ε one-sided, 4 u |L| / ε central), each error by that plus the slope's, and the
    last digit shown either way (the errors show two digits: 5 %)."""
    knob = data["knobs" if precision == "float64" else f"knobs_{precision}"][0]
    cell, eps = knob["cells"][data["default_eps"]], data["eps_raw"][data["default_eps"]]
    u = float(np.finfo(np.dtype(precision)).eps)
    loss, exact = amount(knob["loss"]), amount(knob["exact"])
    slope = 64 * u * max(1.0, abs(exact)) + 5e-11
    noise = {"forward": 8 * u * abs(loss) / eps + 5e-11, "central": 4 * u * abs(loss) / eps + 5e-11}
    slack = {"loss": 4 * u * abs(loss) + 5e-7, "exact": slope, **noise,
             "error_forward": noise["forward"] + slope, "error_central": noise["central"] + slope}
    problems = [f"{where}: {text!r} is not shown" for text in
                (f"θ = {knob['theta'][lang]}", f"ε = {data['epsilons'][data['default_eps']][lang]}")
                if text not in shown["numbers"]]
    for key, limit in slack.items():
        want_text = (knob if key in ("loss", "exact") else cell)[key]
        if shown["cells"][key] == want_text[lang]:
            continue
        text = shown["cells"][key].replace(".", "").replace(",", ".") if lang == "pt" else shown["cells"][key]
        got, want = amount({"en": text}), amount(want_text)
        if got is None or want is None or abs(got - want) > limit + (0.05 * want if "error" in key else 0):
            problems.append(f"{where} {key}: shows {shown['cells'][key]}, CPython's culpa {want_text[lang]} "
                            f"(± {limit:.1e})")
    return problems


def test_nudge_a_planted_difference_is_caught(sessions):
    """A number beyond rounding, in either precision, on either knob, is caught; as computed, none is."""
    runs = sessions["en"]["nudge"]["runs"][:2]  # one on each knob
    for (_typed, theta, kind, shown, *_), precision in itertools.product(runs, nudge.PRECISIONS):
        data = nudge.export(theta, kind)
        assert rounding_problems("as computed", shown[precision], data, "en", precision) == []
        knobs = data["knobs" if precision == "float64" else f"knobs_{precision}"]
        knobs[0]["cells"][data["default_eps"]]["central"] = {"pt": "0,5000000000", "en": "0.5000000000"}
        assert rounding_problems("planted", shown[precision], data, "en", precision), (kind, precision)


@pytest.mark.parametrize("lang", LANGS)
def test_nudge_a_field_culpa_cannot_read_is_named_and_changes_nothing(sessions, lang):
    invalid = sessions[lang]["nudge"]["invalid"]
    check_unread("nudge", lang, invalid, strings.of(lang)["explorer-nudge"]["theta"], "theta")
    other = invalid["other"]
    assert other["status"] == invalid["status"] and other["kind"] == invalid["kind"], other
    assert other["shown"]["numbers"] == invalid["before"]["numbers"]


@pytest.mark.parametrize("lang", LANGS)
def test_nudge_the_books_numbers_come_back(sessions, lang):
    restored = sessions[lang]["nudge"]["restored"]
    view = nudge_view(nudge.export(), restored["kind"])
    expected, _ = nudge_expected(view, view["default_knob"], view["default_eps"], lang)
    assert restored["numbers"] == "book" and restored["slider"], restored
    assert sorted(restored["shown"]["numbers"]) == sorted(expected)
    assert restored["field"] == view["theta"][lang]


def test_the_home_pages_preview_takes_the_readers_numbers_too(browser, served_site):
    """The worked example's preview on the home page (built at the reader's first touch) has the same fields:
    a reader's logits and class, typed in the page's language, give culpa's numbers at the last step."""
    lang = "pt"
    typed, z, observed = next(cases(lang))
    context, tab = open_fresh(browser, served_site, lang, "")
    try:
        root = start(tab, "worked-example")
        type_numbers(tab, root, typed, observed)
        run = (typed, z, observed, shown_at_last_step(tab, root), root.locator(".xp-status").text_content(),
               root.get_attribute("data-numbers"))
    finally:
        context.close()
    problems = last_step_problems("worked-example", lang, [run], we.export, worked_example_expected)
    assert not problems, "\n".join(problems[:10])
    assert tab.errors == [], tab.errors[:5]


def test_a_missing_explorer_file_is_named_and_the_next_compute_fetches_it_again(browser, served_site):
    """worker.js starts downloading the explorers' files with the first explore, while Python may still load:
    one of them missing (the manifest, 404) is said in the explorer's status, named with the server's answer;
    the book's numbers stay; nothing says that Python failed to load. The reader computes again once the file
    is back, and culpa's numbers come: a failed download is not kept."""
    lang, missing = "pt", "**/assets/explorers/py/manifest.json"
    words = strings.of(lang)["explorer-worked-example"]
    context, tab = open_fresh(browser, served_site, lang, PAGE)
    try:
        context.route(missing, lambda route: route.fulfill(status=404, body="planted 404"))
        root = start(tab, "worked-example")
        fields = root.locator(".xp-inputs input")
        for k, typed in enumerate(["1", "2", "3"]):
            fields.nth(k).fill(typed)
        fields.nth(2).press("Enter")
        wait_answer(tab)
        said = root.locator(".xp-status").text_content()
        numbers = root.get_attribute("data-numbers")
        context.unroute(missing)
        fields.nth(2).press("Enter")
        wait_answer(tab)
        again = root.locator(".xp-status").text_content(), root.get_attribute("data-numbers")
    finally:
        context.close()
    assert said == words["failed"].format(error="explorers/py/manifest.json: HTTP 404"), said
    assert numbers == "book", "a failed compute changed the explorer's numbers"
    assert again == (words["computed"], "reader"), f"once the file was back: {again}"
    assert [e for e in tab.errors if "manifest.json" not in e] == [], tab.errors[:5]
