"""Code exercises, Predict and progress in Chromium (assets/exercises/check.js, predict.js, progress.js).

One browser context per language, with the keyboard only, as a reader:
- on page 03, a Predict: a number typed and Show pressed from the keyboard; the sentence announced
  (role=status) names the reader's text and the page's own number, in the page's language (pt: decimal
  comma), and the paragraphs the page wrote are revealed; a pick (an option chosen with the arrow keys)
  says the right option; nothing of Python is fetched, before or after;
- on page 05, the code exercise: the reader's code typed in the text area and checked from the keyboard;
  a planted mistake is named, and the announced verdict is what CPython's culpa says; a loop that never
  ends is stopped with its message; the right code is right; a loop inside one C call, which Python cannot
  stop, ends the page's worker after its limit, with its message;
- then the navigation marks page 05 "1 de 3" / "1 of 3" (named for screen readers), a reload keeps it, the
  page's line says it, and the clear button clears it (announced; after a reload too); the button is
  offered only when something is solved, and pressed with nothing solved it announces nothing;
- on a 390 px phone nothing scrolls sideways; every request stays on the site (every other host is
  refused). Screenshots, desktop and phone, light and dark, land in tests/screenshots/
(exercise-*.png).
"""

from __future__ import annotations

import pytest

# the phone's width, every request on the site and no error, judged as for the number exercises, on this
# module's sessions (pytest runs an imported test here, with this module's fixture)
from test_exercises_in_browser import (  # noqa: F401
    check_with_keyboard,
    shoot,
    test_phone_width_and_the_network,
)
from test_explorers import open_fresh
from visiting import DESKTOP, PHONE, SCREENSHOTS, find_chromium, in_ci, wait_until

from sitebuild import exercises
from support.background import session_fixture
from support.served import LANGS

if find_chromium() is None and not in_ci():
    pytest.skip("browser tests skipped: no Chromium", allow_module_level=True)

CHECK_MS = 180_000  # the first check loads Python in the page (a busy machine: tens of seconds)
PYODIDE = "/assets/vendor/pyodide/"
MUL = "branching/mul-backward"
RIGHT = "def mul_backward(a, b, out):\n    a.grad += out.grad * b.data\n    b.grad += out.grad * a.data\n"
PLANTED = RIGHT.replace("+=", "=")  # = for +=: "mul-overwrite"
LOOP = "def mul_backward(a, b, out):\n    while True: pass\n"
C_LOOP = "def mul_backward(a, b, out):\n    sum(range(10**12))\n"  # hours inside one C call
SIGN = ("def mul_backward(a, b, out):\n    a.grad -= out.grad * b.data\n"
        "    b.grad -= out.grad * a.data")  # typed key by key: "mul-sign"
GUESS = {"pt": "0,5", "en": "0.5"}  # a prediction of page 03's loss (0,417): within 10%? no: "far"
LOSS = {"pt": "0,417", "en": "0.417"}  # what page 03 shows


def words(lang: str) -> dict:
    return exercises._words(lang)


def type_into(tab, locator, text):
    """Focus the field, empty it and type the text, key by key (a text area: its lines as typed)."""
    locator.focus()
    tab.keyboard.press("Control+a")
    tab.keyboard.press("Delete")
    for k, line in enumerate(text.split("\n")):
        if k:
            tab.keyboard.press("Enter")
        tab.keyboard.type(line)


def marks(tab):
    return tab.evaluate("[...document.querySelectorAll('.md-nav--primary .ex-mark')].map((m) => ({"
                        " page: new URL(m.closest('.md-nav__link').getAttribute('href') || './',"
                        " location.href).pathname,"
                        " text: m.textContent,"
                        " name: m.getAttribute('aria-label')}))")


def drive_sessions(browser, served_site):
    found = {}
    for lang in LANGS:
        got = found[lang] = {"site": served_site.base}
        # a first visit in a context of its own: what the page fetches before the reader acts is checked
        context, tab = open_fresh(browser, served_site, lang, "03-worked-example/")
        requests = []
        tab.on("request", lambda r, into=requests: into.append(r.url))
        # Predict: a number, with the keyboard
        number = tab.locator('.predict[data-kind="number"]').first
        number.scroll_into_view_if_needed()
        got["reveal_hidden_before"] = number.locator(".pr-reveal").is_hidden()
        type_into(tab, number.locator(".pr-guess"), GUESS[lang])
        tab.keyboard.press("Tab")
        got["predict_focus"] = tab.evaluate("document.activeElement.className")
        tab.keyboard.press("Enter")
        wait_until(tab, "(r) => r.querySelector('.pr-said').textContent", arg=number.element_handle())
        got["predicted"] = number.locator(".pr-said").text_content()
        got["revealed"] = number.locator(".pr-reveal").text_content()
        got["reveal_visible"] = number.locator(".pr-reveal").is_visible()
        got["answer_text"] = number.get_attribute("data-answer-text")
        shoot(tab, number, f"predict-{lang}-desktop")
        # Predict: a pick, with the arrow keys
        pick = tab.locator('.predict[data-kind="pick"]').first
        pick.scroll_into_view_if_needed()
        pick.locator('input[type="radio"]').first.focus()
        tab.keyboard.press("Space")
        tab.keyboard.press("ArrowDown")  # z₁
        got["pick_checked"] = pick.evaluate("(r) => r.querySelector('input:checked').value")
        tab.keyboard.press("Tab")
        tab.keyboard.press("Enter")
        wait_until(tab, "(r) => r.querySelector('.pr-said').textContent", arg=pick.element_handle())
        got["picked"] = pick.locator(".pr-said").text_content()
        got["pick_labels"] = pick.evaluate(
            "(r) => [...r.querySelectorAll('input')].map((i) => i.dataset.label)")
        got["pyodide_after_predict"] = [u for u in requests if PYODIDE in u]
        # the code exercise on page 05
        tab.goto(served_site.base + ("" if lang == "pt" else "en/") + "05-branching/", wait_until="load")
        got["marks_before"] = marks(tab)
        # nothing solved yet: the clear button is not offered, and pressed anyway it announces nothing
        clear = tab.locator(".ex-progress-clear")
        got["clear_offered_unsolved"] = clear.is_visible()
        clear.evaluate("(b) => b.click()")
        tab.wait_for_timeout(200)
        got["said_unsolved"] = tab.locator(".ex-progress-said").text_content()
        root = tab.locator(f'.exercise[data-exercise="{MUL}"]')
        root.scroll_into_view_if_needed()
        got["starter"] = root.locator("textarea").input_value()
        got["checks"] = [(code, check_with_keyboard(tab, root, code)) for code in (PLANTED, LOOP, RIGHT)]
        # typed key by key: the text area takes Enter as a new line, and Ctrl+Enter checks
        type_into(tab, root.locator("textarea"), SIGN)
        before = root.locator(".ex-verdict").text_content()
        tab.keyboard.press("Control+Enter")
        wait_until(tab, "([r, before]) => !r.dataset.checking"
                        " && r.querySelector('.ex-verdict').textContent"
                        " && r.querySelector('.ex-verdict').textContent !== before",
                        arg=[root.element_handle(), before], timeout=CHECK_MS)
        got["typed"] = root.locator("textarea").input_value()
        got["typed_said"] = root.locator(".ex-verdict").text_content()
        # a loop in C, which Python's trace cannot stop: the page ends its worker and says so
        got["c_loop"] = check_with_keyboard(tab, root, C_LOOP)
        got["marks_after"] = marks(tab)
        got["line"] = tab.locator(".ex-progress-said").text_content()
        got["solved_attr"] = root.get_attribute("data-solved")
        got["clear_offered_solved"] = tab.locator(".ex-progress-clear").is_visible()
        shoot(tab, root, f"code-exercise-{lang}-desktop")
        tab.evaluate("scrollTo(0, 0)")
        tab.screenshot(path=str(SCREENSHOTS / f"exercise-progress-nav-{lang}.png"),
                       clip={"x": 0, "y": 0, "width": 420, "height": 800})
        tab.reload(wait_until="load")
        got["marks_reloaded"] = marks(tab)
        # the phone
        tab.set_viewport_size(PHONE)
        tab.wait_for_timeout(200)
        got["phone"] = tab.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        phone_root = tab.locator(f'.exercise[data-exercise="{MUL}"]')
        phone_root.scroll_into_view_if_needed()
        shoot(tab, phone_root, f"code-exercise-{lang}-phone")
        predict = tab.locator(".predict").first
        predict.scroll_into_view_if_needed()
        shoot(tab, predict, f"predict-{lang}-phone")
        tab.set_viewport_size(DESKTOP)
        # clear, with the keyboard
        clear = tab.locator(".ex-progress-clear")
        clear.scroll_into_view_if_needed()
        clear.focus()
        tab.keyboard.press("Enter")
        tab.wait_for_timeout(200)
        got["cleared_said"] = tab.locator(".ex-progress-said").text_content()
        got["cleared_role"] = tab.locator(".ex-progress-said").get_attribute("role")
        got["cleared_focus"] = tab.evaluate("document.activeElement.className")
        got["clear_offered_cleared"] = clear.is_visible()
        got["marks_cleared"] = marks(tab)
        tab.reload(wait_until="load")
        got["marks_cleared_reloaded"] = marks(tab)
        got["requests"] = list(requests)
        got["errors"] = list(tab.errors)
        context.close()
    return found


sessions = session_fixture(drive_sessions)


@pytest.mark.parametrize("lang", LANGS)
def test_a_predict_reveals_the_pages_number_in_its_language(sessions, lang):
    got, w = sessions[lang], words(lang)
    assert got["reveal_hidden_before"] and got["reveal_visible"]
    assert "pr-show" in got["predict_focus"], got["predict_focus"]
    assert got["answer_text"] == LOSS[lang]
    assert got["predicted"] == w["predictFar"].replace("{guess}", GUESS[lang]).replace("{answer}", LOSS[lang])
    assert LOSS[lang] in got["revealed"], got["revealed"]
    assert got["pick_checked"] == "1"
    assert got["picked"] == w["pickWrong"].replace("{guess}", got["pick_labels"][1]).replace(
        "{answer}", got["pick_labels"][0])
    assert got["pyodide_after_predict"] == [], "Predict loaded Python"


@pytest.mark.parametrize("lang", LANGS)
def test_a_code_exercise_is_checked_in_the_page_as_cpython_checks_it(sessions, lang):
    got, w = sessions[lang], words(lang)
    assert got["starter"] == exercises.exercise(MUL).starter
    for code, shown in got["checks"]:
        expected = exercises.check(MUL, code, lang)  # the loop: stopped by Python's limit, as in the page
        assert (shown["verdict"], shown["said"]) == (expected["verdict"], expected["message"]), (code, shown)
        assert "ex-check" in shown["focused"], shown["focused"]
    verdicts = [exercises.check(MUL, code, lang) for code, _ in got["checks"]]
    assert [v["verdict"] for v in verdicts] == ["wrong", "malformed", "right"]
    assert verdicts[1]["problem"] == "tooLong"
    assert verdicts[0]["mistakes"] == ["mul-overwrite"]
    # typed key by key, checked with Ctrl+Enter: the sign flipped, named
    assert got["typed"] == SIGN
    assert got["typed_said"] == exercises.check(MUL, got["typed"], lang)["message"]
    assert w["mistakeMulSign"] in got["typed_said"]
    stopped = w["codeStopped"].replace("{seconds}", "15")
    assert (got["c_loop"]["verdict"], got["c_loop"]["said"]) == ("failed", stopped)


@pytest.mark.parametrize("lang", LANGS)
def test_progress_is_shown_in_the_navigation_kept_and_cleared(sessions, lang):
    got, w = sessions[lang], words(lang)
    assert got["marks_before"] == []
    page_marks = [m for m in got["marks_after"] if "05-branching" in m["page"]]
    fill = {"{solved}": "1", "{total}": "3"}
    nav, label = w["progressNav"], w["progressNavLabel"]
    for key, value in fill.items():
        nav, label = nav.replace(key, value), label.replace(key, value)
    assert page_marks and all(m["text"] == nav and m["name"] == label for m in page_marks), got["marks_after"]
    assert all("05-branching" in m["page"] for m in got["marks_after"]), got["marks_after"]
    assert got["marks_reloaded"] == got["marks_after"]
    assert got["line"] == w["progressLine"].replace("{solved}", "1").replace("{total}", "3")
    assert got["solved_attr"] == w["solved"]
    assert got["cleared_said"] == w["progressCleared"] and got["cleared_role"] == "status"  # announced
    assert "ex-progress-said" in got["cleared_focus"]
    assert got["marks_cleared"] == [] and got["marks_cleared_reloaded"] == []
    # the clear button is offered only when there is something to clear, and hidden otherwise
    assert not got["clear_offered_unsolved"] and not got["clear_offered_cleared"]
    assert got["clear_offered_solved"]
    assert got["said_unsolved"] == w["progressNone"], got["said_unsolved"]
