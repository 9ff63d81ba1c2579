"""An answer the reader corrects while Python loads is the one judged (assets/exercises/check.js).

A new reader's session (2026-12-03) typed a wrong answer, pressed Check, corrected it and pressed Check again
while "Loading Python" showed: the page ignored the second press and, 27 s later, announced the verdict on the
first answer under the corrected one ("not yet: 3 below" with the right number in the field). Here, in both
languages, with the keyboard only, on page 03's first exercise in a fresh context (Python not loaded): a
planted mistake is submitted, the field corrected and submitted again at once; every text the verdict ever
shows is recorded, and the only verdict may be CPython culpa's on the corrected answer.
"""

from __future__ import annotations

import pytest
from test_exercises_in_browser import CHECK_MS, PAGES, typed
from test_explorers import open_page
from visiting import find_chromium, in_ci, wait_until

from sitebuild import exercises
from support.served import LANGS

if find_chromium() is None and not in_ci():
    pytest.skip("browser tests skipped: no Chromium", allow_module_level=True)

LESSON = "worked_example"


@pytest.mark.parametrize("lang", LANGS)
def test_an_answer_corrected_while_python_loads_is_the_one_judged(browser, served_site, lang):
    exercise_id = next(i for i in exercises.ids() if i.startswith(LESSON + "/"))
    ex = exercises.exercise(exercise_id)
    wrong = ex.mistakes[next(iter(ex.mistakes))]()
    wrong = typed(wrong[0] if isinstance(wrong, tuple) else wrong, lang, ex.decimals)
    right = typed(ex.answer(), lang, ex.decimals)
    on_wrong, on_right = exercises.check(exercise_id, wrong, lang), exercises.check(exercise_id, right, lang)
    assert on_wrong["verdict"] == "wrong" and on_right["verdict"] == "right"

    context, tab = open_page(browser, served_site, lang, PAGES[LESSON])
    try:
        root = tab.locator(f'.exercise[data-exercise="{exercise_id}"]')
        root.scroll_into_view_if_needed()
        # every text the verdict shows, from now on
        root.evaluate("(r) => { window.__said = []; new MutationObserver(() => window.__said.push("
                      "r.querySelector('.ex-verdict').textContent)).observe(r.querySelector('.ex-verdict'),"
                      " {childList: true, characterData: true, subtree: true}); }")
        field = root.locator(".ex-answer")
        field.focus()
        tab.keyboard.type(wrong)
        tab.keyboard.press("Enter")
        wait_until(tab, "(r) => r.dataset.checking", arg=root.element_handle(), timeout=10_000)
        field.press("Control+a")
        field.press("Delete")
        tab.keyboard.type(right)
        tab.keyboard.press("Enter")  # while the first check still waits for Python
        assert root.get_attribute("data-checking") == "true", "Python was ready too soon to test the rule"
        wait_until(tab, "(r) => ['right', 'wrong', 'malformed', 'failed'].includes(r.dataset.verdict)"
                        " && !r.dataset.checking && r.querySelector('.ex-verdict').textContent",
                        arg=root.element_handle(), timeout=CHECK_MS)
        said = [s for s in tab.evaluate("window.__said") if s]
        verdict = root.get_attribute("data-verdict")
    finally:
        context.close()
    assert on_wrong["message"] not in said, (
        f"{lang}: the verdict on the answer the reader had already corrected was shown: "
        f"{on_wrong['message']!r}")
    assert verdict == "right" and said[-1] == on_right["message"], (
        f"{lang}: after correcting {wrong!r} to {right!r}, the page says {verdict} {said[-1]!r}, "
        f"CPython culpa says right {on_right['message']!r}")
