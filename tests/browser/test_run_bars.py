"""Run in the page, as a reader meets it before pressing Run: the bars the build put in the page.

- with JavaScript, each runnable block's code has at once its role (textbox), its name and a place in the
  keyboard's order, and becomes editable (contenteditable) once the browser draws it or the reader reaches
  it: a block far from the screen is not made editable while the page loads (it restyles every token:
  assets/run/run.js says why), one scrolled to (a closed <details> opened) becomes editable, one reached
  with Tab is editable with the caret in it; its bar's Run follows it in the keyboard's order, and no
  output box is drawn before a Run prints into it;
- without JavaScript, no bar, no output and no editable code: nothing would run them.
(Running, editing, Reset and Stop: tests/browser/test_run_in_page.py.)
"""

from __future__ import annotations

import pytest
from visiting import NO_CHROMIUM, find_chromium, in_ci, kept_tab, wait_until

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

PAGES = {"pt": "03-worked-example/", "en": "en/03-worked-example/"}
RUN = {"pt": "Executar", "en": "Run"}

STATE = """() => [...document.querySelectorAll('[data-run-block]:not([data-run-skip])')].map((box) => {
  const code = box.querySelector('code') || box.querySelector('pre');
  const k = box.dataset.runBlock;
  const bar = document.querySelector(`[data-run-bar="${k}"]`);
  return {
    k, editable: code.getAttribute('contenteditable'), role: code.getAttribute('role'),
    tabindex: code.getAttribute('tabindex'),
    label: code.getAttribute('aria-label') || '',
    bar: bar ? getComputedStyle(bar).display : null,
    run: bar && bar.querySelector('[data-run="run"]')?.textContent,
  };
})"""


EDITABLE = """() => [...document.querySelectorAll('[data-run-block]:not([data-run-skip])')]
  .map((box) => (box.querySelector('code') || box.querySelector('pre')).isContentEditable)"""


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_code_becomes_editable_when_met_and_tab_goes_from_code_to_run(browser, served_site, lang):
    context, tab = kept_tab(browser, served_site.base + PAGES[lang])
    try:
        wait_until(tab, """() => [...document.querySelectorAll('[data-run-block]:not([data-run-skip])')]
          .every((box) => (box.querySelector('code') || box.querySelector('pre')).getAttribute('role'))""",
                   timeout=10_000)  # run.js has set the blocks up
        tab.wait_for_timeout(1500)  # and the idle browser made what it draws editable (the far ones: never)
        at_load = tab.evaluate(EDITABLE)
        blocks = tab.evaluate(STATE)
        outputs_shown = tab.locator(".run-output:visible").count()  # nothing has run yet
        # the last block far down the page (outside a closed <details>, where nothing takes the focus),
        # reached with the keyboard: editable at once (before the browser draws it), the caret inside it
        reached = tab.evaluate("""() => {
          const code = [...document.querySelectorAll('[data-run-block]:not([data-run-skip])')]
            .filter((box) => !box.closest('details:not([open])')).pop().querySelector('code');
          code.focus();
          return {editable: code.isContentEditable, caret: code.contains(getSelection().anchorNode)};
        }""")
        # every block scrolled to becomes editable (a closed <details> opened first: what it holds is drawn
        # only then)
        tab.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        for box in tab.locator("[data-run-block]:not([data-run-skip])").all():
            box.scroll_into_view_if_needed()
        wait_until(tab, EDITABLE.replace(".map(", ".every("), timeout=10_000)
        blocks_after = tab.evaluate(STATE)
        # keyboard: focus the first block's code, Tab leaves it for its bar's Run (no annotation in between
        # takes the focus away from the code for good: Material's annotation buttons come first)
        code = tab.locator('[data-run-block="0"] code')
        code.focus()
        names = []
        for _ in range(6):
            tab.keyboard.press("Tab")
            names.append(tab.evaluate("document.activeElement.textContent.trim()"))
            if names[-1] == RUN[lang]:
                break
        focused_run = tab.evaluate("document.activeElement.closest('[data-run-bar]')?.dataset.runBar")
    finally:
        context.close()
    assert blocks, f"{PAGES[lang]}: no runnable block"
    assert not all(at_load), f"{PAGES[lang]}: every block made editable at load, the far ones too: {at_load}"
    assert reached == {"editable": True, "caret": True}, f"{PAGES[lang]}: the last block reached: {reached}"
    for b in blocks:
        assert b["role"] == "textbox" and b["tabindex"] == "0", f"{PAGES[lang]} block {b} at load"
        assert b["label"].strip() and b["bar"] != "none" and b["run"] == RUN[lang], f"{PAGES[lang]} block {b}"
    for b in blocks_after:
        assert b["editable"] == "plaintext-only", f"{PAGES[lang]} block {b} after scrolling to it"
    assert outputs_shown == 0, f"{PAGES[lang]}: {outputs_shown} empty outputs drawn before any Run"
    assert focused_run == "0", f"{PAGES[lang]}: Tab from block 0's code went through {names}, not to its Run"


@pytest.mark.parametrize("path", [PAGES["pt"], "labs/build-check-train/"])
def test_without_javascript_no_bar_no_editable_code_and_no_exercise_but_its_solution(browser, served_site,
                                                                                      path):
    context, tab = kept_tab(browser, served_site.base + path, java_script_enabled=False)
    try:
        shown = tab.locator(".run-bar:visible, .run-output:visible").count()
        bars = tab.locator(".run-bar").count()
        editable = tab.locator("[contenteditable]").count()
        # a checked exercise cannot check without JavaScript: hidden, and its solution, right after it, kept
        exercises = tab.evaluate("""() => [...document.querySelectorAll('.exercise')].map((r) => {
          const next = r.nextElementSibling;
          return {shown: r.getClientRects().length > 0,
                  solution: Boolean(next && next.tagName === 'DETAILS'
                                    && next.getClientRects().length)}; })""")
    finally:
        context.close()
    assert bars > 0, f"{path}: no Run bars in its HTML"
    assert shown == 0, f"{path}: {shown} Run bars or outputs shown without JavaScript"
    assert editable == 0, f"{path}: {editable} editable elements without JavaScript"
    if path == PAGES["pt"]:
        assert exercises, f"{path}: no checked exercise in its HTML"
    assert all(e == {"shown": False, "solution": True} for e in exercises), (
        f"{path}: without JavaScript, an exercise shown or its solution not right after it: {exercises}")


# scroll so that the control's top sits under Material's sticky header (where a reader's scroll can leave
# it), move the focus to it from a script, as run.js, keep.js and the exercises do, and say where it is then
FOCUS_FROM_UNDER_THE_HEADER = """(selector) => {
  const control = document.querySelector(selector);
  const header = () => document.querySelector('.md-header').getBoundingClientRect().bottom;
  scrollTo({top: scrollY + control.getBoundingClientRect().top - header() / 2, behavior: 'instant'});
  const before = control.getBoundingClientRect().top;
  control.focus();
  const box = control.getBoundingClientRect();
  return {before, top: box.top, bottom: box.bottom, header: header(), height: innerHeight,
          focused: document.activeElement === control};
}"""
CONTROLS = {"a block's Run": '[data-run="run"]', "a block's code (its caret)": "[data-run-block] code",
            "an exercise's answer": ".ex-answer"}
# where a heading reached by its anchor lands: Material's place for it, 3.4rem = 68 px from the top (its
# scroll-margin of 3.6rem less 0.2rem for h2), 20 px below the header's 48 px; 52 to 76 px accepted
ANCHORED = """() => { const h = document.querySelectorAll('.md-typeset h2[id]')[1];
  location.hash = h.id; return h.getBoundingClientRect().top; }"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}],
                         ids=["desktop", "phone"])
def test_a_control_given_the_focus_is_shown_below_the_sticky_header(browser, served_site, viewport):
    """A control that gets the focus (from Tab, or from a script: the Run button once the keep question
    closes, an exercise's next field, an explorer's first control) scrolls to below Material's sticky
    header, not under it, where the reader could not see where the focus went (site.css's scroll-padding)."""
    context, tab = kept_tab(browser, served_site.base + PAGES["pt"], viewport=viewport,
                            reduced_motion="reduce")
    try:
        wait_until(tab, "() => document.querySelector('[data-run-block] code').getAttribute('role')",
                   timeout=10_000)  # run.js has set the blocks up
        where = {name: tab.evaluate(FOCUS_FROM_UNDER_THE_HEADER, selector)
                 for name, selector in CONTROLS.items()}
        heading_top = tab.evaluate(ANCHORED)
    finally:
        context.close()
    for name, w in where.items():
        assert w["focused"] and w["before"] < w["header"], f"{PAGES['pt']} {viewport}: {name} not set up: {w}"
        assert w["header"] <= w["top"] and w["bottom"] <= w["height"], (
            f"{PAGES['pt']} {viewport}: {name}, focused, is under the sticky header or off screen: {w}")
    assert 52 <= heading_top <= 76, (
        f"{PAGES['pt']} {viewport}: a heading reached by its anchor is at {heading_top} px from the top")
